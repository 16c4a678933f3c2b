import { httpHandler } from '../shared/http/handler.js';
import { routeByName } from '../shared/routes.js';
import { checkoutPage, checkoutService, notFoundPage, seeOther, urlOf } from './commons/checkout.js';

/** The link the merchant hands the customer: the invoice at whatever step it is. */
export const handler = httpHandler(routeByName('get-checkout'), {}, async ({ pathParameters }) => {
  const checkout = await checkoutService.open(pathParameters.invoiceId ?? '');
  if (!checkout) return notFoundPage();
  const { step } = checkout;
  switch (step.kind) {
    case 'payment':
      return seeOther(urlOf('get-checkout-provider', checkout.invoice.id));
    case 'details':
      return checkoutPage(checkout, { kind: 'details', fields: step.fields, values: {}, problems: [] });
    default:
      return checkoutPage(checkout, step);
  }
});
