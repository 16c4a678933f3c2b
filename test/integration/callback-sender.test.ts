import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CreateQueueCommand, DeleteMessageCommand, ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { config } from '../../shared/config.js';
import { callbackBody } from '../../shared/domain/callbacks.js';
import { transactionHash } from '../../shared/domain/transactions.js';
import { businessMetrics } from '../../shared/observability/metrics.js';
import { DELIVERY_FAILURES, httpDeliver } from '../../shared/outbound/http-delivery.js';
import { CallbackSender, RetryLater, type Deliver } from '../../shared/queue/callback-sender.js';
import { sqsClient } from '../../shared/queue/sqs.js';
import { documentClient } from '../../shared/store/dynamo.js';
import { DynamoOutboxStore, outboxPut } from '../../shared/store/outbox.js';
import { TABLES } from '../../shared/store/tables.js';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { seedMerchant, testCallbackSecrets, testMerchantStore, type SeededMerchant } from '../support/merchants.js';

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  path: string;
}

let receiver: Server;
let receiverUrl: string;
const received: Received[] = [];
/** Status the receiver answers with, per path. */
const answers = new Map<string, number>();

const outbox = () => new DynamoOutboxStore(documentClient, config().tables.outbox);
let queueUrl: string;
let deadLetterQueueUrl: string;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      received.push({ headers: req.headers, body, path: req.url ?? '' });
      const status = answers.get(req.url ?? '') ?? 200;
      if (status === 0) return; // never answer
      res.writeHead(status, status === 302 ? { location: `${receiverUrl}/elsewhere` } : {}).end();
    });
  });
  receiver.listen(0, '127.0.0.1');
  await once(receiver, 'listening');
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  const name = `sender-test-${randomUUID()}`;
  queueUrl = (await sqsClient.send(new CreateQueueCommand({ QueueName: name }))).QueueUrl!;
  deadLetterQueueUrl = (await sqsClient.send(new CreateQueueCommand({ QueueName: `${name}-dlq` }))).QueueUrl!;
});

afterAll(async () => {
  receiver.closeAllConnections();
  receiver.close();
});

async function merchantAt(path: string | null): Promise<SeededMerchant> {
  return seedMerchant({ name: 'callbacks', callbackUrl: path === null ? null : `${receiverUrl}${path}` });
}

/** An outbox entry and its message on the test queue, received as the consumer would see it. */
async function queuedCallback({ merchant, callbackSecret }: SeededMerchant): Promise<{ id: string; record: SQSRecord; body: string }> {
  const transactionId = randomUUID();
  const id = `${transactionId}:confirmed`;
  const payload = JSON.stringify({ id: transactionId, status: 'confirmed', amount: '25.000000', currency: 'USDT', customerId: 'c-1', callbackType: 'transaction' });
  // What the receiver must get: the fields with the transaction's hash under the merchant's secret.
  const body = callbackBody({ payload }, callbackSecret);
  await documentClient.send(
    new TransactWriteCommand({
      TransactItems: [outboxPut(config().tables.outbox, { id, merchantId: merchant.id, transactionId, payload, createdAt: new Date().toISOString() })],
    }),
  );
  await sqsClient.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify({ callbackId: id }) }));
  const { Messages } = await sqsClient.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 1, WaitTimeSeconds: 1 }));
  const message = Messages![0]!;
  return { id, body, record: { messageId: message.MessageId!, receiptHandle: message.ReceiptHandle!, body: message.Body! } as SQSRecord };
}

function sender(options: { clock?: () => Date; deliver?: Deliver; outbox?: DynamoOutboxStore } = {}) {
  return new CallbackSender({
    outbox: options.outbox ?? outbox(),
    merchants: testMerchantStore(),
    callbackSecrets: testCallbackSecrets(),
    deliver: options.deliver ?? httpDeliver({ guard: { httpsOnly: false, targets: 'any' }, timeoutMs: 500 }),
    sqs: sqsClient,
    queueUrl,
    deadLetterQueueUrl,
    retryScale: 1,
    metrics: businessMetrics,
    clock: options.clock ?? (() => new Date()),
  });
}

