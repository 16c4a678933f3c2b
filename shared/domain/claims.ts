/**
 * The ids of the uniqueness claims the domain takes in the `uniques` table, each written in the
 * same transaction as the record it guards: one home for each format.
 */

/** A UTR, used once across every merchant while it is under review or confirmed (decisions 8). */
export const utrClaimId = (utr: string): string => `utr#${utr}`;

/** One UTR per invoice: a second, different reference for the same invoice is a conflict. */
export const invoiceUtrClaimId = (invoiceId: string): string => `invoice-utr#${invoiceId}`;

/** A merchant's withdrawal orderId (decisions 9). */
export const withdrawalOrderClaimId = (merchantId: string, orderId: string): string => `withdrawal-order#${JSON.stringify([merchantId, orderId])}`;

/** The one deposit of a payment at a provider (decisions 18), however its outcome arrives: an event, or the reconciliation. */
export const providerPaymentClaimId = (providerId: string, providerReference: string): string => `provider-payment#${JSON.stringify([providerId, providerReference])}`;
