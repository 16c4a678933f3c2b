import { httpHandler } from '../shared/http/handler.js';
import { routeByName } from '../shared/routes.js';
import { reportServiceFor } from './commons/reports.js';

const reportService = reportServiceFor('files');

export const handler = httpHandler(routeByName('get-report'), {}, async ({ pathParameters, merchantId }) => ({
  data: await reportService.view(merchantId, pathParameters.reportId ?? ''),
}));
