/**
 * A merchant's own tools end to end (docs/merchant-guide.md#the-delivery-log-resending-and-testing): the local runtime as a child process with its
 * queue and callback sender, a receiver on loopback, and only HTTP calls a merchant can make —
 * a parked callback resent without an operator, the callback secret rotated while callbacks keep
 * verifying, the settings changed, the listings followed page by page, the balance a simulated
 * deposit credits and a payout is bounded by, and a report built by the queue and downloaded.
 *
 * The callback that is refused until it parks is started first: its scaled 72-hour window
 * (13 s here) runs out while the other tests run.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCallbackReceiver, verifiesWith, type CallbackReceiver } from '../support/callback-receiver.js';
import { Decimal } from '../../shared/domain/kernel/money.js';
import { callApi, simulateFunds, startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';
import { eventually } from '../support/wait.js';

const CALLBACK_SECRET = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
const RETRY_SCALE = 0.00005;
const WINDOW_MS = 72 * 3600 * 1000 * RETRY_SCALE;
const SECRET_OVERLAP_S = 4;

let dataDir: string;
let gateway: GatewayProcess;
let receiver: CallbackReceiver;
/** Orders whose callbacks the receiver refuses. */
const refusedOrders = new Set<string>();

beforeAll(async () => {
  receiver = await startCallbackReceiver((callback) => (refusedOrders.has(callback.json?.orderId) ? 500 : 200));
  dataDir = await mkdtemp(join(tmpdir(), 'gateway-merchant-tools-'));
  gateway = await startGatewayProcess({
    dataDir,
    env: {
      GATEWAY_DEMO_CALLBACK_URL: receiver.url,
      GATEWAY_DEMO_CALLBACK_SECRET: CALLBACK_SECRET,
      GATEWAY_RETRY_SCALE: String(RETRY_SCALE),
      GATEWAY_SECRET_OVERLAP_S: String(SECRET_OVERLAP_S),
      GATEWAY_BOOKS_CHECK_S: '2',
    },
  });
});

