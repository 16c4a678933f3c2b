/**
 * The OpenAPI 3.0 documents of the gateway: the merchant API's and the payment providers' (docs/provider-openapi.json), from
 * every capability's description of its routes (shared/routes/<capability>.docs.ts), gathered over the route table.
 */
import { CRYPTO_NETWORKS, type CryptoNetwork } from './domain/kernel/index.js';
import { type HttpRouteName, HTTP_ROUTES } from './routes.js';
import { CALLBACK_EVENTS, CALLBACKS_DOCS } from './routes/callbacks.docs.js';
import { CHECKOUT_FUNCTIONS } from './routes/checkout.js';
import { DASHBOARD_FUNCTIONS } from './routes/dashboard.js';
import { INVOICING_DOCS } from './routes/invoicing.docs.js';
import { LEDGER_DOCS } from './routes/ledger.docs.js';
import { MERCHANTS_DOCS } from './routes/merchants.docs.js';
import { openApiDocument } from './routes/openapi-document.js';
import { PAYMENTS_DOCS } from './routes/payments.docs.js';
import { PAYOUTS_DOCS } from './routes/payouts.docs.js';
import { REFUNDS_DOCS } from './routes/refunds.docs.js';
import { PROVIDERS_DOCS } from './routes/providers.docs.js';
import { REFERENCE_FUNCTIONS } from './routes/reference.js';
import { type HiddenRoute, hiddenRoutes, type RouteDoc } from './routes/route-doc.js';
import { TRANSACTIONS_DOCS } from './routes/transactions.docs.js';
import type { Stage } from './stage.js';

/** Every HTTP route documented or hidden; the type makes a route without an entry a compile error. */
const ROUTE_DOCS: Record<HttpRouteName, RouteDoc | HiddenRoute> = {
  ...MERCHANTS_DOCS,
  ...INVOICING_DOCS,
  ...hiddenRoutes(CHECKOUT_FUNCTIONS),
  ...TRANSACTIONS_DOCS,
  ...PAYMENTS_DOCS,
  ...PAYOUTS_DOCS,
  ...REFUNDS_DOCS,
  ...PROVIDERS_DOCS,
  ...CALLBACKS_DOCS,
  ...LEDGER_DOCS,
  ...hiddenRoutes(DASHBOARD_FUNCTIONS),
  // The document and its readable page describe the API; they are not operations of it.
  ...hiddenRoutes(REFERENCE_FUNCTIONS),
};

const DESCRIBED = { routes: HTTP_ROUTES, docs: ROUTE_DOCS, callbacks: CALLBACK_EVENTS };

/** The merchant API's document of the stage's routes, its examples offering `offered` networks. */
export function buildOpenApiDocument(serverUrl: string, stage: Stage, offered: readonly CryptoNetwork[]) {
  return openApiDocument(DESCRIBED, 'merchants', serverUrl, stage, offered);
}

/** The payment providers' document: the routes they call (docs/provider-protocol.md), on every stage alike. */
export function buildProvidersOpenApiDocument(serverUrl: string) {
  return openApiDocument(DESCRIBED, 'providers', serverUrl, 'prod', CRYPTO_NETWORKS);
}
