/**
 * The check that the books balance (docs/operations.md#the-books): per merchant and currency the
 * entries sum to the balance (available, reserved and the number of entries), and every transaction
 * that moved money has every entry its state calls for. A merchant whose books differ has its
 * payouts held (shared/domain/books-hold.ts). Over small ports; the scheduled function logs, counts
 * and alarms on what it finds.
 */
import { balancesFromEntries, entryId, movementsOf, type Balance, type BalanceEntry, type BalanceEntryType } from './balances.js';
import { booksHold, type BooksCheckRun, type BooksHold, type BooksHolds } from './books-hold.js';
import type { Transaction } from './transactions.js';

type Amounts = Pick<Balance, 'available' | 'reserved' | 'entryCount'>;

export type BooksDifference =
  | {
      kind: 'balance';
      merchantId: string;
      currency: string;
      /** The balance as stored; null when there is none, though entries are. */
      balance: Amounts | null;
      /** What the entries add up to; null when there are none, though a balance is. */
      entries: Amounts | null;
    }
  | { kind: 'missing_entries'; merchantId: string; transactionId: string; type: Transaction['type']; status: Transaction['status']; missing: BalanceEntryType[] };

export interface BooksCheckDeps {
  merchants: { merchantIds(): AsyncIterable<string> } & Pick<BooksHolds, 'holdPayouts'>;
  balances: { all(merchantId: string): Promise<Balance[]>; entriesOf(merchantId: string): Promise<BalanceEntry[]> };
  transactions: { allOf(merchantId: string): AsyncIterable<Transaction> };
  /**
   * Waits before a merchant whose books differ is read again: the listing indexes show a write a
   * moment after the tables do, so a posting made during the read can look like a difference.
   */
  settle(): Promise<void>;
  clock: () => Date;
}

export interface BooksCheckReport {
  merchants: number;
  balances: number;
  transactions: number;
  differences: BooksDifference[];
  /** The merchants whose books differ, each with the hold on its payouts: placed by this run, or kept from an earlier one. */
  held: Array<{ merchantId: string; hold: BooksHold }>;
}

const amountsOf = ({ available, reserved, entryCount }: Amounts): Amounts => ({ available, reserved, entryCount });

const sameAmounts = (a: Amounts | null, b: Amounts | null): boolean =>
  a?.available === b?.available && a?.reserved === b?.reserved && a?.entryCount === b?.entryCount;

export class BooksCheck {
  constructor(private readonly deps: BooksCheckDeps) {}

  /**
   * Every merchant's books; a merchant whose books differ is read again once, after `settle`, and
   * only what still differs is reported, and holds its payouts. A merchant whose books balance is
   * left as it is: a hold is an operator's to clear.
   */
  async run(run: BooksCheckRun): Promise<BooksCheckReport> {
    const report: BooksCheckReport = { merchants: 0, balances: 0, transactions: 0, differences: [], held: [] };
    for await (const merchantId of this.deps.merchants.merchantIds()) {
      let found = await this.checkMerchant(merchantId);
      if (found.differences.length > 0) {
        await this.deps.settle();
        found = await this.checkMerchant(merchantId);
      }
      report.merchants++;
      report.balances += found.balances;
      report.transactions += found.transactions;
      report.differences.push(...found.differences);
      if (found.differences.length === 0) continue;
      const hold = await this.deps.merchants.holdPayouts(merchantId, booksHold(found.differences, run, this.deps.clock()));
      if (hold) report.held.push({ merchantId, hold });
    }
    return report;
  }

  async checkMerchant(merchantId: string): Promise<{ balances: number; transactions: number; differences: BooksDifference[] }> {
    const differences: BooksDifference[] = [];
    // The transactions first: the entries of every state they show were written with it, so they are there to read after.
    const transactions: Transaction[] = [];
    for await (const transaction of this.deps.transactions.allOf(merchantId)) transactions.push(transaction);
    const entries = await this.deps.balances.entriesOf(merchantId);
    const balances = await this.deps.balances.all(merchantId);

    const sums = new Map(balancesFromEntries(merchantId, entries, '').map((sum) => [sum.currency, amountsOf(sum)]));
    const stored = new Map(balances.map((balance) => [balance.currency, amountsOf(balance)]));
    for (const currency of new Set([...sums.keys(), ...stored.keys()])) {
      const balance = stored.get(currency) ?? null;
      const summed = sums.get(currency) ?? null;
      if (!sameAmounts(balance, summed)) differences.push({ kind: 'balance', merchantId, currency, balance, entries: summed });
    }

    const written = new Set(entries.map((entry) => entry.id));
    for (const transaction of transactions) {
      const missing = movementsOf(transaction)
        .map((movement) => movement.type)
        .filter((type) => !written.has(entryId(transaction.id, type)));
      if (missing.length > 0) {
        const { id: transactionId, type, status } = transaction;
        differences.push({ kind: 'missing_entries', merchantId, transactionId, type, status, missing });
      }
    }
    return { balances: stored.size, transactions: transactions.length, differences };
  }
}
