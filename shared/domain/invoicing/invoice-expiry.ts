/**
 * The expiry sweep (every minute): cancels the open invoices whose lifetime has ended, each
 * conditionally, so that a payment landing first wins. For a merchant that takes invoice events
 * (docs/merchant-guide.md#invoice-events) the cancellation and its `invoice.expired` are one write.
 */
import type { CallbackEntry } from '../callbacks/index.js';
import { withInvoiceEvent } from './invoice-events.js';
import type { Invoice, InvoiceEventCounts } from './invoice.js';
import type { DueInvoice } from './invoice-service.js';
import type { Merchant, MerchantProfiles } from '../merchants/index.js';
import type { InvoiceUpdate } from './payments.js';

/** An expiry announced: the invoice's event counts with it, and its callback entry. */
export interface ExpiryAnnouncement {
  invoiceEvents: InvoiceEventCounts;
  event: CallbackEntry;
}

export interface ExpiringInvoices {
  /** Open invoices whose lifetime ended at or before `now`. */
  listDue(now: Date): Promise<DueInvoice[]>;
  get(id: string): Promise<Invoice | undefined>;
  /** Cancels the invoice as expired if it is still open and due, writing `announcement` with it; false when it no longer is. */
  expire(due: DueInvoice, now: Date, announcement?: ExpiryAnnouncement): Promise<boolean>;
}

export interface InvoiceExpiryDeps {
  invoices: ExpiringInvoices;
  merchants: MerchantProfiles;
  callbacks: { publish(callbackIds: string[]): Promise<number> };
  publicBaseUrl: string;
}

/** Writes in flight at once: a large backlog must not exhaust the table's burst. */
const EXPIRE_CONCURRENCY = 25;

export class InvoiceExpiry {
  constructor(private readonly deps: InvoiceExpiryDeps) {}

  /** Expires every invoice due at `now`; how many were due and how many it expired. */
  async sweep(now: Date): Promise<{ due: number; expired: number }> {
    const due = await this.deps.invoices.listDue(now);
    // A sweep reads each merchant's settings once.
    const merchants = new Map<string, Promise<Merchant | undefined>>();
    const merchantOf = (id: string) => merchants.get(id) ?? merchants.set(id, this.deps.merchants.getMerchant(id)).get(id)!;
    let expired = 0;
    for (let start = 0; start < due.length; start += EXPIRE_CONCURRENCY) {
      const outcomes = await Promise.all(due.slice(start, start + EXPIRE_CONCURRENCY).map((invoice) => this.expire(invoice, now, merchantOf)));
      expired += outcomes.filter(Boolean).length;
    }
    return { due: due.length, expired };
  }

  private async expire(due: DueInvoice, now: Date, merchantOf: (id: string) => Promise<Merchant | undefined>): Promise<boolean> {
    const { invoices, callbacks, publicBaseUrl } = this.deps;
    const merchant = due.merchantId === undefined ? undefined : await merchantOf(due.merchantId);
    if (!merchant?.invoiceCallbacks) return invoices.expire(due, now);
    const invoice = await invoices.get(due.id);
    if (!invoice) return false;
    const expiry: InvoiceUpdate = {
      id: invoice.id,
      expected: { status: invoice.status, paidAmount: invoice.paidAmount, transactionCount: invoice.transactionIds.length },
      set: { status: 'canceled', cancelReason: 'expired' },
    };
    const { update, event } = withInvoiceEvent(merchant, invoice, expiry, publicBaseUrl, now);
    if (!event || !update.set.invoiceEvents) return invoices.expire(due, now);
    const expired = await invoices.expire(due, now, { invoiceEvents: update.set.invoiceEvents, event });
    if (expired) await callbacks.publish([event.id]);
    return expired;
  }
}
