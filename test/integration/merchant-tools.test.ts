/**
 * The merchant's own settings and webhook tools (docs/merchant-guide.md#the-delivery-log-resending-and-testing) through the local gateway against
 * DynamoDB Local: GET and PATCH /api/v2/merchant, a transaction's callback log and its resend,
 * the test callback, and the callback secret's rotation with its overlap (2 s in tests), checked
 * with the Standard Webhooks library as a merchant's receiver checks it.
 */
import { randomUUID } from 'node:crypto';
import { CreateQueueCommand, ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSRecord } from 'aws-lambda';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { config } from '../../shared/config.js';
import { sendTestCallback, type TestCallbackDeps } from '../../shared/domain/payments/callback-tools.js';
import { FIRST_PAUSE_SECONDS, PAUSE_AFTER_TIMEOUTS } from '../../shared/domain/callbacks/callback-pause.js';
import { TEST_TRANSACTION_ID } from '../../shared/domain/transactions/transaction-callbacks.js';
import { transactionHash } from '../../shared/domain/transactions/transactions.js';
import { businessMetrics } from '../../shared/observability/metrics.js';
import { httpDeliver } from '../../shared/outbound/http-delivery.js';
import { CallbackSender, RetryLater } from '../../shared/outbound/callback-sender.js';
import { sqsClient } from '../../shared/queue/sqs.js';
import { documentClient } from '../../shared/store/dynamo.js';
import { DynamoOutboxStore } from '../../shared/store/outbox.js';
import { startCallbackReceiver, verifiesWith, type CallbackReceiver } from '../support/callback-receiver.js';
import { invoke, type GatewayResult } from '../support/invoke.js';
import { fundBalance } from '../support/balances.js';
import { seedMerchant, testCallbackSecrets, testMerchantStore, type SeededMerchant } from '../support/merchants.js';
import { eventually } from '../support/wait.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let receiver: CallbackReceiver;
/** Paths (after the receiver's URL) whose callbacks the receiver refuses with a 503. */
const refused = new Set<string>();
let queueUrl: string;
let deadLetterQueueUrl: string;

beforeAll(async () => {
  receiver = await startCallbackReceiver((callback) => (refused.has(callback.path.slice(new URL(receiver.url).pathname.length)) ? 503 : 200));
  const name = `merchant-tools-${randomUUID()}`;
  queueUrl = (await sqsClient.send(new CreateQueueCommand({ QueueName: name }))).QueueUrl!;
  deadLetterQueueUrl = (await sqsClient.send(new CreateQueueCommand({ QueueName: `${name}-dlq` }))).QueueUrl!;
});

afterAll(async () => {
  await receiver?.close();
});

const outbox = () => new DynamoOutboxStore(documentClient, config().tables.outbox);

/** A merchant whose callbacks go to the receiver, at `path`. */
const merchantAt = (path: string) => seedMerchant({ callbackUrl: `${receiver.url}${path}` });

/** The callback sender of the functions, on queues of this file; `clock` moves its time. */
function sender(clock: () => Date = () => new Date()): CallbackSender {
  return new CallbackSender({
    outbox: outbox(),
    merchants: testMerchantStore(),
    callbackSecrets: testCallbackSecrets(),
    deliver: httpDeliver({ guard: { httpsOnly: false, targets: 'any' }, timeoutMs: 2_000 }),
    sqs: sqsClient,
    queueUrl,
    deadLetterQueueUrl,
    retryScale: 1,
    metrics: businessMetrics,
    clock,
  });
}

/** The queue message of a callback, as the sender receives it, for a delivery that will not need its receipt handle. */
const messageOf = (callbackId: string): SQSRecord => ({ messageId: randomUUID(), receiptHandle: 'unused', body: JSON.stringify({ callbackId }) }) as SQSRecord;

