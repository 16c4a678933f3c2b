/**
 * The merchant's balances and entries as the API shows them, and the operator's work on the books
 * (the admin CLI): adjustments, the rebuild of a merchant's books from its transactions for data
 * recorded before the books existed, and clearing the hold the books check put on a merchant's
 * payouts. Over small ports.
 */
import {
  BALANCE_CURRENCIES,
  balanceEntryView,
  balancesFromEntries,
  balanceView,
  movementsOf,
  requireAvailable,
  writePosting,
  type Balance,
  type BalanceEntry,
  type BalanceEntryFilters,
  type BalanceEntryView,
  type BalancePosting,
  type BalanceReader,
  type BalanceView,
  type ListBalanceEntriesQuery,
} from './balances.js';
import type { BooksHolds } from './books-hold.js';
import type { ClearedBooksHold, Merchant, MerchantProfiles, MerchantRead } from '../merchants/index.js';
import { type CommitResult, Conflict, Decimal, decimalsOf, formatAmount, Invalid, type Listing, listingOf, mapPage, NotFound, optimisticAttempts, type Page, type RetryPolicy } from '../kernel/index.js';
import type { Transaction } from '../transactions/index.js';

export interface BalanceStore extends BalanceReader {
  /** The merchant's balances, by currency code. */
  all(merchantId: string): Promise<Balance[]>;
  /** A page of the merchant's entries, newest first; a cursor that does not continue this listing is a 422. */
  list(merchantId: string, listing: Listing<BalanceEntryFilters>): Promise<Page<BalanceEntry>>;
  /** Every entry of the merchant in the currency. */
  entriesIn(merchantId: string, currency: string): Promise<BalanceEntry[]>;
  /** A posting with no transaction (an adjustment), written if the balance is still the one it was computed from. */
  post(posting: BalancePosting): Promise<CommitResult>;
  /** Replaces a balance, if it is still the one that was read. */
  replace(balance: Balance, expected: BalancePosting['expected']): Promise<CommitResult>;
}

/** The merchant's transactions, as the rebuild reads and books them. */
export interface TransactionBooks {
  /** Oldest first. */
  allOf(merchantId: string): AsyncIterable<Transaction>;
  get(id: string): Promise<Transaction | undefined>;
  /** Writes the entries of a transaction that is not booked, marking it booked, if it is still in the state they were computed from. */
  book(transaction: Transaction, posting: BalancePosting): Promise<CommitResult>;
}

export interface BalanceServiceDeps {
  balances: BalanceStore;
  /**
   * The admin CLI's only: adjustments name a merchant that must exist, the rebuild books
   * transactions and lists a merchant created before the books for their hourly check, and an
   * operator clears a hold on payouts.
   */
  merchants?: Pick<MerchantProfiles, 'getMerchant'> & Pick<BooksHolds, 'clearPayoutsHold'> & { enterDirectory(id: string): Promise<boolean> };
  transactions?: TransactionBooks;
  clock: () => Date;
  newId: () => string;
}

export interface AdjustmentRequest {
  currency: string;
  /** Signed: added to `available`. */
  amount: Decimal;
  reason: string;
}

/** What the rebuild found of one balance: as it was, and whether it had to be set to the sums of its entries. */
export interface BalanceCheck {
  currency: string;
  available: string;
  reserved: string;
  entries: number;
  corrected: boolean;
}

export interface RebuildReport {
  /** Transactions recorded before the books existed, whose entries the rebuild wrote. */
  booked: number;
  balances: BalanceCheck[];
}

/** How long an operator's reason may be: an adjustment's, or a cleared hold's. */
const REASON_MAX = 500;

/** An operator's reason, trimmed: 1 to `REASON_MAX` characters. */
function operatorReason(text: string): string {
  const reason = text.trim();
  if (reason === '' || reason.length > REASON_MAX) throw Invalid.of('reason', `reason must be 1 to ${REASON_MAX} characters`);
  return reason;
}

/**
 * How long the rebuild waits for the entries index to show every entry a balance counts: entries
 * appear in an index a moment after they are written.
 */
