/** The OpenAPI description of the payment providers' route: their decisions, with their examples (shared/routes/route-doc.ts). */
import { providerEventReceivedSchema, providerEventSchema } from '../connectors/protocol/messages.js';
import { type RouteDocs, EXAMPLE_IDS } from './route-doc.js';
import type { PROVIDERS_FUNCTIONS } from './providers.js';

/** A shortened first line of each: the documents themselves are long. */
export const providerEventExample = {
  type: 'payment.confirmed',
  reference: EXAMPLE_IDS.invoiceId,
  providerReference: 'pay_8f2k',
  amount: '1500.00',
  currency: 'INR',
  utr: '412345678901',
  senderDetails: { senderIban: '', senderAccountNumber: '123456789012', senderSortCode: '' },
};

export const providerEventReceivedExample = { received: true };

export const PROVIDERS_DOCS: RouteDocs<typeof PROVIDERS_FUNCTIONS> = {
  'receive-provider-event': {
    summary: "A payment provider's decision",
    description:
      'Not for merchants: a payment provider tells the gateway that a payment or a payout is confirmed or failed. No API key: the ' +
      "request carries the Standard Webhooks headers signed with the provider's secret, checked (5 minutes' tolerance) before " +
      'anything else is read. The same `webhook-id`, or the same outcome, again is answered 200 and changes nothing. A payment ' +
      'confirmed for another amount than the invoice asked is counted as what arrived: partial, paid or overpaid.',
    tag: 'Providers',
    schemaName: 'ProviderEvent',
    request: providerEventSchema,
    requestExample: providerEventExample,
    response: providerEventReceivedSchema,
    responseExample: providerEventReceivedExample,
    success: 'The event is applied, or was already',
    errors: {
      401: "The `webhook-signature` is missing or does not verify with the provider's secret, or `webhook-timestamp` is more than 5 minutes away",
      404: 'No provider has this id, or the reference or provider reference is not one the gateway sent this provider',
      409: 'The event contradicts what is settled: a payment confirmed and then failed, or confirmed again for another amount',
      413: "The body is over this route's limit",
      422: 'The body is not an event of this shape: each error item names its `field`',
      429: 'Too many events from this address; retry later',
      500: 'Something failed on our side; send the event again with the same `webhook-id`',
    },
  },
  // The dashboard is pages for people (docs/merchant-guide.md#dashboard), not the merchant API.
};
