import { httpHandler } from '../shared/http/handler.js';
import { routeByName } from '../shared/routes.js';
import { callbackLog } from './commons/callback-log.js';

export const handler = httpHandler(routeByName('list-invoice-callbacks'), {}, async ({ pathParameters, merchantId }) => ({
  data: await callbackLog.invoiceDeliveries(merchantId, pathParameters.invoiceId ?? ''),
}));
