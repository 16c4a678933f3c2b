/**
 * What the demo provider keeps of each payment, payout and refund, and its rules: which methods it
 * offers and how, how a UTR is decided, how much of a payment may be refunded, what a decision
 * reports (status reads and events), and how long a payout request waits. Pure: no clock, store
 * or network of its own.
 */
import { createHash } from 'node:crypto';
import { type FiatMethod, formatAmount, type LocalFiatCurrency, toDecimal } from '../../shared/domain/kernel/index.js';
import type { CreatedPayment, PaymentInstructions, ProviderEvent, ProviderStatusAnswer, SenderDetails } from '../../shared/domain/providers/index.js';

/** How a customer pays: on the demo provider's own page, or by a transfer the checkout gives instructions for. */
type PaymentFlow = 'page' | 'instructions';

/** What the demo offers (docs/provider-protocol.md): every method of the payment limits but INR `intent`. */
const OFFERS: Record<LocalFiatCurrency, Partial<Record<FiatMethod, PaymentFlow>>> = {
  TRY: { wallet: 'page', bankpay: 'page', iban: 'page' },
  INR: { p2p: 'instructions' },
  PKR: { wallet: 'page' },
  AZN: { p2p: 'page' },
};

export const flowOf = (currency: LocalFiatCurrency, method: FiatMethod): PaymentFlow | undefined => OFFERS[currency][method];

/** The methods a payment page is shown for, which its text names. */
export type PageMethod = 'wallet' | 'bankpay' | 'iban' | 'p2p';

/**
 * The provider reference of a gateway reference: the same every time, so that a repeated request
 * finds the payment, payout or refund the first one made, and the store's conditional write on
 * this key decides which of two racing requests makes it.
 */
const derivedReference = (prefix: 'pay' | 'po' | 'rf', reference: string): string => `${prefix}_${createHash('sha256').update(`${prefix}:${reference}`).digest('hex').slice(0, 24)}`;

export const paymentReferenceOf = (reference: string): string => derivedReference('pay', reference);
export const payoutReferenceOf = (reference: string): string => derivedReference('po', reference);
export const refundReferenceOf = (reference: string): string => derivedReference('rf', reference);

/** What a decided payment ended with; fixed once recorded. */
export type Outcome = { status: 'confirmed'; decidedAt: string; amount: string; senderDetails: SenderDetails; utr?: string } | { status: 'failed'; decidedAt: string; reason: string; utr?: string };

export interface PaymentRecord {
  kind: 'payment';
  providerReference: string;
  /** The gateway's invoice id. */
  reference: string;
  amount: string;
  currency: LocalFiatCurrency;
  method: FiatMethod;
  /** Where the customer goes when the page is done; the gateway's. */
  returnUrl: string;
  /** Where this payment's events go. */
  notifyUrl: string;
  createdAt: string;
  utr?: string;
  /** When the UTR's decision is due: the decision delay after it arrived. */
  utrDecidesAt?: string;
  outcome?: Outcome;
  /** What its refunds add up to, decimal text; absent until the first refund. */
  refundedAmount?: string;
  /** The provider references of the refunds `refundedAmount` counts: a repeated refund request is counted once. */
  refundReferences?: string[];
}

/** A payout as requested: the demo decides nothing about it (the gateway's simulation does), so no recipient is kept. */
export interface PayoutRecord {
  kind: 'payout';
  providerReference: string;
  /** The gateway's withdrawal transaction id. */
  reference: string;
  amount: string;
  currency: LocalFiatCurrency;
  createdAt: string;
}

/** The demo refunds every refund it takes: the decision only waits, as a real provider's would. */
export interface RefundOutcome {
  status: 'confirmed';
  decidedAt: string;
}

/** A refund of a confirmed payment, counted in the payment's `refundedAmount`. */
export interface RefundRecord {
  kind: 'refund';
  providerReference: string;
  /** The gateway's refund transaction id. */
  reference: string;
  /** The provider reference of the payment refunded. */
  paymentReference: string;
  amount: string;
  currency: LocalFiatCurrency;
  reason?: string;
  /** Where this refund's events go: its payment's, as the refund request carries none. */
  notifyUrl: string;
  createdAt: string;
  /** When its decision is due: the decision delay after it was requested. */
  decidesAt: string;
  outcome?: RefundOutcome;
}

export type DemoRecord = PaymentRecord | PayoutRecord | RefundRecord;

/** Whom an INR customer pays: a made-up UPI payee. */
const DEMO_PAYEE = { payee: 'Demo Payments', upiId: 'demopayments@upi' } as const;

/** The short code the customer writes on the transfer. */
const transferCodeOf = (providerReference: string): string => `DEMO${providerReference.slice('pay_'.length, 'pay_'.length + 8).toUpperCase()}`;

function instructionsOf(payment: PaymentRecord): PaymentInstructions {
  return {
    ...DEMO_PAYEE,
    accountNumber: null,
    bankName: null,
    amount: payment.amount,
    currency: payment.currency,
    reference: transferCodeOf(payment.providerReference),
  };
}

