/**
 * The gateway's books (docs/merchant-guide.md#balances): per merchant and currency an `available`
 * and a `reserved` balance, changed only by entries that are written in the same database
 * transaction as the transaction state they account for. What entries a state produces and the
 * arithmetic of a balance are pure; `writePosting`, the one way a posting is written, works over
 * a port.
 */
import { createHash } from 'node:crypto';
import * as z from 'zod';
import {
  BALANCE_RETRY,
  type CommitResult,
  createdRangeInOrder,
  Decimal,
  decimalsOf,
  formatAmount,
  InsufficientBalance,
  listedAs,
  optimisticAttempts,
  pageParameters,
  PAYMENT_CURRENCIES,
} from '../kernel/index.js';
import type { Transaction } from '../transactions/index.js';

export const BALANCE_ENTRY_TYPES = ['deposit', 'fee', 'payout_reserve', 'payout', 'payout_release', 'refund_reserve', 'refund', 'refund_release', 'adjustment'] as const;
export type BalanceEntryType = (typeof BALANCE_ENTRY_TYPES)[number];

/** Every currency money can move in, and so every currency a merchant may hold a balance in. */
export const BALANCE_CURRENCIES = PAYMENT_CURRENCIES;

/** A merchant's money in one currency, as stored. */
export interface Balance {
  merchantId: string;
  currency: string;
  available: string;
  reserved: string;
  /**
   * How many entries were posted to it. Every posting is written only if the balance (its count
   * and amounts) is still the one the posting was computed from, so no two postings are ever
   * computed from the same state.
   */
  entryCount: number;
  updatedAt: string;
}

/** One line of the books, as stored: what it did to each balance, and the balances after it. */
export interface BalanceEntry {
  id: string;
  merchantId: string;
  /** The transaction it accounts for; null for an operator's adjustment. */
  transactionId: string | null;
  type: BalanceEntryType;
  currency: string;
  availableChange: string;
  reservedChange: string;
  availableAfter: string;
  reservedAfter: string;
  /** Its place among the entries of its balance, from 1: entries posted together share their time, not their place. */
  sequence: number;
  createdAt: string;
  /** An adjustment's reason, as the operator gave it. */
  reason?: string;
}

/** What a posting writes: its entries, and the balance after them in place of `expected`. */
export interface BalancePosting {
  /** The balance the posting was computed from; absent when the merchant had none in this currency. */
  expected?: Pick<Balance, 'entryCount' | 'available' | 'reserved'>;
  balance: Balance;
  entries: BalanceEntry[];
}

/** An entry before it is posted: its type and what it does to each balance. */
export interface Movement {
  type: BalanceEntryType;
  available: Decimal;
  reserved: Decimal;
}

export interface BalanceReader {
  get(merchantId: string, currency: string): Promise<Balance | undefined>;
}

const ZERO = new Decimal(0);

/** A fixed namespace, so that the ids of a transaction's entries are the same wherever they are computed. */
const ENTRY_ID_NAMESPACE = Buffer.from('6f1d3c2a9b8e4f7da1c05e2b3d4f6a78', 'hex');

/**
 * The id of a transaction's entry of one type: the same every time (a name-based UUID, version 5),
 * so that writing it twice is refused by the store instead of doubling it.
 */