afterAll(async () => {
  await gateway?.stop();
  await receiver?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

const api = (method: 'GET' | 'POST' | 'PATCH', path: string, body?: unknown) => callApi(gateway, method, path, body);

async function paidInvoice(orderId: string): Promise<{ invoice: any; deposit: any }> {
  const created = await api('POST', '/api/v2/invoices', { orderId, customerId: 'cust-e2e', baseCurrency: 'USDT', invoiceStrategy: 'fixed', amount: 25 });
  expect(created.status, created.text).toBe(200);
  const deposit = await api('POST', '/api/v2/simulate/deposit', { invoiceId: created.body.data.id });
  expect(deposit.status, deposit.text).toBe(200);
  return { invoice: created.body.data, deposit: deposit.body.data };
}

const parked = { orderId: `parked-${randomUUID()}`, transactionId: '' };

describe('a callback the receiver refuses (1/2)', () => {
  it('is attempted and refused', async () => {
    refusedOrders.add(parked.orderId);
    parked.transactionId = (await paidInvoice(parked.orderId)).deposit.id;
    await eventually(() => receiver.byWebhookId(`${parked.transactionId}:confirmed`)[0], { what: 'the first attempt' });
  });
});

describe('the settings', () => {
  it('are read and changed over HTTP, a test callback going to the new URL', async () => {
    const before = await api('GET', '/api/v2/merchant');
    expect(before.body.data).toMatchObject({ callbackUrl: receiver.url, onchainDeposits: true });
    const changed = await api('PATCH', '/api/v2/merchant', { callbackUrl: `${receiver.url}/moved`, frameAncestors: ['https://shop.example'] });
    expect(changed.status, changed.text).toBe(200);
    const test = await api('POST', '/api/v2/webhooks/test');
    expect(test.body.data).toMatchObject({ status: 200, error: null });
    const [sample] = receiver.byWebhookId(test.body.data.webhookId);
    expect(sample!.path).toBe('/callbacks/moved');
    expect(verifiesWith(CALLBACK_SECRET, sample!)).toBe(true);

    const refused = await api('PATCH', '/api/v2/merchant', { callbackUrl: 'javascript:alert(1)', returnUrl: 'https://shop.example/thanks' });
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual([expect.objectContaining({ field: 'callbackUrl' })]);
    expect((await api('GET', '/api/v2/merchant')).body.data).toEqual(changed.body.data);
    expect((await api('PATCH', '/api/v2/merchant', { callbackUrl: receiver.url })).status).toBe(200);
  });
});

describe('the listings', () => {
  it('follow nextCursor over HTTP to the end, and filter by invoice', async () => {
    const paid = await Promise.all([1, 2, 3].map((n) => paidInvoice(`listed-${n}-${randomUUID()}`)));
    const ids: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = new URLSearchParams({ limit: '2', ...(cursor ? { cursor } : {}) }).toString();
      const page = await api('GET', `/api/v2/invoices?${query}`);
      expect(page.status, page.text).toBe(200);
      ids.push(...page.body.data.items.map((i: { id: string }) => i.id));
      cursor = page.body.data.nextCursor;
    } while (cursor !== null);
    expect(ids).toEqual(expect.arrayContaining(paid.map((p) => p.invoice.id)));
    expect(new Set(ids).size).toBe(ids.length);

    const { invoice, deposit } = paid[0]!;
    const transactions = await api('GET', `/api/v2/transactions?invoiceId=${invoice.id}`);
    expect(transactions.body.data).toEqual({ items: [deposit], nextCursor: null });
    const bad = await api('GET', '/api/v2/transactions?limit=500');
    expect(bad.status).toBe(422);
    expect(bad.body.errors[0].field).toBe('limit');
  });
});

/** The callback secret after the rotation below. */
let newSecret: string;

describe('the callback secret rotated', () => {
  it('signs the next callbacks with both secrets during the overlap', async () => {
    const rotated = await api('POST', '/api/v2/merchant/callback-secret/rotate');
    expect(rotated.status, rotated.text).toBe(200);
    newSecret = rotated.body.data.callbackSecret;
    const { deposit } = await paidInvoice(`rotated-${randomUUID()}`);
    const callback = await receiver.waitForDelivery((c) => c.json?.id === deposit.id);
    expect(verifiesWith(newSecret, callback)).toBe(true);
    expect(verifiesWith(CALLBACK_SECRET, callback)).toBe(true);
    expect(callback.json.hash).toBe((await api('GET', `/api/v2/transaction/${deposit.id}`)).body.data.hash);
  });

  it('signs with the new secret alone once the overlap is over', async () => {
    await new Promise((resolveWait) => setTimeout(resolveWait, SECRET_OVERLAP_S * 1000 + 200));
    const { deposit } = await paidInvoice(`after-${randomUUID()}`);
    const callback = await receiver.waitForDelivery((c) => c.json?.id === deposit.id);
    expect(verifiesWith(newSecret, callback)).toBe(true);
    expect(verifiesWith(CALLBACK_SECRET, callback)).toBe(false);
  });
});

describe('a callback the receiver refuses (2/2)', () => {
  const webhookId = () => `${parked.transactionId}:confirmed`;
  const log = async () => (await api('GET', `/api/v2/transaction/${parked.transactionId}/callbacks`)).body.data;

  it('is parked once its retry window closes, every attempt in its log', async () => {
    const [entry] = await eventually(
      async () => {
        const current = await log();
        return current[0]?.state === 'parked' && current;
      },
      { timeoutMs: WINDOW_MS + 30_000, intervalMs: 500, what: 'the callback to be parked' },
    );
    expect(entry.webhookId).toBe(webhookId());
    expect(entry.attempts.length).toBeGreaterThanOrEqual(3);
    expect(entry.attempts.length).toBe(receiver.byWebhookId(webhookId()).length);
    for (const attempt of entry.attempts) expect(attempt).toEqual({ at: expect.any(String), status: 500, latencyMs: expect.any(Number), error: null });
  });

  it('is delivered when the merchant resends it, without an operator', async () => {
    refusedOrders.delete(parked.orderId);
    const response = await api('POST', `/api/v2/transaction/${parked.transactionId}/callbacks/resend`);
    expect(response.status, response.text).toBe(202);
    expect(response.body.data).toEqual({ webhookId: webhookId() });
    const delivered = await receiver.waitForDelivery((c) => c.webhookId === webhookId());
    // Signed, and hashed, with the secret of the day.
    expect(verifiesWith(newSecret, delivered)).toBe(true);
    expect(delivered.json.hash).toBe((await api('GET', `/api/v2/transaction/${parked.transactionId}`)).body.data.hash);
    const [entry] = await eventually(async () => {
      const current = await log();
      return current[0]?.state === 'delivered' && current;
    });
    expect(entry.attempts.at(-1)).toMatchObject({ status: 200 });
  });
});

describe("the merchant's books", () => {
  it('a simulated deposit credits the balance, a payout is bounded by it, and the hourly check finds them balanced', async () => {
    const before = await api('GET', '/api/v2/balances');
    const available = (body: any, currency: string) => new Decimal(body.data.items.find((item: any) => item.currency === currency)?.available ?? 0);
    await simulateFunds(gateway, { baseCurrency: 'TRY', paymentMethod: 'iban', amount: 500 }, '500');
    const after = await api('GET', '/api/v2/balances');
    expect(available(after.body, 'TRY').minus(available(before.body, 'TRY')).toFixed(2)).toBe('500.00');

    const tooMuch = await api('POST', '/api/v2/withdrawal', { customerId: 'cust-e2e', amount: available(after.body, 'TRY').plus(1).toFixed(2), currency: 'TRY', cardNumber: '4111111111111111' });
    expect(tooMuch.status).toBe(402);
    expect(tooMuch.body.errors[0]).toMatchObject({ code: 'payment_required', message: `Insufficient balance: ${available(after.body, 'TRY').toFixed(2)} TRY available` });
    const paidOut = await api('POST', '/api/v2/withdrawal', { customerId: 'cust-e2e', amount: '100', currency: 'TRY', cardNumber: '4111111111111111' });
    expect(paidOut.status, paidOut.text).toBe(200);
    const entries = await api('GET', `/api/v2/balance/entries?transactionId=${paidOut.body.data.id}`);
    expect(entries.body.data.items.map((entry: any) => entry.type)).toEqual(['payout_reserve']);

    // GATEWAY_BOOKS_CHECK_S runs it every 2 s here.
    await eventually(() => /"message":"Checked the books".*"differences":0/.test(gateway.output()), { what: 'a books check that found nothing' });
    expect(gateway.output()).not.toContain('The books differ');
  });

  it('a report is built off the request path and read through its link, which works only as given', async () => {
    const from = new Date(Date.now() - 3_600_000).toISOString();
    const { deposit } = await paidInvoice(`report-${randomUUID()}`);
    const asked = await api('POST', '/api/v2/reports', { type: 'transactions', createdFrom: from, createdTo: new Date().toISOString(), currency: 'USDT' });
    expect(asked.status, asked.text).toBe(202);
    const report = await eventually(async () => {
      const read = await api('GET', `/api/v2/reports/${asked.body.data.id}`);
      expect(read.body.data.status).toBe('ready');
      return read.body.data;
    });
    expect(report.url.startsWith(`${gateway.baseUrl}/report-files/`)).toBe(true);
    const file = await fetch(report.url);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const lines = (await file.text()).split('\r\n');
    expect(lines[0]).toMatch(/^id,createdAt,updatedAt,type,status,/);
    expect(lines).toHaveLength(report.rows + 2);
    expect(lines.some((line) => line.startsWith(`${deposit.id},`))).toBe(true);

    expect((await fetch(report.url.replace(/signature=[^&]+/, 'signature=forged'))).status).toBe(403);
    expect((await fetch(report.url.replace(/expires=(\d+)/, (_match: string, expires: string) => `expires=${Number(expires) + 1}`))).status).toBe(403);
    const unknown = await api('GET', `/api/v2/reports/${randomUUID()}`);
    expect(unknown.status).toBe(404);
  });
});
