import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CreateQueueCommand, DeleteMessageCommand, ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { config } from '../../shared/config.js';
import { DELIVERIES_PER_URL, DELIVERY_HOLD_SECONDS, FIRST_PAUSE_SECONDS, PAUSE_AFTER_TIMEOUTS, PAUSE_SPREAD_SHARE, PROBE_HOLD_SECONDS } from '../../shared/domain/callbacks/callback-pause.js';
import { DELIVERY_WINDOW_SECONDS, RETRY_DELAYS_SECONDS } from '../../shared/domain/callbacks/callbacks.js';
import { callbackBody } from '../../shared/domain/transactions/transaction-callbacks.js';
import { transactionHash } from '../../shared/domain/transactions/transactions.js';
import { businessMetrics } from '../../shared/observability/metrics.js';
import { DELIVERY_FAILURES, httpDeliver } from '../../shared/outbound/http-delivery.js';
import { CallbackSender, RetryLater, type CallbackSenderDeps, type Deliver } from '../../shared/outbound/callback-sender.js';
import { sqsClient } from '../../shared/queue/sqs.js';
import { documentClient } from '../../shared/store/dynamo.js';
import { DynamoOutboxStore, outboxPut } from '../../shared/store/outbox.js';
import { TABLES } from '../../shared/store/tables.js';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { seedMerchant, testCallbackSecrets, testMerchantStore, type SeededMerchant } from '../support/merchants.js';
import { eventually } from '../support/wait.js';

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

interface Queued {
  id: string;
  record: SQSRecord;
  body: string;
}

/** An outbox entry and its message on the test queue, received as the consumer would see it. */
async function queuedCallback({ merchant, callbackSecret }: SeededMerchant): Promise<Queued> {
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
  const messageBody = JSON.stringify({ callbackId: id });
  await sqsClient.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: messageBody }));
  // Only this message: another test's may be back from a short wait.
  const message = await eventually(
    async () => {
      // One at a time: the local server answers at once when it has a full batch.
      const { Messages } = await sqsClient.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 1, WaitTimeSeconds: 1 }));
      return Messages?.find((m) => m.Body === messageBody);
    },
    { what: `the message of ${id}` },
  );
  return { id, body, record: { messageId: message.MessageId!, receiptHandle: message.ReceiptHandle!, body: message.Body! } as SQSRecord };
}

