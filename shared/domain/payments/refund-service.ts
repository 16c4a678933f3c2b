/**
 * `POST /api/v2/refunds` (decisions on refunds): part or all of a confirmed deposit given back to
 * the customer, paid from the merchant's available balance. The refund, its reserve and what it
 * holds of its deposit are written together, only while the deposit still holds what the refund
 * was decided on, so that refunds racing on one deposit never give back more than it brought. A
 * crypto refund goes to its network's sender as a payout does (after approval, when it needs one);
 * a fiat one to the provider that took the deposit's payment.
 */
import { checkedPayoutAddress } from '../payouts/index.js';
import { heldFor, payingMerchant, requireAvailable, writeWithEntries } from '../ledger/index.js';
import { amountRuleProblem, Conflict, type CryptoAssetCode, type CryptoNetwork, Decimal, decimalsOf, formatAmount, Invalid, optimisticAttempts } from '../kernel/index.js';
import type { Merchant } from '../merchants/index.js';
import type { AuditEntry, CodeUse } from '../dashboard/index.js';
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
import { type CryptoPayoutServiceDeps, handOverPayout, quoteSending } from './crypto-payout-service.js';
import type { ProviderRequests } from './provider-requests.js';
import { type Ledger, ownedTransaction, type TransactionService } from './transaction-service.js';
import type { Invoice } from '../invoicing/index.js';
import { ProviderDoesNotRefund, ProviderUnavailable } from '../providers/index.js';

export interface RefundServiceDeps extends Pick<CryptoPayoutServiceDeps, 'ledger' | 'balances' | 'merchants' | 'feesOn' | 'configuration' | 'rates' | 'queue' | 'log' | 'stage' | 'clock' | 'newId'> {
  invoices: { get(id: string): Promise<Invoice | undefined> };
  /** Where a fiat refund goes: the provider that took the deposit's payment. */
  requests: Pick<ProviderRequests, 'requestRefund'>;
  /** Fails a refund its provider will not make. */
  transactions: Pick<TransactionService, 'settle'>;
}

export class RefundService {
  constructor(private readonly deps: RefundServiceDeps) {}

  /**
   * A refund asked for by the API (no code) or by an owner in the dashboard, confirmed with a fresh
   * TOTP code: then its audit entry and the code's use are written with it, or nothing is, so the
   * same code submitted again is refused and refunds nothing twice.
   */
  async create(merchantId: string, request: RefundRequest, code?: CodeUse): Promise<RefundTransaction> {
    const merchant = await payingMerchant(this.deps.merchants, merchantId);
    const id = this.deps.newId();
    for await (const _attempt of optimisticAttempts()) {
      const deposit = refundableDeposit(await ownedTransaction(this.deps.ledger, merchantId, request.transactionId));
      const amount = refundAmount(deposit, request.amount);
      const { route, fees } = await this.routeOf(deposit, merchant, request, amount);
      const now = this.deps.clock();
      const refund = refundTransaction(deposit, { id, amount, fees, route, reason: request.reason, now });
      const refundHold = { depositId: deposit.id, expected: deposit.refundsHeld, next: refundsHeldAfter(deposit, amount) };
      const decision = code && { code, entry: this.auditEntry(refund, code, now) };
      const result = await writeWithEntries(
        this.deps.balances,
        undefined,
        refund,
        (posting) => this.deps.ledger.insert(refund, { posting, refundHold, ...(decision && { decision }) }),
        (balance) => requireAvailable(balance, refund.currency, heldFor(refund)),
      );
      if (result === 'committed') {
        if (refund.status === 'processing' && isCryptoPayout(refund)) await handOverPayout(this.deps, refund);
        return refund.provider ? this.requestAtProvider(refund) : refund;
      }
      // The deposit's refunds moved, or the code was taken meanwhile: only the first is decided again.
      if (code && (await this.deps.ledger.get(deposit.id))?.refundsHeld === deposit.refundsHeld) throw Invalid.of('code', 'code was used already: enter the next one');
    }
    throw new Conflict("The deposit's refunds or the merchant's balance kept changing; retry the request");
  }

