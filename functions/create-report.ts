import { createReportRequestSchema } from '../shared/domain/ledger/index.js';
import { httpHandler } from '../shared/http/handler.js';
import { idempotentByHeader } from '../shared/http/idempotency.js';
import { routeByName } from '../shared/routes.js';
import { reportQueue, reportService } from './commons/reports.js';

const reports = reportService({ queue: reportQueue() });

export const handler = httpHandler(routeByName('create-report'), { body: createReportRequestSchema, idempotency: idempotentByHeader }, async ({ body, merchantId }) => ({
  status: 202,
  data: await reports.create(merchantId, body),
}));
