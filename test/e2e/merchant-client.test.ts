/**
 * The typed merchant client (shared/merchant-client/) against the local runtime, as a merchant's TypeScript integration
 * uses it: an invoice, a simulated deposit, the transaction read back, and its callback verified with `verifyCallback`;
 * a callback tampered with, or checked with another secret, does not verify.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchantClient, verifyCallback, WebhookVerificationError } from '../../shared/merchant-client/index.js';
import { startCallbackReceiver, type CallbackReceiver, type ReceivedCallback } from '../support/callback-receiver.js';
import { startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';

/** A fixed secret, so the test verifies with what it chose, not with what the runtime printed. */
const CALLBACK_SECRET = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;

let dataDir: string;
let receiver: CallbackReceiver;
let gateway: GatewayProcess;
let client: ReturnType<typeof createMerchantClient>;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'gateway-client-'));
  receiver = await startCallbackReceiver();
  gateway = await startGatewayProcess({ dataDir, env: { GATEWAY_DEMO_CALLBACK_URL: receiver.url, GATEWAY_DEMO_CALLBACK_SECRET: CALLBACK_SECRET } });
  client = createMerchantClient({ baseUrl: gateway.baseUrl, apiKey: gateway.apiKey });
});

afterAll(async () => {
  await gateway?.stop();
  await receiver?.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('the typed merchant client', () => {
  let transactionId: string;
  let callback: ReceivedCallback;

  it('creates an invoice, pays it with the simulation API and reads the transaction back', async () => {
    const orderId = `client-${randomUUID()}`;
    const created = await client.POST('/api/v2/invoices', { body: { orderId, customerId: 'client-customer', baseCurrency: 'USDT', amount: 25 }, headers: { 'Idempotency-Key': orderId } });
    expect(created.response.status).toBe(200);
    const invoice = created.data!.data;
    expect(invoice).toMatchObject({ orderId, status: 'created', paymentCurrency: 'USDT', paymentAmount: '25.000000', paymentMethod: 'crypto' });

    const deposit = await client.POST('/api/v2/simulate/deposit', { body: { invoiceId: invoice.id } });
    expect(deposit.response.status).toBe(200);
    transactionId = deposit.data!.data.id;

    const read = await client.GET('/api/v2/transaction/{transactionId}', { params: { path: { transactionId } } });
    expect(read.data!.data).toMatchObject({ id: transactionId, invoiceId: invoice.id, type: 'deposit', status: 'confirmed', amount: '25.000000', currency: 'USDT', network: 'ethereum' });
    const paid = await client.GET('/api/v2/invoices/{invoiceId}', { params: { path: { invoiceId: invoice.id } } });
    expect(paid.data!.data).toMatchObject({ status: 'completed', paymentStatus: 'paid', transactionIds: [transactionId] });
  });

  it('answers a refusal as the typed error envelope', async () => {
    const missing = await client.GET('/api/v2/transaction/{transactionId}', { params: { path: { transactionId: randomUUID() } } });
    expect(missing.response.status).toBe(404);
    expect(missing.data).toBeUndefined();
    expect(missing.error).toEqual({ success: false, errors: [{ code: 'not_found', message: 'Transaction not found' }] });

    // The document's enums make a currency the gateway does not take a compile error; the gateway refuses it all the same.
    // @ts-expect-error USTD is no currency code
    const typo = await client.POST('/api/v2/invoices', { body: { orderId: `client-${randomUUID()}`, customerId: 'client-customer', baseCurrency: 'USTD', amount: 25 } });
    expect(typo.response.status).toBe(422);
    expect(typo.error!.errors).toEqual([{ code: 'unprocessable_content', field: 'baseCurrency', message: 'baseCurrency USTD is not a supported crypto asset or local currency' }]);
  });

  it("verifies the transaction's callback with the callback secret: the body is the transaction read back", async () => {
    callback = await receiver.waitForDelivery((received) => received.webhookId === `${transactionId}:confirmed`);
    const verified = verifyCallback(CALLBACK_SECRET, callback.headers, callback.body);
    expect(verified).toEqual(JSON.parse(callback.body));
    const read = await client.GET('/api/v2/transaction/{transactionId}', { params: { path: { transactionId } } });
    const { createdAt: _createdAt, updatedAt: _updatedAt, senderDetails: _senderDetails, ...called } = read.data!.data;
    expect(verified).toEqual({ ...called, callbackType: 'transaction' });
  });

  it('refuses a callback whose body, id or timestamp was changed, or checked with another secret', () => {
    const tamperedBody = callback.body.replace('"amount":"25.000000"', '"amount":"2500.000000"');
    expect(tamperedBody).not.toBe(callback.body);
    expect(() => verifyCallback(CALLBACK_SECRET, callback.headers, tamperedBody)).toThrow(WebhookVerificationError);
    expect(() => verifyCallback(CALLBACK_SECRET, { ...callback.headers, 'webhook-id': `${transactionId}:failed` }, callback.body)).toThrow(WebhookVerificationError);
    const timestamp = Number(callback.headers['webhook-timestamp']) + 1;
    expect(() => verifyCallback(CALLBACK_SECRET, { ...callback.headers, 'webhook-timestamp': String(timestamp) }, callback.body)).toThrow(WebhookVerificationError);
    expect(() => verifyCallback(`whsec_${Buffer.alloc(32, 1).toString('base64')}`, callback.headers, callback.body)).toThrow(WebhookVerificationError);
    // The same callback, its headers as fetch's Headers give them, still verifies.
    expect(verifyCallback(CALLBACK_SECRET, new Headers(callback.headers as Record<string, string>), callback.body)).toMatchObject({ id: transactionId });
  });
});
