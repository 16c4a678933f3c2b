import { httpHandler } from '../shared/http/handler.js';
import { routeByName } from '../shared/routes.js';
import { transactionService } from './commons/transactions.js';

export const handler = httpHandler(routeByName('get-transaction'), {}, async ({ pathParameters, merchantId }) => ({
  data: await transactionService.view(merchantId, pathParameters.transactionId ?? ''),
}));
