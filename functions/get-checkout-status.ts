import { httpHandler } from '../shared/http/handler.js';
import { routeByName } from '../shared/routes.js';
import { checkoutService } from './commons/checkout.js';

/** What the checkout page polls to follow the invoice live. */
export const handler = httpHandler(routeByName('get-checkout-status'), {}, async ({ pathParameters }) => ({
  data: await checkoutService.status(pathParameters.invoiceId ?? ''),
  headers: { 'cache-control': 'no-store' },
}));