/** The answer to a payment request, the same for every repetition of it. */
export function createdPaymentOf(payment: PaymentRecord, publicUrl: string): CreatedPayment {
  const { providerReference } = payment;
  return flowOf(payment.currency, payment.method) === 'instructions'
    ? { providerReference, instructions: instructionsOf(payment) }
    : { providerReference, redirectUrl: `${publicUrl}/pay/${encodeURIComponent(providerReference)}` };
}

/** Decimal digits derived from `seed`, the same every time. */
function digitsOf(seed: string, count: number): string {
  const hex = createHash('sha256').update(seed).digest('hex');
  return [...hex.repeat(Math.ceil(count / hex.length))]
    .slice(0, count)
    .map((digit) => String(Number.parseInt(digit, 16) % 10))
    .join('');
}

/** An IBAN of `country` with `bban`, its check digits computed (ISO 13616, mod 97). */
function ibanOf(country: string, bban: string): string {
  const numeric = [...`${bban}${country}00`].map((char) => (/\d/.test(char) ? char : String(char.charCodeAt(0) - 55))).join('');
  const remainder = [...numeric].reduce((rest, digit) => (rest * 10 + Number(digit)) % 97, 0);
  return `${country}${String(98 - remainder).padStart(2, '0')}${bban}`;
}

/**
 * Whom a confirmed payment came from: a made-up account in the payment's country, the same for
 * a payment every time it is reported (the status read and the event agree).
 */
export function madeUpSenderDetails(payment: Pick<PaymentRecord, 'providerReference' | 'currency'>): SenderDetails {
  const digits = (count: number) => digitsOf(payment.providerReference, count);
  const account = { senderIban: '', senderAccountNumber: '', senderSortCode: '' };
  switch (payment.currency) {
    case 'TRY':
      return { ...account, senderIban: ibanOf('TR', `000610${digits(16)}`) };
    case 'AZN':
      return { ...account, senderIban: ibanOf('AZ', `DEMO${digits(20)}`) };
    case 'PKR':
      return { ...account, senderIban: ibanOf('PK', `DEMO${digits(16)}`) };
    case 'INR':
      // An account number and the IFSC code of its branch.
      return { ...account, senderAccountNumber: digits(12), senderSortCode: `DEMO0${digits(6)}` };
  }
}

/** The demo's rule for a UTR (docs/provider-protocol.md): one starting with `000` matches no transfer, any other is confirmed. */
const REJECTED_UTR_PREFIX = '000';
export const UTR_REJECTION_REASON = 'No transfer with this UTR';
const DECLINED_REASON = 'The customer chose a failed payment on the demo page';

/** The decision on a payment's UTR, due at `utrDecidesAt`; the same however often it is computed. */
export function utrOutcome(payment: PaymentRecord & { utr: string; utrDecidesAt: string }): Outcome {
  const { utr, utrDecidesAt: decidedAt } = payment;
  return utr.startsWith(REJECTED_UTR_PREFIX)
    ? { status: 'failed', decidedAt, reason: UTR_REJECTION_REASON, utr }
    : { status: 'confirmed', decidedAt, amount: payment.amount, senderDetails: madeUpSenderDetails(payment), utr };
}

const hasUtr = (payment: PaymentRecord): payment is PaymentRecord & { utr: string; utrDecidesAt: string } => payment.utr !== undefined && payment.utrDecidesAt !== undefined;

/**
 * The payment's outcome as of `now`: the recorded one, else its UTR's decision once due. A
 * decision whose event was lost with its timer or message is reported all the same, so that the
 * gateway's reconciliation settles it.
 */
export function outcomeAt(payment: PaymentRecord, now: Date): Outcome | undefined {
  if (payment.outcome) return payment.outcome;
  return hasUtr(payment) && Date.parse(payment.utrDecidesAt) <= now.getTime() ? utrOutcome(payment) : undefined;
}

/** The customer's choice on the payment page: the whole amount paid, or declined. */
export function chosenOutcome(payment: PaymentRecord, status: Outcome['status'], now: Date): Outcome {
  const decidedAt = now.toISOString();
  return status === 'confirmed' ? { status, decidedAt, amount: payment.amount, senderDetails: madeUpSenderDetails(payment) } : { status, decidedAt, reason: DECLINED_REASON };
}

export function paymentStatusOf(payment: PaymentRecord, now: Date): ProviderStatusAnswer {
  const outcome = outcomeAt(payment, now);
  const utr = payment.utr === undefined ? {} : { utr: payment.utr };
  if (outcome?.status === 'confirmed') return { status: 'confirmed', amount: outcome.amount, ...utr, senderDetails: outcome.senderDetails };
  return { status: outcome?.status ?? 'pending', ...utr };
}

