/**
 * Invoices in memory, to the contract of DynamoInvoiceStore: the orderId claimed with the invoice
 * in one write, expiry only of an invoice still open and due, a provider payment kept once, and
 * the invoice's part of a ledger write made only if the invoice is still as it was read. Each
 * call decides and writes without yielding in between, as one conditional write does; what it
 * answers is a copy, as a read from a table is.
 */
import { orderClaimId } from '../../../shared/domain/chains/claims.js';
import { countOfNewInvoice } from '../../../shared/domain/ledger/daily-totals.js';
import { Conflict } from '../../../shared/domain/kernel/errors.js';
import type { CreateOutcome, DueInvoice, InvoiceRepository } from '../../../shared/domain/invoicing/invoice-service.js';
import type { ExpiringInvoices, ExpiryAnnouncement } from '../../../shared/domain/invoicing/invoice-expiry.js';
import type { CallbackEntry } from '../../../shared/domain/callbacks/callbacks.js';
import type { InvoiceFilters } from '../../../shared/domain/invoicing/invoice-requests.js';
import type { Invoice } from '../../../shared/domain/invoicing/invoice.js';
import type { Listing, Page } from '../../../shared/domain/kernel/pagination.js';
import type { InvoiceUpdate } from '../../../shared/domain/invoicing/payments.js';
import type { ProviderPayment } from '../../../shared/domain/providers/providers.js';
import { MemoryDailyTotals } from './daily-totals.js';
import { inCreatedRange, memoryPage } from './pages.js';

const isOpen = (invoice: Invoice) => invoice.status === 'created' || invoice.status === 'active';

const newestFirst = (a: Invoice, b: Invoice) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id);

export class MemoryInvoiceStore implements InvoiceRepository, ExpiringInvoices {
  /** The invoice events expiries announced, by `webhook-id`. */
  readonly announced = new Map<string, CallbackEntry>();
  private readonly invoices = new Map<string, Invoice>();
  /** The orderId claims: which invoice took the order, and from which request. */
  private readonly orders = new Map<string, { invoiceId: string; requestHash: string }>();
  /** Invoices whose payment at a provider is not decided yet, with that provider. */
  private readonly awaiting = new Map<string, string>();

  /** Where a new invoice is counted, as DynamoInvoiceStore counts it in the same write. */
  constructor(private readonly totals: MemoryDailyTotals = new MemoryDailyTotals()) {}

  async create(invoice: Invoice): Promise<CreateOutcome> {
    const claimId = orderClaimId(invoice.merchantId, invoice.orderId);
    const claim = this.orders.get(claimId);
    if (claim) {
      this.refuseOtherRequest(claim.requestHash, invoice.requestHash);
      return { invoice: structuredClone(this.invoices.get(claim.invoiceId)!), created: false };
    }
    this.orders.set(claimId, { invoiceId: invoice.id, requestHash: invoice.requestHash });
    this.invoices.set(invoice.id, structuredClone(invoice));
    this.totals.add([countOfNewInvoice(invoice)]);
    return { invoice, created: true };
  }

  async refuseTakenOrder(invoice: Invoice): Promise<void> {
    const claim = this.orders.get(orderClaimId(invoice.merchantId, invoice.orderId));
    if (claim) this.refuseOtherRequest(claim.requestHash, invoice.requestHash);
  }

  async get(id: string): Promise<Invoice | undefined> {
    const invoice = this.invoices.get(id);
    return invoice && structuredClone(invoice);
  }

  async list(merchantId: string, listing: Listing<InvoiceFilters>): Promise<Page<Invoice>> {
    const { status, orderId, customerId } = listing.filters;
    const matching = [...this.invoices.values()]
      .filter(
        (invoice) =>
          invoice.merchantId === merchantId &&
          (status === undefined || invoice.status === status) &&
          (orderId === undefined || invoice.orderId === orderId) &&
          (customerId === undefined || invoice.customerId === customerId) &&
          inCreatedRange(listing, invoice.createdAt),
      )
      .sort(newestFirst);
    return memoryPage(matching, listing, (invoice) => invoice.id);
  }

