/**
 * The payment provider protocol (docs/provider-protocol.md, docs/provider-protocol.md): the bodies both sides
 * send, as zod schemas, and the Standard Webhooks signatures on every message. One definition for
 * the gateway's connector, its events route and the demo provider.
 */
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import * as z from 'zod';
import { signCallback, type SignedCallback } from '../../domain/callbacks/index.js';
import { FIAT_METHODS, LOCAL_FIAT_CURRENCIES } from '../../domain/kernel/index.js';
import {
  PAYOUT_VARIANTS,
  PROVIDER_EVENT_TYPES,
  PROVIDER_STATUSES,
  type CreatedPayment,
  type CreatePaymentRequest,
  type ForwardUtrRequest,
  type PaymentInstructions,
  type PayoutRequest,
  type ProviderCustomer,
  type ProviderEvent,
  type ProviderRefundRequest,
  type ProviderStatusAnswer,
  type SenderDetails,
} from '../../domain/providers/index.js';

export { isProviderSecret } from '../../domain/providers/index.js';

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
}) satisfies z.ZodType<ProviderCustomer>;

export const createPaymentRequestSchema = z.object({
  reference: z.uuid(),
  amount: amountText,
  currency: z.enum(LOCAL_FIAT_CURRENCIES),
  method: z.enum(FIAT_METHODS),
  customer: providerCustomerSchema,
  returnUrl: z.url(),
  notifyUrl: z.url(),
  expiresAt: z.iso.datetime().optional(),
}) satisfies z.ZodType<CreatePaymentRequest>;

export const paymentInstructionsSchema = z.object({
  payee: text(200),
  upiId: nullableText(200).optional(),
  accountNumber: nullableText(64).optional(),
  bankName: nullableText(200).optional(),
  amount: amountText,
  currency: z.enum(LOCAL_FIAT_CURRENCIES),
  reference: text(64),
}) satisfies z.ZodType<PaymentInstructions>;

const providerReference = z.string().regex(/^[A-Za-z0-9._:-]{1,128}$/, 'must be 1 to 128 letters, digits or ._:-');

/** The answer to a payment: where the customer goes, or what the customer is told to do. */
export const createdPaymentSchema = z.union([
  z.object({ providerReference, redirectUrl: z.url({ protocol: /^https?$/ }) }),
  z.object({ providerReference, instructions: paymentInstructionsSchema }),
]) satisfies z.ZodType<CreatedPayment>;

export const forwardUtrRequestSchema = z.object({
  utr: z.string().regex(/^[A-Z0-9]{12,22}$/),
  receipt: z.object({ content: z.string().min(1), extension: z.enum(['jpg', 'jpeg', 'png', 'pdf']), name: z.string().max(255).optional() }).optional(),
}) satisfies z.ZodType<ForwardUtrRequest>;

export const payoutRequestSchema = z.object({
  reference: z.uuid(),
  amount: amountText,
  currency: z.enum(LOCAL_FIAT_CURRENCIES),
  recipient: z.looseObject({ variant: z.enum(PAYOUT_VARIANTS) }),
  notifyUrl: z.url(),
}) satisfies z.ZodType<PayoutRequest>;

export const requestedPayoutSchema = z.object({ providerReference });

export const refundRequestSchema = z.object({
  reference: z.uuid(),
  paymentReference: providerReference,
  amount: amountText,
  currency: z.enum(LOCAL_FIAT_CURRENCIES),
  reason: z.string().max(500).optional(),
}) satisfies z.ZodType<ProviderRefundRequest>;

/** A refund the provider took: its reference of it. */
export const requestedRefundSchema = z.object({ providerReference });

/** Who paid, as far as the provider knows; what it leaves out stays empty on the transaction. */
export const senderDetailsSchema = z.object({
  senderIban: z.string().max(64).optional(),
  senderAccountNumber: z.string().max(64).optional(),
  senderSortCode: z.string().max(32).optional(),
}) satisfies z.ZodType<SenderDetails>;

export const providerStatusSchema = z.object({
  status: z.enum(PROVIDER_STATUSES),
  amount: amountText.optional(),
  utr: z.string().max(64).optional(),
  senderDetails: senderDetailsSchema.optional(),
}) satisfies z.ZodType<ProviderStatusAnswer>;

export const providerEventSchema = z.object({
  type: z.enum(PROVIDER_EVENT_TYPES),
  reference: z.string().min(1).max(128),
  providerReference,
  amount: amountText,
  currency: z.enum(LOCAL_FIAT_CURRENCIES),
  utr: z.string().max(64).optional(),
  senderDetails: senderDetailsSchema.optional(),
  reason: z.string().max(500).optional(),
}) satisfies z.ZodType<ProviderEvent>;

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
