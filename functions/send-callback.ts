/**
 * Consumes the callbacks queue. Each record is one delivery attempt, all of a batch's at once so
 * that one merchant's slow URL does not hold another's callbacks; records that must be retried
 * (or wait out a pause of their merchant's deliveries) are reported as batch item failures, their
 * visibility already set to the next attempt.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { config } from '../shared/config.js';
import { businessMetrics } from '../shared/observability/metrics.js';
import { observed } from '../shared/observability/tracer.js';
import { httpDeliver } from '../shared/outbound/http-delivery.js';
import { CallbackSender } from '../shared/outbound/callback-sender.js';
import { sqsClient } from '../shared/queue/sqs.js';
import { merchantStore, outboxStore } from './commons/stores.js';
import { requireVault } from './commons/vault.js';

const { callbackGuard, callbackQueueUrl, callbackDlqUrl, retryScale } = config();
if (!callbackDlqUrl) throw new Error('Invalid environment: CALLBACK_DLQ_URL is required: the sender parks callbacks there');

const sender = new CallbackSender({
  outbox: outboxStore,
  merchants: merchantStore,
  callbackSecrets: requireVault().callbackSecrets,
  // Deployed stages never call loopback, private or link-local addresses (docs/merchant-guide.md#callbacks).
  deliver: httpDeliver({ guard: callbackGuard }),
  sqs: sqsClient,
  queueUrl: callbackQueueUrl,
  deadLetterQueueUrl: callbackDlqUrl,
  retryScale,
  metrics: businessMetrics,
  clock: () => new Date(),
});

// A processor per invocation: it keeps the batch's records and failures on itself, and the local
// runtime runs several batches of one function at once in one process.
export const handler = observed(async (event: SQSEvent) =>
  processPartialResponse(event, (record: SQSRecord) => sender.handle(record), new BatchProcessor(EventType.SQS), {
    // Powertools' default, stated: the records' handlers run concurrently (Promise.all), not in turn.
    processInParallel: true,
    // A batch whose every callback is waiting for a retry is normal, not a function error.
    throwOnFullBatchFailure: false,
  }),
);