/** A payout request nobody decided for this long has expired: nothing waits on it forever. */
export const PAYOUT_REQUEST_LIFETIME_SECONDS = 24 * 3600;

export function payoutStatusOf(payout: PayoutRecord, now: Date): ProviderStatusAnswer {
  const expired = Date.parse(payout.createdAt) + PAYOUT_REQUEST_LIFETIME_SECONDS * 1000 <= now.getTime();
  return { status: expired ? 'failed' : 'pending' };
}

/**
 * The payment's refunded total once `amount` more is refunded, as decimal text; undefined when
 * that would exceed `paid`, what the payment took: its refunds together give back at most that.
 */
export function refundedTotalWith(payment: Pick<PaymentRecord, 'refundedAmount'>, paid: string, amount: string): string | undefined {
  const total = toDecimal(payment.refundedAmount ?? '0').plus(amount);
  return total.greaterThan(paid) ? undefined : formatAmount(total, 2);
}

/** The decision on a refund, due at `decidesAt`; the same however often it is computed. */
export const refundOutcome = (refund: RefundRecord): RefundOutcome => ({ status: 'confirmed', decidedAt: refund.decidesAt });

/** The refund's outcome as of `now`: the recorded one, else its decision once due, even if the job that makes it was lost. */
export function refundOutcomeAt(refund: RefundRecord, now: Date): RefundOutcome | undefined {
  if (refund.outcome) return refund.outcome;
  return Date.parse(refund.decidesAt) <= now.getTime() ? refundOutcome(refund) : undefined;
}

export function refundStatusOf(refund: RefundRecord, now: Date): ProviderStatusAnswer {
  return refundOutcomeAt(refund, now) ? { status: 'confirmed', amount: refund.amount } : { status: 'pending' };
}

/** The event announcing a payment's outcome: the same body for every attempt. */
export function paymentEventOf(payment: PaymentRecord, outcome: Outcome): ProviderEvent {
  const { reference, providerReference, currency } = payment;
  const utr = outcome.utr === undefined ? {} : { utr: outcome.utr };
  return outcome.status === 'confirmed'
    ? { type: 'payment.confirmed', reference, providerReference, amount: outcome.amount, currency, ...utr, senderDetails: outcome.senderDetails }
    : { type: 'payment.failed', reference, providerReference, amount: payment.amount, currency, ...utr, reason: outcome.reason };
}

/** The event announcing a refund's outcome: the same body for every attempt. */
export function refundEventOf(refund: RefundRecord): ProviderEvent {
  const { reference, providerReference, amount, currency } = refund;
  return { type: 'refund.confirmed', reference, providerReference, amount, currency };
}

/** A decided payment's or refund's event and where it goes; undefined while undecided, and for a payout (the demo sends none). */
export function decisionEventOf(record: DemoRecord): { notifyUrl: string; event: ProviderEvent } | undefined {
  switch (record.kind) {
    case 'payment':
      return record.outcome && { notifyUrl: record.notifyUrl, event: paymentEventOf(record, record.outcome) };
    case 'refund':
      return record.outcome && { notifyUrl: record.notifyUrl, event: refundEventOf(record) };
    case 'payout':
      return undefined;
  }
}

/** One `webhook-id` per event, so that the gateway drops a retry of one it has applied. */
export const eventWebhookId = (event: Pick<ProviderEvent, 'providerReference' | 'type'>): string => `${event.providerReference}:${event.type}`;

/**
 * Waits after the 1st, 2nd, ... failed attempt to deliver an event; the last one repeats. The
 * first are short: locally the gateway may be starting, or briefly busy.
 */
const EVENT_RETRY_DELAYS_SECONDS = [1, 5, 30, 120, 600, 1800, 3600, 3 * 3600] as const;
/** An event is retried for this long after its first attempt (the protocol asks for at least a day). */
export const EVENT_DELIVERY_WINDOW_SECONDS = 26 * 3600;

/** When to try again after `failedAttempts` failures; undefined once that would fall outside the delivery window. */
export function nextEventAttemptAt(failedAttempts: number, firstAttemptAt: Date, now: Date): Date | undefined {
  const delays = EVENT_RETRY_DELAYS_SECONDS;
  const next = now.getTime() + delays[Math.min(failedAttempts, delays.length) - 1]! * 1000;
  return next <= firstAttemptAt.getTime() + EVENT_DELIVERY_WINDOW_SECONDS * 1000 ? new Date(next) : undefined;
}

/** How long one attempt at an event may take: the customer waits on the first before going back. */
export const EVENT_TIMEOUT_MS = 5_000;

/** How the gateway's answer to an event ends its delivery. */
export function deliveryVerdict(status: number | null): 'delivered' | 'refused' | 'retry' {
  if (status !== null && status >= 200 && status < 300) return 'delivered';
  // A 4xx will not change by sending the same event again; 429 asks for exactly that.
  if (status !== null && status >= 400 && status < 500 && status !== 429) return 'refused';
  return 'retry';
}
