/**
 * The ids of the uniqueness claims taken in the `uniques` table, each written in the same
 * transaction as the record it guards: one home for each format.
 */
import type { ObservedTransfer } from './chain.js';

/** A merchant's invoice orderId: the same request again is answered with the same invoice (docs/merchant-guide.md#creating-an-invoice). */
export const orderClaimId = (merchantId: string, orderId: string): string => `order#${JSON.stringify([merchantId, orderId])}`;

/**
 * A write made under an Idempotency-Key, written with the record it creates. The idempotency
 * record alone cannot tell a retry from a first request once the writer died between its commit
 * and saving its answer; the claim can.
 */
export const idempotentWriteClaimId = (merchantId: string, routeName: string, key: string): string => `request#${JSON.stringify([merchantId, routeName, key])}`;

/**
 * An on-chain transfer, credited once: one transaction per (network, transaction hash, log
 * index), a native transfer being its transaction's only one. A held transfer is kept under it too.
 */
export const transferClaimId = (transfer: Pick<ObservedTransfer, 'network' | 'transactionHash' | 'logIndex'>): string =>
  `chain#${transfer.network}#${transfer.transactionHash.toLowerCase()}#${transfer.logIndex ?? 'native'}`;

/** A UTR, used once across every merchant while it is under review or confirmed (docs/merchant-guide.md#confirming-a-deposit-by-utr). */
export const utrClaimId = (utr: string): string => `utr#${utr}`;

/** One UTR per invoice: a second, different reference for the same invoice is a conflict. */
export const invoiceUtrClaimId = (invoiceId: string): string => `invoice-utr#${invoiceId}`;

/** A merchant's withdrawal orderId (docs/merchant-guide.md#withdrawals-deprecated). */
export const withdrawalOrderClaimId = (merchantId: string, orderId: string): string => `withdrawal-order#${JSON.stringify([merchantId, orderId])}`;

/** The one deposit of a payment at a provider (docs/provider-protocol.md#provider-to-gateway-events), however its outcome arrives: an event, or the reconciliation. */
export const providerPaymentClaimId = (providerId: string, providerReference: string): string => `provider-payment#${JSON.stringify([providerId, providerReference])}`;