const INDEX_CATCH_UP: RetryPolicy = { attempts: 10, budgetMs: 10_000, pauseStepMs: 100 };

const zeroBalance = (merchantId: string, currency: string, at: string): Balance => {
  const zero = formatAmount(new Decimal(0), decimalsOf(currency));
  return { merchantId, currency, available: zero, reserved: zero, entryCount: 0, updatedAt: at };
};

export class BalanceService {
  constructor(private readonly deps: BalanceServiceDeps) {}

  /** `GET /api/v2/balances`: one item per currency the merchant has had money in. */
  async view(merchantId: string): Promise<{ items: BalanceView[] }> {
    return { items: (await this.deps.balances.all(merchantId)).map(balanceView) };
  }

  /** `GET /api/v2/balance/entries`: the merchant's entries, newest first, a page at a time. */
  async entries(merchantId: string, query: ListBalanceEntriesQuery): Promise<Page<BalanceEntryView>> {
    return mapPage(await this.deps.balances.list(merchantId, listingOf(query)), (entries) => entries.map(balanceEntryView));
  }

  /**
   * The merchant's balances with all their entries in the order they were posted, and the hold on
   * its payouts and the one cleared last, for the operator.
   */
  async statement(merchantId: string): Promise<Pick<Merchant, 'booksHold' | 'booksHoldCleared'> & { balances: Array<{ balance: Balance; entries: BalanceEntry[] }> }> {
    const { booksHold, booksHoldCleared } = await this.requireMerchant(merchantId);
    const inOrder = (entries: BalanceEntry[]) => entries.sort((a, b) => a.sequence - b.sequence);
    const balances = await Promise.all(
      (await this.deps.balances.all(merchantId)).map(async (balance) => ({ balance, entries: inOrder(await this.deps.balances.entriesIn(merchantId, balance.currency)) })),
    );
    return { booksHold, booksHoldCleared, balances };
  }

  /**
   * An operator's release of the hold the books check put on the merchant's payouts, with its
   * reason, kept as the hold cleared last: only the hold read is cleared, so one placed meanwhile
   * stays. Undefined when the merchant's payouts are not held. If the books still differ, the
   * next check holds them again.
   */
  async clearHold(merchantId: string, reasonText: string): Promise<ClearedBooksHold | undefined> {
    const reason = operatorReason(reasonText);
    const { booksHold } = await this.requireMerchant(merchantId, { consistent: true });
    if (!booksHold) return undefined;
    const cleared: ClearedBooksHold = { ...booksHold, clearedAt: this.deps.clock().toISOString(), reason };
    if (!(await this.deps.merchants!.clearPayoutsHold(merchantId, cleared))) throw new Conflict('The hold changed since it was read; look at it again');
    return cleared;
  }

  /**
   * An operator's correction of `available`, with its reason: refused if it would take `available`
   * below zero, written only if the balance is still the one it was decided on.
   */
  async adjust(merchantId: string, request: AdjustmentRequest): Promise<BalancePosting> {
    const { currency, amount } = request;
    if (!(BALANCE_CURRENCIES as readonly string[]).includes(currency)) throw Invalid.of('currency', `currency must be one of ${BALANCE_CURRENCIES.join(', ')}`);
    if (amount.isZero() || amount.decimalPlaces() > decimalsOf(currency))
      throw Invalid.of('amount', `amount must be a non-zero amount with at most ${decimalsOf(currency)} decimal places for ${currency}`);
    const reason = operatorReason(request.reason);
    await this.requireMerchant(merchantId);
    const context = { merchantId, currency, transactionId: null, at: this.deps.clock().toISOString(), entryId: this.deps.newId(), reason };
    // The posting last tried: the one written, once committed.
    let tried: BalancePosting | undefined;
    const write = (posting: BalancePosting) => this.deps.balances.post((tried = posting));
    const refuseBelowZero = (balance: Balance | undefined) => {
      if (amount.isNegative()) requireAvailable(balance, currency, amount.neg());
    };
    const adjustment = { type: 'adjustment' as const, available: amount, reserved: new Decimal(0) };
    if ((await writePosting(this.deps.balances, context, [adjustment], write, refuseBelowZero)) !== 'committed' || !tried) {
      throw new Conflict('The balance kept changing; try the adjustment again');
    }
    return tried;
  }

