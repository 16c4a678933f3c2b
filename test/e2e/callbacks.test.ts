/**
 * Merchant callbacks end to end (docs/merchant-guide.md#callbacks): the local runtime as a child process, a real
 * callback receiver on loopback, deposits through the simulation API, and what a merchant can
 * check from outside — one signed callback per state, retries with the same content, parking in
 * the dead-letter queue and the operator's redrive, and delivery despite crashes.
 *
 * One runtime serves the whole file (each start costs seconds); its tests run in order. The
 * callback that is never accepted is started first, so its scaled 72-hour window runs out while
 * the other tests run, among them those of the runtime's queue poller on its own.
 */
import { execFile } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CreateQueueCommand, DeleteQueueCommand, GetQueueAttributesCommand, ReceiveMessageCommand, SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSEvent } from 'aws-lambda';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invoker } from '../../infra/local/functions.js';
import type { RuntimeLog } from '../../infra/local/log.js';
import { batchOutcome, startQueueConsumers, uniqueMessages, type QueueConsumers } from '../../infra/local/queue-consumer.js';
import { localSqsClient } from '../../infra/local/sqs.js';
import type { QueueFunction } from '../../shared/routes.js';
import { callbackBody } from '../../shared/domain/transactions/transaction-callbacks.js';
import { startCallbackReceiver, type CallbackReceiver } from '../support/callback-receiver.js';
import { callApi, dynamoDbLocalProcesses, startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';
import { openRuntimeStack, recordDepositWithoutPublishing, type RuntimeStack } from '../support/runtime-stack.js';
import { eventually } from '../support/wait.js';

const ROOT = new URL('../../', import.meta.url);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A fixed secret, so the test verifies with what it chose, not with what the runtime printed. */
const CALLBACK_SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
/** Shrinks the retry schedule: the 72-hour window lasts 25.9 s, the retries 1-2 s each. */
const RETRY_SCALE = 0.0001;
const WINDOW_MS = 72 * 3600 * 1000 * RETRY_SCALE;
const INVOICE_LIFETIME_S = 4;
const EXPIRY_SWEEP_S = 1;

/** Exactly the Transaction fields of docs/merchant-guide.md#transactions but the retrieval-only ones, plus `callbackType`. */
const CALLBACK_FIELDS = [
  'amount',
  'applicationId',
  'callbackType',
  'currency',
  'customerId',
  'eur',
  'fees',
  'hash',
  'id',
  'info',
  'invoiceId',
  'network',
  'orderId',
  'status',
  'transactionHash',
  'type',
  'usd',
];
const INFO_FIELDS = ['exchangeRate', 'referenceAmount', 'referenceCurrency', 'referenceExchangeRate', 'transactionAmount', 'transactionCurrency'];

let dataDir: string;
let gateway: GatewayProcess;
let stack: RuntimeStack;
let receiver: CallbackReceiver;

/** Orders whose callbacks the receiver refuses with a 500 until released; and orders it refuses the first N times. */
const refusedOrders = new Set<string>();
const failFirst = new Map<string, number>();

const runtimeEnv = () => ({
  GATEWAY_DEMO_CALLBACK_URL: receiver.url,
  GATEWAY_DEMO_CALLBACK_SECRET: CALLBACK_SECRET,
  GATEWAY_RETRY_SCALE: String(RETRY_SCALE),
  GATEWAY_INVOICE_LIFETIME_S: String(INVOICE_LIFETIME_S),
  GATEWAY_EXPIRY_SWEEP_S: String(EXPIRY_SWEEP_S),
});

beforeAll(async () => {
  receiver = await startCallbackReceiver((callback) => {
    const orderId = callback.json?.orderId as string | undefined;
    if (orderId !== undefined && refusedOrders.has(orderId)) return 500;
    if (orderId !== undefined && callback.attempt <= (failFirst.get(orderId) ?? 0)) return 500;
    return 200;
  });
  dataDir = await mkdtemp(join(tmpdir(), 'gateway-callbacks-'));
  // Its own DynamoDB Local, which a crash of the runtime leaves behind (below).
  gateway = await startGatewayProcess({ dataDir, ownStore: true, env: runtimeEnv() });
  stack = await openRuntimeStack(dataDir);
});

afterAll(async () => {
  stack?.close();
  await gateway?.stop();
  // Only if a test failed between a crash and the restart that cleans up after it.
  if (dataDir) for (const pid of dynamoDbLocalProcesses(dataDir)) process.kill(pid, 'SIGKILL');
  await receiver?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

const api = (method: 'GET' | 'POST', path: string, body?: unknown) => callApi(gateway, method, path, body);

async function createInvoice(fields: Record<string, unknown>): Promise<any> {
  const response = await api('POST', '/api/v2/invoices', { customerId: `cust-${randomUUID().slice(0, 8)}`, ...fields });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.data;
}

const cryptoInvoice = (orderId: string) => createInvoice({ orderId, baseCurrency: 'USDT', invoiceStrategy: 'fixed', amount: 25, applicationId: 'app-crypto' });
const fiatInvoice = (orderId: string) => createInvoice({ orderId, baseCurrency: 'INR', amount: 1000, applicationId: 'app-fiat' });

async function simulateDeposit(invoiceId: string): Promise<any> {
  const response = await api('POST', '/api/v2/simulate/deposit', { invoiceId });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.data;
}

const getInvoice = async (id: string) => (await api('GET', `/api/v2/invoices/${id}`)).body.data;

/** docs/merchant-guide.md#the-transaction-hash, computed here from the formula rather than with the gateway's own code. */
const expectedHash = (t: { id: string; customerId: string; amount: string; currency: string }) =>
  createHash('sha512')
    .update(`${t.id}.${t.customerId === '' ? 'N/A' : t.customerId}.${t.amount}.${t.currency}.${CALLBACK_SECRET}`, 'utf8')
    .digest('base64');

const headerText = (value: string | string[] | undefined): string => (Array.isArray(value) ? value.join(', ') : (value ?? ''));

/** Everything a merchant checks on a callback, and that retrieval returns the same record. */
async function expectVerifiableCallback(callback: { headers: Record<string, string | string[] | undefined>; body: string; json: any }, transactionId: string) {
  const headers = Object.fromEntries(['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => [name, headerText(callback.headers[name])]));
  expect(headers['webhook-id']).toBe(`${transactionId}:confirmed`);
  expect(headerText(callback.headers['content-type'])).toMatch(/^application\/json/);
  expect(new Webhook(CALLBACK_SECRET).verify(callback.body, headers)).toEqual(callback.json);

  const payload = callback.json;
  expect(Object.keys(payload).sort()).toEqual(CALLBACK_FIELDS);
  expect(Object.keys(payload.info).sort()).toEqual(INFO_FIELDS);
  expect(Object.keys(payload.fees).sort()).toEqual(['processing', 'technical']);
  expect(payload).toMatchObject({ id: transactionId, callbackType: 'transaction', type: 'deposit', status: 'confirmed' });
  expect(payload.hash).toBe(expectedHash(payload));

  const retrieved = await api('GET', `/api/v2/transaction/${transactionId}`);
  expect(retrieved.status).toBe(200);
  const { createdAt, updatedAt, senderDetails, ...rest } = retrieved.body.data;
  expect(createdAt).toMatch(/Z$/);
  expect(updatedAt).toMatch(/Z$/);
  expect(Object.keys(senderDetails).sort()).toEqual(['senderAccountNumber', 'senderIban', 'senderSortCode']);
  expect(retrieved.body.data.hash).toBe(payload.hash);
  expect({ ...rest, callbackType: 'transaction' }).toEqual(payload);
}

/** The webhook-ids of the two plain deposits, checked again at the end for a second callback. */
const plainDeposits: string[] = [];

// Started first: the receiver never accepts it, so it runs through the whole retry window meanwhile.
const parked: { orderId: string; transactionId?: string } = { orderId: `refused-${randomUUID()}` };

describe('a callback the merchant never accepts (1/2)', () => {
  it('is attempted and refused', async () => {
    refusedOrders.add(parked.orderId);
    const invoice = await cryptoInvoice(parked.orderId);
    parked.transactionId = (await simulateDeposit(invoice.id)).id;
    const first = await eventually(() => receiver.byWebhookId(`${parked.transactionId}:confirmed`)[0], { what: 'the first attempt' });
    expect(first.status).toBe(500);
  });
});

describe('a deposit', () => {
  it('in crypto brings exactly one callback that verifies, and completes the invoice', async () => {
    const orderId = `crypto-${randomUUID()}`;
    const invoice = await cryptoInvoice(orderId);
    const deposit = await simulateDeposit(invoice.id);
    const callback = await receiver.waitForDelivery((c) => c.json?.id === deposit.id);
    await expectVerifiableCallback(callback, deposit.id);
    expect(callback.json).toMatchObject({
      invoiceId: invoice.id,
      orderId,
      applicationId: 'app-crypto',
      customerId: invoice.customerId,
      currency: 'USDT',
      amount: '25.000000',
      network: invoice.wallet.networks[0],
    });
    expect(callback.json.transactionHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(receiver.byWebhookId(callback.webhookId)).toHaveLength(1);
    plainDeposits.push(callback.webhookId);
    expect(await getInvoice(invoice.id)).toMatchObject({ status: 'completed' });
  });

  it('in local fiat brings exactly one callback that verifies, with no network or chain hash', async () => {
    const orderId = `fiat-${randomUUID()}`;
    const invoice = await fiatInvoice(orderId);
    const deposit = await simulateDeposit(invoice.id);
    const callback = await receiver.waitForDelivery((c) => c.json?.id === deposit.id);
    await expectVerifiableCallback(callback, deposit.id);
    expect(callback.json).toMatchObject({
      invoiceId: invoice.id,
      orderId,
      applicationId: 'app-fiat',
      customerId: invoice.customerId,
      currency: 'INR',
      amount: '1000.00',
      network: null,
      transactionHash: null,
    });
    expect(receiver.byWebhookId(callback.webhookId)).toHaveLength(1);
    plainDeposits.push(callback.webhookId);
    expect(await getInvoice(invoice.id)).toMatchObject({ status: 'completed' });
  });
});

describe('a receiver that fails at first', () => {
  it('gets the callback on a later attempt, with the same body and webhook-id every time', async () => {
    const orderId = `flaky-${randomUUID()}`;
    failFirst.set(orderId, 2);
    const invoice = await cryptoInvoice(orderId);
    const deposit = await simulateDeposit(invoice.id);
    const delivered = await receiver.waitForDelivery((c) => c.json?.id === deposit.id);
    const attempts = receiver.byWebhookId(delivered.webhookId);
    expect(attempts.map((a) => a.status)).toEqual([500, 500, 200]);
    expect(new Set(attempts.map((a) => a.body)).size).toBe(1);
    // Each retry waits for the message's visibility to end: at least a second here.
    expect(attempts[1]!.at - attempts[0]!.at).toBeGreaterThanOrEqual(900);
    await expectVerifiableCallback(delivered, deposit.id);

    // The sender records the delivery once the receiver's answer is back, a moment after the receiver saw it.
    const entry = await eventually(
      async () => {
        const recorded = await stack.outbox.get(delivered.webhookId);
        return recorded?.deliveredAt === undefined ? undefined : recorded;
      },
      { what: 'the delivery recorded in the outbox' },
    );
    expect(entry.attempts.map((a) => a.status)).toEqual([500, 500, 200]);
  });
});

describe('a writer that dies between its database write and its enqueue', () => {
  it('still gets its callback delivered: the outbox sweep hands it to the queue', async () => {
    const invoice = await cryptoInvoice(`orphan-${randomUUID()}`);
    const { transaction, callback } = await recordDepositWithoutPublishing(stack, invoice.id);
    expect((await stack.outbox.get(callback.id))?.publishedAt).toBeUndefined();
    const delivered = await receiver.waitForDelivery((c) => c.webhookId === callback.id);
    expect(delivered.body).toBe(callbackBody(callback, CALLBACK_SECRET));
    await expectVerifiableCallback(delivered, transaction.id);
    expect((await stack.outbox.get(callback.id))?.publishedAt).toBeDefined();
  });
});

describe('an invoice whose lifetime ends', () => {
  let fiat: any;
  let coin: any;

  it('is canceled by the expiry sweep', async () => {
    [fiat, coin] = await Promise.all([fiatInvoice(`late-fiat-${randomUUID()}`), cryptoInvoice(`late-crypto-${randomUUID()}`)]);
    for (const invoice of [fiat, coin]) {
      const canceled = await eventually(
        async () => {
          const current = await getInvoice(invoice.id);
          return current.status === 'canceled' && current;
        },
        { timeoutMs: (INVOICE_LIFETIME_S + 3 * EXPIRY_SWEEP_S + 5) * 1000, what: `invoice ${invoice.id} to expire` },
      );
      expect(canceled).toMatchObject({ status: 'canceled', cancelReason: 'expired' });
    }
  });

  it('refuses a simulated fiat deposit with 410 gone', async () => {
    const response = await api('POST', '/api/v2/simulate/deposit', { invoiceId: fiat.id });
    expect(response.status).toBe(410);
    expect(response.body).toMatchObject({ success: false, errors: [{ code: 'gone' }] });
    expect(await getInvoice(fiat.id)).toMatchObject({ status: 'canceled', cancelReason: 'expired' });
  });

  it('credits a simulated crypto deposit: completed, paid late, called back', async () => {
    const response = await api('POST', '/api/v2/simulate/deposit', { invoiceId: coin.id });
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ status: 'confirmed', type: 'deposit', invoiceId: coin.id });
    expect(await getInvoice(coin.id)).toMatchObject({ status: 'completed', paidLate: true });
    const callback = await receiver.waitForDelivery((c) => c.json?.id === response.body.data.id);
    await expectVerifiableCallback(callback, response.body.data.id);
  });
});

describe('simulate-withdrawal', () => {
  it('refuses a deposit transaction with 422 on transactionId', async () => {
    const invoice = await cryptoInvoice(`withdraw-${randomUUID()}`);
    const deposit = await simulateDeposit(invoice.id);
    const response = await api('POST', '/api/v2/simulate/withdrawal', { transactionId: deposit.id, status: 'confirmed' });
    expect(response.status).toBe(422);
    expect(response.body).toMatchObject({ success: false, errors: [{ code: 'unprocessable_content', field: 'transactionId' }] });
  });

  it('answers an unknown transaction with 404', async () => {
    const response = await api('POST', '/api/v2/simulate/withdrawal', { transactionId: randomUUID(), status: 'confirmed' });
    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ success: false, errors: [{ code: 'not_found' }] });
  });
});

/**
 * The runtime's queue poller on its own, in this process, against a queue of its own on the test
 * run's SQS server, with a stand-in function: what it deletes, what it leaves, how it stops.
 */
describe('the local queue poller', () => {
  const fn: QueueFunction = { kind: 'queue', name: 'consume-test', queue: 'callbacks', batchSize: 3, stages: ['demo'], tables: {} };
  let sqs: SQSClient;
  let queueUrl: string;
  let consumers: QueueConsumers | undefined;
  const warnings: string[] = [];
  const log: RuntimeLog = { info: () => undefined, warn: (m) => warnings.push(m), error: (m) => warnings.push(m) };

  beforeAll(async () => {
    sqs = localSqsClient(process.env.AWS_ENDPOINT_URL_SQS!);
    ({ QueueUrl: queueUrl } = (await sqs.send(new CreateQueueCommand({ QueueName: `poller-${randomUUID()}`, Attributes: { VisibilityTimeout: '1' } }))) as { QueueUrl: string });
  });

  afterAll(async () => {
    await consumers?.stop();
    await sqs.send(new DeleteQueueCommand({ QueueUrl: queueUrl }));
    sqs.destroy();
  });

  const send = (bodies: string[]) => sqs.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: bodies.map((MessageBody, i) => ({ Id: String(i), MessageBody })) }));
  /** Messages on the queue, in flight included (the local server counts those in ApproximateNumberOfMessages too). */
  const queueDepth = async () => {
    const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['ApproximateNumberOfMessages'] }));
    return Number(Attributes!.ApproximateNumberOfMessages);
  };
  const STOP_GRACE_MS = 2_000;
  /** Two batches at once, as a function with a reserved concurrency of 2 would take them. */
  const CONCURRENCY = 2;
  const start = (handler: (event: SQSEvent, context: Context) => Promise<unknown>, url = queueUrl, batchSize = fn.batchSize) =>
    (consumers = startQueueConsumers([{ fn: { ...fn, batchSize }, source: { url, arn: 'arn:aws:sqs:us-east-1:000000000000:poller' }, concurrency: CONCURRENCY }], {
      sqs,
      invoke: invoker(async () => handler as never),
      log,
      region: 'us-east-1',
      stopGraceMs: STOP_GRACE_MS,
    }));

  it('hands over Lambda-shaped batches, up to its concurrency at once, and deletes all but the reported failures', async () => {
    const events: SQSEvent[] = [];
    const contexts: Context[] = [];
    let running = 0;
    let mostAtOnce = 0;
    let bFailed = false;
    await send(['a', 'b', 'c', 'd', 'e', 'f']);
    start(async (event, context) => {
      events.push(event);
      contexts.push(context);
      mostAtOnce = Math.max(mostAtOnce, ++running);
      await new Promise((resolveSlow) => setTimeout(resolveSlow, 100));
      running--;
      // `b` fails the first time; everything else succeeds.
      const failing = bFailed ? [] : event.Records.filter((r) => r.body === 'b');
      if (failing.length > 0) bFailed = true;
      return { batchItemFailures: failing.map((r) => ({ itemIdentifier: r.messageId })) };
    });
    const bodies = () => events.flatMap((e) => e.Records.map((r) => r.body));
    await eventually(() => bodies().filter((b) => b === 'b').length === 2, { timeoutMs: 10_000, what: 'the retried message' });
    await eventually(async () => (await queueDepth()) === 0, { timeoutMs: 5_000, what: 'an empty queue' });
    await consumers!.stop();

    expect(bodies().sort()).toEqual(['a', 'b', 'b', 'c', 'd', 'e', 'f']);
    expect(Math.max(...events.map((e) => e.Records.length))).toBe(3);
    expect(mostAtOnce).toBe(CONCURRENCY);
    const record = events.at(-1)!.Records.find((r) => r.body === 'b')!;
    expect(record).toEqual({
      messageId: expect.stringMatching(UUID),
      receiptHandle: expect.any(String),
      body: 'b',
      attributes: expect.objectContaining({ ApproximateReceiveCount: expect.any(String), SentTimestamp: expect.stringMatching(/^\d+$/) }),
      messageAttributes: {},
      md5OfBody: createHash('md5').update('b').digest('hex'),
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:poller',
      awsRegion: 'us-east-1',
    });
    expect(Number(record.attributes.ApproximateReceiveCount)).toBeGreaterThanOrEqual(2);
    expect(contexts[0]).toMatchObject({ functionName: 'consume-test', invokedFunctionArn: expect.stringMatching(/:function:consume-test$/) });
  });

  it('goes on with the queue while a batch hangs, and lets go of that batch, undeleted, once the grace period is over', async () => {
    const handled: string[] = [];
    let release: () => void = () => undefined;
    const hanging = new Promise<void>((resolveHanging) => (release = resolveHanging));
    await send(['hangs']);
    // Batches of one: the local server answers a receive as soon as it has a full batch.
    start(
      async (event) => {
        const [record] = event.Records;
        handled.push(record!.body);
        if (record!.body === 'hangs') await hanging;
      },
      queueUrl,
      1,
    );
    await eventually(() => handled.includes('hangs'), { what: 'the hanging batch' });
    await send(['x', 'y', 'z']);
    // One slot is held by the hanging batch; the other takes the three in turn, each receive
    // answered at once (the callbacks queue has no batching window), as Lambda's poller does.
    await eventually(() => ['x', 'y', 'z'].every((body) => handled.includes(body)), { timeoutMs: 15_000, what: 'the other batches, beside the hanging one' });

    warnings.length = 0;
    const began = Date.now();
    await consumers!.stop();
    expect(Date.now() - began).toBeGreaterThanOrEqual(STOP_GRACE_MS - 50);
    expect(Date.now() - began).toBeLessThan(STOP_GRACE_MS + 1_000);
    expect(warnings).toEqual([expect.stringContaining('consume-test was still handling a batch')]);
    // Let go of, it is not deleted even when it ends: its message comes back (visibility 1 s).
    release();
    await eventually(async () => (await queueDepth()) === 1, { timeoutMs: 5_000, what: 'only the hanging message left' });
    start(async () => undefined, queueUrl, 1);
    await eventually(async () => (await queueDepth()) === 0, { timeoutMs: 5_000, what: 'an empty queue' });
    await consumers!.stop();
  });

  it('reads answers as Lambda does, and keeps one record per message id', () => {
    const records = [{ messageId: 'm1' }, { messageId: 'm2' }] as SQSEvent['Records'];
    expect(batchOutcome(undefined, records)).toEqual({ failed: new Set() });
    expect(batchOutcome({ batchItemFailures: [] }, records)).toEqual({ failed: new Set() });
    expect(batchOutcome({ batchItemFailures: [{ itemIdentifier: 'm2' }] }, records)).toEqual({ failed: new Set(['m2']) });
    expect(batchOutcome({ batchItemFailures: [{ itemIdentifier: 'other' }] }, records)).toMatchObject({ failed: 'all' });
    expect(batchOutcome({ batchItemFailures: [{ itemIdentifier: '' }] }, records)).toMatchObject({ failed: 'all' });
    expect(batchOutcome('ok', records)).toMatchObject({ failed: 'all' });
    const twice = uniqueMessages([
      { MessageId: 'm1', ReceiptHandle: 'r1', Body: 'x' },
      { MessageId: 'm2', ReceiptHandle: 'r2', Body: 'y' },
      { MessageId: 'm1', ReceiptHandle: 'r3', Body: 'x' },
    ]);
    expect(twice).toEqual([
      { MessageId: 'm1', ReceiptHandle: 'r3', Body: 'x' },
      { MessageId: 'm2', ReceiptHandle: 'r2', Body: 'y' },
    ]);
  });

  it('deletes nothing when the function throws', async () => {
    let calls = 0;
    await send(['boom']);
    // Batches of one: the local server answers a receive as soon as it has a full batch.
    start(
      async () => {
        calls++;
        throw new Error('the function crashed');
      },
      queueUrl,
      1,
    );
    await eventually(() => calls >= 2, { timeoutMs: 10_000, what: 'the message to come back' });
    await consumers!.stop();
    expect(await queueDepth()).toBe(1);
    expect(warnings.some((w) => w.includes('consume-test failed on a batch'))).toBe(true);
    // Drain it for the next test.
    start(async () => undefined, queueUrl, 1);
    await eventually(async () => (await queueDepth()) === 0, { timeoutMs: 5_000, what: 'an empty queue' });
    await consumers!.stop();
  });

  it('stops at once, in the middle of a long poll or of a back-off after SQS errors', async () => {
    let calls = 0;
    start(async () => calls++);
    await new Promise((resolveWait) => setTimeout(resolveWait, 300));
    let began = Date.now();
    await consumers!.stop();
    expect(Date.now() - began).toBeLessThan(250);

    warnings.length = 0;
    start(async () => calls++, `${queueUrl}-missing`);
    await new Promise((resolveWait) => setTimeout(resolveWait, 1_000));
    began = Date.now();
    await consumers!.stop();
    expect(Date.now() - began).toBeLessThan(250);
    // Backed off (250 ms, then 500 ms, ...) rather than hammering the server.
    expect(warnings.length).toBeGreaterThanOrEqual(1);
    expect(warnings.length).toBeLessThanOrEqual(4);
    expect(warnings[0]).toMatch(/receiving from .* failed/);
    expect(calls).toBe(0);
  });
});