  /** What an owner asked for, for the audit log. */
  private auditEntry(refund: RefundTransaction, code: CodeUse, now: Date): AuditEntry {
    const to = refund.address ? ` to ${refund.address}` : '';
    const subject = `${refund.id}: ${refund.amount} ${refund.currency} of deposit ${refund.refundOf}${to}`;
    return { merchantId: refund.merchantId, id: this.deps.newId(), at: now.toISOString(), actor: code.email, action: 'refund.requested', subject };
  }

  /**
   * How the refund reaches the customer, and what that costs: the network fee of a crypto refund
   * sent on chain, nothing otherwise. A fiat deposit is refunded by the provider its invoice's
   * payment was at; one without any (simulated) and a crypto deposit never seen on a chain are
   * settled by the simulation API, as they were.
   */
  private async routeOf(deposit: Transaction, merchant: Merchant, request: RefundRequest, amount: Decimal): Promise<{ route: RefundRoute; fees: Transaction['fees'] }> {
    const none = formatAmount(new Decimal(0), decimalsOf(deposit.currency));
    const free = { processing: none, technical: null };
    const approvalAboveUsd = merchant.payoutApprovalAboveUsd ?? null;
    const network = deposit.network as CryptoNetwork | null;
    if (network === null) {
      if (request.address !== undefined) throw Invalid.of('address', 'address applies to crypto refunds only: a fiat deposit is refunded by the provider that took it');
      const payment = await this.paymentOf(deposit);
      if (!payment) return { route: { kind: 'simulated', address: null, approvalAboveUsd }, fees: free };
      return { route: { kind: 'provider', provider: { id: payment.providerId, paymentReference: payment.providerReference } }, fees: free };
    }
    if (request.address === undefined) throw Invalid.of('address', `address is required: the customer's address on ${network}`);
    const address = checkedPayoutAddress(network, request.address, this.deps.stage);
    if (isSimulatedCryptoDeposit(deposit)) return { route: { kind: 'simulated', address, approvalAboveUsd }, fees: { processing: none, technical: none } };
    const quoted = await quoteSending(this.deps, { network, currency: deposit.currency as CryptoAssetCode, to: address, amount }, '0');
    return {
      route: { kind: 'crypto', network, address, token: quoted.token, unitDecimals: quoted.unitDecimals, approvalAboveUsd },
      fees: { processing: none, technical: quoted.fees.technical },
    };
  }

  /** The provider's payment a fiat deposit was: its invoice's, or the one its UTR was sent to. */
  private async paymentOf(deposit: Transaction): Promise<{ providerId: string; providerReference: string } | undefined> {
    const invoice = deposit.invoiceId ? await this.deps.invoices.get(deposit.invoiceId) : undefined;
    if (invoice?.providerPayment) return invoice.providerPayment;
    return deposit.provider?.reference ? { providerId: deposit.provider.id, providerReference: deposit.provider.reference } : undefined;
  }

  /**
   * Asks the provider for the refund. One that refunds nothing fails it at once, its reserve and
   * hold given back and no callback owed (the merchant is answered the 422); one that does not
   * answer now is asked again by the reconciliation, under the same `webhook-id`.
   */
  private async requestAtProvider(refund: RefundTransaction): Promise<RefundTransaction> {
    try {
      await this.deps.requests.requestRefund(refund);
      return refund;
    } catch (error) {
      if (error instanceof ProviderDoesNotRefund) {
        await this.deps.transactions.settle(refund.merchantId, refund.id, 'failed', { expectedType: 'refund', callback: false });
        throw Invalid.of('transactionId', `The deposit's provider (${error.providerId}) does not refund payments; nothing was reserved: refund the customer another way`);
      }
      if (!(error instanceof ProviderUnavailable)) throw error;
      this.deps.log.warn('The provider did not take the refund; the reconciliation sends it again', { transactionId: refund.id, reason: error.message });
      return refund;
    }
  }
}

/** What of the merchant's deposit may still be refunded; undefined for anything that is no confirmed deposit of the merchant's. */
export async function stillRefundable(ledger: Pick<Ledger, 'get'>, merchantId: string, transactionId: string): Promise<Decimal | undefined> {
  const deposit = await ownedTransaction(ledger, merchantId, transactionId).catch(() => undefined);
  return deposit?.type === 'deposit' && deposit.status === 'confirmed' ? refundableOf(deposit) : undefined;
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