/** The message of a callback sent to and received from this file's queue: a failed attempt sets its visibility. */
async function queuedMessage(callbackId: string): Promise<SQSRecord> {
  await sqsClient.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify({ callbackId }) }));
  const { Messages } = await sqsClient.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 1, WaitTimeSeconds: 1 }));
  const message = Messages![0]!;
  expect(JSON.parse(message.Body!)).toEqual({ callbackId });
  return { messageId: message.MessageId!, receiptHandle: message.ReceiptHandle!, body: message.Body! } as SQSRecord;
}

async function confirmedDeposit(merchant: SeededMerchant): Promise<any> {
  const invoice = await invoke('create-invoice', {
    apiKey: merchant.apiKey,
    body: { orderId: randomUUID(), customerId: `cust-${randomUUID().slice(0, 8)}`, baseCurrency: 'USDT', amount: 25 },
  });
  expect(invoice.status).toBe(200);
  const deposit = await invoke('simulate-deposit', { apiKey: merchant.apiKey, body: { invoiceId: invoice.body.data.id } });
  expect(deposit.status).toBe(200);
  return deposit.body.data;
}

const callbackLog = (merchant: SeededMerchant, transactionId: string) => invoke('list-transaction-callbacks', { apiKey: merchant.apiKey, pathParameters: { transactionId } });
const resend = (merchant: SeededMerchant, transactionId: string, headers: Record<string, string> = {}) =>
  invoke('resend-transaction-callback', { apiKey: merchant.apiKey, pathParameters: { transactionId }, headers });
const testCallback = (merchant: SeededMerchant, headers: Record<string, string> = {}) => invoke('send-test-callback', { apiKey: merchant.apiKey, headers });
const getMerchant = (merchant: SeededMerchant) => invoke('get-merchant', { apiKey: merchant.apiKey });
const patchMerchant = (merchant: SeededMerchant, body: unknown, headers: Record<string, string> = {}) => invoke('update-merchant', { apiKey: merchant.apiKey, body, headers });
const rotate = (merchant: SeededMerchant, headers: Record<string, string> = {}) => invoke('rotate-callback-secret', { apiKey: merchant.apiKey, headers });

const storedMerchant = async (id: string) => (await documentClient.send(new GetCommand({ TableName: config().tables.merchants, Key: { id }, ConsistentRead: true }))).Item!;

function expect422(response: GatewayResult, fields: string[]): void {
  expect(response.status).toBe(422);
  expect(response.body.success).toBe(false);
  expect(response.body.errors.map((e: { field: string }) => e.field)).toEqual(fields);
  for (const error of response.body.errors) expect(error).toEqual({ code: 'unprocessable_content', field: error.field, message: expect.any(String) });
}

describe('GET /api/v2/merchant', () => {
  it("answers the merchant's settings and nothing of its secrets", async () => {
    const merchant = await seedMerchant({ callbackUrl: 'https://shop.example/callbacks', returnUrl: 'https://shop.example/thanks', frameAncestors: ['https://shop.example'] });
    const response = await getMerchant(merchant);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      success: true,
      data: {
        merchantId: merchant.merchant.id,
        name: merchant.merchant.name,
        callbackUrl: 'https://shop.example/callbacks',
        returnUrl: 'https://shop.example/thanks',
        frameAncestors: ['https://shop.example'],
        onchainDeposits: true,
        invoiceCallbacks: false,
        payoutApprovalAboveUsd: null,
        // The demo stage's default: a new payout address is active at once.
        payoutAddressDelaySeconds: 0,
      },
    });
    expect(response.rawBody.toString()).not.toMatch(/whsec_|sealed|ciphertext|processingFee/i);
    expect(response.headers['x-request-id']).toBeTruthy();
    expect(response.headers.deprecation).toBeUndefined();
  });

  it('needs a key', async () => {
    const response = await invoke('get-merchant', {});
    expect(response.status).toBe(401);
  });
});

