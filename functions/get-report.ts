import { S3Client } from '@aws-sdk/client-s3';
import { httpHandler } from '../shared/http/handler.js';
import { traced } from '../shared/observability/tracer.js';
import { routeByName } from '../shared/routes.js';
import { S3ReportLinks } from '../shared/store/s3-report-links.js';
import { reportFilesConfig, reportService } from './commons/reports.js';

const files = reportFilesConfig();
const reports = reportService({ links: files.kind === 'aws' ? new S3ReportLinks(traced(new S3Client({})), files.bucket) : files.files });

export const handler = httpHandler(routeByName('get-report'), {}, async ({ pathParameters, merchantId }) => ({
  data: await reports.view(merchantId, pathParameters.reportId ?? ''),
}));
