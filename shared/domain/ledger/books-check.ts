/**
 * The check that the books balance (docs/operations.md#the-hourly-check): per merchant and
 * currency the entries sum to the balance (available, reserved and the number of entries), and
 * every transaction that moved money has every entry its state calls for. A run reads what changed
 * since the last one (the transactions changed, the balances written), and sums a balance's
 * entries from where the check last stopped, never from the first again; a full pass, begun daily
 * or when an operator asks, reads every merchant's books from the first entry, as much of it per
 * run as the run's budget allows, and the next run goes on from there. A merchant whose books
 * differ has its payouts held (shared/domain/ledger/books-hold.ts). Over small ports; the scheduled
 * function logs, counts and alarms on what it finds.
 */
import { BALANCE_CURRENCIES, entryId, movementsOf, type Balance, type BalanceEntry, type BalanceEntryType } from './balances.js';
import type { BooksHolds } from './books-hold.js';
import type { BooksCheckRun, BooksHold } from '../merchants/index.js';
import { Decimal, decimalsOf, formatAmount, type WorkBudget } from '../kernel/index.js';
import type { Transaction } from '../transactions/index.js';

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

/** A transaction as the check reads it: enough to know which entries its state calls for. */
export type CheckedTransaction = Pick<Transaction, 'id' | 'merchantId' | 'type' | 'status' | 'amount' | 'fees'>;

/** A record's place in its merchant's index (a merchant's in the directory): what to read on after. */
export interface RecordPosition {
  id: string;
  createdAt: string;
}

export interface BalanceKey {
  merchantId: string;
  currency: string;
}

/** What an entry did to its balance, and its place among the balance's entries. */
export type SequencedEntry = Pick<BalanceEntry, 'sequence' | 'availableChange' | 'reservedChange'>;

/**
 * The sums of a balance's entries up to `sequence`: entries are never changed, so a run that summed
 * them once starts from here the next time.
 */
export interface EntrySums {
  sequence: number;
  available: string;
  reserved: string;
}

/** A balance being summed from its entries, as a full pass keeps it between runs. */
export interface BalanceWalk extends BalanceKey {
  /** The balance as read when the walk began; null when there was none. */
  balance: Amounts | null;
  /** The last sequence to read: the balance's entry count, or the newest entry's when that is higher. */
  upTo: number;
  /** Read up to this sequence. */
  readTo: number;
  /** The entries from the first to `prefix.sequence`, each once and in order. */
  prefix: EntrySums;
  /** Entries read that do not go on from `prefix`: past a sequence that is missing, or a sequence read again. */
  stray: { entries: number; available: string; reserved: string };
}

/** Where a full pass is: every merchant in the directory's order, each one's balances currency by currency, then its transactions. */
export interface FullPass {
  startedAt: string;
  /** The operator's request it answers (the newest when it began), if any. */
  asked?: string;
  /** Merchants read whole. */
  merchants: number;
  /** The merchant being read, or the last one read whole when `step` is null; null before the first. */
  merchant: RecordPosition | null;
  step: PassStep | null;
}

export type PassStep = { kind: 'balances'; currency: string; walk: BalanceWalk | null } | { kind: 'transactions'; after: RecordPosition | null };

export interface BooksCheckState {
  /** The changes up to here were read; a first run reads none (its full pass reads everything). */
  checkedTo?: string;
  /** The full pass under way. */
  pass?: FullPass;
  lastPass?: Pick<FullPass, 'startedAt' | 'asked'> & { finishedAt: string };
  /** When an operator last asked for a full pass (the admin CLI): the next run begins one. */
  passAskedAt?: string;
}

export interface BooksCheckStore {
  state(): Promise<BooksCheckState>;
  /** Saves what runs keep (the pass when given, else none is under way); never `passAskedAt`, which is the operator's. */
  saveState(state: Omit<BooksCheckState, 'passAskedAt'>): Promise<void>;
  checkpoint(key: BalanceKey): Promise<EntrySums | undefined>;
  saveCheckpoint(key: BalanceKey, sums: EntrySums): Promise<void>;
}

