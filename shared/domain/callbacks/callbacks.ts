/**
 * Merchant callbacks (docs/merchant-guide.md#callbacks): Standard Webhooks signatures and the retry schedule. Pure
 * but for the signing library; where a callback may go is `shared/outbound/address-guard.ts`.
 */
import { Webhook } from 'standardwebhooks';
import * as z from 'zod';
import { previousSecretsAt, type Merchant } from '../merchants/index.js';

/** Waits after the 1st, 2nd, ... failed attempt; the last one repeats. */
export const RETRY_DELAYS_SECONDS = [60, 300, 900, 3600, 3 * 3600] as const;
/** How long a callback keeps being retried before it is parked in the dead-letter queue. */
export const DELIVERY_WINDOW_SECONDS = 72 * 3600;
export const DELIVERY_TIMEOUT_MS = 10_000;

/**
 * A callback to deliver. What it announces is fixed when the state is written, so every attempt
 * sends the same content; the sender adds the `hash` and the signatures, which need the secret.
 */
export interface CallbackEntry {
  /** The `webhook-id`. */
  id: string;
  merchantId: string;
  /** The transaction a transaction callback announces. */
  transactionId?: string;
  /** The invoice an invoice event announces (shared/domain/invoicing/invoice-events.ts). */
  invoiceId?: string;
  /**
   * JSON of the body: a transaction callback's fields (`CallbackFields`) in their order, without
   * `hash`; an invoice event's whole body.
   */
  payload: string;
  createdAt: string;
}

export interface DeliveryAttempt {
  at: string;
  /** The receiver's HTTP status; null when no response came (timeout, refused, guard). */
  status: number | null;
  latencyMs: number;
  error?: string;
}

/** Seconds to wait after `failedAttempts` failures (1-based), scaled for tests. */
export function retryDelaySeconds(failedAttempts: number, scale = 1): number {
  const index = Math.min(Math.max(failedAttempts, 1), RETRY_DELAYS_SECONDS.length) - 1;
  return RETRY_DELAYS_SECONDS[index]! * scale;
}

/**
 * Seconds before a callback is tried again after the gateway's own stores failed it (not the
 * receiver): soon, since the outage is usually brief, backing off with each receive so that a long
 * one does not spend the queue's receive count before the callback's delivery window.
 */
export function storeFailureRetrySeconds(receiveCount: number): number {
  return Math.min(5 * 3 ** (Math.max(receiveCount, 1) - 1), 180);
}

/** True when the next attempt would fall outside the delivery window that began at `firstAttemptAt`. */
export function windowClosed(firstAttemptAt: Date, now: Date, nextDelaySeconds: number, scale = 1): boolean {
  return now.getTime() + nextDelaySeconds * 1000 > firstAttemptAt.getTime() + DELIVERY_WINDOW_SECONDS * scale * 1000;
}

export interface SignedCallback {
  headers: Record<string, string>;
  body: string;
}

export type DeliveryResult = Omit<DeliveryAttempt, 'at'>;
/** Posts a signed callback once and reports what came back. */
export type Deliver = (url: string, callback: SignedCallback) => Promise<DeliveryResult>;

/**
 * The headers of the Standard Webhooks specification, signed with the merchant's `whsec_` secret;
 * with several secrets (rotations' overlaps, newest first), one space-separated `v1,` signature
 * each, in that order: a receiver accepts the callback if any of them verifies.
 */
export function signCallback(secrets: string | readonly string[], id: string, body: string, at: Date): SignedCallback {
  const signature = [secrets]
    .flat()
    .map((secret) => new Webhook(secret).sign(id, at, body))
    .join(' ');
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': signature,
    },
  };
}

/** Opens a merchant's sealed callback secret. */
export interface CallbackSecretOpener {
  open(merchantId: string, sealed: Merchant['sealedCallbackSecret']): Promise<string>;
}

/**
 * The secrets a merchant's callbacks are signed with at `at`: the current one, then each one a
 * rotation replaced whose overlap has not ended, newest first (docs/merchant-guide.md#rotating-the-callback-secret). The first keys the body's `hash`.
 */
export async function signingSecrets(merchant: Merchant, secrets: CallbackSecretOpener, at: Date): Promise<string[]> {
  const sealed = [merchant.sealedCallbackSecret, ...previousSecretsAt(merchant, at).map((previous) => previous.sealed)];
  return Promise.all(sealed.map((secret) => secrets.open(merchant.id, secret)));
}

/** A callback entry with what its deliveries left on it (the outbox record). */
export interface CallbackRecord extends CallbackEntry {
  attempts: DeliveryAttempt[];
  deliveredAt?: string;
  /** Nothing to deliver to: the merchant had no callback URL. */
  skippedAt?: string;
  parkedAt?: string;
}

export const CALLBACK_STATES = ['pending', 'delivered', 'parked'] as const;
export type CallbackState = (typeof CALLBACK_STATES)[number];

/** `parked`: no further attempt comes on its own (the retry window closed, or there was no URL to send to). */
export const callbackState = (record: Pick<CallbackRecord, 'deliveredAt' | 'parkedAt' | 'skippedAt'>): CallbackState =>
  record.deliveredAt ? 'delivered' : record.parkedAt || record.skippedAt ? 'parked' : 'pending';

/** A delivery that went wrong: no attempt will come on its own, or the last one failed and the next waits. */
export const deliveryFailed = (record: Pick<CallbackRecord, 'deliveredAt' | 'parkedAt' | 'skippedAt' | 'attempts'>): boolean =>
  callbackState(record) === 'parked' || (callbackState(record) === 'pending' && record.attempts.length > 0);

const attemptSchema = z.object({
  at: z.iso.datetime(),
  status: z.int().nullable().describe("The receiver's HTTP status; null when no answer came (timeout, refused, URL guard)"),
  latencyMs: z.int().min(0),
  error: z.string().nullable().describe('Why the attempt failed without an HTTP status'),
});

/** `GET /api/v2/transaction/{id}/callbacks`: one transaction's callback, with every delivery attempt. */
export const callbackDeliverySchema = z.object({
  webhookId: z.string().describe('The `webhook-id` header: `{transactionId}:{status}`'),
  state: z.enum(CALLBACK_STATES).describe('`parked`: no further attempt comes on its own; resend delivers it again'),
  attempts: z.array(attemptSchema).describe('Oldest first'),
  pausedUntil: z.iso
    .datetime()
    .nullable()
    .describe(
      'Set on a `pending` callback while deliveries to the callback URL are paused because it kept timing out: no attempt ' +
        'is made (and none counted as failed) before this time, then one attempt tries the URL again. null otherwise',
    ),
});

export type CallbackDelivery = z.output<typeof callbackDeliverySchema>;

/** A callback as its log shows it; `pausedUntil`: until when deliveries to the merchant's URL are paused, if they are. */
export const callbackDelivery = (record: CallbackRecord, pausedUntil: string | null): CallbackDelivery => {
  const state = callbackState(record);
  return {
    webhookId: record.id,
    state,
    attempts: record.attempts.map(({ at, status, latencyMs, error }) => ({ at, status, latencyMs, error: error ?? null })),
    pausedUntil: state === 'pending' ? pausedUntil : null,
  };
};

/** `POST /api/v2/webhooks/test`: the attempt made. */
export const testCallbackResultSchema = attemptSchema.extend({ webhookId: z.string().describe('The `webhook-id` the sample was sent with') });
