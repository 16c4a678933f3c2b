import { httpHandler } from '../shared/http/handler.js';
import { routeByName } from '../shared/routes.js';
import { transactionViews } from './commons/transaction-views.js';

export const handler = httpHandler(routeByName('get-transaction'), {}, async ({ pathParameters, merchantId }) => ({
  data: await transactionViews.view(merchantId, pathParameters.transactionId ?? ''),
}));
