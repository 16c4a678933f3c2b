/**
 * Invoice events (docs/merchant-guide.md#invoice-events): what a merchant that turned
 * `invoiceCallbacks` on is called back with when one of its invoices changes, beside the
 * transaction callbacks. Each event is decided from the change as it is written, numbered per
 * invoice and event (`invoice:{invoiceId}:{event}:{n}`, n from 1), and sent through the same
 * outbox, signatures and retries as a transaction's callback. Pure.
 */
import * as z from 'zod';
import type { CallbackEntry } from '../callbacks/index.js';
import { type Invoice, INVOICE_EVENTS, type InvoiceEvent, type InvoiceEventCounts } from './invoice.js';
import type { Merchant } from '../merchants/index.js';
import { invoiceView, invoiceViewSchema } from './invoice-views.js';
import type { InvoiceUpdate } from './payments.js';

/**
 * The event a change of an invoice announces, if any: completed (paid, or paid late after it was
 * canceled), canceled (expired, or rejected by its provider), a confirmed deposit that leaves it
 * partly paid, or a confirmed refund of one of its deposits. A deposit that changes nothing the merchant sees (another currency, a processing
 * one) announces nothing.
 */
export function invoiceEventOf({ expected, set }: Pick<InvoiceUpdate, 'expected' | 'set'>): InvoiceEvent | undefined {
  if (set.refundedAmount !== undefined) return 'invoice.refunded';
  if (set.status === 'completed') return set.paidLate ? 'invoice.paid_late' : 'invoice.paid';
  if (set.status === 'canceled') return set.cancelReason === 'expired' ? 'invoice.expired' : 'invoice.canceled';
  if (set.paymentStatus === 'partial' && set.paidAmount !== undefined && set.paidAmount !== expected.paidAmount) return 'invoice.partially_paid';
  return undefined;
}

/** The `webhook-id` of the `n`th `event` of an invoice. */
export const invoiceWebhookId = (invoiceId: string, event: InvoiceEvent, n: number): string => `invoice:${invoiceId}:${event}:${n}`;

/** The body of an invoice event: what happened, and the invoice as the API shows it after the change. */
export const invoiceEventBodySchema = z.object({
  callbackType: z.literal('invoice'),
  event: z.enum(INVOICE_EVENTS),
  invoice: invoiceViewSchema,
});

export type InvoiceEventBody = z.output<typeof invoiceEventBodySchema>;

/** The invoice as `update` leaves it, at `now`. */
export function invoiceAfter(invoice: Invoice, update: Pick<InvoiceUpdate, 'set' | 'appendTransactionId'>, now: Date): Invoice {
  const { paidLate, ...set } = update.set;
  return {
    ...invoice,
    ...set,
    ...(paidLate ? { paidLate } : {}),
    transactionIds: update.appendTransactionId ? [...invoice.transactionIds, update.appendTransactionId] : invoice.transactionIds,
    updatedAt: now.toISOString(),
  };
}

/**
 * The callback announcing `event` of `invoice` (as the change leaves it), the `n`th of its kind
 * for the invoice; `publicBaseUrl` makes the view's checkout link.
 */
export function invoiceEventEntry(invoice: Invoice, event: InvoiceEvent, n: number, publicBaseUrl: string, now: Date): CallbackEntry {
  const body: InvoiceEventBody = { callbackType: 'invoice', event, invoice: invoiceView(invoice, publicBaseUrl) };
  return {
    id: invoiceWebhookId(invoice.id, event, n),
    merchantId: invoice.merchantId,
    invoiceId: invoice.id,
    payload: JSON.stringify(body),
    createdAt: now.toISOString(),
  };
}

/** The next number of `event` for an invoice that has announced `counts`. */
export const nextEventNumber = (counts: InvoiceEventCounts | undefined, event: InvoiceEvent): number => (counts?.[event] ?? 0) + 1;

/**
 * `update` of `invoice` for a merchant that takes invoice events and a change that announces one:
 * counting the event on the invoice, with the event's callback entry, both written with the change.
 * Otherwise `update` as it was, and no entry.
 */
export function withInvoiceEvent(
  merchant: Pick<Merchant, 'invoiceCallbacks'>,
  invoice: Invoice,
  update: InvoiceUpdate,
  publicBaseUrl: string,
  now: Date,
): { update: InvoiceUpdate; event?: CallbackEntry } {
  const event = merchant.invoiceCallbacks ? invoiceEventOf(update) : undefined;
  if (!event) return { update };
  const n = nextEventNumber(invoice.invoiceEvents, event);
  const counted: InvoiceUpdate = { ...update, set: { ...update.set, invoiceEvents: { ...invoice.invoiceEvents, [event]: n } } };
  return { update: counted, event: invoiceEventEntry(invoiceAfter(invoice, counted, now), event, n, publicBaseUrl, now) };
}
