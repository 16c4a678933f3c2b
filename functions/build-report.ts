/**
 * Consumes the reports queue, one report per invocation: streams its records into its file. A
 * failure is reported as the record's failure for SQS to deliver again; the last receive the
 * queue allows fails the report, so its merchant sees `failed` rather than `pending` for ever.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { S3Client } from '@aws-sdk/client-s3';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { logger } from '../shared/observability/logger.js';
import { observed, traced } from '../shared/observability/tracer.js';
import { QUEUES } from '../shared/queue/queues.js';
import { S3ReportWriter } from '../shared/store/s3-report-writer.js';
import { balanceStore, transactionStore } from './commons/stores.js';
import { reportFilesConfig, reportService } from './commons/reports.js';

const files = reportFilesConfig();
const reports = reportService({
  records: { transactions: (range) => transactionStore.createdBetween(range), entries: (range) => balanceStore.createdBetween(range) },
  writer: files.kind === 'aws' ? new S3ReportWriter(traced(new S3Client({})), files.bucket) : files.files,
});

async function build(record: SQSRecord): Promise<void> {
  const { reportId } = JSON.parse(record.body) as { reportId: string };
  const lastAttempt = Number(record.attributes.ApproximateReceiveCount) >= QUEUES.reports.maxReceiveCount;
  const outcome = await reports.build(reportId, lastAttempt);
  logger.info('Report built', { reportId, outcome });
}

export const handler = observed(async (event: SQSEvent) => processPartialResponse(event, build, new BatchProcessor(EventType.SQS), { throwOnFullBatchFailure: false }));