describe('a callback the merchant never accepts (2/2)', () => {
  const callbackId = () => `${parked.transactionId}:confirmed`;

  it('is parked in the dead-letter queue once the retry window closes, every attempt recorded', async () => {
    const entry = await eventually(
      async () => {
        const current = await stack.outbox.get(callbackId());
        return current?.parkedAt !== undefined && current;
      },
      { timeoutMs: WINDOW_MS + 30_000, intervalMs: 250, what: 'the callback to be parked' },
    );
    expect(entry.deliveredAt).toBeUndefined();

    const { Messages } = await stack.sqs.send(new ReceiveMessageCommand({ QueueUrl: stack.callbackDlqUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1, VisibilityTimeout: 0 }));
    expect(Messages?.map((m) => JSON.parse(m.Body!))).toContainEqual({ callbackId: callbackId() });

    const attempts = entry.attempts;
    const received = receiver.byWebhookId(callbackId());
    expect(attempts.length).toBeGreaterThanOrEqual(5);
    expect(attempts).toHaveLength(received.length);
    for (const attempt of attempts) {
      expect(attempt.at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(attempt.status).toBe(500);
      expect(attempt.latencyMs).toBeGreaterThanOrEqual(0);
    }
    const times = attempts.map((a) => Date.parse(a.at));
    // Parked on the first failure after which the next retry would fall outside the window.
    expect(times.at(-1)! - times[0]!).toBeGreaterThan(WINDOW_MS - 3_000);
    expect(Date.parse(entry.parkedAt!)).toBeGreaterThanOrEqual(times.at(-1)!);
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(900);
    expect(new Set(received.map((c) => c.body)).size).toBe(1);
  });

  it('is delivered after npm run merchant -- redrive-callbacks, once the receiver accepts it', async () => {
    refusedOrders.delete(parked.orderId);
    const { stdout } = await promisify(execFile)('npm', ['run', '--silent', 'merchant', '--', 'redrive-callbacks', '--json'], {
      cwd: ROOT,
      env: { ...process.env, GATEWAY_DATA_DIR: dataDir },
    });
    expect(JSON.parse(stdout)).toEqual({ requeued: 1 });

    const delivered = await receiver.waitForDelivery((c) => c.webhookId === callbackId());
    expect(delivered.body).toBe(receiver.byWebhookId(callbackId())[0]!.body);
    await expectVerifiableCallback(delivered, parked.transactionId!);
    const entry = await eventually(async () => {
      const current = await stack.outbox.get(callbackId());
      return current?.deliveredAt !== undefined && current;
    });
    expect(entry.parkedAt).toBeUndefined();
  });
});

describe('a crash of the whole runtime', () => {
  it('loses no callback: the unpublished one and the one in the queue are both delivered after a restart', async () => {
    // One callback handed to the queue and waiting for a retry when the runtime dies...
    const inQueueOrder = `in-queue-${randomUUID()}`;
    refusedOrders.add(inQueueOrder);
    const inQueueDeposit = await simulateDeposit((await cryptoInvoice(inQueueOrder)).id);
    const inQueueId = `${inQueueDeposit.id}:confirmed`;
    await eventually(() => receiver.byWebhookId(inQueueId).length > 0, { what: 'the first attempt of the queued callback' });
    // ...and one written without being published.
    const { callback: unpublished } = await recordDepositWithoutPublishing(stack, (await fiatInvoice(`unpublished-${randomUUID()}`)).id);

    stack.close();
    const [leftoverDynamo] = dynamoDbLocalProcesses(dataDir);
    await gateway.crash();
    // DynamoDB Local outlives a killed runtime; the next start stops it before it starts its own.
    expect(dynamoDbLocalProcesses(dataDir)).toEqual([leftoverDynamo]);
    refusedOrders.delete(inQueueOrder);
    gateway = await startGatewayProcess({ dataDir, ownStore: true, env: runtimeEnv() });
    stack = await openRuntimeStack(dataDir);
    expect(gateway.output()).toContain(`stopped the DynamoDB Local (pid ${leftoverDynamo}) it left running`);
    expect(dynamoDbLocalProcesses(dataDir)).toHaveLength(1);
    expect(dynamoDbLocalProcesses(dataDir)).not.toContain(leftoverDynamo);
    expect(gateway.output()).toContain('Undelivered callbacks handed to the queue again: 1\n');

    const [afterRestart, orphan] = await Promise.all([receiver.waitForDelivery((c) => c.webhookId === inQueueId, 20_000), receiver.waitForDelivery((c) => c.webhookId === unpublished.id, 20_000)]);
    expect(afterRestart.body).toBe(receiver.byWebhookId(inQueueId)[0]!.body);
    await expectVerifiableCallback(afterRestart, inQueueDeposit.id);
    expect(orphan.body).toBe(callbackBody(unpublished, CALLBACK_SECRET));
    await expectVerifiableCallback(orphan, unpublished.transactionId!);
  });
});

describe('every callback received in this file', () => {
  it('has one content per webhook-id, byte for byte', () => {
    const bodies = new Map<string, Set<string>>();
    for (const callback of receiver.received) {
      expect(callback.webhookId).toMatch(new RegExp(`^${UUID.source.slice(1, -1)}:confirmed$`));
      bodies.set(callback.webhookId, (bodies.get(callback.webhookId) ?? new Set()).add(callback.body));
    }
    expect(bodies.size).toBeGreaterThanOrEqual(9);
    for (const [webhookId, distinct] of bodies) expect(distinct.size, webhookId).toBe(1);
  });

  it('includes still exactly one callback for each plain deposit, tens of seconds later', () => {
    expect(plainDeposits).toHaveLength(2);
    for (const webhookId of plainDeposits) expect(receiver.byWebhookId(webhookId)).toHaveLength(1);
  });
});

describe('the runtime', () => {
  it('stops on SIGTERM promptly and cleanly, its pollers and schedules with it', async () => {
    const began = Date.now();
    expect(await gateway.stop()).toBe(0);
    expect(Date.now() - began).toBeLessThan(8_000);
    expect(gateway.output()).toMatch(/SIGTERM: stopping\nStopped\n$/);
    // The one warning of this run is the leftover DynamoDB Local of the crash before it.
    expect(gateway.output().replace(/^warning: The last run did not stop cleanly.*\n/m, '')).not.toMatch(/^(error|warning):|Unhandled|ERR_/m);
  });
});
