/**
 * Delivers one callback from the queue (decisions 10): signs it, posts it once, records the
 * attempt, and on failure either schedules the next attempt through the message's visibility or,
 * once the delivery window has closed, parks it in the dead-letter queue.
 */
import { ChangeMessageVisibilityCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import {
  callbackBody,
  retryDelaySeconds,
  signCallback,
  storeFailureRetrySeconds,
  signingSecrets,
  windowClosed,
  type Deliver,
  type DeliveryAttempt,
} from '../domain/callbacks.js';
import type { Merchant } from '../domain/merchants.js';
import type { BusinessMetrics } from '../domain/metrics.js';
import type { CallbackSecretOpener } from '../domain/transaction-views.js';
import { logger } from '../http/logger.js';
import type { DynamoOutboxStore } from '../store/outbox.js';
import type { CallbackMessage } from './callbacks.js';

export type { Deliver, DeliveryResult } from '../domain/callbacks.js';

/** Thrown to leave the message on the queue for its next attempt. */
export class RetryLater extends Error {
  constructor(callbackId: string, delaySeconds: number) {
    super(`Callback ${callbackId} retries in ${delaySeconds} s`);
    this.name = 'RetryLater';
  }
}

const isSuccess = (status: number | null) => status !== null && status >= 200 && status < 300;

export interface CallbackSenderDeps {
  outbox: DynamoOutboxStore;
  merchants: { getMerchant(id: string): Promise<Merchant | undefined> };
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
      const delaySeconds = storeFailureRetrySeconds(Number(record.attributes?.ApproximateReceiveCount ?? 1));
      logger.warn('Callback not settled; it is tried again soon', { messageId: record.messageId, delaySeconds, error });
      await this.deps.sqs
        .send(new ChangeMessageVisibilityCommand({ QueueUrl: this.deps.queueUrl, ReceiptHandle: record.receiptHandle, VisibilityTimeout: delaySeconds }))
        .catch(() => undefined); // the queue's own visibility timeout brings it back instead
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

    const at = clock();
    // During a rotation's overlap, signed with both secrets; the body's hash takes the new one.
    const secrets = await signingSecrets(merchant, callbackSecrets, at);
    const result = await deliver(merchant.callbackUrl, signCallback(secrets, entry.id, callbackBody(entry, secrets[0]!), at));
    const attempt: DeliveryAttempt = { at: at.toISOString(), ...result };
    if (isSuccess(result.status)) {
      await outbox.recordAttempt(callbackId, attempt, 'delivered');
      metrics.callbackDelivered(clock().getTime() - Date.parse(entry.createdAt));
      return;
    }

    const windowStart = new Date(windowStartedAt ?? attempt.at);
    const failures = entry.attempts.filter((a) => a.at >= windowStart.toISOString()).length + 1;
    const delaySeconds = retryDelaySeconds(failures, retryScale);
    if (windowClosed(windowStart, at, delaySeconds, retryScale)) {
      await this.deps.sqs.send(new SendMessageCommand({ QueueUrl: this.deps.deadLetterQueueUrl, MessageBody: record.body }));
      await outbox.recordAttempt(callbackId, attempt, 'parked');
      metrics.callbackParked();
      logger.warn('Callback parked in the dead-letter queue', { callbackId, failures });
      return;
    }
    await outbox.recordAttempt(callbackId, attempt, 'retry');
    metrics.callbackFailed();
    const visibility = Math.ceil(delaySeconds);
    await this.deps.sqs.send(
      new ChangeMessageVisibilityCommand({ QueueUrl: this.deps.queueUrl, ReceiptHandle: record.receiptHandle, VisibilityTimeout: visibility }),
    );
    throw new RetryLater(callbackId, visibility);
  }
}
