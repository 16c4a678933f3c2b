/**
 * Reports of this container (docs/merchant-guide.md#reports), wired once at load with what its
 * function does of them: asking (the builder's queue), building (the records and a writer of
 * files) or reading (links to files). Files are kept in S3 in AWS and in a directory on one
 * machine, where the local runtime serves them; the S3 adapters are loaded only by the function
 * that uses each. A setting the function needs and lacks fails its cold start.
 */
import { randomUUID } from 'node:crypto';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { config } from '../../shared/config.js';
import { ReportService, type ReportServiceDeps } from '../../shared/domain/ledger/index.js';
import { sqsClient } from '../../shared/queue/sqs.js';
import { documentClient } from '../../shared/store/dynamo.js';
import { FileReportFiles, REPORT_LINK_KEY_PURPOSE } from '../../shared/store/report-files.js';
import { DynamoReportStore } from '../../shared/store/reports.js';
import { KeyFileDataKeySource } from '../../shared/vault/key-sources.js';

const { tables, reportFiles, reportQueueUrl, publicBaseUrl } = config();

export function reportService(parts: Omit<ReportServiceDeps, 'reports' | 'clock' | 'newId'>): ReportService {
  return new ReportService({ reports: new DynamoReportStore(documentClient, tables.reports), ...parts, clock: () => new Date(), newId: randomUUID });
}

/** The builder's queue, for the function that asks for reports. */
export function reportQueue(): NonNullable<ReportServiceDeps['queue']> {
  if (!reportQueueUrl) throw new Error('Invalid environment: REPORT_QUEUE_URL is required');
  return {
    async send(reportId) {
      await sqsClient.send(new SendMessageCommand({ QueueUrl: reportQueueUrl, MessageBody: JSON.stringify({ reportId }) }));
    },
  };
}

/** Where files are kept: the bucket in AWS, or the local directory and its signed links. */
export function reportFilesConfig(): { kind: 'aws'; bucket: string } | { kind: 'local'; files: FileReportFiles } {
  if (!reportFiles) throw new Error('Invalid environment: REPORTS_BUCKET (AWS) or GATEWAY_REPORTS_DIR with GATEWAY_KEY_FILE is required');
  if (reportFiles.kind === 'aws') return reportFiles;
  const keys = new KeyFileDataKeySource(reportFiles.keyFile);
  return { kind: 'local', files: new FileReportFiles(reportFiles.directory, () => keys.derivedKey(REPORT_LINK_KEY_PURPOSE), publicBaseUrl) };
}
