/**
 * The payment provider protocol (docs/provider-protocol.md, docs/provider-protocol.md): the bodies both sides
 * send, as zod schemas, and the Standard Webhooks signatures on every message. One definition for
 * the gateway's connector, its events route and the demo provider.
 */
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import * as z from 'zod';
import { signCallback, type SignedCallback } from '../domain/callbacks.js';
import { FIAT_METHODS, LOCAL_FIAT_CURRENCIES } from '../domain/currencies.js';

export { isProviderSecret } from '../domain/providers.js';

/** The decimal text of an amount in a local currency, as both sides write it. */
const amountText = z.string().regex(/^\d{1,15}(\.\d{1,2})?$/, 'must be a decimal amount with at most 2 decimal places');
const text = (max: number) => z.string().min(1).max(max);
const nullableText = (max: number) => z.string().max(max).nullable();

export const providerCustomerSchema = z.object({
  id: text(128),
  fullName: nullableText(200),
  firstName: nullableText(100),
  lastName: nullableText(100),
  email: nullableText(254),
  phone: nullableText(32),
  account: nullableText(64),
  country: nullableText(2),
});

export const createPaymentRequestSchema = z.object({
  reference: z.uuid(),
  amount: amountText,
  currency: z.enum(LOCAL_FIAT_CURRENCIES),
  method: z.enum(FIAT_METHODS),
  customer: providerCustomerSchema,
  returnUrl: z.url(),
  notifyUrl: z.url(),
  expiresAt: z.iso.datetime().optional(),
});

export type CreatePaymentRequest = z.output<typeof createPaymentRequestSchema>;

export const paymentInstructionsSchema = z.object({
  payee: text(200),
  upiId: nullableText(200).optional(),
  accountNumber: nullableText(64).optional(),
  bankName: nullableText(200).optional(),
  amount: amountText,
  currency: z.enum(LOCAL_FIAT_CURRENCIES),
  reference: text(64),
});

export type PaymentInstructions = z.output<typeof paymentInstructionsSchema>;

const providerReference = z.string().regex(/^[A-Za-z0-9._:-]{1,128}$/, 'must be 1 to 128 letters, digits or ._:-');

/** The answer to a payment: where the customer goes, or what the customer is told to do. */
export const createdPaymentSchema = z.union([
  z.object({ providerReference, redirectUrl: z.url({ protocol: /^https?$/ }) }),
  z.object({ providerReference, instructions: paymentInstructionsSchema }),
]);

export type CreatedPayment = z.output<typeof createdPaymentSchema>;

export const forwardUtrRequestSchema = z.object({
  utr: z.string().regex(/^[A-Z0-9]{12,22}$/),
  receipt: z.object({ content: z.string().min(1), extension: z.enum(['jpg', 'jpeg', 'png', 'pdf']), name: z.string().max(255).optional() }).optional(),
});

export type ForwardUtrRequest = z.output<typeof forwardUtrRequestSchema>;

export const PAYOUT_VARIANTS = ['card', 'phone', 'bank'] as const;

export const payoutRequestSchema = z.object({
  reference: z.uuid(),
  amount: amountText,
  currency: z.enum(LOCAL_FIAT_CURRENCIES),
  recipient: z.looseObject({ variant: z.enum(PAYOUT_VARIANTS) }),
  notifyUrl: z.url(),
});

export type PayoutRequest = z.output<typeof payoutRequestSchema>;

export const requestedPayoutSchema = z.object({ providerReference });

/** Who paid, as far as the provider knows; what it leaves out stays empty on the transaction. */
export const senderDetailsSchema = z.object({
  senderIban: z.string().max(64).optional(),
  senderAccountNumber: z.string().max(64).optional(),
  senderSortCode: z.string().max(32).optional(),
});

export type SenderDetails = z.output<typeof senderDetailsSchema>;

export const PROVIDER_STATUSES = ['pending', 'confirmed', 'failed'] as const;

export const providerStatusSchema = z.object({
  status: z.enum(PROVIDER_STATUSES),
  amount: amountText.optional(),
  utr: z.string().max(64).optional(),
  senderDetails: senderDetailsSchema.optional(),
});

export type ProviderStatusAnswer = z.output<typeof providerStatusSchema>;

export const PROVIDER_EVENT_TYPES = ['payment.confirmed', 'payment.failed', 'payout.confirmed', 'payout.failed'] as const;

export const providerEventSchema = z.object({
  type: z.enum(PROVIDER_EVENT_TYPES),
  reference: z.string().min(1).max(128),
  providerReference,
  amount: amountText,
  currency: z.enum(LOCAL_FIAT_CURRENCIES),
  utr: z.string().max(64).optional(),
  senderDetails: senderDetailsSchema.optional(),
  reason: z.string().max(500).optional(),
});

export type ProviderEvent = z.output<typeof providerEventSchema>;

/** The gateway's answer to an event it applied (or had applied already). */
export const providerEventReceivedSchema = z.object({ received: z.literal(true) });

/** A message of either side, signed with the provider's secret. */
export const signMessage = (secret: string, webhookId: string, body: string, at: Date): SignedCallback => signCallback(secret, webhookId, body, at);

/** Whether the headers sign `body` with `secret` within Standard Webhooks' 5 minutes of now. */
export function verifiesMessage(secret: string, headers: Record<string, string | undefined>, body: string): boolean {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signature = headers['webhook-signature'];
  if (!id || !timestamp || !signature) return false;
  try {
    new Webhook(secret).verify(body, { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': signature }, { jsonParse: false });
    return true;
  } catch (error) {
    if (error instanceof WebhookVerificationError) return false;
    throw error;
  }
}