export function entryId(transactionId: string, type: BalanceEntryType): string {
  const bytes = createHash('sha1').update(ENTRY_ID_NAMESPACE).update(`${transactionId}:${type}`).digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A transaction's fee: processing plus technical. */
export const feeOf = (transaction: Pick<Transaction, 'fees'>): Decimal => new Decimal(transaction.fees.processing).plus(transaction.fees.technical ?? 0);

/** What a withdrawal holds of the merchant's money until it settles: its amount and its fee. */
export const heldFor = (withdrawal: Pick<Transaction, 'amount' | 'fees'>): Decimal => new Decimal(withdrawal.amount).plus(feeOf(withdrawal));

/** The entries of money leaving: a withdrawal's, or a refund's, each reserved, then paid out or released. */
const OUTGOING_ENTRIES = {
  withdraw: { reserve: 'payout_reserve', out: 'payout', release: 'payout_release' },
  refund: { reserve: 'refund_reserve', out: 'refund', release: 'refund_release' },
} as const satisfies Record<Exclude<Transaction['type'], 'deposit'>, Record<string, BalanceEntryType>>;

/**
 * Every entry a transaction in its current state has in the books: a confirmed deposit its amount
 * and its fee on `available`; a withdrawal or a refund its reserve from the moment it is accepted
 * (one waiting for approval included), then its amount and fee out of `reserved` once confirmed,
 * or the release of the reserve once failed, less the network fee a crypto payout's or refund's
 * failed transaction spent all the same (`fees.networkSpent`), which is its fee. A fee of nothing is no entry.
 */
export function movementsOf(transaction: Pick<Transaction, 'type' | 'status' | 'amount' | 'fees'>): Movement[] {
  const amount = new Decimal(transaction.amount);
  const fee = feeOf(transaction);
  const feeMovement = (on: 'available' | 'reserved'): Movement[] =>
    fee.isZero() ? [] : [{ type: 'fee', available: on === 'available' ? fee.neg() : ZERO, reserved: on === 'reserved' ? fee.neg() : ZERO }];
  if (transaction.type === 'deposit') {
    return transaction.status === 'confirmed' ? [{ type: 'deposit', available: amount, reserved: ZERO }, ...feeMovement('available')] : [];
  }
  const entries = OUTGOING_ENTRIES[transaction.type];
  const held = amount.plus(fee);
  const reserve: Movement = { type: entries.reserve, available: held.neg(), reserved: held };
  switch (transaction.status) {
    case 'processing':
    case 'pending_approval':
      return [reserve];
    case 'confirmed':
      return [reserve, { type: entries.out, available: ZERO, reserved: amount.neg() }, ...feeMovement('reserved')];
    case 'failed': {
      const spent = new Decimal(transaction.fees.networkSpent ?? 0);
      const kept: Movement[] = spent.isZero() ? [] : [{ type: 'fee', available: ZERO, reserved: spent.neg() }];
      return [reserve, ...kept, { type: entries.release, available: held.minus(spent), reserved: held.minus(spent).neg() }];
    }
  }
}

/**
 * The entries a transaction's new state adds to the books: those of `next` that `previous` (absent
 * for a new transaction) has not posted. A transaction recorded before the books existed is not
 * `booked` and has posted nothing, so its first state change posts every entry of its new state.
 */
export function movementsBetween(previous: Transaction | undefined, next: Transaction): Movement[] {
  const posted = new Set(previous?.booked ? movementsOf(previous).map((movement) => movement.type) : []);
  return movementsOf(next).filter((movement) => !posted.has(movement.type));
}

export interface PostingContext {
  merchantId: string;
  currency: string;
  transactionId: string | null;
  at: string;
  /** An adjustment's id, which has no transaction to derive it from. */
  entryId?: string;
  reason?: string;
}

/** `movements` posted in order onto `before` (none yet: zero), each entry with the balances after it. */
export function post(before: Balance | undefined, movements: readonly Movement[], context: PostingContext): BalancePosting {
  const decimals = decimalsOf(context.currency);
  const format = (value: Decimal) => formatAmount(value, decimals);
  let available = new Decimal(before?.available ?? 0);
  let reserved = new Decimal(before?.reserved ?? 0);
  const counted = before?.entryCount ?? 0;
  const entries = movements.map((movement, index): BalanceEntry => {
    available = available.plus(movement.available);
    reserved = reserved.plus(movement.reserved);
    return {
      id: context.entryId ?? entryId(context.transactionId!, movement.type),
      merchantId: context.merchantId,
      transactionId: context.transactionId,
      type: movement.type,
      currency: context.currency,
      availableChange: format(movement.available),
      reservedChange: format(movement.reserved),
      availableAfter: format(available),
      reservedAfter: format(reserved),
      sequence: counted + index + 1,
      createdAt: context.at,
      ...(context.reason === undefined ? {} : { reason: context.reason }),
    };
  });
  return {
    ...(before ? { expected: { entryCount: before.entryCount, available: before.available, reserved: before.reserved } } : {}),
    balance: {
      merchantId: context.merchantId,
      currency: context.currency,
      available: format(available),
      reserved: format(reserved),
      entryCount: counted + entries.length,
      updatedAt: context.at,
    },
    entries,
  };
}

const contextOf = (transaction: Transaction): PostingContext => ({
  merchantId: transaction.merchantId,
  currency: transaction.currency,
  transactionId: transaction.id,
  at: transaction.updatedAt,
});

/** Whether two reads found the balance the same, as a posting's write condition judges it. */
const sameBalance = (a: Balance | undefined, b: Balance | undefined): boolean => a?.entryCount === b?.entryCount && a?.available === b?.available && a?.reserved === b?.reserved;

/** The postings under way through each reader, by balance: see `inTurn`. */
const postingsUnderWay = new WeakMap<BalanceReader, Map<string, Promise<void>>>();

/**
 * Runs the postings made through one reader to one balance one after the other. Within one
 * process (the local runtime serves every request in one) writers to one balance would only
 * defeat each other's write conditions, each loser costing a whole transaction; taking turns, none
 * is wasted. Between processes (Lambda serves one request per instance at a time) the write
 * condition alone decides, as it always does.
 */
async function inTurn<T>(balances: BalanceReader, key: string, posting: () => Promise<T>): Promise<T> {
  let underWay = postingsUnderWay.get(balances);
  if (!underWay) postingsUnderWay.set(balances, (underWay = new Map()));
  const mine = (underWay.get(key) ?? Promise.resolve()).then(posting);
  const done = mine.then(
    () => undefined,
    () => undefined,
  );
  underWay.set(key, done);
  try {
    return await mine;
  } finally {
    if (underWay.get(key) === done) underWay.delete(key);
  }
}

/**
 * Writes `movements` onto the merchant's balance as it is now, with whatever `write` writes beside
 * them in the same transaction. The balance is written only if it is still the one read, so a
 * write loses when another posting to it won meanwhile (from another process: those of this one
 * take turns), or is `contended` while one is under way: the posting is then made again on the
 * balance as it is then and written again, as BALANCE_RETRY paces it (each round of a race lets
 * one writer through). `check` refuses what the balance cannot take (it throws), on every read.
 * Anything but `committed`: the write lost while the balance had not moved, so something else
 * `write` is conditional on did, or the balance kept moving; the caller decides again.
 */
export function writePosting(
  balances: BalanceReader,
  context: PostingContext,
  movements: readonly Movement[],
  write: (posting: BalancePosting) => Promise<CommitResult>,
  check?: (balance: Balance | undefined) => void,
): Promise<CommitResult> {
  return inTurn(balances, JSON.stringify([context.merchantId, context.currency]), async () => {
    let balance = await balances.get(context.merchantId, context.currency);
    let result: CommitResult = 'contended';
    for await (const _attempt of optimisticAttempts(BALANCE_RETRY)) {
      check?.(balance);
      result = await write(post(balance, movements, context));
      if (result === 'committed') return result;
      const now = await balances.get(context.merchantId, context.currency);
      if (result === 'stale' && sameBalance(now, balance)) return result;
      balance = now;
    }
    return result;
  });
}

/**
 * Writes a transaction's new state with the entries it adds to the books (none: `write` alone,
 * no balance read); as `writePosting` otherwise.
 */
export function writeWithEntries(
  balances: BalanceReader,
  previous: Transaction | undefined,
  next: Transaction,
  write: (posting: BalancePosting | undefined) => Promise<CommitResult>,
  check?: (balance: Balance | undefined) => void,
): Promise<CommitResult> {
  const movements = movementsBetween(previous, next);
  return movements.length === 0 ? write(undefined) : writePosting(balances, contextOf(next), movements, write, check);
}

/** What a balance holds available, at its currency's precision; zero when there is none. */
export const availableIn = (balance: Balance | undefined, currency: string): string => balance?.available ?? formatAmount(ZERO, decimalsOf(currency));

/**
 * Refuses what would take `available` below zero: a withdrawal's amount and fee, or an operator's
 * negative adjustment (docs/merchant-guide.md#balances).
 */
export function requireAvailable(balance: Balance | undefined, currency: string, taken: Decimal): void {
  const available = availableIn(balance, currency);
  if (new Decimal(available).lessThan(taken)) throw new InsufficientBalance(available, currency);
}

/** Balances recomputed from entries: what each entry did, summed per currency, and how many there are. */
export function balancesFromEntries(merchantId: string, entries: readonly BalanceEntry[], at: string): Balance[] {
  const sums = new Map<string, { available: Decimal; reserved: Decimal; entryCount: number }>();
  for (const entry of entries) {
    const sum = sums.get(entry.currency) ?? { available: ZERO, reserved: ZERO, entryCount: 0 };
    sums.set(entry.currency, { available: sum.available.plus(entry.availableChange), reserved: sum.reserved.plus(entry.reservedChange), entryCount: sum.entryCount + 1 });
  }
  return [...sums].map(([currency, sum]) => ({
    merchantId,
    currency,
    available: formatAmount(sum.available, decimalsOf(currency)),
    reserved: formatAmount(sum.reserved, decimalsOf(currency)),
    entryCount: sum.entryCount,
    updatedAt: at,
  }));
}

const signedDecimalString = z.string().regex(/^-?\d+(\.\d+)?$/);

export const balanceViewSchema = z.object({
  currency: listedAs(z.string(), BALANCE_CURRENCIES),
  available: signedDecimalString.describe('What withdrawals may take, their fees included'),
  reserved: signedDecimalString.describe('Held by withdrawals not yet settled'),
});

export type BalanceView = z.output<typeof balanceViewSchema>;

export const balancesViewSchema = z.object({ items: z.array(balanceViewSchema).describe('One per currency the merchant has had money in, by currency code') });

export const balanceEntryViewSchema = z.object({
  id: z.uuid(),
  transactionId: z.uuid().nullable().describe('The deposit or withdrawal the entry accounts for; null for an adjustment'),
  type: z.enum(BALANCE_ENTRY_TYPES),
  currency: listedAs(z.string(), BALANCE_CURRENCIES),
  amount: signedDecimalString.describe('Signed: what the entry adds to or takes from `available`; a `payout`, and the `fee` of a withdrawal, take from `reserved`'),
  availableAfter: signedDecimalString,
  reservedAfter: signedDecimalString,
  createdAt: z.iso.datetime(),
});

export type BalanceEntryView = z.output<typeof balanceEntryViewSchema>;

export const balanceView = ({ currency, available, reserved }: Balance): BalanceView => ({ currency, available, reserved });

/** The entry as a merchant sees it: one signed amount, on `available` unless the entry leaves it untouched. */
export function balanceEntryView(entry: BalanceEntry): BalanceEntryView {
  const amount = new Decimal(entry.availableChange).isZero() ? entry.reservedChange : entry.availableChange;
  const { id, transactionId, type, currency, availableAfter, reservedAfter, createdAt } = entry;
  return { id, transactionId, type, currency, amount, availableAfter, reservedAfter, createdAt };
}

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** `GET /api/v2/balance/entries`: the filters, each served by an index of its own. */
export const listBalanceEntriesQuerySchema = z
  .strictObject({
    currency: z.enum(BALANCE_CURRENCIES).optional().describe('Only entries in this currency'),
    type: z.enum(BALANCE_ENTRY_TYPES).optional().describe('Only entries of this type'),
    transactionId: z.string().toLowerCase().regex(UUID_PATTERN, 'transactionId must be a transaction id (a UUID)').optional().describe('The entries of this transaction'),
    ...pageParameters,
  })
  .refine(...createdRangeInOrder);

export type ListBalanceEntriesQuery = z.output<typeof listBalanceEntriesQuerySchema>;
export type BalanceEntryFilters = Pick<ListBalanceEntriesQuery, 'currency' | 'type' | 'transactionId'>;
