import { returnUrlOf } from '../shared/domain/invoicing/index.js';
import { withQuery } from '../shared/http/urls.js';
import { httpHandler } from '../shared/http/handler.js';
import { routeByName } from '../shared/routes.js';
import { checkoutPage, notFoundPage } from './commons/checkout-pages.js';
import { checkoutServiceWith, languageOf, seeOther, urlOf } from './commons/checkout.js';
import { providerRegistryOfStage, providerRequests } from './commons/providers.js';

const checkoutService = checkoutServiceWith({ routes: providerRegistryOfStage.routes, requests: providerRequests });

/**
 * The local payment system a fiat customer is sent to (docs/provider-protocol.md): the provider's own page, or
 * its instructions and the UTR form; where the customer comes back from it; and a provider that
 * does not answer, which the customer may try again.
 */
export const handler = httpHandler(routeByName('get-checkout-provider'), {}, async (request) => {
  const invoiceId = request.pathParameters.invoiceId ?? '';
  const language = languageOf(request);
  const checkout = await checkoutService.open(invoiceId);
  if (!checkout) return notFoundPage(invoiceId, language);
  const { invoice, merchant, step } = checkout;
  switch (step.kind) {
    case 'crypto':
    case 'details':
      return seeOther(urlOf('get-checkout', invoice.id, language));
    case 'completed': {
      const returnUrl = returnUrlOf(invoice, merchant);
      return returnUrl === null ? checkoutPage(checkout, step, language) : seeOther(returnUrl);
    }
    case 'closed':
      return checkoutPage(checkout, step, language);
    case 'payment': {
      const { provider, from } = request.queryParameters;
      const payment = await checkoutService.paymentStep(checkout, { chosen: provider, returned: from === 'provider' });
      switch (payment.kind) {
        case 'redirect': {
          // A language the customer chose in the URL goes along: a provider's page may speak it too.
          const url = language.explicit ? withQuery(payment.url, { lang: language.language }) : payment.url;
          // Straight there when the merchant sent the customer so (docs/merchant-guide.md#direct-open); after the
          // checkout's own form, by a page that goes on by itself (see the `handoff` page).
          return invoice.directOpen ? seeOther(url) : checkoutPage(checkout, { kind: 'handoff', url }, language);
        }
        case 'instructions':
          return checkoutPage(checkout, { kind: 'instructions', instructions: payment.instructions, value: '' }, language);
        default:
          return checkoutPage(checkout, payment, language);
      }
    }
  }
});