function sender(options: { clock?: () => Date; deliver?: Deliver; outbox?: DynamoOutboxStore; metrics?: CallbackSenderDeps['metrics'] } = {}) {
  return new CallbackSender({
    outbox: options.outbox ?? outbox(),
    merchants: testMerchantStore(),
    callbackSecrets: testCallbackSecrets(),
    deliver: options.deliver ?? httpDeliver({ guard: { httpsOnly: false, targets: 'any' }, timeoutMs: 500 }),
    sqs: sqsClient,
    queueUrl,
    deadLetterQueueUrl,
    retryScale: 1,
    metrics: options.metrics ?? businessMetrics,
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
    await expect(sender({ outbox: unreachable }).handle({ ...record, attributes: { ApproximateReceiveCount: '1' } as SQSRecord['attributes'] })).rejects.toThrow(/non-existent table|not found/i);
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

describe("the pause of a merchant's callbacks", () => {
  let hangs = 0;
  /** A merchant whose URL never answers (the sender gives up after 500 ms). */
  async function hangingMerchant(): Promise<SeededMerchant & { path: string }> {
    const path = `/hangs-${++hangs}`;
    answers.set(path, 0);
    return { ...(await merchantAt(path)), path };
  }

  /** Counts what the sender reports, besides reporting it. */
  function countingMetrics() {
    const counts = { delivered: 0, failed: 0, parked: 0 };
    const metrics: CallbackSenderDeps['metrics'] = {
      callbackDelivered: () => void counts.delivered++,
      callbackFailed: () => void counts.failed++,
      callbackParked: () => void counts.parked++,
    };
    return { counts, metrics };
  }

  const firstSpread = PAUSE_SPREAD_SHARE * FIRST_PAUSE_SECONDS;
  const pauseOf = async (merchantId: string) => (await testMerchantStore().getMerchant(merchantId))?.callbackPause;
  const later = (seconds: number) => () => new Date(Date.now() + seconds * 1000);

  /** Callbacks of `merchant`, queued one after the other (each receive keeps what it does not take). */
  async function queuedCallbacks(merchant: SeededMerchant, count: number) {
    const callbacks: Queued[] = [];
    for (let n = 0; n < count; n++) callbacks.push(await queuedCallback(merchant));
    return callbacks;
  }

  /** Callbacks of `merchant` that each time out, handled at once: the pause opens after the last. */
  async function timeOut(merchant: SeededMerchant, count: number, clock?: () => Date) {
    const callbacks = await queuedCallbacks(merchant, count);
    const outcomes = await Promise.allSettled(callbacks.map(({ record }) => sender({ clock }).handle(record)));
    for (const outcome of outcomes) expect(outcome).toMatchObject({ status: 'rejected', reason: expect.any(RetryLater) });
    return callbacks;
  }

  it(`opens after ${PAUSE_AFTER_TIMEOUTS} timeouts in a row; then the merchant's callbacks wait without an attempt or a failure, and another merchant's go`, async () => {
    const merchant = await hangingMerchant();
    const before = Date.now();
    const timedOut = await timeOut(merchant, PAUSE_AFTER_TIMEOUTS);
    for (const { id } of timedOut) expect((await outbox().get(id))?.attempts).toEqual([expect.objectContaining({ status: null, error: DELIVERY_FAILURES.timedOut })]);
    const pause = await pauseOf(merchant.merchant.id);
    expect(pause).toMatchObject({ url: merchant.merchant.callbackUrl, timeouts: PAUSE_AFTER_TIMEOUTS, pauses: 1 });
    expect(Date.parse(pause!.pausedUntil!) - before).toBeGreaterThanOrEqual(FIRST_PAUSE_SECONDS * 1000);
    expect(Date.parse(pause!.pausedUntil!) - Date.now()).toBeLessThanOrEqual(FIRST_PAUSE_SECONDS * 1000);

    const { counts, metrics } = countingMetrics();
    const waiting = await queuedCallback(merchant);
    const attemptsBefore = deliveriesTo(merchant.path).length;
    const receivedTimes = (count: number) => ({ ...waiting.record, attributes: { ApproximateReceiveCount: String(count) } as SQSRecord['attributes'] });
    // Received once, it comes back when a failed callback would after its first attempt, to wait again...
    const first = await sender({ metrics })
      .handle(receivedTimes(1))
      .catch((error: unknown) => error);
    expect(first).toBeInstanceOf(RetryLater);
    expect((first as RetryLater).delaySeconds).toBe(RETRY_DELAYS_SECONDS[0]);
    // ...and, received often enough, once the pause is over, spread over a tenth of it.
    const retry = await sender({ metrics })
      .handle(receivedTimes(5))
      .catch((error: unknown) => error);
    expect(retry).toBeInstanceOf(RetryLater);
    const untilPauseEnds = (Date.parse(pause!.pausedUntil!) - Date.now()) / 1000;
    expect((retry as RetryLater).delaySeconds).toBeGreaterThanOrEqual(Math.floor(untilPauseEnds));
    expect((retry as RetryLater).delaySeconds).toBeLessThanOrEqual(Math.ceil(untilPauseEnds + firstSpread) + 1);
    expect(deliveriesTo(merchant.path)).toHaveLength(attemptsBefore);
    const entry = await outbox().get(waiting.id);
    expect(entry).toMatchObject({ attempts: [] });
    expect(entry?.parkedAt).toBeUndefined();
    expect(counts).toEqual({ delivered: 0, failed: 0, parked: 0 });
    // Hidden until then.
    const { Messages } = await sqsClient.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, WaitTimeSeconds: 1, MaxNumberOfMessages: 10 }));
    expect((Messages ?? []).filter((m) => m.Body === waiting.record.body)).toEqual([]);

    // Another merchant's callback is delivered meanwhile.
    const other = await merchantAt('/ok');
    const { id, record } = await queuedCallback(other);
    await sender({ metrics }).handle(record);
    expect((await outbox().get(id))?.deliveredAt).toBeTruthy();
    expect(counts.delivered).toBe(1);
  });

  it('lets one callback probe the URL once the pause is over; an answer ends the pause', async () => {
    const merchant = await hangingMerchant();
    await timeOut(merchant, PAUSE_AFTER_TIMEOUTS);
    answers.set(merchant.path, 200);
    const afterPause = later(FIRST_PAUSE_SECONDS + 1);
    const [first, second] = (await queuedCallbacks(merchant, 2)) as [Queued, Queued];
    const outcomes = await Promise.allSettled([first, second].map(({ record }) => sender({ clock: afterPause }).handle(record)));
    // One probes and is delivered; the other waits for the probe's outcome, unattempted.
    const [probe, waiting] = outcomes[0]!.status === 'fulfilled' ? [first, second] : [second, first];
    expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
    const held = outcomes.find((o) => o.status === 'rejected')!.reason as RetryLater;
    expect(held).toBeInstanceOf(RetryLater);
    expect(held.delaySeconds).toBeGreaterThanOrEqual(PROBE_HOLD_SECONDS - 1);
    expect(held.delaySeconds).toBeLessThanOrEqual(PROBE_HOLD_SECONDS + firstSpread + 1);
    expect((await outbox().get(probe.id))?.deliveredAt).toBeTruthy();
    expect((await outbox().get(waiting.id))?.attempts).toEqual([]);
    expect(deliveriesTo(merchant.path).filter((r) => [first.id, second.id].includes(String(r.headers['webhook-id'])))).toHaveLength(1);
    expect(await pauseOf(merchant.merchant.id)).toBeUndefined();

    // Closed: the next callback goes at once.
    await sender({ clock: afterPause }).handle(waiting.record);
    expect((await outbox().get(waiting.id))?.deliveredAt).toBeTruthy();
  });

  it('opens a pause twice as long when the probe times out too', async () => {
    const merchant = await hangingMerchant();
    await timeOut(merchant, PAUSE_AFTER_TIMEOUTS);
    const afterPause = later(FIRST_PAUSE_SECONDS + 1);
    const [probe] = await timeOut(merchant, 1, afterPause);
    // The probe is an attempt like any other: recorded, and retried on its own schedule.
    expect((await outbox().get(probe!.id))?.attempts).toEqual([expect.objectContaining({ status: null, error: DELIVERY_FAILURES.timedOut })]);
    const pause = await pauseOf(merchant.merchant.id);
    expect(pause).toMatchObject({ timeouts: PAUSE_AFTER_TIMEOUTS + 1, pauses: 2 });
    const secondPause = Date.parse(pause!.pausedUntil!) - afterPause().getTime();
    expect(secondPause).toBeGreaterThan(2 * FIRST_PAUSE_SECONDS * 1000 - 5_000);
    expect(secondPause).toBeLessThanOrEqual(2 * FIRST_PAUSE_SECONDS * 1000);
  });

  it('starts afresh when the merchant changes its callback URL', async () => {
    const merchant = await hangingMerchant();
    await timeOut(merchant, PAUSE_AFTER_TIMEOUTS);
    await testMerchantStore().updateMerchant(merchant.merchant.id, { callbackUrl: `${receiverUrl}/ok` });
    const { id, record } = await queuedCallback(merchant);
    await sender().handle(record);
    expect((await outbox().get(id))?.deliveredAt).toBeTruthy();
  });

  it('parks a waiting callback, unattempted, when its delivery window closes before the pause ends', async () => {
    const merchant = await hangingMerchant();
    const waiting = await queuedCallback(merchant);
    // Its window (from when it was written, never having been attempted) closes half a minute after
    // the pause opens, before even its first wait (60 s) is over.
    const nearTheEnd = later(DELIVERY_WINDOW_SECONDS - 30);
    await timeOut(merchant, PAUSE_AFTER_TIMEOUTS, nearTheEnd);
    const { counts, metrics } = countingMetrics();
    await sender({ clock: nearTheEnd, metrics }).handle(waiting.record);
    const entry = await outbox().get(waiting.id);
    expect(entry?.parkedAt).toBeTruthy();
    expect(entry?.attempts).toEqual([]);
    expect(counts).toEqual({ delivered: 0, failed: 0, parked: 1 });
    const parked = await eventually(
      async () => {
        const { Messages } = await sqsClient.send(new ReceiveMessageCommand({ QueueUrl: deadLetterQueueUrl, WaitTimeSeconds: 1, MaxNumberOfMessages: 10 }));
        return Messages?.find((m) => m.Body === waiting.record.body);
      },
      { what: 'the parked message' },
    );
    await sqsClient.send(new DeleteMessageCommand({ QueueUrl: deadLetterQueueUrl, ReceiptHandle: parked.ReceiptHandle! }));
  });

  it('counts racing timeouts exactly, and lets one sender alone open a pause or take its probe', async () => {
    const { merchant } = await merchantAt('/racing');
    const store = testMerchantStore();
    const url = merchant.callbackUrl!;
    const counted = await Promise.all(Array.from({ length: 5 }, () => store.countTimeout(merchant.id, url)));
    expect(counted.map((state) => state.timeouts).sort()).toEqual([1, 2, 3, 4, 5]);
    const change = { from: undefined, until: new Date().toISOString(), pauses: 1 };
    expect((await Promise.all([1, 2, 3].map(() => store.changePause(merchant.id, url, change)))).filter(Boolean)).toHaveLength(1);
    const probe = { from: change.until, until: new Date(Date.now() + 20_000).toISOString(), pauses: 1 };
    expect((await Promise.all([1, 2, 3].map(() => store.changePause(merchant.id, url, probe)))).filter(Boolean)).toHaveLength(1);
    // Written on the merchant's item, its other attributes untouched.
    expect(await store.getMerchant(merchant.id)).toEqual({ ...merchant, callbackPause: { url, timeouts: 5, pauses: 1, pausedUntil: probe.until } });
    await store.clearPause(merchant.id, 'https://another.example/');
    expect((await store.getMerchant(merchant.id))?.callbackPause).toBeDefined();
    await store.clearPause(merchant.id, url);
    expect(await store.getMerchant(merchant.id)).toEqual(merchant);
  });
});

