import { listInvoicesQuerySchema } from '../shared/domain/invoicing/index.js';
import { httpHandler } from '../shared/http/handler.js';
import { parseOrThrow } from '../shared/http/validation.js';
import { routeByName } from '../shared/routes.js';
import { invoiceServiceWith } from './commons/invoices.js';

const invoiceService = invoiceServiceWith();

export const handler = httpHandler(routeByName('list-invoices'), {}, async ({ queryParameters, merchantId }) => ({
  data: await invoiceService.list(merchantId, parseOrThrow(listInvoicesQuerySchema, queryParameters)),
}));
