/**
 * A merchant's payouts held while its books are off (docs/operations.md#the-hourly-check): the
 * books check holds a merchant whose books still differ after it read them again, every path that
 * takes money out of a balance reads the merchant through `payingMerchant` before it reserves, and
 * only an operator clears the hold (the admin CLI's `clear-books-hold`): a balance that does not
 * add up is for a person to look at, not for a later run to forget. Pure.
 */
import { Held } from '../kernel/index.js';
import { authenticatedMerchant, type BooksHold, type ClearedBooksHold, type Merchant, type MerchantProfiles } from '../merchants/index.js';

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
