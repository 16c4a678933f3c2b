/**
 * What the demo provider's core needs from around it: a store, a scheduler for work that waits
 * (a UTR's or a refund's decision, an event's retry), and a log. AWS fills them with DynamoDB, an SQS queue and
 * the Lambda logger; one machine with DynamoDB Local, timers and the console; tests in memory.
 */
import * as z from 'zod';
import type { DemoRecord, Outcome, PaymentRecord, RefundOutcome } from './records.js';

export interface DemoStore {
  /** The record, read consistently; undefined when there is none. */
  get(providerReference: string): Promise<DemoRecord | undefined>;
  /** Stores `record` unless one with its provider reference exists; resolves to the stored one, whichever it is. */
  addOnce(record: DemoRecord): Promise<{ stored: DemoRecord; added: boolean }>;
  /**
   * Gives the existing payment its UTR and decision time unless it has a UTR already; resolves to
   * the payment as stored afterwards, whose UTR may be another one.
   */
  setUtrOnce(providerReference: string, utr: string, decidesAt: string): Promise<PaymentRecord>;
  /** Records the existing payment's outcome unless it has one; true when this call recorded it. */
  recordOutcomeOnce(providerReference: string, outcome: Outcome): Promise<boolean>;
  /**
   * Counts the refund `refundReference` in the existing payment's refunds, whose total becomes
   * `refundedAmount`, if that total is still `counted` (undefined: nothing refunded yet) and the
   * refund is not counted already; true when this call counted it. False when another refund
   * changed the total since `counted` was read, or this one is counted already: the caller reads
   * the payment again. A compare-and-set, so that two refunds racing never give back more than paid.
   */
  countRefundOnce(paymentReference: string, refundReference: string, refundedAmount: string, counted: string | undefined): Promise<boolean>;
  /** Records the existing refund's outcome unless it has one; true when this call recorded it. */
  recordRefundOutcomeOnce(providerReference: string, outcome: RefundOutcome): Promise<boolean>;
}

/** Work that waits: a UTR's or a refund's decision, once due; the next attempt at a payment's or a refund's event. */
export const jobSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('decide-utr'), providerReference: z.string().min(1) }),
  z.object({ kind: z.literal('decide-refund'), providerReference: z.string().min(1) }),
  z.object({ kind: z.literal('deliver-event'), providerReference: z.string().min(1), attempt: z.number().int().min(1), firstAttemptAt: z.iso.datetime() }),
]);

export type Job = z.output<typeof jobSchema>;

export interface Scheduler {
  /** Has `job` run at `at` or soon after. A job may run more than once: each is safe to repeat. */
  schedule(job: Job, at: Date): Promise<void>;
}

/** Details are identifiers and statuses only: never a secret, a body or a header. */
export type LogDetails = Record<string, string | number | boolean | null | undefined>;

export interface DemoLog {
  info(message: string, details?: LogDetails): void;
  warn(message: string, details?: LogDetails): void;
  /** `cause`: the error that made it, for its name and stack. */
  error(message: string, details?: LogDetails, cause?: unknown): void;
}
