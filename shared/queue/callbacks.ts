/** Hands callbacks from the outbox to the SQS queue the callback sender consumes. */
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { logger } from '../observability/logger.js';
import type { DynamoOutboxStore } from '../store/outbox.js';

export interface CallbackMessage {
  callbackId: string;
}

export class CallbackPublisher {
  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
    private readonly outbox: DynamoOutboxStore,
  ) {}

  /**
   * Enqueues each callback, then marks it published. A failure is only logged: the entry stays in
   * the outbox and the publisher's sweep sends it, so the caller's committed write never fails
   * because the queue was unreachable.
   */
  async publish(callbackIds: string[], now = new Date()): Promise<number> {
    const outcomes = await Promise.all(
      callbackIds.map(async (callbackId) => {
        try {
          const message: CallbackMessage = { callbackId };
          await this.sqs.send(new SendMessageCommand({ QueueUrl: this.queueUrl, MessageBody: JSON.stringify(message) }));
          await this.outbox.markPublished(callbackId, now);
          return true;
        } catch (error) {
          logger.warn('Callback left in the outbox for the sweep', { callbackId, error: error instanceof Error ? error.message : String(error) });
          return false;
        }
      }),
    );
    return outcomes.filter(Boolean).length;
  }
}
