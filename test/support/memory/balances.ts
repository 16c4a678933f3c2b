/**
 * The books in memory, to the contract of DynamoBalanceStore: a posting writes its entries only if
 * their ids are new and the balance only if it is still the one the posting was computed from
 * (entry count and amounts), all or nothing; the ledger's writes carry a posting the same way
 * (`holds`, then `apply`). What it answers is a copy.
 */
import type { BalanceStore } from '../../../shared/domain/ledger/balance-service.js';
import type { Balance, BalanceEntry, BalanceEntryFilters, BalancePosting } from '../../../shared/domain/ledger/balances.js';
import type { BalanceKey, SequencedEntry } from '../../../shared/domain/ledger/books-check.js';
import type { Listing, Page } from '../../../shared/domain/kernel/pagination.js';
import type { CommitResult } from '../../../shared/domain/kernel/retry.js';
import { inCreatedRange, memoryPage, pagesOf } from './pages.js';

/** Where a balance is kept in `balances`. */
export const balanceKey = (merchantId: string, currency: string) => JSON.stringify([merchantId, currency]);

const newestFirst = (a: BalanceEntry, b: BalanceEntry) => b.createdAt.localeCompare(a.createdAt) || b.sequence - a.sequence;

export class MemoryBalanceStore implements BalanceStore {
  /** As stored, by `balanceKey`: a test may change them as a fault or another writer would. */
  readonly balances = new Map<string, Balance>();
  readonly entries = new Map<string, BalanceEntry>();
  /** Runs before each posting of the store's own is judged, as a concurrent writer would. */
  beforeWrite?: () => void;
  /** Items in a page of the books check's reads, as a query's 1 MB page holds a few thousand. */
  pageSize = 1000;

  async get(merchantId: string, currency: string): Promise<Balance | undefined> {
    const balance = this.balances.get(balanceKey(merchantId, currency));
    return balance && structuredClone(balance);
  }

  async all(merchantId: string): Promise<Balance[]> {
    return [...this.balances.values()]
      .filter((balance) => balance.merchantId === merchantId)
      .sort((a, b) => a.currency.localeCompare(b.currency))
      .map((balance) => structuredClone(balance));
  }

  async list(merchantId: string, listing: Listing<BalanceEntryFilters>): Promise<Page<BalanceEntry>> {
    const { currency, type, transactionId } = listing.filters;
    const matching = [...this.entries.values()]
      .filter(
        (entry) =>
          entry.merchantId === merchantId &&
          (currency === undefined || entry.currency === currency) &&
          (type === undefined || entry.type === type) &&
          (transactionId === undefined || entry.transactionId === transactionId) &&
          inCreatedRange(listing, entry.createdAt),
      )
      .sort(newestFirst);
    return memoryPage(matching, listing, (entry) => entry.id);
  }

  async entriesIn(merchantId: string, currency: string): Promise<BalanceEntry[]> {
    return [...this.entries.values()].filter((entry) => entry.merchantId === merchantId && entry.currency === currency).map((entry) => structuredClone(entry));
  }

  /** The balances written from `from` to `to`, as the `changes` index holds them. */
  async *changedBetween(from: string, to: string): AsyncIterable<BalanceKey[]> {
    const changed = [...this.balances.values()].filter(({ updatedAt }) => updatedAt >= from && updatedAt <= to);
    yield* pagesOf(
      changed.map(({ merchantId, currency }) => ({ merchantId, currency })),
      this.pageSize,
    );
  }

  async newestSequence(key: BalanceKey): Promise<number> {
    return Math.max(0, ...this.ofBalance(key).map((entry) => entry.sequence));
  }

  async *entriesBySequence(key: BalanceKey, from: number, to: number): AsyncIterable<SequencedEntry[]> {
    const entries = this.ofBalance(key).filter(({ sequence }) => sequence >= from && sequence <= to);
    yield* pagesOf(
      entries.map(({ sequence, availableChange, reservedChange }) => ({ sequence, availableChange, reservedChange })),
      this.pageSize,
    );
  }

  async written(ids: readonly string[]): Promise<Set<string>> {
    return new Set(ids.filter((id) => this.entries.has(id)));
  }

  /** The balance's entries in order of sequence, as the `bySequence` index holds them. */
  private ofBalance({ merchantId, currency }: BalanceKey): BalanceEntry[] {
    return [...this.entries.values()].filter((entry) => entry.merchantId === merchantId && entry.currency === currency).sort((a, b) => a.sequence - b.sequence);
  }

  async post(posting: BalancePosting): Promise<CommitResult> {
    this.beforeWrite?.();
    if (!this.holds(posting)) return 'stale';
    this.apply(posting);
    return 'committed';
  }

  async replace(balance: Balance, expected: BalancePosting['expected']): Promise<CommitResult> {
    return this.post({ balance, expected, entries: [] });
  }

  /** Whether the posting may be written: its entries are new and its balance is still the one it was computed from. */
  holds({ balance, expected, entries }: BalancePosting): boolean {
    const current = this.balances.get(balanceKey(balance.merchantId, balance.currency));
    const unchanged = expected ? current?.entryCount === expected.entryCount && current.available === expected.available && current.reserved === expected.reserved : current === undefined;
    return unchanged && entries.every((entry) => !this.entries.has(entry.id));
  }

  /** The posting's writes, once `holds` said they may be made. */
  apply({ balance, entries }: BalancePosting): void {
    for (const entry of entries) this.entries.set(entry.id, structuredClone(entry));
    this.balances.set(balanceKey(balance.merchantId, balance.currency), structuredClone(balance));
  }
}