describe('PATCH /api/v2/merchant', () => {
  it('changes the settings given, leaves the others, and removes one set to null', async () => {
    const merchant = await seedMerchant({ callbackUrl: 'https://shop.example/callbacks', returnUrl: 'https://shop.example/thanks' });
    const response = await patchMerchant(merchant, { callbackUrl: 'http://localhost:8080/hooks', frameAncestors: ["'self'", 'https://*.shop.example'] });
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ callbackUrl: 'http://localhost:8080/hooks', returnUrl: 'https://shop.example/thanks', frameAncestors: ["'self'", 'https://*.shop.example'] });
    expect((await getMerchant(merchant)).body).toEqual(response.body);

    const removed = await patchMerchant(merchant, { returnUrl: null, frameAncestors: [] });
    expect(removed.body.data).toMatchObject({ callbackUrl: 'http://localhost:8080/hooks', returnUrl: null, frameAncestors: [] });
    expect(await testMerchantStore().getMerchant(merchant.merchant.id)).toMatchObject({ returnUrl: null, frameAncestors: [], callbackUrl: 'http://localhost:8080/hooks' });
  });

  it('takes an empty object as no change', async () => {
    const merchant = await seedMerchant({ callbackUrl: 'https://shop.example/callbacks' });
    const before = await storedMerchant(merchant.merchant.id);
    const response = await patchMerchant(merchant, {});
    expect(response.status).toBe(200);
    expect(response.body.data.callbackUrl).toBe('https://shop.example/callbacks');
    expect(await storedMerchant(merchant.merchant.id)).toEqual(before);
  });

  it.each<[string, unknown, string[]]>([
    ['an unknown property', { callbackUrl: 'https://ok.example/hooks', name: 'Renamed' }, ['name']],
    ['a property only operators set', { onchainDeposits: false }, ['onchainDeposits']],
    ['a callback URL that is no URL', { callbackUrl: 'shop.example/hooks' }, ['callbackUrl']],
    ['a javascript: URL', { returnUrl: 'javascript:alert(1)' }, ['returnUrl']],
    ['a URL of another scheme', { callbackUrl: 'ftp://shop.example/hooks' }, ['callbackUrl']],
    ['a number for a URL', { callbackUrl: 42 }, ['callbackUrl']],
    ['a URL over 2048 characters', { returnUrl: `https://shop.example/${'a'.repeat(2048)}` }, ['returnUrl']],
    ['frame ancestors that are no list', { frameAncestors: 'https://shop.example' }, ['frameAncestors']],
    ['a frame ancestor that could end the directive', { frameAncestors: ['https://shop.example', "https://x.example; script-src 'unsafe-inline'"] }, ['frameAncestors.1']],
    ["'none' beside another source", { frameAncestors: ["'none'", 'https://shop.example'] }, ['frameAncestors']],
    ['a valid change beside invalid ones', { callbackUrl: 'https://fine.example/hooks', returnUrl: 'nope', frameAncestors: ['bad source'] }, ['returnUrl', 'frameAncestors.0']],
  ])('refuses %s with 422 naming the field, changing nothing', async (_name, body, fields) => {
    const merchant = await seedMerchant({ callbackUrl: 'https://shop.example/callbacks', frameAncestors: ['https://shop.example'] });
    const before = await storedMerchant(merchant.merchant.id);
    expect422(await patchMerchant(merchant, body), fields);
    expect(await storedMerchant(merchant.merchant.id)).toEqual(before);
  });

  it('refuses a body that is not a JSON object (400) or not JSON (415), changing nothing', async () => {
    const merchant = await seedMerchant({ callbackUrl: 'https://shop.example/callbacks' });
    const before = await storedMerchant(merchant.merchant.id);
    expect((await patchMerchant(merchant, ['https://x.example'])).status).toBe(400);
    expect((await patchMerchant(merchant, '{"callbackUrl":', { 'content-type': 'application/json' })).status).toBe(400);
    expect((await patchMerchant(merchant, 'callbackUrl=https://x.example', { 'content-type': 'application/x-www-form-urlencoded' })).status).toBe(415);
    expect(await storedMerchant(merchant.merchant.id)).toEqual(before);
  });
});

