import { createHash, createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { DELIVERY_WINDOW_SECONDS, retryDelaySeconds, storeFailureRetrySeconds, signCallback, windowClosed } from '../../shared/domain/callbacks/callbacks.js';
import { callbackBody, callbackEntry, webhookId } from '../../shared/domain/transactions/transaction-callbacks.js';
import type { Invoice } from '../../shared/domain/invoicing/invoice.js';
import { Decimal } from '../../shared/domain/kernel/money.js';
import { callbackFields, callbackPayload, depositTransaction, transactionHash, transactionView } from '../../shared/domain/transactions/transactions.js';
import { noPayments } from '../../shared/domain/invoicing/payments.js';

const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
const NOW = new Date('2026-03-01T12:00:00.000Z');

const invoice = (overrides: Partial<Invoice> = {}): Invoice => ({
  id: '11111111-1111-4111-8111-111111111111',
  merchantId: 'merchant-1',
  status: 'active',
  family: 'fiat',
  amount: '100.00',
  baseCurrency: 'USD',
  paymentCurrency: 'INR',
  paymentAmount: '8333.33',
  exchangeRate: '83.333333333333333333',
  usdRate: '0.012',
  eurRate: '0.011111111111111111',
  paymentMethod: 'p2p',
  directOpen: false,
  customerId: 'cust-1',
  orderId: 'order-1',
  applicationId: null,
  redirectUrl: null,
  displayCurrencies: null,
  invoiceStrategy: 'fixed',
  customer: {},
  requestHash: 'h',
  ...noPayments('INR'),
  expiresAt: '2026-03-01T12:15:00.000Z',
  createdAt: '2026-03-01T12:00:00.000Z',
  updatedAt: '2026-03-01T12:00:00.000Z',
  ...overrides,
});

const deposit = (inv: Invoice, amount = inv.paymentAmount, feePercent = '1.5') =>
  depositTransaction(
    inv,
    { id: '22222222-2222-4222-8222-222222222222', amount: new Decimal(amount), currency: inv.paymentCurrency, status: 'confirmed', network: null, transactionHash: null, now: NOW },
    feePercent,
  );

describe('transaction hash (docs/merchant-guide.md#the-transaction-hash)', () => {
  it('is base64 SHA-512 of id.customerId.amount.currency.secret', () => {
    const tx = { id: 'abc', customerId: 'cust', amount: '10.00', currency: 'TRY' };
    const expected = createHash('sha512').update(`abc.cust.10.00.TRY.${SECRET}`).digest('base64');
    expect(transactionHash(tx, SECRET)).toBe(expected);
  });

  it('writes N/A for an empty customerId', () => {
    const expected = createHash('sha512').update(`abc.N/A.1.BTC.s`).digest('base64');
    expect(transactionHash({ id: 'abc', customerId: '', amount: '1', currency: 'BTC' }, 's')).toBe(expected);
  });
});

describe('a deposit transaction', () => {
  it('is valued at the invoice fixed rates, in decimal', () => {
    const tx = deposit(invoice());
    expect(tx).toMatchObject({
      type: 'deposit',
      status: 'confirmed',
      amount: '8333.33',
      currency: 'INR',
      network: null,
      transactionHash: null,
      orderId: 'order-1',
      applicationId: null,
      info: {
        exchangeRate: '83.333333333333333333',
        referenceAmount: '100.00',
        referenceCurrency: 'USD',
        referenceExchangeRate: '0.012',
        transactionAmount: '8333.33',
        transactionCurrency: 'INR',
      },
      fees: { processing: '125.00', technical: null },
      usd: '100.00',
      eur: '92.59',
    });
  });

  it('rounds the fee half-up at the currency precision', () => {
    expect(deposit(invoice(), '1000.00', '2.345').fees.processing).toBe('23.45');
    expect(deposit(invoice(), '1.01', '50').fees.processing).toBe('0.51');
  });

  it('shows createdAt, updatedAt and senderDetails in retrieval but not in the callback', () => {
    const tx = deposit(invoice());
    const view = transactionView(tx, SECRET);
    expect(view).not.toHaveProperty('merchantId');
    expect(view.hash).toBe(transactionHash(tx, SECRET));
    expect(view.senderDetails).toEqual({ senderIban: '', senderAccountNumber: '', senderSortCode: '' });
    const payload = callbackPayload(callbackFields(tx), SECRET);
    expect(Object.keys(payload)).toEqual([...Object.keys(view).filter((k) => !['createdAt', 'updatedAt', 'senderDetails'].includes(k)), 'callbackType']);
    expect(payload).not.toHaveProperty('createdAt');
    expect(payload).not.toHaveProperty('updatedAt');
    expect(payload).not.toHaveProperty('senderDetails');
    expect(payload.callbackType).toBe('transaction');
    expect(payload.hash).toBe(view.hash);
  });
});

describe('callbacks (docs/merchant-guide.md#callbacks)', () => {
  it('retries after 1 min, 5 min, 15 min, 1 h, then every 3 h, scaled', () => {
    expect([1, 2, 3, 4, 5, 6, 20].map((n) => retryDelaySeconds(n))).toEqual([60, 300, 900, 3600, 10800, 10800, 10800]);
    expect(retryDelaySeconds(1, 0.001)).toBeCloseTo(0.06);
    // A failure of the gateway's own stores comes back soon, then backs off to 3 minutes.
    expect([0, 1, 2, 3, 4, 5, 40].map(storeFailureRetrySeconds)).toEqual([5, 5, 15, 45, 135, 180, 180]);
  });

  it('closes the window 72 hours after it opened', () => {
    const start = new Date('2026-01-01T00:00:00Z');
    const at = (hours: number) => new Date(start.getTime() + hours * 3600_000);
    expect(DELIVERY_WINDOW_SECONDS).toBe(72 * 3600);
    expect(windowClosed(start, at(68), 3 * 3600)).toBe(false);
    expect(windowClosed(start, at(70), 3 * 3600)).toBe(true);
    expect(windowClosed(start, new Date(start.getTime() + 60_000), 10_800, 0.001)).toBe(true);
  });

  it('signs with the Standard Webhooks scheme, verifiable by its reference library', () => {
    const tx = deposit(invoice());
    const entry = callbackEntry(tx, NOW);
    expect(entry.id).toBe(webhookId(tx.id, 'confirmed'));
    expect(entry.id).toBe(`${tx.id}:confirmed`);
    expect(entry.payload).not.toContain(SECRET);
    const body = callbackBody(entry, SECRET);
    const signed = signCallback(SECRET, entry.id, body, new Date());
    expect(signed.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(new Webhook(SECRET).verify(signed.body, signed.headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(SECRET).verify(signed.body.replace('8333.33', '9333.33'), signed.headers)).toThrow();
  });

  it('keys the HMAC with the bytes the secret encodes', () => {
    const at = new Date('2026-01-01T00:00:00Z');
    const signed = signCallback(SECRET, 'id-1', '{"a":1}', at);
    const expected = createHmac('sha256', Buffer.alloc(32, 7))
      .update(`id-1.${at.getTime() / 1000}.{"a":1}`)
      .digest('base64');
    expect(signed.headers['webhook-signature']).toBe(`v1,${expected}`);
    expect(signed.headers['webhook-timestamp']).toBe(String(at.getTime() / 1000));
  });
});
