import { httpHandler } from '../shared/http/handler.js';
import { routeByName } from '../shared/routes.js';
import { dashboardRequest, dashboardWith, servePage } from './commons/dashboard.js';
import { transactionReceipts } from './commons/transaction-receipts.js';

const dashboard = dashboardWith({ receipts: transactionReceipts });

/**
 * A transaction's signed receipt as a file, behind the dashboard's session (docs/merchant-guide.md#receipts):
 * its own function, so that only the functions that serve receipts may sign with the receipt key.
 */
export const handler = httpHandler(routeByName('get-dashboard-receipt'), {}, async (request) =>
  servePage(dashboard, dashboardRequest('GET', { ...request, pathParameters: { page: `receipts/${request.pathParameters.transactionId ?? ''}` } })),
);
