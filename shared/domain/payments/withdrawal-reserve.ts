/**
 * Writing a new withdrawal, fiat or crypto, with its reserve and its orderId's claim in one
 * transaction (docs/merchant-guide.md#balances): what the available balance cannot hold is a 402,
 * an orderId another withdrawal holds a 409, also once that one took the money, so that a repeat
 * is told as such rather than as a short balance.
 */
import { withdrawalOrderClaimId } from '../chains/index.js';
import { AlreadyUsed, type CommitResult, InsufficientBalance } from '../kernel/index.js';
import { type BalanceReader, heldFor, requireAvailable, writeWithEntries } from '../ledger/index.js';
import type { Transaction } from '../transactions/index.js';
import type { Ledger, PersonsDecision, UniqueClaim } from './transaction-service.js';

const orderTaken = () => new AlreadyUsed('A withdrawal with this orderId already exists');

/**
 * Writes `withdrawal` with its reserve, its orderId's claim and, when a person confirmed it, their
 * decision. Anything but `committed` that is no taken orderId (a balance that kept moving, a code
 * used meanwhile) is the caller's to tell.
 */
export async function reserveWithdrawal(deps: { ledger: Ledger; balances: BalanceReader }, withdrawal: Transaction, decision?: PersonsDecision): Promise<CommitResult> {
  const { merchantId, orderId } = withdrawal;
  const claims: UniqueClaim[] = orderId ? [{ id: withdrawalOrderClaimId(merchantId, orderId), owner: { transactionId: withdrawal.id, merchantId } }] : [];
  const taken = async () => claims.length > 0 && (await deps.ledger.getClaim(claims[0]!.id)) !== undefined;
  let result: CommitResult;
  try {
    result = await writeWithEntries(
      deps.balances,
      undefined,
      withdrawal,
      (posting) => deps.ledger.insert(withdrawal, { posting, claims, ...(decision && { decision }) }),
      (balance) => requireAvailable(balance, withdrawal.currency, heldFor(withdrawal)),
    );
  } catch (refusal) {
    if (refusal instanceof InsufficientBalance && (await taken())) throw orderTaken();
    throw refusal;
  }
  if (result !== 'committed' && (await taken())) throw orderTaken();
  return result;
}
