import { httpHandler } from '../shared/http/handler.js';
import { idempotentByHeader } from '../shared/http/idempotency.js';
import { routeByName } from '../shared/routes.js';
import { callbackLog } from './commons/callback-log.js';

// 202: the event is queued; its delivery shows in the invoice's callback log.
export const handler = httpHandler(routeByName('resend-invoice-callback'), { idempotency: idempotentByHeader }, async ({ pathParameters, merchantId }) => ({
  status: 202,
  data: await callbackLog.resendInvoiceEvent(merchantId, pathParameters.invoiceId ?? ''),
}));