describe("the delivery places of a merchant's URL", () => {
  it(`let ${DELIVERIES_PER_URL} deliveries to one URL go at once; the others come back shortly, unattempted and uncounted, while another merchant's go`, async () => {
    const slow = await merchantAt('/slow');
    const other = await merchantAt('/prompt');
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const urls: string[] = [];
    // The slow merchant's receiver answers only when released; the other's at once.
    const deliver: Deliver = async (url) => {
      urls.push(url);
      if (url === slow.merchant.callbackUrl) await released;
      return { status: 200, latencyMs: 1 };
    };
    const callbacks: Queued[] = [];
    for (let n = 0; n < DELIVERIES_PER_URL + 3; n++) callbacks.push(await queuedCallback(slow));
    const handled = callbacks.map(({ record }) =>
      sender({ deliver })
        .handle(record)
        .catch((error: unknown) => error),
    );
    const busy = (await Promise.all(handled.map((outcome) => Promise.race([outcome, new Promise((resolve) => setTimeout(() => resolve('pending'), 2_000))])))).filter((outcome) => outcome !== 'pending');
    expect(busy).toHaveLength(3);
    for (const outcome of busy) {
      expect(outcome).toBeInstanceOf(RetryLater);
      expect((outcome as RetryLater).delaySeconds).toBeGreaterThanOrEqual(1);
      expect((outcome as RetryLater).delaySeconds).toBeLessThanOrEqual(2);
    }
    expect(urls).toHaveLength(DELIVERIES_PER_URL);

    const prompt = await queuedCallback(other);
    await sender({ deliver }).handle(prompt.record);
    expect((await outbox().get(prompt.id))?.deliveredAt).toBeTruthy();

    release();
    await Promise.all(handled);
    const waited = callbacks.filter(({ record }) => busy.some((outcome) => (outcome as RetryLater).message.includes(JSON.parse(record.body).callbackId)));
    expect(waited).toHaveLength(3);
    for (const { id } of waited) expect(await outbox().get(id)).toMatchObject({ attempts: [] });
    // Every place freed: the next callback goes at once.
    const next = await queuedCallback(slow);
    await sender({ deliver }).handle(next.record);
    expect((await outbox().get(next.id))?.deliveredAt).toBeTruthy();
  });

  it('are taken by racing senders no more than there are, come free when their hold ends, and are freed only by their holder', async () => {
    const { merchant } = await merchantAt('/places');
    const store = testMerchantStore();
    const now = new Date();
    const holdUntil = new Date(now.getTime() + DELIVERY_HOLD_SECONDS * 1000);
    const taken = await Promise.all(Array.from({ length: 3 * DELIVERIES_PER_URL }, () => store.takeDeliveryPlace(merchant.id, now, holdUntil)));
    const places = taken.filter((place) => place !== undefined);
    expect(places).toHaveLength(DELIVERIES_PER_URL);
    expect(new Set(places.map((place) => place.attribute)).size).toBe(DELIVERIES_PER_URL);
    // Invisible on the merchant.
    expect(await store.getMerchant(merchant.id)).toEqual(merchant);
    // Once a hold has ended its place is taken again; its former holder cannot free it then.
    const afterHold = new Date(holdUntil.getTime() + 1);
    const retaken = await store.takeDeliveryPlace(merchant.id, afterHold, new Date(afterHold.getTime() + DELIVERY_HOLD_SECONDS * 1000));
    expect(retaken).toBeDefined();
    const formerHolder = places.find((place) => place.attribute === retaken!.attribute)!;
    await store.freeDeliveryPlace(merchant.id, formerHolder);
    expect(await store.takeDeliveryPlace(merchant.id, now, holdUntil)).toBeUndefined();
    await store.freeDeliveryPlace(merchant.id, retaken!);
    expect(await store.takeDeliveryPlace(merchant.id, now, holdUntil)).toMatchObject({ attribute: retaken!.attribute });
  });
});