export interface BooksCheckDeps {
  merchants: { directory(after: RecordPosition | null): AsyncIterable<RecordPosition> } & Pick<BooksHolds, 'holdPayouts'>;
  balances: {
    /** The balances written from `from` to `to` (their `updatedAt`), a page at a time; one may come more than once. */
    changedBetween(from: string, to: string): AsyncIterable<BalanceKey[]>;
    /** Read as last written. */
    get(merchantId: string, currency: string): Promise<Balance | undefined>;
    /** The highest sequence among the balance's entries; 0 when it has none. */
    newestSequence(key: BalanceKey): Promise<number>;
    /** The balance's entries with sequences from `from` to `to`, in their order, a page at a time. */
    entriesBySequence(key: BalanceKey, from: number, to: number): AsyncIterable<SequencedEntry[]>;
    /** Which of the entries `ids` are written. */
    written(ids: readonly string[]): Promise<Set<string>>;
  };
  transactions: {
    /** The transactions changed from `from` to `to` (their `updatedAt`), a page at a time. */
    changedBetween(from: string, to: string): AsyncIterable<CheckedTransaction[]>;
    /** The merchant's transactions after `after`, oldest first, a page at a time. */
    ofMerchant(merchantId: string, after: RecordPosition | null): AsyncIterable<Transaction[]>;
  };
  state: BooksCheckStore;
  /**
   * Waits before what differs is read again: the indexes show a write a moment after the tables
   * do, so a posting made during the read can look like a difference.
   */
  settle(): Promise<void>;
  clock: () => Date;
}

export interface BooksCheckReport {
  /** The changes up to here are read. */
  checkedTo: string;
  /** Transactions and balances this run read: changed ones, and the full pass's. */
  transactions: number;
  balances: number;
  /** The full pass this run went on with; null when none is under way. */
  pass: { startedAt: string; merchants: number; finished: boolean } | null;
  differences: BooksDifference[];
  /** The merchants whose books differ, each with the hold on its payouts: placed by this run, or kept from an earlier one. */
  held: Array<{ merchantId: string; hold: BooksHold }>;
}

/**
 * How far before its cursor a run reads changes again. A change is stamped with its writer's clock
 * when it is decided and is in the index once committed, within its function's run (five minutes
 * at most) and the index's lag: a change read late is read, one read twice is checked twice.
 */
export const CHANGES_OVERLAP_MS = 10 * 60_000;

/** The changes a run reads at once: after a pause of the check, it catches up an hour at a time, moving its cursor after each. */
const CHANGES_SLICE_MS = 60 * 60_000;

/** How often a full pass begins by itself, counted from the last one's start. */
export const FULL_PASS_EVERY_MS = 24 * 60 * 60_000;

/**
 * A balance whose entries differ is read again after `settle` from where its entries still ran in
 * order: the index may not show the newest few yet (postings to one balance take turns, a few
 * dozen a second at most). More than this many entries read past that point is no index's lag.
 */
export const RECHECK_ENTRIES = 1_000;

const NONE: EntrySums = { sequence: 0, available: '0', reserved: '0' };

const sameAmounts = (a: Amounts | null, b: Amounts | null): boolean => a?.available === b?.available && a?.reserved === b?.reserved && a?.entryCount === b?.entryCount;

const amountsOf = ({ available, reserved, entryCount }: Amounts): Amounts => ({ available, reserved, entryCount });

const keyOf = ({ merchantId, currency }: BalanceKey): string => JSON.stringify([merchantId, currency]);

/** A walk being read, its sums held exactly. */
class Walk {
  private constructor(
    private readonly state: BalanceWalk,
    private prefixAvailable: Decimal,
    private prefixReserved: Decimal,
    private strayAvailable: Decimal,
    private strayReserved: Decimal,
  ) {}

  static of(state: BalanceWalk): Walk {
    const { prefix, stray } = state;
    return new Walk(structuredClone(state), new Decimal(prefix.available), new Decimal(prefix.reserved), new Decimal(stray.available), new Decimal(stray.reserved));
  }

  /** A walk from `from`: the newest entry's sequence first, so that the balance, read after it, counts every entry the index showed. */
  static async begin(balances: BooksCheckDeps['balances'], key: BalanceKey, from: EntrySums): Promise<Walk> {
    const newest = await balances.newestSequence(key);
    const balance = await balances.get(key.merchantId, key.currency);
    const upTo = Math.max(newest, balance?.entryCount ?? 0);
    return Walk.of({ ...key, balance: balance ? amountsOf(balance) : null, upTo, readTo: from.sequence, prefix: from, stray: { entries: 0, available: '0', reserved: '0' } });
  }

  get key(): BalanceKey {
    return { merchantId: this.state.merchantId, currency: this.state.currency };
  }

  get done(): boolean {
    return this.state.readTo >= this.state.upTo;
  }

