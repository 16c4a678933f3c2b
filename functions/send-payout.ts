/**
 * The payouts queue's consumer: one message at a time per network (the FIFO queue's message
 * group), each a payout to send or a stuck transaction to replace (shared/domain/payments/payout-sending.ts).
 * A payout the treasury cannot pay yet fails its record, which SQS delivers again after the
 * queue's visibility timeout: the network's later payouts wait behind it, in order.
 */
import { processPartialResponse, SqsFifoPartialProcessorAsync } from '@aws-lambda-powertools/batch';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { PayoutWaits, type PayoutSendRequest } from '../shared/domain/payments/index.js';
import { failureReason } from '../shared/observability/failure-reason.js';
import { logger } from '../shared/observability/logger.js';
import { observed } from '../shared/observability/tracer.js';
import { payoutSender } from './commons/payouts.js';

const sender = payoutSender();

async function send(record: SQSRecord): Promise<void> {
  const request = JSON.parse(record.body) as PayoutSendRequest;
  try {
    const outcome = await sender.handle(request);
    logger.info('Payout handled', { transactionId: request.transactionId, network: request.network, kind: request.kind, outcome });
  } catch (error) {
    if (error instanceof PayoutWaits) logger.warn('Payout waits for the treasury', { transactionId: request.transactionId, network: request.network, reason: error.reason });
    else logger.error('Payout not handled; SQS delivers it again', { transactionId: request.transactionId, network: request.network, kind: request.kind, reason: failureReason(error) });
    throw error;
  }
}

export const handler = observed(async (event: SQSEvent) => processPartialResponse(event, send, new SqsFifoPartialProcessorAsync(), { throwOnFullBatchFailure: false }));
