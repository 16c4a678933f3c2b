import * as z from 'zod';
import { isConfirmedByUtr } from '../shared/domain/deposit-confirmation.js';
import { simulatedSenderDetails } from '../shared/domain/simulation.js';
import { ApiError } from '../shared/errors.js';
import { httpHandler } from '../shared/http/handler.js';
import { routeByName } from '../shared/routes.js';
import { checkoutService, languageOf, notFoundPage, seeOther, urlOf } from './commons/checkout.js';
import { transactionService } from './commons/transactions.js';

/**
 * The demo provider's "Simulate successful / failed payment" (merchant-api.md 10): a deposit of
 * the whole payment amount, recorded and called back as the simulation API records it.
 */
export const handler = httpHandler(
  routeByName('simulate-checkout-payment'),
  { body: z.object({ outcome: z.enum(['confirmed', 'failed']) }), bodyFormat: 'form' },
  async (request) => {
    const invoiceId = request.pathParameters.invoiceId ?? '';
    const language = languageOf(request);
    const checkout = await checkoutService.find(invoiceId);
    if (!checkout) return notFoundPage(invoiceId, language);
    const { invoice } = checkout;
    if (checkout.step.kind === 'payment' && !isConfirmedByUtr(invoice)) {
      try {
        await transactionService.recordDeposit(invoice.merchantId, invoice.id, {
          source: 'simulated',
          status: request.body.outcome,
          senderDetails: simulatedSenderDetails(invoice),
        }, invoice);
      } catch (error) {
        // Paid or canceled meanwhile (a second click, the expiry): the provider page shows which.
        if (!(error instanceof ApiError && (error.code === 'conflict' || error.code === 'gone'))) throw error;
      }
    }
    return seeOther(urlOf('get-checkout-provider', invoice.id, language));
  },
);
