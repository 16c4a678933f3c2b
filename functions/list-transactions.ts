import { listTransactionsQuerySchema } from '../shared/domain/transactions/index.js';
import { httpHandler } from '../shared/http/handler.js';
import { parseOrThrow } from '../shared/http/validation.js';
import { routeByName } from '../shared/routes.js';
import { transactionViews } from './commons/transaction-views.js';

export const handler = httpHandler(routeByName('list-transactions'), {}, async ({ queryParameters, merchantId }) => ({
  data: await transactionViews.list(merchantId, parseOrThrow(listTransactionsQuerySchema, queryParameters)),
}));
