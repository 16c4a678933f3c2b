/**
 * A refund as a transaction (decisions on refunds): part or all of a confirmed deposit given back
 * to the customer who paid it, in the deposit's currency, valued at the deposit's own rates. A
 * crypto refund is sent from the treasury as a crypto payout is (`payout`), to the address the
 * merchant gives on the deposit's network; a fiat one is refunded by the deposit's provider. Pure.
 */
import * as z from 'zod';
import { smallestUnits } from '../chains/index.js';
import { type CryptoAssetCode, type CryptoNetwork, Decimal, decimalStringAmount, decimalsOf, formatAmount, formatRate } from '../kernel/index.js';
import { needsApproval } from '../payouts/index.js';
import type { CryptoPayoutTransaction } from './crypto-payouts.js';
import type { Transaction, TransactionProvider } from './transactions.js';

const text = (max: number) => z.string().trim().min(1).max(max);

/** `POST /api/v2/refunds` (decisions on refunds). */
export const refundRequestSchema = z.strictObject({
  transactionId: text(64).describe('The confirmed deposit to refund'),
  amount: decimalStringAmount("Amount to refund, in the deposit's currency; by default what of the deposit is still refundable").optional(),
  address: text(128).optional().describe("Crypto only, and required there: the customer's address on the deposit's network"),
  reason: text(500).optional().describe('Why; kept with the refund and given to the provider of a fiat deposit'),
});

export type RefundRequest = z.output<typeof refundRequestSchema>;

export interface RefundTransaction extends Transaction {
  type: 'refund';
  refundOf: string;
  /** Why, as the merchant said; kept with the refund and given to the provider. */
  reason?: string;
}

/** A refund sent on chain from the treasury, as a crypto payout is. */
type CryptoRefundTransaction = RefundTransaction & CryptoPayoutTransaction;

export const isRefund = (transaction: Transaction): transaction is RefundTransaction => transaction.type === 'refund';

/** A deposit seen on a chain carries where; a crypto deposit without it was simulated (the simulation API of demo and local stages). */
export const isSimulatedCryptoDeposit = (deposit: Transaction): boolean => deposit.network !== null && deposit.chain === undefined;

/** What of a confirmed deposit may still be refunded: its amount less what its refunds that are not `failed` hold. */
export const refundableOf = (deposit: Pick<Transaction, 'amount' | 'refundsHeld'>): Decimal => new Decimal(deposit.amount).minus(deposit.refundsHeld ?? 0);

/** The deposit's refunds held once a refund of `amount` is added (or, negative, given up), at the deposit's precision. */
export const refundsHeldAfter = (deposit: Pick<Transaction, 'currency' | 'refundsHeld'>, change: Decimal): string =>
  formatAmount(new Decimal(deposit.refundsHeld ?? 0).plus(change), decimalsOf(deposit.currency));

/**
 * How a refund reaches the customer: sent on chain from the treasury (`crypto`); refunded by the
 * provider that took the deposit's payment (`provider`); or, for a simulated deposit, which never
 * touched a chain or a provider, settled as that deposit was, by the simulation API (`simulated`).
 */
export type RefundRoute =
  | { kind: 'crypto'; network: CryptoNetwork; address: string; token: string | null; unitDecimals: number; approvalAboveUsd: string | null }
  | { kind: 'simulated'; address: string | null; approvalAboveUsd: string | null }
  | { kind: 'provider'; provider: Required<Pick<TransactionProvider, 'id' | 'paymentReference'>> };

/**
 * A new refund of `deposit`: its amount valued as the deposit was (the same exchange rates, its
 * USD and EUR value in proportion), its fees (the network fee of a crypto refund; the gateway's
 * processing fee on the deposit is not returned, and no other is charged). A crypto refund above
 * the merchant's `payoutApprovalAboveUsd` waits for approval, as a payout does.
 */
export function refundTransaction(
  deposit: Transaction,
  context: { id: string; amount: Decimal; fees: Transaction['fees']; route: RefundRoute; reason?: string; now: Date },
): RefundTransaction | CryptoRefundTransaction {
  const decimals = decimalsOf(deposit.currency);
  const share = context.amount.div(deposit.amount);
  const rate = new Decimal(deposit.info.exchangeRate);
  const written = formatAmount(context.amount, decimals);
  const at = context.now.toISOString();
  const usd = formatAmount(share.mul(deposit.usd), 2);
  const refund: RefundTransaction = {
    id: context.id,
    merchantId: deposit.merchantId,
    invoiceId: deposit.invoiceId,
    type: 'refund',
    status: 'processing',
    amount: written,
    currency: deposit.currency,
    network: deposit.network,
    transactionHash: null,
    refundOf: deposit.id,
    customerId: deposit.customerId,
    orderId: deposit.orderId,
    applicationId: deposit.applicationId,
    createdAt: at,
    updatedAt: at,
    info: {
      ...deposit.info,
      referenceAmount: formatAmount(context.amount.div(rate), decimalsOf(deposit.info.referenceCurrency)),
      referenceExchangeRate: formatRate(new Decimal(1).div(rate)),
      transactionAmount: written,
    },
    fees: context.fees,
    usd,
    eur: formatAmount(share.mul(deposit.eur), 2),
    senderDetails: { senderIban: '', senderAccountNumber: '', senderSortCode: '' },
    ...(context.reason === undefined ? {} : { reason: context.reason }),
    booked: true,
  };
  const { route } = context;
  if (route.kind === 'provider') return { ...refund, provider: { ...route.provider } };
  if (route.address === null) return refund;
  const crypto: RefundTransaction = { ...refund, status: needsApproval(new Decimal(usd), route.approvalAboveUsd) ? 'pending_approval' : 'processing', address: route.address };
  if (route.kind === 'simulated') return crypto;
  const sent: CryptoRefundTransaction = {
    ...crypto,
    currency: deposit.currency as CryptoAssetCode,
    network: route.network,
    address: route.address,
    payout: { token: route.token, units: smallestUnits(context.amount, route.unitDecimals).toString(), unitDecimals: route.unitDecimals, attempts: [] },
  };
  return sent;
}
