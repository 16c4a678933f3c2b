import { httpHandler } from '../shared/http/handler.js';
import { routeByName } from '../shared/routes.js';
import { invoiceServiceWith } from './commons/invoices.js';

const invoiceService = invoiceServiceWith();

export const handler = httpHandler(routeByName('get-invoice'), {}, async ({ pathParameters, merchantId }) => ({
  data: await invoiceService.get(merchantId, pathParameters.invoiceId ?? ''),
}));
