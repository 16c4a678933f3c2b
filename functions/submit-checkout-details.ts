import * as z from 'zod';
import { parseCustomerDetails } from '../shared/domain/invoicing/index.js';
import { httpHandler } from '../shared/http/handler.js';
import { routeByName } from '../shared/routes.js';
import { checkoutPage, notFoundPage } from './commons/checkout-pages.js';
import { checkoutService, languageOf, seeOther, urlOf } from './commons/checkout.js';

/** The customer details a fiat method still needs, checked by the invoice creation rules. */
export const handler = httpHandler(routeByName('submit-checkout-details'), { body: z.record(z.string(), z.string()), bodyFormat: 'form' }, async (request) => {
  const invoiceId = request.pathParameters.invoiceId ?? '';
  const language = languageOf(request);
  const checkout = await checkoutService.find(invoiceId);
  if (!checkout) return notFoundPage(invoiceId, language);
  const { invoice, step } = checkout;
  // Sent twice, or the invoice moved on: the page shows where it is now.
  if (step.kind !== 'details') return seeOther(urlOf('get-checkout', invoice.id, language));
  const form = parseCustomerDetails(step.fields, request.body);
  if ('problems' in form) {
    return checkoutPage(checkout, { kind: 'details', fields: step.fields, values: request.body, problems: form.problems }, language);
  }
  await checkoutService.saveCustomerDetails(checkout, form.details);
  return seeOther(urlOf('get-checkout-provider', invoice.id, language));
});
