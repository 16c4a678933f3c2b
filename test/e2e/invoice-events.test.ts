/**
 * Invoice events (docs/merchant-guide.md#invoice-events) end to end, against the local runtime as
 * `npm start` runs it: turned on with PATCH /api/v2/merchant, each change of an invoice reaches the
 * merchant's receiver signed as Standard Webhooks says, with the invoice as the API shows it after
 * the change, numbered per event; an expiry is announced by the sweep; the invoice's delivery log
 * shows them and resends the latest. Off, nothing but transaction callbacks arrives.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invoiceEventBodySchema } from '../../shared/domain/invoicing/invoice-events.js';
import { startCallbackReceiver, type CallbackReceiver, type ReceivedCallback } from '../support/callback-receiver.js';
import { callApi, startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';

const CALLBACK_SECRET = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
const INVOICE_LIFETIME_S = 4;
const EXPIRY_SWEEP_S = 1;

let dataDir: string;
let gateway: GatewayProcess;
let receiver: CallbackReceiver;

beforeAll(async () => {
  receiver = await startCallbackReceiver();
  dataDir = await mkdtemp(join(tmpdir(), 'gateway-invoice-events-'));
  gateway = await startGatewayProcess({
    dataDir,
    env: {
      GATEWAY_DEMO_CALLBACK_URL: receiver.url,
      GATEWAY_DEMO_CALLBACK_SECRET: CALLBACK_SECRET,
      GATEWAY_INVOICE_LIFETIME_S: String(INVOICE_LIFETIME_S),
      GATEWAY_EXPIRY_SWEEP_S: String(EXPIRY_SWEEP_S),
    },
  });
});

afterAll(async () => {
  await gateway?.stop();
  await receiver?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

const createInvoice = async () => {
  const created = await callApi(gateway, 'POST', '/api/v2/invoices', { orderId: randomUUID(), customerId: `customer-${randomUUID().slice(0, 8)}`, baseCurrency: 'USDT', amount: 25 });
  expect(created.status).toBe(200);
  return created.body.data as { id: string };
};
const pay = async (invoiceId: string, amount: string) => {
  const paid = await callApi(gateway, 'POST', '/api/v2/simulate/deposit', { invoiceId, amount });
  expect(paid.status, paid.text).toBe(200);
  return paid.body.data as { id: string };
};
const setInvoiceCallbacks = async (on: boolean) => {
  const patched = await callApi(gateway, 'PATCH', '/api/v2/merchant', { invoiceCallbacks: on });
  expect(patched.status, patched.text).toBe(200);
  expect(patched.body.data.invoiceCallbacks).toBe(on);
};
const eventOf = (invoiceId: string, event: string, n = 1) => receiver.waitForDelivery((callback) => callback.webhookId === `invoice:${invoiceId}:${event}:${n}`, 20_000);

/** Whether the signature verifies with the merchant's secret, as any Standard Webhooks library checks it. */
function verifies(callback: ReceivedCallback): boolean {
  const headers = Object.fromEntries(['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => [name, String(callback.headers[name] ?? '')]));
  try {
    new Webhook(CALLBACK_SECRET).verify(callback.body, headers);
    return true;
  } catch {
    return false;
  }
}

describe('invoice events', () => {
  it('are off until the merchant turns them on: its transaction callbacks alone arrive', async () => {
    expect((await callApi(gateway, 'GET', '/api/v2/merchant')).body.data.invoiceCallbacks).toBe(false);
    const invoice = await createInvoice();
    const deposit = await pay(invoice.id, '25');
    await receiver.waitForDelivery((callback) => callback.webhookId === `${deposit.id}:confirmed`, 20_000);
    await sleep(1_000);
    expect(receiver.received.filter((callback) => callback.webhookId.startsWith(`invoice:${invoice.id}`))).toEqual([]);
  });

  it('announce a partial payment, then the payment in full, signed, with the invoice as the API shows it; the log lists them and resends the latest', async () => {
    await setInvoiceCallbacks(true);
    const invoice = await createInvoice();
    await pay(invoice.id, '10');
    const partial = await eventOf(invoice.id, 'invoice.partially_paid');
    expect(verifies(partial)).toBe(true);
    expect(invoiceEventBodySchema.parse(partial.json)).toMatchObject({
      callbackType: 'invoice',
      event: 'invoice.partially_paid',
      invoice: { id: invoice.id, paidAmount: '10.000000', paymentStatus: 'partial' },
    });
    expect(partial.json).not.toHaveProperty('hash');

    const last = await pay(invoice.id, '15');
    const paid = await eventOf(invoice.id, 'invoice.paid');
    expect(verifies(paid)).toBe(true);
    const shown = (await callApi(gateway, 'GET', `/api/v2/invoices/${invoice.id}`)).body.data;
    expect(paid.json.invoice).toEqual(shown);
    expect(shown).toMatchObject({ status: 'completed', paymentStatus: 'paid' });
    expect(shown.transactionIds).toContain(last.id);

    const log = await callApi(gateway, 'GET', `/api/v2/invoices/${invoice.id}/callbacks`);
    expect(log.status).toBe(200);
    expect(log.body.data.map((entry: { webhookId: string; state: string }) => [entry.webhookId, entry.state])).toEqual([
      [`invoice:${invoice.id}:invoice.partially_paid:1`, 'delivered'],
      [`invoice:${invoice.id}:invoice.paid:1`, 'delivered'],
    ]);
    const resent = await callApi(gateway, 'POST', `/api/v2/invoices/${invoice.id}/callbacks/resend`);
    expect(resent.status).toBe(202);
    expect(resent.body.data).toEqual({ webhookId: `invoice:${invoice.id}:invoice.paid:1` });
    await receiver.waitForDelivery((callback) => callback.webhookId === `invoice:${invoice.id}:invoice.paid:1` && callback.attempt === 2, 20_000);
  });

  it(
    'announce an expiry with the sweep, and a payment after it as paid late',
    async () => {
      await setInvoiceCallbacks(true);
      const invoice = await createInvoice();
      const expired = await eventOf(invoice.id, 'invoice.expired');
      expect(verifies(expired)).toBe(true);
      expect(expired.json.invoice).toMatchObject({ status: 'canceled', cancelReason: 'expired' });
      await pay(invoice.id, '25');
      const late = await eventOf(invoice.id, 'invoice.paid_late');
      expect(late.json.invoice).toMatchObject({ status: 'completed', paidLate: true });
    },
    INVOICE_LIFETIME_S * 1000 + 40_000,
  );

  it("answers 404 for an invoice that is not the merchant's, and 409 when there is no event to resend", async () => {
    await setInvoiceCallbacks(false);
    expect((await callApi(gateway, 'GET', `/api/v2/invoices/${randomUUID()}/callbacks`)).status).toBe(404);
    expect((await callApi(gateway, 'POST', `/api/v2/invoices/${randomUUID()}/callbacks/resend`)).status).toBe(404);
    const quiet = await createInvoice();
    expect((await callApi(gateway, 'GET', `/api/v2/invoices/${quiet.id}/callbacks`)).body).toEqual({ success: true, data: [] });
    const refused = await callApi(gateway, 'POST', `/api/v2/invoices/${quiet.id}/callbacks/resend`);
    expect(refused.status).toBe(409);
    expect(refused.body.errors[0].message).toMatch(/announced no event/);
  });
});
