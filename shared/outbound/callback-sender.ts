/**
 * Delivers one callback from the queue (docs/merchant-guide.md#callbacks): signs it, posts it once, records the
 * attempt, and on failure either schedules the next attempt through the message's visibility or,
 * once the delivery window has closed, parks it in the dead-letter queue. While deliveries to the
 * merchant's URL are paused (it kept timing out: `domain/callbacks/callback-pause.ts`), a callback is not
 * attempted: it waits for the pause to end, and is parked instead if its window closes first. An
 * attempt takes one of the URL's few delivery places first; a callback that finds them all taken
 * comes back shortly, unattempted.
 */
import { ChangeMessageVisibilityCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import {
  busyRetrySeconds,
  type CallbackSecretOpener,
  type Deliver,
  DELIVERY_HOLD_SECONDS,
  type DeliveryAttempt,
  type DeliveryResult,
  pauseAfterTimeout,
  type PauseChange,
  pauseDecision,
  pausedRetrySeconds,
  retryDelaySeconds,
  signCallback,
  signingSecrets,
  storeFailureRetrySeconds,
  windowClosed,
} from '../domain/callbacks/index.js';
import { callbackBody } from '../domain/transactions/index.js';
import type { Merchant } from '../domain/merchants/index.js';
import type { BusinessMetrics } from '../domain/kernel/index.js';
import { logger } from '../observability/logger.js';
import { DELIVERY_FAILURES } from './http-delivery.js';
import type { CallbackPauseStore, DeliveryPlaces } from '../store/merchants.js';
import type { DynamoOutboxStore, OutboxItem } from '../store/outbox.js';
import type { CallbackMessage } from '../queue/callbacks.js';

export type { Deliver, DeliveryResult } from '../domain/callbacks/index.js';

/** Thrown to leave the message on the queue for its next attempt. */
export class RetryLater extends Error {
  constructor(
    callbackId: string,
    /** When the message comes back: its visibility, in seconds. */
    readonly delaySeconds: number,
  ) {
    super(`Callback ${callbackId} retries in ${delaySeconds} s`);
    this.name = 'RetryLater';
  }
}

const isSuccess = (status: number | null) => status !== null && status >= 200 && status < 300;

const receivesOf = (record: SQSRecord): number => Number(record.attributes?.ApproximateReceiveCount ?? 1);

const isTimeout = (result: DeliveryResult) => result.status === null && result.error === DELIVERY_FAILURES.timedOut;

/** SQS hides a message for at most 12 hours (ChangeMessageVisibility's limit). */
const MAX_VISIBILITY_SECONDS = 12 * 3600;

export interface CallbackSenderDeps {
  outbox: DynamoOutboxStore;
  /** The merchant (read on every attempt, its pause with it) and the pause's writes. */
  merchants: { getMerchant(id: string): Promise<Merchant | undefined> } & CallbackPauseStore & DeliveryPlaces;
  callbackSecrets: CallbackSecretOpener;
  deliver: Deliver;
  sqs: SQSClient;
  queueUrl: string;
  deadLetterQueueUrl: string;
  retryScale: number;
  metrics: Pick<BusinessMetrics, 'callbackDelivered' | 'callbackFailed' | 'callbackParked'>;
  clock: () => Date;
}

export class CallbackSender {
  constructor(private readonly deps: CallbackSenderDeps) {}

  /**
   * Settles the record, or throws RetryLater after scheduling its next attempt. When the gateway's
   * own stores fail (the receiver was not reached, or its answer not recorded), the message comes
   * back within seconds rather than after the queue's visibility timeout of several minutes.
   */
  async handle(record: SQSRecord): Promise<void> {
    try {
      await this.attempt(record);
    } catch (error) {
      if (error instanceof RetryLater) throw error;
      const delaySeconds = storeFailureRetrySeconds(receivesOf(record));
      logger.warn('Callback not settled; it is tried again soon', { messageId: record.messageId, delaySeconds, error });
      await this.deps.sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl: this.deps.queueUrl, ReceiptHandle: record.receiptHandle, VisibilityTimeout: delaySeconds })).catch(() => undefined); // the queue's own visibility timeout brings it back instead
      throw error;
    }
  }

  private async attempt(record: SQSRecord): Promise<void> {
    const { outbox, merchants, callbackSecrets, deliver, retryScale, metrics, clock } = this.deps;
    const { callbackId } = JSON.parse(record.body) as CallbackMessage;
    const entry = await outbox.get(callbackId);
    if (!entry) return logger.error('Callback message for an unknown outbox entry', { callbackId });
    if (entry.deliveredAt || entry.skippedAt) return;

    let windowStartedAt = entry.windowStartedAt;
    if (entry.parkedAt) {
      // A parked message came back: an operator redrove the dead-letter queue.
      windowStartedAt = clock().toISOString();
      await outbox.reopen(callbackId, clock());
    }

    const merchant = await merchants.getMerchant(entry.merchantId);
    if (!merchant?.callbackUrl) {
      await outbox.recordAttempt(callbackId, { at: clock().toISOString(), status: null, latencyMs: 0, error: 'merchant has no callback URL' }, 'skipped');
      return;
    }
    const url = merchant.callbackUrl;

    const decision = pauseDecision(merchant.callbackPause, url, clock());
    if (decision.action === 'wait') return this.waitOutPause(record, entry, windowStartedAt, decision.until, decision.pauses);
    // One callback probes a URL whose pause has ended; the others wait for its outcome.
    if (decision.action === 'probe' && !(await merchants.changePause(merchant.id, url, decision.hold))) {
      return this.waitOutPause(record, entry, windowStartedAt, new Date(decision.hold.until), decision.hold.pauses);
    }
    const probe = decision.action === 'probe' ? decision.hold : undefined;

    const at = clock();
    const place = await merchants.takeDeliveryPlace(merchant.id, at, new Date(at.getTime() + DELIVERY_HOLD_SECONDS * 1000));
    if (!place) return this.retryIn(record, callbackId, busyRetrySeconds(receivesOf(record)));
    let result: DeliveryResult;
    try {
      // Signed with the current secret and each replaced one still in its overlap; the body's hash takes the current one.
      const secrets = await signingSecrets(merchant, callbackSecrets, at);
      result = await deliver(url, signCallback(secrets, entry.id, callbackBody(entry, secrets[0]!), at));
    } finally {
      // Best effort: a place left taken frees itself when its hold ends.
      await merchants.freeDeliveryPlace(merchant.id, place).catch((error: unknown) => logger.warn('A delivery place was not freed', { merchantId: merchant.id, error }));
    }
    await this.notePause(merchant, url, result, probe);
    const attempt: DeliveryAttempt = { at: at.toISOString(), ...result };
    if (isSuccess(result.status)) {
      await outbox.recordAttempt(callbackId, attempt, 'delivered');
      metrics.callbackDelivered(clock().getTime() - Date.parse(entry.createdAt));
      return;
    }

    const windowStart = new Date(windowStartedAt ?? attempt.at);
    const failures = entry.attempts.filter((a) => a.at >= windowStart.toISOString()).length + 1;
    const delaySeconds = retryDelaySeconds(failures, retryScale);
    if (windowClosed(windowStart, at, delaySeconds, retryScale)) return this.park(record, callbackId, attempt, { failures });
    await outbox.recordAttempt(callbackId, attempt, 'retry');
    metrics.callbackFailed();
    return this.retryIn(record, callbackId, delaySeconds);
  }

  /**
   * A callback for a paused URL: not attempted and not counted as a failure, it comes back once
   * the pause is over (spread, so the merchant's callbacks do not all return at once), or sooner to
   * wait again (`pausedRetrySeconds`); parked instead when its window closes before that. An entry
   * never attempted has been owed since it was written.
   */
  private async waitOutPause(record: SQSRecord, entry: OutboxItem, windowStartedAt: string | undefined, until: Date, pauses: number): Promise<void> {
    const { retryScale, clock } = this.deps;
    const now = clock();
    const delaySeconds = pausedRetrySeconds(until, pauses, receivesOf(record), now, retryScale);
    if (windowClosed(new Date(windowStartedAt ?? entry.createdAt), now, delaySeconds, retryScale)) {
      return this.park(record, entry.id, undefined, { pausedUntil: until.toISOString() });
    }
    return this.retryIn(record, entry.id, delaySeconds);
  }

  /** Hides the message until its next attempt and leaves it on the queue. */
  private async retryIn(record: SQSRecord, callbackId: string, delaySeconds: number): Promise<never> {
    const visibility = Math.min(Math.ceil(delaySeconds), MAX_VISIBILITY_SECONDS);
    await this.deps.sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl: this.deps.queueUrl, ReceiptHandle: record.receiptHandle, VisibilityTimeout: visibility }));
    throw new RetryLater(callbackId, visibility);
  }

  /** Moves the message to the dead-letter queue and marks the entry parked, with its last attempt if there was one. */
  private async park(record: SQSRecord, callbackId: string, attempt: DeliveryAttempt | undefined, why: Record<string, unknown>): Promise<void> {
    const { outbox, metrics, clock } = this.deps;
    await this.deps.sqs.send(new SendMessageCommand({ QueueUrl: this.deps.deadLetterQueueUrl, MessageBody: record.body }));
    await (attempt ? outbox.recordAttempt(callbackId, attempt, 'parked') : outbox.park(callbackId, clock()));
    metrics.callbackParked();
    logger.warn('Callback parked in the dead-letter queue', { callbackId, ...why });
  }

  /**
   * Keeps the URL's timeouts and pause up to date after an attempt: a timeout is counted and may
   * open a pause; an answer, or a failure that did not hold the sender, ends them. Best effort: a
   * lost update only delays or prolongs a pause, and must not fail the callback's own bookkeeping.
   */
  private async notePause(merchant: Merchant, url: string, result: DeliveryResult, probe: PauseChange | undefined): Promise<void> {
    const { merchants, retryScale, clock } = this.deps;
    try {
      if (!isTimeout(result)) {
        if (probe || merchant.callbackPause?.url === url) await merchants.clearPause(merchant.id, url);
        if (probe) logger.info("Callbacks to the merchant's URL resume: it answered", { merchantId: merchant.id });
        return;
      }
      const state = await merchants.countTimeout(merchant.id, url);
      const pause = pauseAfterTimeout(state, clock(), probe, retryScale);
      if (pause && (await merchants.changePause(merchant.id, url, pause))) {
        logger.warn("Callbacks to the merchant's URL paused: it keeps timing out", { merchantId: merchant.id, timeouts: state.timeouts, pausedUntil: pause.until });
      }
    } catch (error) {
      logger.warn("The pause of the merchant's callbacks was not updated", { merchantId: merchant.id, error });
    }
  }
}
