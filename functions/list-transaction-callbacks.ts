import { httpHandler } from '../shared/http/handler.js';
import { routeByName } from '../shared/routes.js';
import { callbackLog } from './commons/callback-log.js';

export const handler = httpHandler(routeByName('list-transaction-callbacks'), {}, async ({ pathParameters, merchantId }) => ({
  data: await callbackLog.deliveries(merchantId, pathParameters.transactionId ?? ''),
}));
