import { httpHandler } from '../shared/http/handler.js';
import { routeByName } from '../shared/routes.js';
import { transactionReceipts } from './commons/transaction-receipts.js';

export const handler = httpHandler(routeByName('get-transaction-receipt'), {}, async ({ pathParameters, merchantId }) => ({
  data: { receipt: await transactionReceipts.receipt(merchantId, pathParameters.transactionId ?? '') },
}));
