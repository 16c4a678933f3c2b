import { httpHandler } from '../shared/http/handler.js';
import { routeByName } from '../shared/routes.js';
import { checkoutPage, notFoundPage } from './commons/checkout-pages.js';
import { checkoutService, languageOf, seeOther, urlOf } from './commons/checkout.js';

/** The link the merchant hands the customer: the invoice at whatever step it is. */
export const handler = httpHandler(routeByName('get-checkout'), {}, async (request) => {
  const invoiceId = request.pathParameters.invoiceId ?? '';
  const language = languageOf(request);
  const checkout = await checkoutService.open(invoiceId);
  if (!checkout) return notFoundPage(invoiceId, language);
  const { step } = checkout;
  switch (step.kind) {
    case 'payment':
      return seeOther(urlOf('get-checkout-provider', checkout.invoice.id, language));
    case 'details':
      return checkoutPage(checkout, { kind: 'details', fields: step.fields, values: {}, problems: [] }, language);
    case 'crypto':
      return checkoutPage(checkout, { kind: 'crypto', network: request.queryParameters.network }, language);
    default:
      return checkoutPage(checkout, step, language);
  }
});