  /** Entries read past the point where they stopped going on in order. */
  get strays(): number {
    return this.state.stray.entries;
  }

  /** Reads the entries on, a page at a time, until all are read (true) or `budget` is spent with some left (false). */
  async read(balances: BooksCheckDeps['balances'], budget?: WorkBudget): Promise<boolean> {
    if (this.done) return true;
    for await (const page of balances.entriesBySequence(this.key, this.state.readTo + 1, this.state.upTo)) {
      for (const entry of page) this.add(entry);
      if (page.length > 0) this.state.readTo = page.at(-1)!.sequence;
      if (!this.done && budget?.spent()) return false;
    }
    this.state.readTo = this.state.upTo;
    return true;
  }

  private add(entry: SequencedEntry): void {
    if (entry.sequence === this.state.prefix.sequence + 1) {
      this.state.prefix.sequence = entry.sequence;
      this.prefixAvailable = this.prefixAvailable.plus(entry.availableChange);
      this.prefixReserved = this.prefixReserved.plus(entry.reservedChange);
    } else {
      this.state.stray.entries++;
      this.strayAvailable = this.strayAvailable.plus(entry.availableChange);
      this.strayReserved = this.strayReserved.plus(entry.reservedChange);
    }
  }

  private format(value: Decimal): string {
    return formatAmount(value, decimalsOf(this.state.currency));
  }

  /** The entries 1 to `prefix.sequence`, each once and in order. */
  get prefix(): EntrySums {
    return { sequence: this.state.prefix.sequence, available: this.format(this.prefixAvailable), reserved: this.format(this.prefixReserved) };
  }

  /** What every entry read (and those it started from) adds up to; null when there are none. */
  get entries(): Amounts | null {
    const entryCount = this.state.prefix.sequence + this.state.stray.entries;
    if (entryCount === 0) return null;
    return { available: this.format(this.prefixAvailable.plus(this.strayAvailable)), reserved: this.format(this.prefixReserved.plus(this.strayReserved)), entryCount };
  }

  /** Whether the balance is what its entries add up to. */
  get balances(): boolean {
    return sameAmounts(this.state.balance, this.entries);
  }

  /** Whether there was a balance or any entry to read. */
  get found(): boolean {
    return this.state.upTo > 0;
  }

  /** The sums a later walk may start from: every entry up to `upTo` once the balance agreed with them, else the entries in order. */
  get checkpoint(): EntrySums {
    const entries = this.entries;
    return this.done && this.balances && entries ? { sequence: this.state.upTo, available: entries.available, reserved: entries.reserved } : this.prefix;
  }

  difference(): BooksDifference {
    return { kind: 'balance', merchantId: this.state.merchantId, currency: this.state.currency, balance: this.state.balance, entries: this.entries };
  }

  saved(): BalanceWalk {
    return { ...structuredClone(this.state), prefix: this.prefix, stray: { entries: this.state.stray.entries, available: this.format(this.strayAvailable), reserved: this.format(this.strayReserved) } };
  }
}

/** What a run found that differs, to be read again once the indexes have settled. */
type Candidate = { kind: 'balance'; walk: Walk } | { kind: 'transaction'; transaction: CheckedTransaction; missing: Array<[BalanceEntryType, string]> };

/** One run: its state as it goes, and what it read and found. */
interface Run {
  id: BooksCheckRun;
  budget: WorkBudget;
  checkedTo: string;
  pass: FullPass | undefined;
  lastPass: BooksCheckState['lastPass'];
  transactions: number;
  balances: number;
  differences: BooksDifference[];
  held: Map<string, BooksHold>;
}

export class BooksCheck {
  constructor(private readonly deps: BooksCheckDeps) {}

