import { z } from 'zod';
import { depositConfirmationRequestSchema, isConfirmedByUtr } from '../shared/domain/deposit-confirmation.js';
import { ApiError } from '../shared/errors.js';
import { INR_CHANNELS, isInrChannel, type InrChannel } from '../shared/checkout-page.js';
import { httpHandler } from '../shared/http/handler.js';
import { routeByName } from '../shared/routes.js';
import { checkoutPage, checkoutService, notFoundPage, seeOther, urlOf } from './commons/checkout.js';
import { fiatService } from './commons/fiat.js';

const DEFAULT_CHANNEL = Object.keys(INR_CHANNELS)[0] as InrChannel;

/**
 * The demo provider's transaction-information form (merchant-api.md 10): the customer's UTR goes
 * through the same confirmation as the merchant's host-to-host call, for the invoice's merchant.
 */
export const handler = httpHandler(
  routeByName('submit-checkout-utr'),
  { body: z.record(z.string(), z.string()), bodyFormat: 'form' },
  async ({ pathParameters, body }) => {
    const checkout = await checkoutService.find(pathParameters.invoiceId ?? '');
    if (!checkout) return notFoundPage();
    const { invoice } = checkout;
    const providerUrl = urlOf('get-checkout-provider', invoice.id);
    if (checkout.step.kind !== 'payment' || !isConfirmedByUtr(invoice)) return seeOther(providerUrl);

    const utr = body.utr ?? '';
    const retry = (problem: string) =>
      checkoutPage(checkout, { kind: 'utr', channel: isInrChannel(body.channel) ? body.channel : DEFAULT_CHANNEL, value: utr, problem });
    const request = depositConfirmationRequestSchema.safeParse({ invoiceId: invoice.id, utr });
    if (!request.success) return retry(request.error.issues[0]!.message);
    try {
      await fiatService.confirmDeposit(invoice.merchantId, request.data);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      if (error.code === 'db_unique_violation') return retry(error.message);
      // Paid, canceled or another UTR under review meanwhile: the provider page shows which.
    }
    return seeOther(providerUrl);
  },
);
