/**
 * A merchant's day totals, for the dashboard's overview: per UTC day, the confirmed deposit volume
 * in each currency, and the invoices created and completed. They are kept as things happen, each
 * counted in the same database write as the change it counts, so that a month of them is read at
 * once however many transactions the merchant has. What a write counts is pure
 * (`countsOfLedgerWrite`, `countOfNewInvoice`), derived from what the write carries already; the
 * stores turn it into their own items. `DailyTotalsRecount` counts days again from the records
 * themselves, for the days before the totals existed.
 */
import type { BalancePosting } from './balances.js';
import { type Listing, MAX_PAGE_LIMIT, NotFound, type Page } from '../kernel/index.js';
import type { Invoice, InvoiceFilters, InvoiceUpdate } from '../invoicing/index.js';
import type { MerchantProfiles } from '../merchants/index.js';
import type { Transaction } from '../transactions/index.js';

/** The UTC day of a stored time, `YYYY-MM-DD`. */
export const utcDay = (at: string): string => new Date(at).toISOString().slice(0, 10);

export interface InvoiceDayCounts {
  created: number;
  completed: number;
}

/** A merchant's totals over some days: the days (and currencies) that had any. */
export interface DayTotals {
  /** By currency, then by day: the confirmed volume, an exact decimal at the currency's precision. */
  volumes: Map<string, Map<string, string>>;
  invoices: Map<string, InvoiceDayCounts>;
}

/** One thing counted towards a merchant's day: a confirmed deposit's amount, or an invoice created or completed. */
export type DailyCount =
  | { kind: 'volume'; merchantId: string; day: string; currency: string; amount: string }
  | { kind: 'invoice'; merchantId: string; day: string; invoiceId: string; event: keyof InvoiceDayCounts };

/** The totals as the overview reads them. */
export interface DailyTotals {
  /** The merchant's totals on `days` (UTC days, `YYYY-MM-DD`), read at once. */
  lastDays(merchantId: string, days: readonly string[]): Promise<DayTotals>;
}

/** The totals as the recount writes them. */
export interface DailyTotalsStore extends DailyTotals {
  /**
   * Sets the merchant's totals on `days` to the sums of `counts`: every total of those days is
   * replaced, none added to, so that a second run writes the same again.
   */
  replace(merchantId: string, days: readonly string[], counts: readonly DailyCount[]): Promise<void>;
}

/**
 * What a transaction's write counts, from what it writes: each `deposit` entry of its posting (a
 * deposit credited as confirmed, whatever its source: the chain, a provider, a simulation) its
 * amount in its currency on the entry's day, which is the day of the confirmation; and an invoice
 * it completes, on the day it completes. A withdrawal posts no deposit entry, and a processing or
 * failed deposit no entry at all. The count is written with the change or not at all, so a write
 * refused (a transition from a state the transaction has left, an entry written already) counts
 * nothing.
 */
export function countsOfLedgerWrite(transaction: Pick<Transaction, 'merchantId' | 'updatedAt'>, posting?: BalancePosting, invoice?: InvoiceUpdate): DailyCount[] {
  const volumes = (posting?.entries ?? [])
    .filter((entry) => entry.type === 'deposit')
    .map((entry): DailyCount => ({ kind: 'volume', merchantId: entry.merchantId, day: utcDay(entry.createdAt), currency: entry.currency, amount: entry.availableChange }));
  if (invoice?.set.status !== 'completed') return volumes;
  const completedAt = invoice.set.completedAt ?? transaction.updatedAt;
  return [...volumes, { kind: 'invoice', merchantId: transaction.merchantId, day: utcDay(completedAt), invoiceId: invoice.id, event: 'completed' }];
}

/** What a new invoice counts: itself, on the day it was created. */
export const countOfNewInvoice = ({ id, merchantId, createdAt }: Pick<Invoice, 'id' | 'merchantId' | 'createdAt'>): DailyCount => ({
  kind: 'invoice',
  merchantId,
  day: utcDay(createdAt),
  invoiceId: id,
  event: 'created',
});

/**
 * What the records count on `days`, as the writes would have counted them: a confirmed deposit its
 * amount on the day of its last change (confirmed is final, so that is its confirmation), an
 * invoice itself on the day it was created and on the day it completed.
 */
export function countsOfRecords(merchantId: string, days: readonly string[], transactions: Iterable<Transaction>, invoices: Iterable<Invoice>): DailyCount[] {
  const wanted = new Set(days);
  const counts: DailyCount[] = [];
  for (const { type, status, updatedAt, currency, amount } of transactions) {
    if (type === 'deposit' && status === 'confirmed' && wanted.has(utcDay(updatedAt))) counts.push({ kind: 'volume', merchantId, day: utcDay(updatedAt), currency, amount });
  }
  for (const invoice of invoices) {
    const created = countOfNewInvoice(invoice);
    if (wanted.has(created.day)) counts.push(created);
    const completedDay = invoice.status === 'completed' && invoice.completedAt ? utcDay(invoice.completedAt) : undefined;
    if (completedDay && wanted.has(completedDay)) counts.push({ kind: 'invoice', merchantId, day: completedDay, invoiceId: invoice.id, event: 'completed' });
  }
  return counts;
}

export interface DailyTotalsRecountDeps {
  merchants: Pick<MerchantProfiles, 'getMerchant'>;
  /** Oldest first; every transaction of the merchant. */
  transactions: { allOf(merchantId: string): AsyncIterable<Transaction> };
  invoices: { list(merchantId: string, listing: Listing<InvoiceFilters>): Promise<Page<Invoice>> };
  totals: DailyTotalsStore;
}

/**
 * The operator's recount of a merchant's day totals from its transactions and invoices (the admin
 * CLI), for a merchant whose records predate the totals: what it finds is set, not added, so it may
 * run any number of times. A change counted while it runs may be overwritten by what it read before
 * the change; running it again counts it.
 */
export class DailyTotalsRecount {
  constructor(private readonly deps: DailyTotalsRecountDeps) {}

  /** Counts `days` (UTC days, `YYYY-MM-DD`) again and answers the totals as they are then. */
  async recount(merchantId: string, days: readonly string[]): Promise<DayTotals> {
    if (!(await this.deps.merchants.getMerchant(merchantId))) throw new NotFound('Merchant');
    const ordered = [...days].sort();
    if (ordered.length === 0) return { volumes: new Map(), invoices: new Map() };
    const transactions: Transaction[] = [];
    for await (const transaction of this.deps.transactions.allOf(merchantId)) transactions.push(transaction);
    // The invoices created on the days, and those completed on them: completed ones of any age.
    const invoices = new Map<string, Invoice>();
    const createdOnTheDays = { createdFrom: `${ordered[0]}T00:00:00.000Z`, createdTo: `${ordered.at(-1)}T23:59:59.999Z` };
    for (const listing of [{ filters: {}, ...createdOnTheDays }, { filters: { status: 'completed' as const } }]) {
      for await (const invoice of this.everyInvoice(merchantId, listing)) invoices.set(invoice.id, invoice);
    }
    await this.deps.totals.replace(merchantId, ordered, countsOfRecords(merchantId, ordered, transactions, invoices.values()));
    return this.deps.totals.lastDays(merchantId, ordered);
  }

  private async *everyInvoice(merchantId: string, listing: Omit<Listing<InvoiceFilters>, 'limit'>): AsyncIterable<Invoice> {
    let cursor: string | undefined;
    do {
      const page = await this.deps.invoices.list(merchantId, { ...listing, limit: MAX_PAGE_LIMIT, ...(cursor === undefined ? {} : { cursor }) });
      yield* page.items;
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined);
  }
}
