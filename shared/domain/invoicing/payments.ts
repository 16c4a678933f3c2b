/**
 * Payment accounting (docs/merchant-guide.md#how-payments-are-counted): what an invoice has been paid, counted from its deposits, and
 * how each deposit moves it. An invoice completes only once paid in full; every deposit, whatever
 * its amount or currency, is its own transaction on the invoice. Pure.
 */
import type { CancelReason, Invoice, InvoiceEventCounts, InvoicePayments, InvoiceStatus, PaymentStatus } from './invoice.js';
import { Decimal, decimalsOf, formatAmount } from '../kernel/index.js';

export function paymentStatusOf(paid: Decimal, due: Decimal): PaymentStatus {
  if (paid.isZero()) return 'unpaid';
  if (paid.lessThan(due)) return 'partial';
  return paid.equals(due) ? 'paid' : 'overpaid';
}

/** A new invoice's payments: nothing yet. */
export const noPayments = (paymentCurrency: string): InvoicePayments => ({
  paidAmount: formatAmount(new Decimal(0), decimalsOf(paymentCurrency)),
  paymentStatus: 'unpaid',
  transactionIds: [],
  completedAt: null,
});

/**
 * A write to an invoice, made only if the invoice is still as it was read: same status, same
 * amount paid, same number of transactions. A lost race is decided again on the new state.
 */
export interface InvoiceUpdate {
  id: string;
  /** `refundedAmount` as it was read, when the change adds a refund to it: two refunds never both add to the same sum. */
  expected: { status: InvoiceStatus; paidAmount: string; transactionCount: number; refundedAmount?: string };
  set: {
    refundedAmount?: string;
    status?: InvoiceStatus;
    cancelReason?: CancelReason;
    paidLate?: true;
    paidAmount?: string;
    paymentStatus?: PaymentStatus;
    completedAt?: string;
    /** The invoice events announced so far, with the one this change announces (shared/domain/invoicing/invoice-events.ts). */
    invoiceEvents?: InvoiceEventCounts;
  };
  /** A new transaction on the invoice, appended to `transactionIds`. */
  appendTransactionId?: string;
  /** The invoice's payment at its provider is decided: the reconciliation no longer asks about it. */
  settlesProviderPayment?: true;
}

export type DepositRefusal = 'gone' | 'conflict';

/** A deposit as it counts on its invoice: a transaction's id, state and money. Only a confirmed or failed one changes it. */
export interface DepositOnInvoice {
  id: string;
  status: string;
  amount: string;
  currency: string;
}

export type InvoiceAccounting = Pick<Invoice, 'id' | 'family' | 'status' | 'paymentAmount' | 'paymentCurrency' | keyof InvoicePayments>;

const isOpen = (status: InvoiceStatus) => status === 'created' || status === 'active';

/**
 * How a deposit moves its invoice: a new one (`isNew`) or a processing one reaching its final
 * state. Confirmed money in the payment currency is added to `paidAmount`; the invoice completes
 * once that reaches the payment amount, late (`paidLate`) if it had been canceled and money is
 * never refused there (crypto, a UTR already under review, or money a provider reports: `moved`).
 * Money in another currency is recorded on the invoice but never completes it. A local-fiat
 * invoice takes no new payment of the merchant's once canceled (410) or completed (409), and a
 * rejected fiat payment cancels it while nothing is paid.
 */
export function invoiceAfterDeposit(invoice: InvoiceAccounting, deposit: DepositOnInvoice, isNew: boolean, now: Date, moved = false): { update: InvoiceUpdate } | { refused: DepositRefusal } {
  if (isNew && !moved && invoice.family === 'fiat') {
    if (invoice.status === 'canceled') return { refused: 'gone' };
    if (invoice.status === 'completed') return { refused: 'conflict' };
  }
  const expected = { status: invoice.status, paidAmount: invoice.paidAmount, transactionCount: invoice.transactionIds.length };
  const update: InvoiceUpdate = { id: invoice.id, expected, set: {}, ...(isNew ? { appendTransactionId: deposit.id } : {}) };
  const due = new Decimal(invoice.paymentAmount);
  const paid = new Decimal(invoice.paidAmount);

  if (deposit.status === 'confirmed' && deposit.currency === invoice.paymentCurrency) {
    const total = paid.plus(deposit.amount);
    update.set.paidAmount = formatAmount(total, decimalsOf(invoice.paymentCurrency));
    update.set.paymentStatus = paymentStatusOf(total, due);
    const lateAllowed = invoice.family === 'crypto' || !isNew || moved;
    if (total.greaterThanOrEqualTo(due) && (isOpen(invoice.status) || (invoice.status === 'canceled' && lateAllowed))) {
      update.set.status = 'completed';
      update.set.completedAt = now.toISOString();
      if (invoice.status === 'canceled') update.set.paidLate = true;
    }
  } else if (deposit.status === 'failed' && invoice.family === 'fiat' && isOpen(invoice.status) && paid.isZero()) {
    update.set.status = 'canceled';
    update.set.cancelReason = 'rejected';
  }
  return { update };
}

/**
 * How a refund of one of the invoice's deposits, once confirmed, moves its invoice: money in the
 * payment currency is added to `refundedAmount` (as `paidAmount` counts deposits in it alone); its
 * status and `paidAmount` stay what the deposits made them. Undefined for a refund in another currency.
 */
export function invoiceAfterRefund(invoice: InvoiceAccounting & Pick<Invoice, 'refundedAmount'>, refund: DepositOnInvoice): InvoiceUpdate | undefined {
  if (refund.status !== 'confirmed' || refund.currency !== invoice.paymentCurrency) return undefined;
  const decimals = decimalsOf(invoice.paymentCurrency);
  const refunded = invoice.refundedAmount ?? formatAmount(new Decimal(0), decimals);
  return {
    id: invoice.id,
    expected: { status: invoice.status, paidAmount: invoice.paidAmount, transactionCount: invoice.transactionIds.length, refundedAmount: refunded },
    set: { refundedAmount: formatAmount(new Decimal(refunded).plus(refund.amount), decimals) },
  };
}
