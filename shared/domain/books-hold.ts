/**
 * A merchant's payouts held while its books are off (docs/operations.md#the-hourly-check): the
 * books check holds a merchant whose books still differ after it read them again, every path that
 * takes money out of a balance reads the merchant through `payingMerchant` before it reserves, and
 * only an operator clears the hold (the admin CLI's `clear-books-hold`): a balance that does not
 * add up is for a person to look at, not for a later run to forget. Pure.
 */
import type { BooksDifference } from './books-check.js';
import { Held } from './errors.js';
import { authenticatedMerchant, type Merchant, type MerchantProfiles } from './merchants.js';

/** One run of the books check. */
export interface BooksCheckRun {
  /** When it ran, to the second: an hourly run's scheduled time. */
  at: string;
  /** Its invocation's request id, which each of its log lines carries. */
  id: string;
}

/** The hold on a merchant's payouts, as the merchant's item keeps it. */
export interface BooksHold {
  /** When it was placed: a later run that finds the books off keeps the hold as it is. */
  heldAt: string;
  /** The run that found the books off. */
  run: BooksCheckRun;
  /** How many differences that run found. */
  differences: number;
  /** The currencies whose balance is not the sums of its entries. */
  currencies: string[];
  /** Transactions without an entry their state calls for, the first `TRANSACTIONS_NAMED` of them. */
  transactionIds: string[];
}

/** The hold an operator cleared last, with when and why: the merchant's item keeps it. */
export interface ClearedBooksHold extends BooksHold {
  clearedAt: string;
  reason: string;
}

/** Where holds are kept: on the merchant's item. */
export interface BooksHolds {
  /**
   * Holds the merchant's payouts unless a hold is there already, which is kept as it is; the hold
   * in force, or undefined when there is no such merchant.
   */
  holdPayouts(merchantId: string, hold: BooksHold): Promise<BooksHold | undefined>;
  /** Clears the hold `cleared` names, keeping it as the last cleared, if it is still the one in force; false when it is not. */
  clearPayoutsHold(merchantId: string, cleared: ClearedBooksHold): Promise<boolean>;
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

/**
 * The merchant a payout is for, read as last written, so that a hold placed a moment ago counts;
 * refused while its payouts are held. Every path that takes money out of a balance (a withdrawal
 * today) calls it before it reserves, so a held merchant is refused whatever its balance.
 */
export async function payingMerchant(merchants: MerchantProfiles, merchantId: string): Promise<Merchant> {
  const merchant = await authenticatedMerchant(merchants, merchantId, { consistent: true });
  if (merchant.booksHold) {
    throw new Held(`Payouts are held: the books check of ${merchant.booksHold.run.at} found this merchant's books off; an operator must clear the hold`);
  }
  return merchant;
}