describe('POST /api/v2/webhooks/test', () => {
  it('posts a signed sample callback now and answers the attempt', async () => {
    const merchant = await merchantAt('/test-ok');
    const response = await testCallback(merchant);
    expect(response.status).toBe(200);
    const data = response.body.data;
    expect(data).toEqual({ webhookId: expect.stringMatching(new RegExp(`^${TEST_TRANSACTION_ID}:test:`)), at: expect.any(String), status: 200, latencyMs: expect.any(Number), error: null });

    const [callback] = receiver.byWebhookId(data.webhookId);
    expect(callback).toBeDefined();
    expect(verifiesWith(merchant.callbackSecret, callback!)).toBe(true);
    expect(callback!.json).toMatchObject({ id: TEST_TRANSACTION_ID, callbackType: 'test', type: 'deposit', status: 'confirmed' });
    expect(callback!.json.hash).toBe(transactionHash(callback!.json, merchant.callbackSecret));
    expect(callback!.json).not.toHaveProperty('createdAt');
    // Every test is a callback of its own: a receiver that drops repeats by webhook-id takes each.
    const again = await testCallback(merchant);
    expect(again.body.data.webhookId).not.toBe(data.webhookId);
  });

  it("reports the receiver's refusal, and a receiver that cannot be reached, as the attempt's outcome", async () => {
    refused.add('/test-down');
    const down = await testCallback(await merchantAt('/test-down'));
    expect(down.status).toBe(200);
    expect(down.body.data).toMatchObject({ status: 503, error: null });

    const unreachable = await testCallback(await seedMerchant({ callbackUrl: 'http://127.0.0.1:9/hooks' }));
    expect(unreachable.status).toBe(200);
    expect(unreachable.body.data).toMatchObject({ status: null, error: 'connection refused' });
  });

  it('answers 409 when the merchant has no callback URL', async () => {
    const response = await testCallback(await seedMerchant({ callbackUrl: null }));
    expect(response.status).toBe(409);
    expect(response.body.errors[0]).toMatchObject({ code: 'conflict', message: expect.stringContaining('callback URL') });
  });

  it("keeps production's URL guard: no request to a loopback or plain http URL", async () => {
    const deps = (deliver = httpDeliver({ guard: { httpsOnly: true, targets: 'public' }, timeoutMs: 2_000 })): TestCallbackDeps => ({
      merchants: testMerchantStore(),
      secrets: testCallbackSecrets(),
      deliver,
      clock: () => new Date(),
      newId: randomUUID,
    });
    const before = receiver.received.length;
    const plain = await merchantAt('/guarded');
    expect(await sendTestCallback(deps(), plain.merchant.id)).toMatchObject({ status: null, error: 'callback URL must use https' });
    const loopback = await seedMerchant({ callbackUrl: receiver.url.replace('http:', 'https:') });
    expect(await sendTestCallback(deps(), loopback.merchant.id)).toMatchObject({ status: null, error: 'callback URL is a non-public address' });
    expect(receiver.received.length).toBe(before);
  });
});

