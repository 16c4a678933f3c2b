/**
 * Reports of this container (docs/merchant-guide.md#reports): their records, their files (S3 in
 * AWS, a directory on one machine, where the local runtime serves them), the records they are
 * built from and the builder's queue, wired once at load. A function loads it only when its route
 * has `reportFiles` or sends to the reports queue; a missing setting fails its cold start.
 */
import { randomUUID } from 'node:crypto';
import { S3Client } from '@aws-sdk/client-s3';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { config } from '../../shared/config.js';
import { ReportService, type ReportFiles } from '../../shared/domain/report-service.js';
import { traced } from '../../shared/observability/tracer.js';
import { sqsClient } from '../../shared/queue/sqs.js';
import { documentClient } from '../../shared/store/dynamo.js';
import { FileReportFiles, REPORT_LINK_KEY_PURPOSE, S3ReportFiles } from '../../shared/store/report-files.js';
import { DynamoReportStore } from '../../shared/store/reports.js';
import { KeyFileDataKeySource } from '../../shared/vault/key-sources.js';
import { balanceStore, transactionStore } from './stores.js';

const { tables, reportFiles, reportQueueUrl, publicBaseUrl } = config();

function files(): ReportFiles {
  if (!reportFiles) throw new Error('Invalid environment: REPORTS_BUCKET (AWS) or GATEWAY_REPORTS_DIR with GATEWAY_KEY_FILE is required');
  if (reportFiles.kind === 'aws') return new S3ReportFiles(traced(new S3Client({})), reportFiles.bucket);
  const keys = new KeyFileDataKeySource(reportFiles.keyFile);
  return new FileReportFiles(reportFiles.directory, () => keys.derivedKey(REPORT_LINK_KEY_PURPOSE), publicBaseUrl);
}

/** `needs`: what the function does with reports, so that a function without them does not need their settings. */
export function reportServiceFor(needs: 'queue' | 'files'): ReportService {
  if (needs === 'queue' && !reportQueueUrl) throw new Error('Invalid environment: REPORT_QUEUE_URL is required');
  const unused = (): never => {
    throw new Error(`This function was wired for reports' ${needs} only`);
  };
  return new ReportService({
    reports: new DynamoReportStore(documentClient, tables.reports),
    files: needs === 'files' ? files() : { write: unused, link: unused },
    records: { transactions: (range) => transactionStore.createdBetween(range), entries: (range) => balanceStore.createdBetween(range) },
    queue: {
      send: async (reportId) => {
        if (!reportQueueUrl) unused();
        await sqsClient.send(new SendMessageCommand({ QueueUrl: reportQueueUrl, MessageBody: JSON.stringify({ reportId }) }));
      },
    },
    clock: () => new Date(),
    newId: randomUUID,
  });
}
