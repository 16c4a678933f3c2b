/**
 * `POST /api/v2/refunds` (decisions on refunds): part or all of a confirmed deposit given back to
 * the customer, paid from the merchant's available balance. The refund, its reserve and what it
 * holds of its deposit are written together, only while the deposit still holds what the refund
 * was decided on, so that refunds racing on one deposit never give back more than it brought. A
 * crypto refund goes to its network's sender as a payout does (after approval, when it needs one);
 * a fiat one to the deposit's provider.
 */
import { checkedPayoutAddress } from '../payouts/index.js';
import { heldFor, payingMerchant, requireAvailable, writeWithEntries } from '../ledger/index.js';
import { amountRuleProblem, Conflict, type CryptoAssetCode, type CryptoNetwork, Decimal, decimalsOf, formatAmount, Invalid, isCryptoAsset } from '../kernel/index.js';
import type { Merchant } from '../merchants/index.js';
import {
  isCryptoPayout,
  isSimulatedCryptoDeposit,
  refundableOf,
  type RefundRequest,
  type RefundRoute,
  refundsHeldAfter,
  type RefundTransaction,
  refundTransaction,
  type Transaction,
} from '../transactions/index.js';
import { optimisticAttempts } from '../kernel/index.js';
import { type CryptoPayoutServiceDeps, handOverPayout, quoteSending } from './crypto-payout-service.js';
import { ownedTransaction } from './transaction-service.js';

export type RefundServiceDeps = Pick<CryptoPayoutServiceDeps, 'ledger' | 'balances' | 'merchants' | 'feesOn' | 'configuration' | 'rates' | 'queue' | 'log' | 'stage' | 'clock' | 'newId'>;

export class RefundService {
  constructor(private readonly deps: RefundServiceDeps) {}

  async create(merchantId: string, request: RefundRequest): Promise<RefundTransaction> {
    const merchant = await payingMerchant(this.deps.merchants, merchantId);
    const id = this.deps.newId();
    for await (const _attempt of optimisticAttempts()) {
      const deposit = refundableDeposit(await ownedTransaction(this.deps.ledger, merchantId, request.transactionId));
      const amount = refundAmount(deposit, request.amount);
      const { route, fees } = await this.routeOf(deposit, merchant, request, amount);
      const refund = refundTransaction(deposit, { id, amount, fees, route, reason: request.reason, now: this.deps.clock() });
      const refundHold = { depositId: deposit.id, expected: deposit.refundsHeld, next: refundsHeldAfter(deposit, amount) };
      const result = await writeWithEntries(
        this.deps.balances,
        undefined,
        refund,
        (posting) => this.deps.ledger.insert(refund, { posting, refundHold }),
        (balance) => requireAvailable(balance, refund.currency, heldFor(refund)),
      );
      if (result === 'committed') {
        if (refund.status === 'processing' && isCryptoPayout(refund)) await handOverPayout(this.deps, refund);
        return refund;
      }
    }
    throw new Conflict("The deposit's refunds or the merchant's balance kept changing; retry the request");
  }

  /** How the refund reaches the customer, and what that costs: the network fee of a crypto refund sent on chain, nothing otherwise. */
  private async routeOf(deposit: Transaction, merchant: Merchant, request: RefundRequest, amount: Decimal): Promise<{ route: RefundRoute; fees: Transaction['fees'] }> {
    const decimals = decimalsOf(deposit.currency);
    const none = formatAmount(new Decimal(0), decimals);
    const network = deposit.network as CryptoNetwork | null;
    if (network === null || !isCryptoAsset(deposit.currency)) {
      if (request.address !== undefined) throw Invalid.of('address', "address applies to crypto refunds only: the deposit's provider refunds a fiat deposit");
      throw Invalid.of('transactionId', `Refunds of ${deposit.currency} deposits are not taken here yet`);
    }
    if (request.address === undefined) throw Invalid.of('address', `address is required: the customer's address on ${network}`);
    const address = checkedPayoutAddress(network, request.address, this.deps.stage);
    const approvalAboveUsd = merchant.payoutApprovalAboveUsd ?? null;
    if (isSimulatedCryptoDeposit(deposit)) return { route: { kind: 'simulated', network, address, approvalAboveUsd }, fees: { processing: none, technical: none } };
    const quoted = await quoteSending(this.deps, { network, currency: deposit.currency as CryptoAssetCode, to: address, amount }, '0');
    return {
      route: { kind: 'crypto', network, address, token: quoted.token, unitDecimals: quoted.unitDecimals, approvalAboveUsd },
      fees: { processing: none, technical: quoted.fees.technical },
    };
  }
}

/** The transaction if it is a confirmed deposit; a withdrawal, a refund or a deposit not (yet) confirmed is a 422 on `transactionId`. */
function refundableDeposit(transaction: Transaction): Transaction {
  if (transaction.type !== 'deposit') throw Invalid.of('transactionId', `transactionId is a ${transaction.type}: only a confirmed deposit is refunded`);
  if (transaction.status !== 'confirmed') throw Invalid.of('transactionId', `transactionId is a ${transaction.status} deposit: only a confirmed deposit is refunded`);
  return transaction;
}

/** The amount asked for, or what of the deposit is still refundable; a 422 on `amount` beyond that, or beyond the currency's places. */
function refundAmount(deposit: Transaction, asked: Decimal | undefined): Decimal {
  const refundable = refundableOf(deposit);
  const shown = `${formatAmount(refundable, decimalsOf(deposit.currency))} ${deposit.currency}`;
  if (!refundable.greaterThan(0)) throw Invalid.of('amount', `Nothing of the deposit is left to refund: its refunds hold all of it`);
  if (asked === undefined) return refundable;
  const rule = amountRuleProblem(asked, deposit.currency);
  if (rule) throw Invalid.of('amount', rule);
  if (asked.greaterThan(refundable)) throw Invalid.of('amount', `amount must be at most ${shown}, what of the deposit is still refundable`);
  return asked;
}
