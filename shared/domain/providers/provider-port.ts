/**
 * What the gateway asks of a payment provider and what it hears back (docs/provider-protocol.md),
 * in the domain's terms: the `PaymentProvider` port (providers.ts) takes and gives these. A
 * connector turns them into its partner's messages and back; the signed-HTTP provider protocol is
 * one such connector (shared/connectors/protocol/messages.ts), whose bodies happen to be these shapes.
 */
import type { FiatMethod, LocalFiatCurrency } from '../kernel/index.js';

/** The customer a payment is for, as far as the invoice knows them; null where it does not. */
export interface ProviderCustomer {
  id: string;
  fullName: string | null;
  firstName: string | null;
  lastName: string | null;
  email: string | null;
  phone: string | null;
  account: string | null;
  country: string | null;
}

/** A payment to open at the provider for an invoice. Amounts are decimal text in the currency. */
export interface CreatePaymentRequest {
  /** The invoice's id. */
  reference: string;
  amount: string;
  currency: LocalFiatCurrency;
  method: FiatMethod;
  customer: ProviderCustomer;
  /** Where the provider sends the customer back. */
  returnUrl: string;
  /** Where the provider reports the payment's outcome. */
  notifyUrl: string;
  expiresAt?: string;
}

/** What the customer is told to do to pay, when the provider does not take them to a page of its own. */
export interface PaymentInstructions {
  payee: string;
  upiId?: string | null;
  accountNumber?: string | null;
  bankName?: string | null;
  amount: string;
  currency: LocalFiatCurrency;
  reference: string;
}

/** The provider's answer to a payment: where the customer goes, or what the customer is told to do. */
export type CreatedPayment = { providerReference: string; redirectUrl: string } | { providerReference: string; instructions: PaymentInstructions };

/** A customer's UTR (and its receipt, if they gave one) for the provider to check. */
export interface ForwardUtrRequest {
  utr: string;
  receipt?: { content: string; extension: 'jpg' | 'jpeg' | 'png' | 'pdf'; name?: string };
}

export const PAYOUT_VARIANTS = ['card', 'phone', 'bank'] as const;
export type PayoutVariant = (typeof PAYOUT_VARIANTS)[number];

/** Money to send to a merchant's recipient: the withdrawal's id, amount and recipient, as the merchant gave them. */
export interface PayoutRequest {
  reference: string;
  amount: string;
  currency: LocalFiatCurrency;
  recipient: { variant: PayoutVariant; [field: string]: unknown };
  notifyUrl: string;
}

/** Money of a payment the provider took to give back to the customer who paid it (decisions on refunds). */
export interface ProviderRefundRequest {
  /** The refund's transaction id at the gateway. */
  reference: string;
  /** The provider's reference of the payment refunded. */
  paymentReference: string;
  amount: string;
  currency: LocalFiatCurrency;
  reason?: string;
}

/** Who paid, as far as the provider knows; what it leaves out stays empty on the transaction. */
export interface SenderDetails {
  senderIban?: string;
  senderAccountNumber?: string;
  senderSortCode?: string;
}

export const PROVIDER_STATUSES = ['pending', 'confirmed', 'failed'] as const;
export type ProviderStatus = (typeof PROVIDER_STATUSES)[number];

/** Where a payment or payout stands at the provider, when the gateway asks. */
export interface ProviderStatusAnswer {
  status: ProviderStatus;
  amount?: string;
  utr?: string;
  senderDetails?: SenderDetails;
}

export const PROVIDER_EVENT_TYPES = ['payment.confirmed', 'payment.failed', 'payout.confirmed', 'payout.failed', 'refund.confirmed', 'refund.failed'] as const;
export type ProviderEventType = (typeof PROVIDER_EVENT_TYPES)[number];

/** A decision the provider reports: a payment, payout or refund confirmed or failed. */
export interface ProviderEvent {
  type: ProviderEventType;
  /** The invoice's, withdrawal's or refund's id the request carried. */
  reference: string;
  providerReference: string;
  amount: string;
  currency: LocalFiatCurrency;
  utr?: string;
  senderDetails?: SenderDetails;
  reason?: string;
}