  /**
   * The changes since the last run (an hour at a time), then the full pass under way, or one due,
   * for what is left of `budget`. What differs is read again once, after `settle`, and only what
   * still differs is reported, and holds its merchant's payouts. A merchant whose books balance is
   * left as it is: a hold is an operator's to clear.
   */
  async run(id: BooksCheckRun, budget: WorkBudget): Promise<BooksCheckReport> {
    const now = this.deps.clock().toISOString();
    const state = await this.deps.state.state();
    const run: Run = { id, budget, checkedTo: state.checkedTo ?? now, pass: state.pass, lastPass: state.lastPass, transactions: 0, balances: 0, differences: [], held: new Map() };
    while (run.checkedTo < now && !budget.spent()) {
      const to = new Date(Math.min(Date.parse(run.checkedTo) + CHANGES_SLICE_MS, Date.parse(now))).toISOString();
      const from = new Date(Date.parse(run.checkedTo) - CHANGES_OVERLAP_MS).toISOString();
      if (!(await this.checkChanges(run, from, to))) break;
      run.checkedTo = to;
      await this.save(run);
    }
    if (passDue(state, now)) run.pass = { startedAt: now, ...(state.passAskedAt ? { asked: state.passAskedAt } : {}), merchants: 0, merchant: null, step: null };
    let finished = false;
    if (run.pass && !budget.spent()) {
      finished = await this.continuePass(run, run.pass);
      if (finished) {
        run.lastPass = { startedAt: run.pass.startedAt, ...(run.pass.asked ? { asked: run.pass.asked } : {}), finishedAt: this.deps.clock().toISOString() };
      }
    }
    const pass = run.pass && { startedAt: run.pass.startedAt, merchants: run.pass.merchants, finished };
    if (finished) run.pass = undefined;
    await this.save(run);
    return {
      checkedTo: run.checkedTo,
      transactions: run.transactions,
      balances: run.balances,
      pass: pass ?? null,
      differences: run.differences,
      held: [...run.held].map(([merchantId, hold]) => ({ merchantId, hold })),
    };
  }

  /** The transactions changed and balances written from `from` to `to`; false when the budget ran out first. */
  private async checkChanges(run: Run, from: string, to: string): Promise<boolean> {
    const candidates: Candidate[] = [];
    try {
      for await (const page of this.deps.transactions.changedBetween(from, to)) {
        if (run.budget.spent()) return false;
        candidates.push(...(await this.missingEntries(page)));
        run.transactions += page.length;
      }
      const seen = new Set<string>();
      for await (const page of this.deps.balances.changedBetween(from, to)) {
        for (const key of page) {
          if (seen.has(keyOf(key))) continue;
          seen.add(keyOf(key));
          if (run.budget.spent()) return false;
          const checkpoint = (await this.deps.state.checkpoint(key)) ?? NONE;
          const walk = await Walk.begin(this.deps.balances, key, checkpoint);
          const read = await walk.read(this.deps.balances, run.budget);
          // What was summed is kept either way: the sums of entries in order are facts about them.
          if (walk.checkpoint.sequence > checkpoint.sequence) await this.deps.state.saveCheckpoint(key, walk.checkpoint);
          if (!read) return false;
          run.balances++;
          if (!walk.balances) candidates.push({ kind: 'balance', walk });
        }
      }
      return true;
    } finally {
      await this.settleAndHold(run, candidates);
    }
  }

  /** Goes on with the full pass, merchant by merchant, saving after each; true once every merchant is read. */
  private async continuePass(run: Run, pass: FullPass): Promise<boolean> {
    if (pass.step && !(await this.continueMerchant(run, pass))) return false;
    for await (const merchant of this.deps.merchants.directory(pass.merchant)) {
      if (run.budget.spent()) return false;
      pass.merchant = merchant;
      pass.step = { kind: 'balances', currency: BALANCE_CURRENCIES[0], walk: null };
      if (!(await this.continueMerchant(run, pass))) return false;
      await this.save(run);
    }
    return true;
  }

  /** Goes on reading the pass's merchant: each balance from its first entry, then every transaction; true once it is read whole. */
  private async continueMerchant(run: Run, pass: FullPass): Promise<boolean> {
    const merchantId = pass.merchant!.id;
    const candidates: Candidate[] = [];
    try {
      while (pass.step?.kind === 'balances') {
        const { currency, walk: saved } = pass.step;
        const walk = saved ? Walk.of(saved) : await Walk.begin(this.deps.balances, { merchantId, currency }, NONE);
        if (!(await walk.read(this.deps.balances, run.budget))) {
          pass.step = { kind: 'balances', currency, walk: walk.saved() };
          return false;
        }
        if (walk.found) run.balances++;
        // Summed from the first entry and agreeing with the balance: where the hourly runs go on from.
        if (walk.found && walk.balances) await this.deps.state.saveCheckpoint(walk.key, walk.checkpoint);
        if (!walk.balances) candidates.push({ kind: 'balance', walk });
        const next = BALANCE_CURRENCIES[BALANCE_CURRENCIES.indexOf(currency as (typeof BALANCE_CURRENCIES)[number]) + 1];
        pass.step = next ? { kind: 'balances', currency: next, walk: null } : { kind: 'transactions', after: null };
        if (run.budget.spent()) return false;
      }
      for await (const page of this.deps.transactions.ofMerchant(merchantId, pass.step!.kind === 'transactions' ? pass.step!.after : null)) {
        if (page.length === 0) continue;
        candidates.push(...(await this.missingEntries(page)));
        run.transactions += page.length;
        const { id, createdAt } = page.at(-1)!;
        pass.step = { kind: 'transactions', after: { id, createdAt } };
        if (run.budget.spent()) return false;
      }
      pass.step = null;
      pass.merchants++;
      return true;
    } finally {
      await this.settleAndHold(run, candidates);
    }
  }

