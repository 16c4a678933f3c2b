/** The hosted checkout's functions: the customer-facing pages of an invoice, no key (docs/merchant-guide.md#the-hosted-checkout). */
import { BOTH, type GatewayFunction } from './function-definition.js';

export const CHECKOUT_FUNCTIONS = [
  {
    // The hosted checkout: customer-facing pages, no key; the invoice id in the link is the capability.
    kind: 'http',
    name: 'get-checkout',
    method: 'GET',
    path: '/checkout/{invoiceId}',
    auth: 'none',
    stages: BOTH,
    drawsCheckoutPages: true,
    // Opening the page activates a created invoice.
    tables: { invoices: ['GetItem', 'UpdateItem'], merchants: ['GetItem'] },
  },
  {
    kind: 'http',
    name: 'get-checkout-status',
    method: 'GET',
    path: '/checkout/{invoiceId}/status',
    auth: 'none',
    stages: BOTH,
    tables: { invoices: ['GetItem'], merchants: ['GetItem'] },
  },
  {
    kind: 'http',
    name: 'submit-checkout-details',
    method: 'POST',
    path: '/checkout/{invoiceId}/details',
    auth: 'none',
    stages: BOTH,
    drawsCheckoutPages: true,
    tables: { invoices: ['GetItem', 'UpdateItem'], merchants: ['GetItem'] },
  },
  {
    kind: 'http',
    name: 'get-checkout-provider',
    method: 'GET',
    path: '/checkout/{invoiceId}/provider',
    auth: 'none',
    stages: BOTH,
    drawsCheckoutPages: true,
    // Direct-open invoices arrive here first and are activated; the invoice gets its payment at
    // the provider; the UTR claims tell a payment under review.
    tables: { invoices: ['GetItem', 'UpdateItem'], merchants: ['GetItem'], uniques: ['GetItem'] },
    usesProviders: true,
    // The payment made at the provider: PROVIDER_TIMEOUT_MS at most, and the customer is told to try again.
    timeoutSeconds: 15,
  },
  {
    // The transaction-information form of P2P payments (docs/merchant-guide.md#the-hosted-checkout): the customer's UTR, as the merchant's host-to-host call takes it.
    kind: 'http',
    name: 'submit-checkout-utr',
    method: 'POST',
    path: '/checkout/{invoiceId}/utr',
    auth: 'none',
    stages: BOTH,
    drawsCheckoutPages: true,
    tables: { invoices: ['GetItem', 'UpdateItem'], transactions: ['PutItem', 'UpdateItem'], uniques: ['GetItem', 'PutItem'], merchants: ['GetItem'] },
    usesProviders: true,
    usesVault: true,
    // As confirm-deposit: a payment made at the provider, then the UTR sent to it.
    timeoutSeconds: 25,
  },
] as const satisfies readonly GatewayFunction[];
