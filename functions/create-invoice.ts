import { createInvoiceRequestSchema } from '../shared/domain/invoices.js';
import { httpHandler } from '../shared/http/handler.js';
import { routeByName } from '../shared/routes.js';
import { invoiceService } from './commons/invoices.js';

export const handler = httpHandler(routeByName('create-invoice'), { body: createInvoiceRequestSchema }, async ({ body, merchantId }) => ({
  data: await invoiceService.create(merchantId, body),
}));
