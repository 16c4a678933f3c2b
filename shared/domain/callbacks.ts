/**
 * Merchant callbacks (decisions 10): Standard Webhooks signatures, the retry schedule and the
 * guard on where production may send them. Pure but for the signing library.
 */
import { isIP } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { callbackFields, callbackPayload, type CallbackFields, type Transaction, type TransactionStatus } from './transactions.js';

/** Waits after the 1st, 2nd, ... failed attempt; the last one repeats. */
export const RETRY_DELAYS_SECONDS = [60, 300, 900, 3600, 3 * 3600] as const;
/** How long a callback keeps being retried before it is parked in the dead-letter queue. */
export const DELIVERY_WINDOW_SECONDS = 72 * 3600;
export const DELIVERY_TIMEOUT_MS = 10_000;

/** One id per transaction state, so a receiver can drop duplicates of the same event. */
export const webhookId = (transactionId: string, status: TransactionStatus): string => `${transactionId}:${status}`;

/**
 * A callback to deliver. What it announces is fixed when the state is written, so every attempt
 * sends the same content; the sender adds the `hash` and the signatures, which need the secret.
 */
export interface CallbackEntry {
  /** The `webhook-id`. */
  id: string;
  merchantId: string;
  transactionId: string;
  /** JSON of the callback's fields (`CallbackFields`) in their order, without `hash`. */
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

/** The callback announcing a transaction's final state. */
export function callbackEntry(transaction: Transaction, now: Date): CallbackEntry {
  return {
    id: webhookId(transaction.id, transaction.status),
    merchantId: transaction.merchantId,
    transactionId: transaction.id,
    payload: JSON.stringify(callbackFields(transaction)),
    createdAt: now.toISOString(),
  };
}

/** The body a callback entry is sent with: its fields and the transaction's `hash`, in merchant-api.md's order. */
export const callbackBody = (entry: Pick<CallbackEntry, 'payload'>, callbackSecret: string): string =>
  JSON.stringify(callbackPayload(JSON.parse(entry.payload) as CallbackFields, callbackSecret));

/** Seconds to wait after `failedAttempts` failures (1-based), scaled for tests. */
export function retryDelaySeconds(failedAttempts: number, scale = 1): number {
  const index = Math.min(Math.max(failedAttempts, 1), RETRY_DELAYS_SECONDS.length) - 1;
  return RETRY_DELAYS_SECONDS[index]! * scale;
}

/** True when the next attempt would fall outside the delivery window that began at `firstAttemptAt`. */
export function windowClosed(firstAttemptAt: Date, now: Date, nextDelaySeconds: number, scale = 1): boolean {
  return now.getTime() + nextDelaySeconds * 1000 > firstAttemptAt.getTime() + DELIVERY_WINDOW_SECONDS * scale * 1000;
}

export interface SignedCallback {
  headers: Record<string, string>;
  body: string;
}

/** The headers of the Standard Webhooks specification, signed with the merchant's `whsec_` secret. */
export function signCallback(secret: string, id: string, body: string, at: Date): SignedCallback {
  const signature = new Webhook(secret).sign(id, at, body);
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

const PRIVATE_V4: [number, number][] = [
  [0x00000000, 8], // "this" network
  [0x0a000000, 8], // 10/8
  [0x64400000, 10], // 100.64/10 carrier-grade NAT
  [0x7f000000, 8], // loopback
  [0xa9fe0000, 16], // link-local, cloud metadata
  [0xac100000, 12], // 172.16/12
  [0xc0000000, 24], // 192.0.0/24
  [0xc0a80000, 16], // 192.168/16
  [0xc6120000, 15], // 198.18/15 benchmarking
  [0xe0000000, 3], // multicast and reserved
];

function ipv4ToInt(address: string): number {
  return address.split('.').reduce((n, octet) => (n << 8) + Number(octet), 0) >>> 0;
}

/** Loopback, private, link-local and other non-public addresses: never a callback target in production. */
export function isNonPublicAddress(address: string): boolean {
  if (isIP(address) === 4) {
    const n = ipv4ToInt(address);
    return PRIVATE_V4.some(([base, bits]) => (n >>> (32 - bits)) === (base >>> (32 - bits)));
  }
  const v6 = address.toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(v6)?.[1];
  if (mapped) return isNonPublicAddress(mapped);
  return v6 === '::1' || v6 === '::' || /^f[cd]/.test(v6) || /^fe[89ab]/.test(v6) || /^ff/.test(v6);
}
