/**
 * The demo's simulated local payment provider (decisions 13): it answers each UTR after
 * GATEWAY_PROVIDER_DELAY_S, through a delayed message on the provider queue. Payouts wait for the
 * simulation API.
 */
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { FiatProvider } from '../domain/fiat-service.js';
import { logger } from '../http/logger.js';

export interface UtrDecisionMessage {
  transactionId: string;
  merchantId: string;
  utr: string;
}

/** SQS delays a message by at most 15 minutes. */
const MAX_DELAY_SECONDS = 900;

export class SimulatedFiatProvider implements FiatProvider {
  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
    private readonly delaySeconds: number,
  ) {}

  async submitUtr(claim: UtrDecisionMessage): Promise<void> {
    await this.sqs.send(
      new SendMessageCommand({
        QueueUrl: this.queueUrl,
        MessageBody: JSON.stringify(claim),
        DelaySeconds: Math.min(Math.round(this.delaySeconds), MAX_DELAY_SECONDS),
      }),
    );
  }

  async requestPayout(payout: { transactionId: string }): Promise<void> {
    logger.info('Payout awaits the simulation API', { transactionId: payout.transactionId });
  }
}