  /** The customer's invoices, newest first, from `since` and in one asset when asked. */
  async *customerInvoices(merchantId: string, customerId: string, options: { since?: string; paymentCurrency?: string } = {}): AsyncGenerator<Invoice> {
    const invoices = [...this.invoices.values()]
      .filter(
        (invoice) =>
          invoice.merchantId === merchantId &&
          invoice.customerId === customerId &&
          (options.since === undefined || invoice.createdAt >= options.since) &&
          (options.paymentCurrency === undefined || invoice.paymentCurrency === options.paymentCurrency),
      )
      .sort(newestFirst);
    for (const invoice of invoices) yield structuredClone(invoice);
  }

  async listDue(now: Date): Promise<DueInvoice[]> {
    return [...this.invoices.values()].filter((invoice) => isOpen(invoice) && invoice.expiresAt <= now.toISOString()).map(({ id, merchantId }) => ({ id, merchantId }));
  }

  async expire({ id }: DueInvoice, now: Date, announcement?: ExpiryAnnouncement): Promise<boolean> {
    const invoice = this.invoices.get(id);
    if (!invoice || !isOpen(invoice) || invoice.expiresAt > now.toISOString()) return false;
    if (announcement && this.announced.has(announcement.event.id)) return false;
    Object.assign(invoice, { status: 'canceled', cancelReason: 'expired', updatedAt: now.toISOString(), ...(announcement ? { invoiceEvents: structuredClone(announcement.invoiceEvents) } : {}) });
    if (announcement) this.announced.set(announcement.event.id, structuredClone(announcement.event));
    return true;
  }

  async attachProviderPayment(id: string, payment: ProviderPayment): Promise<boolean> {
    const invoice = this.invoices.get(id);
    if (!invoice || invoice.providerPayment) return false;
    invoice.providerPayment = structuredClone(payment);
    this.awaiting.set(id, payment.providerId);
    return true;
  }

  async awaitingProvider(providerId: string): Promise<Invoice[]> {
    return [...this.awaiting]
      .filter(([, provider]) => provider === providerId)
      .map(([id]) => structuredClone(this.invoices.get(id)!))
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  async stopAwaitingProvider(id: string): Promise<void> {
    this.awaiting.delete(id);
  }

  /** Whether the invoice is still as `update` was decided on: same status, amount paid and number of transactions. */
  holds({ id, expected }: InvoiceUpdate): boolean {
    const invoice = this.invoices.get(id);
    return (
      invoice?.status === expected.status &&
      invoice.paidAmount === expected.paidAmount &&
      invoice.transactionIds.length === expected.transactionCount &&
      (expected.refundedAmount === undefined || invoice.refundedAmount === undefined || invoice.refundedAmount === expected.refundedAmount)
    );
  }

  /** The invoice's part of a ledger write whose conditions all hold; `at` is the writing transaction's time. */
  apply({ id, set, appendTransactionId, settlesProviderPayment }: InvoiceUpdate, at: string): void {
    const invoice = this.invoices.get(id)!;
    const fields = Object.fromEntries(Object.entries(set).filter(([, value]) => value !== undefined));
    // A write that changes nothing is a condition check alone: the invoice keeps its updatedAt.
    if (Object.keys(fields).length === 0 && !appendTransactionId && !settlesProviderPayment) return;
    Object.assign(invoice, fields, { updatedAt: at });
    if (appendTransactionId) invoice.transactionIds.push(appendTransactionId);
    if (settlesProviderPayment) this.awaiting.delete(id);
  }

  private refuseOtherRequest(claimedHash: string, requestHash: string): void {
    if (claimedHash !== requestHash) throw new Conflict('An invoice with this orderId already exists with different details');
  }
}