  /** The transactions without every entry their state calls for, with those they lack. */
  private async missingEntries(transactions: readonly CheckedTransaction[]): Promise<Candidate[]> {
    const expected = transactions.map((transaction) => ({
      transaction,
      entries: movementsOf(transaction).map(({ type }): [BalanceEntryType, string] => [type, entryId(transaction.id, type)]),
    }));
    const written = await this.deps.balances.written(expected.flatMap(({ entries }) => entries.map(([, id]) => id)));
    return expected.flatMap(({ transaction, entries }) => {
      const missing = entries.filter(([, id]) => !written.has(id));
      return missing.length > 0 ? [{ kind: 'transaction' as const, transaction, missing }] : [];
    });
  }

  /** Reads the candidates again once the indexes have settled, reports what still differs, and holds the payouts of their merchants. */
  private async settleAndHold(run: Run, candidates: readonly Candidate[]): Promise<void> {
    if (candidates.length === 0) return;
    await this.deps.settle();
    const found = new Map<string, BooksDifference[]>();
    for (const candidate of candidates) {
      const difference = await this.stillDiffers(candidate);
      if (!difference) continue;
      run.differences.push(difference);
      found.set(difference.merchantId, [...(found.get(difference.merchantId) ?? []), difference]);
    }
    for (const [merchantId, differences] of found) {
      const hold = await this.deps.merchants.holdPayouts(merchantId, booksHold(differences, run.id, this.deps.clock()));
      if (hold && !run.held.has(merchantId)) run.held.set(merchantId, hold);
    }
  }

  private async stillDiffers(candidate: Candidate): Promise<BooksDifference | undefined> {
    if (candidate.kind === 'transaction') {
      const { transaction, missing } = candidate;
      const written = await this.deps.balances.written(missing.map(([, id]) => id));
      const still = missing.filter(([, id]) => !written.has(id)).map(([type]) => type);
      if (still.length === 0) return undefined;
      const { id: transactionId, merchantId, type, status } = transaction;
      return { kind: 'missing_entries', merchantId, transactionId, type, status, missing: still };
    }
    const { walk } = candidate;
    if (walk.strays > RECHECK_ENTRIES) return walk.difference();
    const again = await Walk.begin(this.deps.balances, walk.key, walk.prefix);
    await again.read(this.deps.balances);
    if (!again.balances) return again.difference();
    await this.deps.state.saveCheckpoint(again.key, again.checkpoint);
    return undefined;
  }

  private save(run: Run): Promise<void> {
    return this.deps.state.saveState({ checkedTo: run.checkedTo, ...(run.pass ? { pass: run.pass } : {}), ...(run.lastPass ? { lastPass: run.lastPass } : {}) });
  }
}

/**
 * Whether a run begins a full pass: an operator asked for one since the last began (one under way
 * begins again), or none is under way and none began in the last FULL_PASS_EVERY_MS.
 */
function passDue(state: BooksCheckState, now: string): boolean {
  const last = state.pass ?? state.lastPass;
  if (state.passAskedAt !== undefined && state.passAskedAt !== last?.asked) return true;
  return !state.pass && (!last || Date.parse(now) - Date.parse(last.startedAt) >= FULL_PASS_EVERY_MS);
}

/** Enough to look the rest up in the run's log lines, and small on an item every payout reads. */
const TRANSACTIONS_NAMED = 10;

/** The hold a run places on a merchant whose books it found off, with what it found. */
export function booksHold(differences: readonly BooksDifference[], run: BooksCheckRun, at: Date): BooksHold {
  const currencies = new Set<string>();
  const transactionIds: string[] = [];
  for (const difference of differences) {
    if (difference.kind === 'balance') currencies.add(difference.currency);
    else transactionIds.push(difference.transactionId);
  }
  return { heldAt: at.toISOString(), run, differences: differences.length, currencies: [...currencies].sort(), transactionIds: transactionIds.slice(0, TRANSACTIONS_NAMED) };
}
