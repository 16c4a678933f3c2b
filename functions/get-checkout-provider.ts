import { returnUrlOf } from '../shared/domain/checkout.js';
import type { Checkout } from '../shared/domain/checkout-service.js';
import { isConfirmedByUtr } from '../shared/domain/deposit-confirmation.js';
import { config } from '../shared/config.js';
import { isInrChannel, type CheckoutPage } from '../shared/checkout-page.js';
import { httpHandler } from '../shared/http/handler.js';
import { routeByName } from '../shared/routes.js';
import { checkoutPage, checkoutService, languageOf, notFoundPage, seeOther, urlOf } from './commons/checkout.js';

/** Demo and local simulate the local payment provider; production has no provider page of its own to show. */
const simulatedProvider = config().stage === 'demo';

async function providerPage({ invoice }: Checkout, channel: string | undefined): Promise<CheckoutPage> {
  if (!simulatedProvider) return { kind: 'instructions' };
  if (!isConfirmedByUtr(invoice)) return { kind: 'simulated-provider' };
  if (await checkoutService.hasSubmittedUtr(invoice.id)) return { kind: 'waiting' };
  return isInrChannel(channel) ? { kind: 'utr', channel, value: '' } : { kind: 'inr-channels' };
}

/**
 * The local payment system a fiat customer is sent to, and where the customer comes back from it:
 * a completed payment returns to the merchant.
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
    case 'payment':
      return checkoutPage(checkout, await providerPage(checkout, request.queryParameters.channel), language);
  }
});