const deliveriesTo = (path: string) => received.filter((r) => r.path === path);

/** Epoch seconds 30 days after an ISO time: when DynamoDB's TTL deletes an entry settled then. */
const thirtyDaysAfter = (iso: string) => Math.floor(Date.parse(iso) / 1000) + 30 * 24 * 3600;

describe('the callback sender', () => {
  it('posts the signed body once and records the delivery', async () => {
    const merchant = await merchantAt('/ok');
    const { id, record, body } = await queuedCallback(merchant);
    await sender().handle(record);
    const [delivery] = deliveriesTo('/ok').filter((r) => r.headers['webhook-id'] === id);
    expect(delivery!.body).toBe(body);
    expect(JSON.parse(body).hash).toBe(transactionHash({ id: id.split(':')[0]!, customerId: 'c-1', amount: '25.000000', currency: 'USDT' }, merchant.callbackSecret));
    expect(new Webhook(merchant.callbackSecret).verify(delivery!.body, delivery!.headers as Record<string, string>)).toEqual(JSON.parse(body));
    const entry = await outbox().get(id);
    expect(entry?.deliveredAt).toBeTruthy();
    expect(entry?.attempts).toEqual([{ at: expect.any(String), status: 200, latencyMs: expect.any(Number) }]);
    // Delivered, it expires 30 days later (the table's TTL attribute).
    expect(entry?.expiration).toBe(thirtyDaysAfter(entry!.deliveredAt!));
    expect(TABLES.outbox.ttlAttribute).toBe('expiration');

    // The same message again (at-least-once delivery) is not posted twice.
    await sender().handle(record);
    expect(deliveriesTo('/ok').filter((r) => r.headers['webhook-id'] === id)).toHaveLength(1);
  });

  it('schedules a retry after a failure, through the message visibility', async () => {
    answers.set('/fails', 500);
    const merchant = await merchantAt('/fails');
    const { id, record } = await queuedCallback(merchant);
    await expect(sender().handle(record)).rejects.toBeInstanceOf(RetryLater);
    const entry = await outbox().get(id);
    expect(entry?.attempts).toEqual([{ at: expect.any(String), status: 500, latencyMs: expect.any(Number) }]);
    expect(entry?.deliveredAt).toBeUndefined();
    // Still owed: no expiry.
    expect(entry?.expiration).toBeUndefined();
    // Hidden for the first retry delay (60 s), so not received again now.
    const { Messages } = await sqsClient.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, WaitTimeSeconds: 1 }));
    expect((Messages ?? []).filter((m) => m.Body === record.body)).toEqual([]);
  });

  it('counts a redirect as a failure and does not follow it', async () => {
    answers.set('/moved', 302);
    const merchant = await merchantAt('/moved');
    const { record } = await queuedCallback(merchant);
    await expect(sender().handle(record)).rejects.toBeInstanceOf(RetryLater);
    expect(deliveriesTo('/elsewhere')).toEqual([]);
  });

  it('gives up on a receiver that does not answer in time', async () => {
    answers.set('/silent', 0);
    const merchant = await merchantAt('/silent');
    const { id, record } = await queuedCallback(merchant);
    await expect(sender().handle(record)).rejects.toBeInstanceOf(RetryLater);
    const [attempt] = (await outbox().get(id))!.attempts;
    expect(attempt).toMatchObject({ status: null, error: DELIVERY_FAILURES.timedOut });
  });

  it('parks the callback in the dead-letter queue once the window has closed', async () => {
    answers.set('/down', 503);
    const merchant = await merchantAt('/down');
    const { id, record } = await queuedCallback(merchant);
    await expect(sender().handle(record)).rejects.toBeInstanceOf(RetryLater);
    // An attempt 71 h 57 min in finds its next retry (5 min) beyond the 72-hour window.
    await sender({ clock: () => new Date(Date.now() + (72 * 60 - 3) * 60_000) }).handle(record);
    const entry = await outbox().get(id);
    expect(entry?.parkedAt).toBeTruthy();
    // Parked, it stays until an operator redrives it.
    expect(entry?.expiration).toBeUndefined();
    const { Messages } = await sqsClient.send(new ReceiveMessageCommand({ QueueUrl: deadLetterQueueUrl, WaitTimeSeconds: 1, MaxNumberOfMessages: 10 }));
    const parked = (Messages ?? []).find((m) => m.Body === record.body);
    expect(parked).toBeDefined();

    // An operator's redrive brings it back with a fresh window; the receiver is up again.
    answers.set('/down', 204);
    await sender().handle({ ...record, receiptHandle: parked!.ReceiptHandle! });
    const redriven = await outbox().get(id);
    expect(redriven?.deliveredAt).toBeTruthy();
    expect(redriven?.parkedAt).toBeUndefined();
    expect(redriven?.attempts.map((a) => a.status)).toEqual([503, 503, 204]);
    // Delivered after its redrive, it expires like any delivered entry.
    expect(redriven?.expiration).toBe(thirtyDaysAfter(redriven!.deliveredAt!));
    await sqsClient.send(new DeleteMessageCommand({ QueueUrl: deadLetterQueueUrl, ReceiptHandle: parked!.ReceiptHandle! }));
  });

  it('brings the message back within seconds when its own store fails, not after the queue visibility timeout', async () => {
    const merchant = await merchantAt('/ok');
    const { id, record } = await queuedCallback(merchant);
    const unreachable = new DynamoOutboxStore(documentClient, `missing-${randomUUID()}`);
    await expect(sender({ outbox: unreachable }).handle({ ...record, attributes: { ApproximateReceiveCount: '1' } as SQSRecord['attributes'] })).rejects.toThrow(
      /non-existent table|not found/i,
    );
    expect(deliveriesTo('/ok').filter((r) => r.headers['webhook-id'] === id)).toEqual([]);
    // Hidden for 5 s after a first receive, then delivered once the store answers again.
    const started = Date.now();
    const { Messages } = await sqsClient.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, WaitTimeSeconds: 10, MaxNumberOfMessages: 1 }));
    expect(Messages?.[0]?.Body).toBe(record.body);
    expect(Date.now() - started).toBeGreaterThan(3_000);
    await sender().handle({ ...record, receiptHandle: Messages![0]!.ReceiptHandle! });
    expect((await outbox().get(id))?.deliveredAt).toBeTruthy();
  });

  it('skips a merchant without a callback URL', async () => {
    const merchant = await merchantAt(null);
    const { id, record } = await queuedCallback(merchant);
    await sender().handle(record);
    const entry = await outbox().get(id);
    expect(entry?.skippedAt).toBeTruthy();
    expect(entry?.expiration).toBe(thirtyDaysAfter(entry!.skippedAt!));
  });

  describe('in production', () => {
    const guarded = httpDeliver({ guard: { httpsOnly: true, targets: 'public' }, timeoutMs: 500 });
    const signed = { body: '{}', headers: { 'content-type': 'application/json' } };

    it.each([
      ['plain http', () => `${receiverUrl}/ok`, 'https'],
      ['a loopback address', () => receiverUrl.replace('http:', 'https:'), 'non-public'],
      ['a name that resolves to loopback', () => `https://localhost:1/ok`, 'non-public'],
      ['a link-local address', () => 'https://169.254.169.254/latest', 'non-public'],
    ])('refuses %s without sending anything', async (_name, url, reason) => {
      const before = received.length;
      const result = await guarded(url(), signed);
      expect(result.status).toBeNull();
      expect(result.error).toContain(reason);
      expect(received.length).toBe(before);
    });
  });
});
