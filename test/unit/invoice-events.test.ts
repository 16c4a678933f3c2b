/** Invoice events (docs/merchant-guide.md#invoice-events): which change announces which event, its number, its id and its body. */
import { describe, expect, it } from 'vitest';
import { callbackBody } from '../../shared/domain/transactions/transaction-callbacks.js';
import type { Invoice } from '../../shared/domain/invoicing/invoice.js';
import { invoiceAfter, invoiceEventBodySchema, invoiceEventEntry, invoiceEventOf, nextEventNumber } from '../../shared/domain/invoicing/invoice-events.js';
import { invoiceAfterDeposit, noPayments, type InvoiceUpdate } from '../../shared/domain/invoicing/payments.js';
import type { TransactionStatus } from '../../shared/domain/transactions/transactions.js';

const NOW = new Date('2026-03-01T12:00:00.000Z');
const BASE_URL = 'https://pay.example.com';

const invoice = (overrides: Partial<Invoice> = {}): Invoice => ({
  id: '6f1c1a4e-5d0b-4c55-9a55-3c1a0f0b8e01',
  merchantId: 'merchant-1',
  status: 'active',
  family: 'crypto',
  amount: '25',
  baseCurrency: 'USDT',
  paymentCurrency: 'USDT',
  paymentAmount: '25.000000',
  exchangeRate: '1',
  usdRate: '1',
  eurRate: '0.92',
  paymentMethod: 'crypto',
  directOpen: false,
  customerId: 'customer-1',
  orderId: 'order-1',
  applicationId: null,
  redirectUrl: null,
  displayCurrencies: null,
  invoiceStrategy: 'fixed',
  customer: {},
  requestHash: 'hash',
  expiresAt: '2026-03-01T13:00:00.000Z',
  createdAt: '2026-03-01T11:00:00.000Z',
  updatedAt: '2026-03-01T11:00:00.000Z',
  ...noPayments('USDT'),
  ...overrides,
});

const deposit = (amount: string, status: TransactionStatus = 'confirmed', currency = 'USDT') => ({ id: '0b7e3f52-33a4-4a8e-8f43-2f1d1f3c9a10', amount, currency, status });

function updateOf(target: Invoice, ...args: Parameters<typeof deposit>): InvoiceUpdate {
  const outcome = invoiceAfterDeposit(target, deposit(...args), true, NOW);
  if (!('update' in outcome)) throw new Error(`refused: ${outcome.refused}`);
  return outcome.update;
}

describe('the event a change announces', () => {
  it.each([
    ['a confirmed deposit short of the amount', invoice(), ['10.000000'], 'invoice.partially_paid'],
    ['a second one, still short', invoice({ paidAmount: '10.000000', paymentStatus: 'partial' }), ['5.000000'], 'invoice.partially_paid'],
    ['one that pays it exactly', invoice(), ['25.000000'], 'invoice.paid'],
    ['one that overpays it', invoice({ paidAmount: '10.000000', paymentStatus: 'partial' }), ['20.000000'], 'invoice.paid'],
    ['one that pays it after it expired', invoice({ status: 'canceled', cancelReason: 'expired' }), ['25.000000'], 'invoice.paid_late'],
    ['a provider rejecting a fiat payment', invoice({ family: 'fiat', paymentCurrency: 'INR', paymentAmount: '100.00', ...noPayments('INR') }), ['100.00', 'failed', 'INR'], 'invoice.canceled'],
  ] as const)('%s: %s', (_name, target, args, event) => {
    expect(invoiceEventOf(updateOf(target, ...(args as unknown as Parameters<typeof deposit>)))).toBe(event);
  });

  it.each([
    ['a processing deposit', invoice(), ['25.000000', 'processing']],
    ['a deposit in another currency', invoice(), ['25.000000', 'confirmed', 'USDC']],
    ['a failed crypto deposit', invoice(), ['25.000000', 'failed']],
  ] as const)('none for %s', (_name, target, args) => {
    expect(invoiceEventOf(updateOf(target, ...(args as unknown as Parameters<typeof deposit>)))).toBeUndefined();
  });

  it('expired, for the expiry sweep canceling an invoice', () => {
    const expected = { status: 'active' as const, paidAmount: '0.000000', transactionCount: 0 };
    expect(invoiceEventOf({ expected, set: { status: 'canceled', cancelReason: 'expired' } })).toBe('invoice.expired');
  });
});

describe('an invoice event', () => {
  it('is numbered per invoice and event, from 1', () => {
    expect(nextEventNumber(undefined, 'invoice.partially_paid')).toBe(1);
    expect(nextEventNumber({ 'invoice.partially_paid': 2 }, 'invoice.partially_paid')).toBe(3);
    expect(nextEventNumber({ 'invoice.partially_paid': 2 }, 'invoice.paid')).toBe(1);
  });

  it('carries the invoice as the change leaves it, sent as written, with no hash', () => {
    const before = invoice({ paidAmount: '10.000000', paymentStatus: 'partial', transactionIds: ['a0b7e3f5-33a4-4a8e-8f43-2f1d1f3c9a10'] });
    const update = updateOf(before, '15.000000');
    const after = invoiceAfter(before, update, NOW);
    const entry = invoiceEventEntry(after, 'invoice.paid', 1, BASE_URL, NOW);

    expect(entry).toMatchObject({ id: `invoice:${before.id}:invoice.paid:1`, merchantId: 'merchant-1', invoiceId: before.id, createdAt: NOW.toISOString() });
    expect(entry.transactionId).toBeUndefined();
    const body = invoiceEventBodySchema.parse(JSON.parse(entry.payload));
    expect(body).toMatchObject({
      callbackType: 'invoice',
      event: 'invoice.paid',
      invoice: {
        id: before.id,
        link: `${BASE_URL}/checkout/${before.id}`,
        status: 'completed',
        paidAmount: '25.000000',
        paymentStatus: 'paid',
        completedAt: NOW.toISOString(),
        transactionIds: ['a0b7e3f5-33a4-4a8e-8f43-2f1d1f3c9a10', '0b7e3f52-33a4-4a8e-8f43-2f1d1f3c9a10'],
      },
    });
    expect(callbackBody(entry, 'whsec_unused')).toBe(entry.payload);
  });

  it('marks an invoice paid late as the API shows it', () => {
    const before = invoice({ status: 'canceled', cancelReason: 'expired' });
    const after = invoiceAfter(before, updateOf(before, '25.000000'), NOW);
    const body = JSON.parse(invoiceEventEntry(after, 'invoice.paid_late', 1, BASE_URL, NOW).payload);
    expect(body.invoice).toMatchObject({ status: 'completed', paidLate: true, paymentStatus: 'paid' });
  });
});
