/**
 * A crypto payout as a transaction (decisions on crypto payouts): a `withdraw` on a network to one
 * of the merchant's payout addresses, valued at the current rates, with the gateway's payout fee
 * and the network fee quoted in its own currency, and what sending it has done so far: each
 * signed transaction, stored before it is broadcast. Pure.
 */
import { smallestUnits } from '../chains/index.js';
import { type CryptoAssetCode, type CryptoNetwork, Decimal } from '../kernel/index.js';
import { type CryptoPayoutFees, type CryptoPayoutRequest, needsApproval, type PayoutOrder, type SignedPayout } from '../payouts/index.js';
import type { UsdPrices } from '../rates/index.js';
import type { Transaction } from './transactions.js';
import { newWithdrawal } from './withdrawals.js';

/** One signed transaction of a payout: the first, or one that replaced a stuck one. */
export interface PayoutAttempt {
  /** `SignedPayout` as `encodeSignedPayout` writes it: the bytes broadcast, again on a retry. */
  signed: string;
  transactionHash: string;
  signedAt: string;
}

/** What sending a payout needs beside the transaction: its destination, its token, its amount in smallest units, and what was signed. */
export interface PayoutSending {
  /** The token's contract on the network; null for the network's own coin. */
  token: string | null;
  /** The amount in the asset's smallest units on the network (a token contract's own decimals), a decimal string. */
  units: string;
  /** The places of that smallest unit: the coin's, or the token contract's own. */
  unitDecimals: number;
  attempts: PayoutAttempt[];
}

export interface CryptoPayoutTransaction extends Transaction {
  currency: CryptoAssetCode;
  network: CryptoNetwork;
  address: string;
  payout: PayoutSending;
}

/** A crypto payout, or a crypto refund: money the treasury sends on chain. */
export const isCryptoPayout = (transaction: Transaction): transaction is CryptoPayoutTransaction => transaction.type !== 'deposit' && 'payout' in transaction;

/**
 * Whether the network's watcher follows the transaction: an on-chain deposit short of its
 * confirmations, or a crypto payout or refund being sent, until each is settled.
 */
export const followedOnChain = (transaction: Transaction): boolean => transaction.status === 'processing' && (transaction.chain !== undefined || isCryptoPayout(transaction));

/** The order a payout's chain adapter signs: what to pay, where, in smallest units. */
export const payoutOrderOf = (payout: CryptoPayoutTransaction): PayoutOrder => ({
  network: payout.network,
  token: payout.payout.token,
  to: payout.address,
  amount: BigInt(payout.payout.units),
});

/** The last transaction signed for the payout, if any. */
export const lastAttempt = (payout: CryptoPayoutTransaction): PayoutAttempt | undefined => payout.payout.attempts.at(-1);

/**
 * A new crypto payout, valued in USD and EUR at the current rates: `pending_approval` when its `usd`
 * is above the merchant's `approvalAboveUsd`, else `processing`. `address` is the payout address as
 * the merchant stored it.
 */
export function cryptoPayoutTransaction(
  request: CryptoPayoutRequest,
  context: { id: string; merchantId: string; address: string; fees: CryptoPayoutFees; token: string | null; unitDecimals: number; prices: UsdPrices; approvalAboveUsd: string | null; now: Date },
): CryptoPayoutTransaction {
  const withdrawal = newWithdrawal({ ...context, ...request, customerId: '', fees: { processing: context.fees.processing, technical: context.fees.technical } });
  return {
    ...withdrawal,
    currency: request.currency,
    status: needsApproval(new Decimal(withdrawal.usd), context.approvalAboveUsd) ? 'pending_approval' : 'processing',
    network: request.network,
    address: context.address,
    payout: { token: context.token, units: smallestUnits(request.amount, context.unitDecimals).toString(), unitDecimals: context.unitDecimals, attempts: [] },
  };
}

/** The payout with one more signed transaction; the first one it was sent with stays its `transactionHash` until one is mined. */
export function withAttempt(payout: CryptoPayoutTransaction, signed: SignedPayout, encoded: string, now: Date): CryptoPayoutTransaction {
  const at = now.toISOString();
  return {
    ...payout,
    transactionHash: signed.transactionHash,
    updatedAt: at,
    payout: { ...payout.payout, attempts: [...payout.payout.attempts, { signed: encoded, transactionHash: signed.transactionHash, signedAt: at }] },
  };
}
