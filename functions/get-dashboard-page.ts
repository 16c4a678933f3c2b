import { S3Client } from '@aws-sdk/client-s3';
import { httpHandler } from '../shared/http/handler.js';
import { traced } from '../shared/observability/tracer.js';
import { routeByName } from '../shared/routes.js';
import { S3ReportLinks } from '../shared/store/s3-report-links.js';
import { apiKeyServiceWith } from './commons/api-keys.js';
import { dailyTotals } from './commons/daily-totals.js';
import { stageConfiguration } from './commons/stage-configuration.js';
import { dashboardRequest, dashboardWith, servePage } from './commons/dashboard.js';
import { reportFilesConfig, reportService } from './commons/reports.js';

const files = reportFilesConfig();
const dashboard = dashboardWith({
  reports: reportService({ links: files.kind === 'aws' ? new S3ReportLinks(traced(new S3Client({})), files.bucket) : files.files }),
  keys: apiKeyServiceWith(),
  totals: dailyTotals,
  explorers: () => stageConfiguration.current().explorers,
});

/** A dashboard page (docs/merchant-guide.md#dashboard). */
export const handler = httpHandler(routeByName('get-dashboard-page'), {}, async (request) => servePage(dashboard, dashboardRequest('GET', request)));
