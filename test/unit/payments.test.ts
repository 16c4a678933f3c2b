/** Payment accounting (docs/merchant-guide.md#how-payments-are-counted): every deposit's effect on its invoice, and the sum that decides completion. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Decimal, formatAmount } from '../../shared/domain/kernel/money.js';
import { invoiceAfterDeposit, noPayments, paymentStatusOf, type InvoiceAccounting } from '../../shared/domain/invoicing/payments.js';
import type { TransactionStatus } from '../../shared/domain/transactions/transactions.js';

const NOW = new Date('2026-03-01T12:00:00.000Z');

const invoice = (overrides: Partial<InvoiceAccounting> = {}): InvoiceAccounting => ({
  id: 'invoice-1',
  family: 'crypto',
  status: 'active',
  paymentAmount: '25.000000',
  paymentCurrency: 'USDT',
  ...noPayments('USDT'),
  ...overrides,
});

const deposit = (amount: string, status: TransactionStatus = 'confirmed', currency = 'USDT', id = 'tx-1') => ({ id, amount, currency, status });

const afterDeposit = (inv: InvoiceAccounting, ...args: [ReturnType<typeof deposit>, boolean?]) => invoiceAfterDeposit(inv, args[0], args[1] ?? true, NOW);

describe('payment status', () => {
  it.each([
    ['0', 'unpaid'],
    ['10', 'partial'],
    ['24.999999', 'partial'],
    ['25', 'paid'],
    ['25.000001', 'overpaid'],
  ] as const)('%s of 25 is %s', (paid, status) => {
    expect(paymentStatusOf(new Decimal(paid), new Decimal(25))).toBe(status);
  });
});

describe('a deposit on an invoice', () => {
  it('of less than asked leaves it open as partial, recorded', () => {
    expect(afterDeposit(invoice(), deposit('10.000000'))).toEqual({
      update: {
        id: 'invoice-1',
        expected: { status: 'active', paidAmount: '0.000000', transactionCount: 0 },
        set: { paidAmount: '10.000000', paymentStatus: 'partial' },
        appendTransactionId: 'tx-1',
      },
    });
  });

  it('completing the amount completes it, with the time', () => {
    const partlyPaid = invoice({ paidAmount: '10.000000', paymentStatus: 'partial', transactionIds: ['tx-0'] });
    expect(afterDeposit(partlyPaid, deposit('15.000000'))).toMatchObject({
      update: { expected: { paidAmount: '10.000000', transactionCount: 1 }, set: { paidAmount: '25.000000', paymentStatus: 'paid', status: 'completed', completedAt: NOW.toISOString() } },
    });
  });

  it('of more than asked completes it as overpaid; a further one on a completed crypto invoice only adds', () => {
    expect(afterDeposit(invoice(), deposit('30.000000'))).toMatchObject({ update: { set: { paymentStatus: 'overpaid', status: 'completed' } } });
    const completed = invoice({ status: 'completed', paidAmount: '25.000000', paymentStatus: 'paid', transactionIds: ['tx-0'], completedAt: 'earlier' });
    expect(afterDeposit(completed, deposit('1.000000'))).toMatchObject({ update: { set: { paidAmount: '26.000000', paymentStatus: 'overpaid' } } });
    expect(afterDeposit(completed, deposit('1.000000'))).not.toHaveProperty('update.set.status');
  });

  it('in another currency is recorded on the invoice but never pays or completes it', () => {
    const outcome = afterDeposit(invoice(), deposit('100.000000', 'confirmed', 'USDC'));
    expect(outcome).toEqual({ update: { id: 'invoice-1', expected: expect.anything(), set: {}, appendTransactionId: 'tx-1' } });
  });

  it('on a canceled crypto invoice completes it late only once paid in full', () => {
    const canceled = invoice({ status: 'canceled', cancelReason: 'expired' } as Partial<InvoiceAccounting>);
    expect(afterDeposit(canceled, deposit('10.000000'))).toMatchObject({ update: { set: { paymentStatus: 'partial' } } });
    expect(afterDeposit(canceled, deposit('10.000000'))).not.toHaveProperty('update.set.status');
    expect(afterDeposit(canceled, deposit('25.000000'))).toMatchObject({ update: { set: { status: 'completed', paidLate: true, paymentStatus: 'paid' } } });
  });

  it('that is processing or failed moves no money; a failed crypto one leaves the invoice open', () => {
    for (const status of ['processing', 'failed'] as const) {
      expect(afterDeposit(invoice(), deposit('25.000000', status))).toMatchObject({ update: { set: {}, appendTransactionId: 'tx-1' } });
    }
  });

  describe('in local fiat', () => {
    const fiat = (overrides: Partial<InvoiceAccounting> = {}) => invoice({ family: 'fiat', paymentCurrency: 'INR', paymentAmount: '1000.00', ...noPayments('INR'), ...overrides });

    it('is refused once the invoice is canceled (gone) or completed (conflict)', () => {
      expect(afterDeposit(fiat({ status: 'canceled' }), deposit('1000.00', 'confirmed', 'INR'))).toEqual({ refused: 'gone' });
      expect(afterDeposit(fiat({ status: 'completed' }), deposit('1000.00', 'confirmed', 'INR'))).toEqual({ refused: 'conflict' });
    });

    it('rejected cancels the invoice while nothing is paid, and only then', () => {
      expect(afterDeposit(fiat(), deposit('1000.00', 'failed', 'INR'))).toMatchObject({ update: { set: { status: 'canceled', cancelReason: 'rejected' } } });
      const partlyPaid = fiat({ paidAmount: '400.00', paymentStatus: 'partial', transactionIds: ['tx-0'] });
      expect(afterDeposit(partlyPaid, deposit('600.00', 'failed', 'INR'))).toMatchObject({ update: { set: {} } });
    });

    it('confirmed after its review completes the invoice even once it lapsed (paid late), never refused', () => {
      const lapsed = fiat({ status: 'canceled', transactionIds: ['tx-1'] });
      expect(invoiceAfterDeposit(lapsed, deposit('1000.00', 'confirmed', 'INR'), false, NOW)).toMatchObject({
        update: { set: { status: 'completed', paidLate: true }, expected: { transactionCount: 1 } },
      });
      expect(invoiceAfterDeposit(lapsed, deposit('1000.00', 'confirmed', 'INR'), false, NOW)).not.toHaveProperty('update.appendTransactionId');
    });
  });
});

describe('the sum of deposits', () => {
  it('is paidAmount, and the invoice completes exactly when it reaches the payment amount', () => {
    const cents = fc.integer({ min: 1, max: 5_000_000 }).map((n) => formatAmount(new Decimal(n).div(1_000_000), 6));
    fc.assert(
      fc.property(fc.array(cents, { minLength: 1, maxLength: 12 }), (amounts) => {
        let state = invoice();
        amounts.forEach((amount, index) => {
          const outcome = afterDeposit(state, deposit(amount, 'confirmed', 'USDT', `tx-${index}`));
          if (!('update' in outcome)) throw new Error('refused');
          const { set, appendTransactionId } = outcome.update;
          state = { ...state, ...(set as Partial<InvoiceAccounting>), transactionIds: [...state.transactionIds, appendTransactionId!] };
        });
        const sum = amounts.reduce((total, amount) => total.plus(amount), new Decimal(0));
        expect(state.paidAmount).toBe(formatAmount(sum, 6));
        expect(state.transactionIds).toHaveLength(amounts.length);
        expect(state.status === 'completed').toBe(sum.greaterThanOrEqualTo(25));
        expect(state.paymentStatus).toBe(paymentStatusOf(sum, new Decimal(25)));
      }),
      { numRuns: 300 },
    );
  });
});
