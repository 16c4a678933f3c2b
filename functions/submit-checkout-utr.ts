import * as z from 'zod';
import type { UtrProblem } from '../shared/checkout-page.js';
import { depositConfirmationRequestSchema, isConfirmedByUtr } from '../shared/domain/invoicing/index.js';
import { AlreadyUsed, DomainError } from '../shared/domain/kernel/index.js';
import { httpHandler } from '../shared/http/handler.js';
import { routeByName } from '../shared/routes.js';
import { checkoutPage, notFoundPage } from './commons/checkout-pages.js';
import { checkoutService, languageOf, seeOther, urlOf } from './commons/checkout.js';
import { fiatServiceWith } from './commons/fiat.js';
import { receiptStore } from './commons/receipts.js';

const fiatService = fiatServiceWith(receiptStore);

/**
 * The transaction-information form of a P2P payment (docs/merchant-guide.md#the-hosted-checkout): the customer's UTR goes
 * through the same confirmation as the merchant's host-to-host call, for the invoice's merchant,
 * and on to the invoice's provider.
 */
export const handler = httpHandler(routeByName('submit-checkout-utr'), { body: z.record(z.string(), z.string()), bodyFormat: 'form' }, async (request) => {
  const { body } = request;
  const invoiceId = request.pathParameters.invoiceId ?? '';
  const language = languageOf(request);
  const checkout = await checkoutService.find(invoiceId);
  if (!checkout) return notFoundPage(invoiceId, language);
  const { invoice } = checkout;
  const providerUrl = urlOf('get-checkout-provider', invoice.id, language);
  const instructions = invoice.providerPayment?.instructions;
  if (checkout.step.kind !== 'payment' || !isConfirmedByUtr(invoice) || !instructions) return seeOther(providerUrl);

  const utr = body.utr ?? '';
  const retry = (problem: UtrProblem) => checkoutPage(checkout, { kind: 'instructions', instructions, value: utr, problem }, language);
  // The invoice is the checkout's own: only the UTR can fail the request's rules.
  const confirmation = depositConfirmationRequestSchema.safeParse({ invoiceId: invoice.id, utr });
  if (!confirmation.success) return retry('invalid');
  try {
    await fiatService.confirmDeposit(invoice.merchantId, confirmation.data);
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    if (error instanceof AlreadyUsed) return retry('used');
    // Paid, canceled, another UTR under review or the provider away meanwhile: the provider page shows which.
  }
  return seeOther(providerUrl);
});