describe("a transaction's callbacks", () => {
  it('are listed with every delivery attempt as they are made', async () => {
    const merchant = await merchantAt('/log');
    const deposit = await confirmedDeposit(merchant);
    const webhookId = `${deposit.id}:confirmed`;
    expect((await callbackLog(merchant, deposit.id)).body).toEqual({ success: true, data: [{ webhookId, state: 'pending', attempts: [], pausedUntil: null }] });

    await sender().handle(messageOf(webhookId));
    const log = await callbackLog(merchant, deposit.id);
    expect(log.body.data).toEqual([{ webhookId, state: 'delivered', attempts: [{ at: expect.any(String), status: 200, latencyMs: expect.any(Number), error: null }], pausedUntil: null }]);
    expect(log.body.data[0].attempts[0].at).toBe((await outbox().get(webhookId))!.attempts[0]!.at);
  });

  it('show, while deliveries to the callback URL are paused, until when on each pending one', async () => {
    const merchant = await merchantAt('/paused');
    const [delivered, pending] = [await confirmedDeposit(merchant), await confirmedDeposit(merchant)];
    await sender().handle(messageOf(`${delivered.id}:confirmed`));
    // The URL timed out often enough: the sender paused its deliveries.
    const store = testMerchantStore();
    const url = merchant.merchant.callbackUrl!;
    for (let n = 0; n < PAUSE_AFTER_TIMEOUTS; n++) await store.countTimeout(merchant.merchant.id, url);
    const until = new Date(Date.now() + FIRST_PAUSE_SECONDS * 1000).toISOString();
    expect(await store.changePause(merchant.merchant.id, url, { from: undefined, until, pauses: 1 })).toBe(true);

    expect((await callbackLog(merchant, pending.id)).body.data).toEqual([expect.objectContaining({ state: 'pending', attempts: [], pausedUntil: until })]);
    expect((await callbackLog(merchant, delivered.id)).body.data).toEqual([expect.objectContaining({ state: 'delivered', pausedUntil: null })]);
    // A pause of the URL the merchant has since replaced holds nothing back.
    await patchMerchant(merchant, { callbackUrl: `${url}/new` });
    expect((await callbackLog(merchant, pending.id)).body.data[0].pausedUntil).toBeNull();
    await patchMerchant(merchant, { callbackUrl: url });
    expect((await callbackLog(merchant, pending.id)).body.data[0].pausedUntil).toBe(until);
    await store.clearPause(merchant.merchant.id, url);
    expect((await callbackLog(merchant, pending.id)).body.data[0].pausedUntil).toBeNull();
  });

  it('are none while the transaction is processing, and then there is nothing to resend', async () => {
    const merchant = await merchantAt('/processing');
    await fundBalance(merchant.merchant.id, 'TRY', '1500.00');
    const payout = await invoke('create-withdrawal', {
      apiKey: merchant.apiKey,
      body: { customerId: 'cust-1', amount: '1500.00', currency: 'TRY', phoneNumber: '+905551234567', orderId: randomUUID() },
    });
    expect((await callbackLog(merchant, payout.body.data.id)).body).toEqual({ success: true, data: [] });
    const response = await resend(merchant, payout.body.data.id);
    expect(response.status).toBe(409);
    expect(response.body.errors[0].message).toMatch(/processing/);
  });

  it("are another merchant's business: 404 for the log and the resend, as for an unknown id", async () => {
    const owner = await merchantAt('/owner');
    const deposit = await confirmedDeposit(owner);
    const stranger = await seedMerchant();
    for (const id of [deposit.id, randomUUID(), 'not-a-uuid']) {
      for (const response of [await callbackLog(stranger, id), await resend(stranger, id)]) {
        expect(response.status).toBe(404);
        expect(response.body.errors).toEqual([{ code: 'not_found', message: 'Transaction not found' }]);
      }
    }
    expect((await outbox().get(`${deposit.id}:confirmed`))?.resentAt).toBeUndefined();
  });
});

