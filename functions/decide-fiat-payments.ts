/**
 * The demo's simulated provider answering UTRs: each delayed message is one decision, settled
 * through the transaction service (which completes or cancels the invoice and owes the callback).
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { settleUtrDeposit, simulatedUtrDecision } from '../shared/domain/fiat-service.js';
import { logger } from '../shared/http/logger.js';
import { observed } from '../shared/observability/tracer.js';
import type { UtrDecisionMessage } from '../shared/queue/fiat-provider.js';
import { transactionService } from './commons/transactions.js';

async function decide(record: SQSRecord): Promise<void> {
  const { transactionId, merchantId, utr } = JSON.parse(record.body) as UtrDecisionMessage;
  try {
    await settleUtrDeposit(transactionService, { merchantId, transactionId, utr }, simulatedUtrDecision(utr));
  } catch (error) {
    // The batch reports only the message; the reason is for the operator.
    logger.error('UTR decision not settled; the message returns to the queue', { transactionId, error });
    throw error;
  }
}

// A processor per invocation: it keeps the batch's records and failures on itself, and the local
// runtime runs several batches of one function at once in one process.
export const handler = observed(async (event: SQSEvent) => processPartialResponse(event, decide, new BatchProcessor(EventType.SQS)));
