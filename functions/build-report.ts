/**
 * Consumes the reports queue, one report per invocation: streams its records into its file a part
 * at a time, from where an earlier invocation stopped, and once its budget is spent hands the rest
 * to the next invocation through the same queue (docs/operations.md#reports). A failure is
 * reported as the record's failure for SQS to deliver again; the last receive the queue allows
 * fails the report, so its merchant sees `failed` rather than `pending` for ever.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { S3Client } from '@aws-sdk/client-s3';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { invocationBudget } from '../shared/domain/kernel/index.js';
import { logger } from '../shared/observability/logger.js';
import { observed, traced } from '../shared/observability/tracer.js';
import { QUEUES } from '../shared/queue/queues.js';
import { S3ReportWriter } from '../shared/store/s3-report-writer.js';
import { balanceStore, transactionStore } from './commons/stores.js';
import { reportFilesConfig, reportQueue, reportService } from './commons/reports.js';

/**
 * The time an invocation leaves itself once its budget is spent: the part under way filled and
 * uploaded, its progress recorded and the report queued again. Its timeout (shared/routes.ts) is
 * the work an invocation does, four minutes, plus this.
 */
const BUILD_RESERVE_MS = 60_000;

const files = reportFilesConfig();
const reports = reportService({
  records: { transactions: (range, after) => transactionStore.createdBetween(range, after), entries: (range, after) => balanceStore.createdBetween(range, after) },
  writer: files.kind === 'aws' ? new S3ReportWriter(traced(new S3Client({})), files.bucket) : files.files,
  queue: reportQueue(),
});

async function build(record: SQSRecord, context: Context): Promise<void> {
  const { reportId } = JSON.parse(record.body) as { reportId: string };
  const outcome = await reports.build(reportId, {
    last: Number(record.attributes.ApproximateReceiveCount) >= QUEUES.reports.maxReceiveCount,
    budget: invocationBudget(() => context.getRemainingTimeInMillis(), BUILD_RESERVE_MS),
    until: new Date(Date.now() + context.getRemainingTimeInMillis()),
  });
  logger.info('Report built', { reportId, outcome });
}

export const handler = observed(async (event: SQSEvent, context: Context) =>
  processPartialResponse(event, (record: SQSRecord) => build(record, context), new BatchProcessor(EventType.SQS), { throwOnFullBatchFailure: false }),
);