  /**
   * Rebuilds a merchant's books from its transactions: writes the entries of every transaction
   * recorded before the books existed (each once: a transaction is marked booked with its entries,
   * so running it again writes nothing more), then sets each balance to the sums of its entries.
   */
  async rebuild(merchantId: string): Promise<RebuildReport> {
    const transactions = this.transactions();
    await this.requireMerchant(merchantId);
    await this.deps.merchants!.enterDirectory(merchantId);
    let booked = 0;
    for await (const transaction of transactions.allOf(merchantId)) {
      if (!transaction.booked && (await this.book(transaction))) booked++;
    }
    const balances: BalanceCheck[] = [];
    for (const currency of BALANCE_CURRENCIES) {
      const check = await this.resum(merchantId, currency);
      if (check) balances.push(check);
    }
    return { booked, balances };
  }

  /**
   * Books one transaction recorded before the books existed, in its current state (every entry of
   * it, dated as that state, so that they list among the entries of their time); false if it moved
   * no money or was booked meanwhile.
   */
  private async book(found: Transaction): Promise<boolean> {
    const transactions = this.transactions();
    let transaction = found;
    for await (const _attempt of optimisticAttempts()) {
      const movements = movementsOf(transaction);
      if (movements.length === 0) return false;
      const { merchantId, currency, id, updatedAt } = transaction;
      const context = { merchantId, currency, transactionId: id, at: updatedAt };
      if ((await writePosting(this.deps.balances, context, movements, (posting) => transactions.book(transaction, posting))) === 'committed') return true;
      // Lost: the transaction changed state, and its change booked it.
      const now = await transactions.get(transaction.id);
      if (!now || now.booked) return false;
      transaction = now;
    }
    throw new Conflict(`Transaction ${found.id} kept changing; run the rebuild again`);
  }

  /**
   * Sets a balance to the sums of its entries if it differs (or makes it, for entries whose balance
   * was lost); none when the merchant has neither in the currency.
   */
  private async resum(merchantId: string, currency: string): Promise<BalanceCheck | undefined> {
    let reads = 0;
    for await (const _attempt of optimisticAttempts(INDEX_CATCH_UP)) {
      reads++;
      const balance = await this.deps.balances.get(merchantId, currency);
      const entries = await this.deps.balances.entriesIn(merchantId, currency);
      if (!balance && entries.length === 0) return undefined;
      // Read again while the index shows fewer entries than the balance counts; at the last read, the entries found are the books.
      if (entries.length < (balance?.entryCount ?? 0) && reads < INDEX_CATCH_UP.attempts) continue;
      const at = this.deps.clock().toISOString();
      const sums = balancesFromEntries(merchantId, entries, at)[0] ?? zeroBalance(merchantId, currency, at);
      const check = { currency, available: sums.available, reserved: sums.reserved, entries: sums.entryCount };
      if (balance && sums.available === balance.available && sums.reserved === balance.reserved && sums.entryCount === balance.entryCount) return { ...check, corrected: false };
      if ((await this.deps.balances.replace(sums, balance)) === 'committed') return { ...check, corrected: true };
    }
    throw new Conflict(`The ${currency} balance kept changing; run the rebuild again`);
  }

  private async requireMerchant(merchantId: string, read?: MerchantRead): Promise<Merchant> {
    if (!this.deps.merchants) throw new Error("The operator's work on the books needs the merchants, which this service was given none of");
    const merchant = await this.deps.merchants.getMerchant(merchantId, read);
    if (!merchant) throw new NotFound('Merchant');
    return merchant;
  }

  private transactions(): TransactionBooks {
    if (!this.deps.transactions) throw new Error('Rebuilding the books needs the transactions, which this service was given none of');
    return this.deps.transactions;
  }
}
