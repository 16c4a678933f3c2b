import { createInvoiceRequestSchema } from '../shared/domain/invoicing/index.js';
import { httpHandler } from '../shared/http/handler.js';
import { idempotentByHeader } from '../shared/http/idempotency.js';
import { routeByName } from '../shared/routes.js';
import { invoiceServiceWith } from './commons/invoices.js';
import { providerRegistryOfStage, providerRequests } from './commons/providers.js';
import { customerWallets } from './commons/wallets.js';

const invoiceService = invoiceServiceWith(customerWallets, { payments: providerRequests, registry: providerRegistryOfStage });

export const handler = httpHandler(routeByName('create-invoice'), { body: createInvoiceRequestSchema, idempotency: idempotentByHeader }, async ({ body, merchantId }) => ({
  data: await invoiceService.create(merchantId, body),
}));
