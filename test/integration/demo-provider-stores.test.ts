/**
 * The demo provider's AWS adapters against the test run's local services: its store in DynamoDB
 * Local (a table of its own, created as the local process creates it) deciding races by its
 * conditional writes, and its scheduler's delayed messages on an SQS-compatible queue.
 */
import { randomUUID } from 'node:crypto';
import { CreateQueueCommand, DeleteMessageCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ensureTable, localDynamoClient } from '../../infra/local/dynamodb.js';
import { randomLocalCredentials } from '../../infra/local/environment.js';
import { localSqsClient } from '../../infra/local/sqs.js';
import { DynamoDemoStore } from '../../demo-provider/adapters/dynamo-store.js';
import { SqsScheduler } from '../../demo-provider/adapters/sqs-scheduler.js';
import type { Job } from '../../demo-provider/core/ports.js';
import { chosenOutcome, paymentReferenceOf, payoutReferenceOf, type PaymentRecord, type PayoutRecord } from '../../demo-provider/core/records.js';
import { DEMO_PROVIDER_TABLE, RECORD_RETENTION_DAYS } from '../../demo-provider/table.js';
import { eventually } from '../support/wait.js';

const env = inject('gatewayEnv');
const TABLE = 'demo-provider';
const dynamo = localDynamoClient(env.AWS_ENDPOINT_URL_DYNAMODB!, randomLocalCredentials());
const documents = DynamoDBDocumentClient.from(dynamo, { marshallOptions: { removeUndefinedValues: true } });
const store = new DynamoDemoStore(documents, TABLE);

beforeAll(async () => {
  await ensureTable(dynamo, TABLE, DEMO_PROVIDER_TABLE);
  // Safe on every start.
  await ensureTable(dynamo, TABLE, DEMO_PROVIDER_TABLE);
});

afterAll(() => dynamo.destroy());

const payment = (fields: Partial<PaymentRecord> = {}): PaymentRecord => {
  const reference = randomUUID();
  return {
    kind: 'payment',
    providerReference: paymentReferenceOf(reference),
    reference,
    amount: '1500.00',
    currency: 'INR',
    method: 'p2p',
    returnUrl: 'https://shop.example/return',
    notifyUrl: 'https://gateway.example/api/v2/providers/demo/events',
    createdAt: new Date().toISOString(),
    ...fields,
  };
};

describe('the DynamoDB store', () => {
  it('adds a record once however many requests race, and purges it after the retention', async () => {
    const record = payment();
    const results = await Promise.all(Array.from({ length: 8 }, () => store.addOnce(record)));
    expect(results.filter((result) => result.added)).toHaveLength(1);
    for (const { stored } of results) expect(stored).toEqual(record);
    expect(await store.get(record.providerReference)).toEqual(record);
    const { Item } = await documents.send(new GetCommand({ TableName: TABLE, Key: { providerReference: record.providerReference } }));
    expect(Item!.purgeAt).toBe(Math.floor(Date.parse(record.createdAt) / 1000) + RECORD_RETENTION_DAYS * 24 * 3600);
  });

  it('answers a second add with the first record, not the new one', async () => {
    const first = payment();
    await store.addOnce(first);
    expect(await store.addOnce({ ...first, amount: '1.00' })).toEqual({ stored: first, added: false });
  });

  it('keeps the first UTR of a payment, and says which it kept', async () => {
    const record = payment();
    await store.addOnce(record);
    const [a, b] = await Promise.all([
      store.setUtrOnce(record.providerReference, '412345678901', '2026-01-01T00:00:02.000Z'),
      store.setUtrOnce(record.providerReference, '412345678902', '2026-01-01T00:00:03.000Z'),
    ]);
    expect(a.utr).toBe(b.utr);
    expect(a.utrDecidesAt).toBe(b.utrDecidesAt);
    expect((await store.get(record.providerReference)) as PaymentRecord).toMatchObject({ utr: a.utr, utrDecidesAt: a.utrDecidesAt });
  });

  it('records one outcome of a payment, whichever comes first', async () => {
    const record = payment({ currency: 'TRY', method: 'wallet' });
    await store.addOnce(record);
    const outcomes = [chosenOutcome(record, 'confirmed', new Date()), chosenOutcome(record, 'failed', new Date())];
    const recorded = await Promise.all(outcomes.map((outcome) => store.recordOutcomeOnce(record.providerReference, outcome)));
    expect(recorded.filter(Boolean)).toHaveLength(1);
    expect(((await store.get(record.providerReference)) as PaymentRecord).outcome).toEqual(outcomes[recorded.indexOf(true)]);
  });

  it('writes no UTR and no outcome to a payout, nor to a record that is not there', async () => {
    const reference = randomUUID();
    const payout: PayoutRecord = { kind: 'payout', providerReference: payoutReferenceOf(reference), reference, amount: '10.00', currency: 'TRY', createdAt: new Date().toISOString() };
    await store.addOnce(payout);
    await expect(store.setUtrOnce(payout.providerReference, '412345678901', new Date().toISOString())).rejects.toThrow(/not a payment/);
    expect(await store.recordOutcomeOnce(payout.providerReference, chosenOutcome(payment(), 'failed', new Date()))).toBe(false);
    expect(await store.get(payout.providerReference)).toEqual(payout);
    expect(await store.recordOutcomeOnce('pay_missing', chosenOutcome(payment(), 'failed', new Date()))).toBe(false);
    expect(await store.get('pay_missing')).toBeUndefined();
  });
});

describe('the SQS scheduler', () => {
  const sqs = localSqsClient(env.AWS_ENDPOINT_URL_SQS!);
  let queueUrl: string;
  beforeAll(async () => {
    ({ QueueUrl: queueUrl } = (await sqs.send(new CreateQueueCommand({ QueueName: `demo-provider-${randomUUID()}` }))) as { QueueUrl: string });
  });
  afterAll(() => sqs.destroy());

  it('holds a job back until it is due, then hands it over', async () => {
    const scheduler = new SqsScheduler(sqs, queueUrl, () => new Date());
    const job: Job = { kind: 'deliver-event', providerReference: 'pay_1', attempt: 2, firstAttemptAt: new Date().toISOString() };
    const scheduledAt = Date.now();
    await scheduler.schedule(job, new Date(scheduledAt + 2000));
    expect((await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, WaitTimeSeconds: 0 }))).Messages ?? []).toEqual([]);
    const message = await eventually(async () => (await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, WaitTimeSeconds: 0 }))).Messages?.[0], { what: 'the delayed message' });
    expect(Date.now() - scheduledAt).toBeGreaterThanOrEqual(1900);
    const ran: Job[] = [];
    await scheduler.receive(message.Body!, async (due) => void ran.push(due));
    await sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle! }));
    expect(ran).toEqual([job]);
  });
});