describe('resending a callback', () => {
  it('delivers a parked callback again with a fresh window, without an operator', async () => {
    refused.add('/parked');
    const merchant = await merchantAt('/parked');
    const deposit = await confirmedDeposit(merchant);
    const webhookId = `${deposit.id}:confirmed`;
    const message = await queuedMessage(webhookId);
    await expect(sender().handle(message)).rejects.toBeInstanceOf(RetryLater);
    // 71 h 57 min on, the next retry would fall beyond the 72-hour window: the callback is parked.
    await sender(() => new Date(Date.now() + (72 * 60 - 3) * 60_000)).handle(message);
    expect((await callbackLog(merchant, deposit.id)).body.data).toEqual([
      { webhookId, state: 'parked', attempts: [expect.objectContaining({ status: 503 }), expect.objectContaining({ status: 503 })], pausedUntil: null },
    ]);

    refused.delete('/parked');
    const before = await outbox().get(webhookId);
    const response = await resend(merchant, deposit.id);
    expect(response.status).toBe(202);
    expect(response.body).toEqual({ success: true, data: { webhookId } });
    const reopened = (await outbox().get(webhookId))!;
    expect(reopened.parkedAt).toBeUndefined();
    expect(reopened.windowStartedAt! > before!.windowStartedAt!).toBe(true);
    // Handed to the callbacks queue again at once.
    expect(reopened.publishedAt! > before!.publishedAt!).toBe(true);
    expect(reopened).not.toHaveProperty('pendingShard');
    expect((await callbackLog(merchant, deposit.id)).body.data[0].state).toBe('pending');

    await sender().handle(messageOf(webhookId));
    const log = (await callbackLog(merchant, deposit.id)).body.data;
    expect(log).toEqual([{ webhookId, state: 'delivered', attempts: [503, 503, 200].map((status) => expect.objectContaining({ status })), pausedUntil: null }]);
    const received = receiver.byWebhookId(webhookId);
    expect(received.map((c) => c.status)).toEqual([503, 503, 200]);
    expect(new Set(received.map((c) => c.body)).size).toBe(1);
  });

  it('delivers a delivered callback once more, the same body under the same webhook-id', async () => {
    const merchant = await merchantAt('/again');
    const deposit = await confirmedDeposit(merchant);
    const webhookId = `${deposit.id}:confirmed`;
    await sender().handle(messageOf(webhookId));
    expect((await resend(merchant, deposit.id)).status).toBe(202);
    expect((await callbackLog(merchant, deposit.id)).body.data[0].state).toBe('pending');
    await sender().handle(messageOf(webhookId));
    const received = receiver.byWebhookId(webhookId);
    expect(received.map((c) => c.status)).toEqual([200, 200]);
    expect(received[1]!.body).toBe(received[0]!.body);
    expect(verifiesWith(merchant.callbackSecret, received[1]!)).toBe(true);
  });

  it('gives a callback still being retried a fresh window, leaving its one message on the queue', async () => {
    refused.add('/retrying');
    const merchant = await merchantAt('/retrying');
    const deposit = await confirmedDeposit(merchant);
    const webhookId = `${deposit.id}:confirmed`;
    await expect(sender().handle(await queuedMessage(webhookId))).rejects.toBeInstanceOf(RetryLater);
    const before = (await outbox().get(webhookId))!;
    const response = await resend(merchant, deposit.id);
    expect(response.status).toBe(202);
    const after = (await outbox().get(webhookId))!;
    expect(after.windowStartedAt! > before.windowStartedAt!).toBe(true);
    expect(after.publishedAt).toBe(before.publishedAt);
    expect(after.attempts).toEqual(before.attempts);
  });

  it('answers 409 when the merchant has no callback URL to send to', async () => {
    const merchant = await merchantAt('/removed');
    const deposit = await confirmedDeposit(merchant);
    await patchMerchant(merchant, { callbackUrl: null });
    const response = await resend(merchant, deposit.id);
    expect(response.status).toBe(409);
    expect(response.body.errors[0].message).toMatch(/callback URL/);
  });
});

describe('POST /api/v2/merchant/callback-secret/rotate', () => {
  it('answers a new secret once and stores it only sealed, the old one beside it until the overlap ends', async () => {
    const merchant = await merchantAt('/rotate-store');
    const before = await storedMerchant(merchant.merchant.id);
    const startedAt = Date.now();
    const response = await rotate(merchant);
    expect(response.status).toBe(200);
    const { callbackSecret, previousSecretExpiresAt } = response.body.data;
    expect(callbackSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(callbackSecret).not.toBe(merchant.callbackSecret);
    expect(Date.parse(previousSecretExpiresAt) - startedAt).toBeGreaterThanOrEqual(config().secretOverlapSeconds * 1000 - 50);
    expect(Date.parse(previousSecretExpiresAt) - startedAt).toBeLessThan(config().secretOverlapSeconds * 1000 + 5_000);

    const stored = await storedMerchant(merchant.merchant.id);
    const text = JSON.stringify(stored);
    for (const secret of [callbackSecret, merchant.callbackSecret]) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(secret.slice('whsec_'.length));
    }
    expect(stored.previousCallbackSecrets).toEqual([{ sealed: before.sealedCallbackSecret, expiresAt: previousSecretExpiresAt }]);
    expect(await testCallbackSecrets().open(merchant.merchant.id, stored.sealedCallbackSecret)).toBe(callbackSecret);
    // Sealed for this merchant only: under another merchant's id it does not open.
    await expect(testCallbackSecrets().open(randomUUID(), stored.sealedCallbackSecret)).rejects.toThrow();
  });

  it('signs with both secrets during the overlap, new first, and with the new one alone after it', async () => {
    const merchant = await merchantAt('/rotate');
    const oldSecret = merchant.callbackSecret;
    const { callbackSecret: newSecret, previousSecretExpiresAt } = (await rotate(merchant)).body.data;

    // A real transaction's callback, through the sender.
    const deposit = await confirmedDeposit(merchant);
    await sender().handle(messageOf(`${deposit.id}:confirmed`));
    const [during] = receiver.byWebhookId(`${deposit.id}:confirmed`);
    expect(String(during!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(String(during!.headers['webhook-signature']).split(' ')[0]).toBe(
      new Webhook(newSecret).sign(`${deposit.id}:confirmed`, new Date(Number(during!.headers['webhook-timestamp']) * 1000), during!.body).split(' ')[0],
    );
    expect(verifiesWith(newSecret, during!)).toBe(true);
    expect(verifiesWith(oldSecret, during!)).toBe(true);
    // The hash takes the new secret at once, in the callback and in retrieval alike.
    expect(during!.json.hash).toBe(transactionHash(during!.json, newSecret));
    const retrieved = await invoke('get-transaction', { apiKey: merchant.apiKey, pathParameters: { transactionId: deposit.id } });
    expect(retrieved.body.data.hash).toBe(during!.json.hash);

    const test = await testCallback(merchant);
    const [sample] = receiver.byWebhookId(test.body.data.webhookId);
    expect(verifiesWith(newSecret, sample!)).toBe(true);
    expect(verifiesWith(oldSecret, sample!)).toBe(true);

    await eventually(() => Date.now() > Date.parse(previousSecretExpiresAt) + 50, { timeoutMs: 10_000, intervalMs: 50, what: 'the overlap to end' });
    const after = await testCallback(merchant);
    const [late] = receiver.byWebhookId(after.body.data.webhookId);
    expect(String(late!.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(verifiesWith(newSecret, late!)).toBe(true);
    expect(verifiesWith(oldSecret, late!)).toBe(false);

    const next = await confirmedDeposit(merchant);
    await sender().handle(messageOf(`${next.id}:confirmed`));
    const [afterwards] = receiver.byWebhookId(`${next.id}:confirmed`);
    expect(verifiesWith(newSecret, afterwards!)).toBe(true);
    expect(verifiesWith(oldSecret, afterwards!)).toBe(false);
  });

  it("rotated again within the overlap, keeps the first rotation's secret and the original signing beside the second", async () => {
    const merchant = await merchantAt('/rotate-twice');
    const first = (await rotate(merchant)).body.data.callbackSecret;
    const second = (await rotate(merchant)).body.data.callbackSecret;
    const test = await testCallback(merchant);
    const [callback] = receiver.byWebhookId(test.body.data.webhookId);
    expect(String(callback!.headers['webhook-signature']).split(' ')).toHaveLength(3);
    for (const secret of [second, first, merchant.callbackSecret]) expect(verifiesWith(secret, callback!)).toBe(true);
  });

  it('never replays an answer for an Idempotency-Key: each request rotates', async () => {
    const merchant = await merchantAt('/rotate-key');
    const headers = { 'Idempotency-Key': `rotate-${randomUUID()}` };
    const [one, two] = [await rotate(merchant, headers), await rotate(merchant, headers)];
    expect(one.status).toBe(200);
    expect(two.status).toBe(200);
    expect(two.body.data.callbackSecret).not.toBe(one.body.data.callbackSecret);
  });
});

it('every webhook-id of this file names a transaction state or a test', () => {
  for (const callback of receiver.received) expect(callback.webhookId).toMatch(new RegExp(`^(${UUID.source.slice(1, -1)}:(confirmed|failed)|${TEST_TRANSACTION_ID}:test:${UUID.source.slice(1, -1)})$`));
});
