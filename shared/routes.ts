/**
 * Every function of the gateway, defined once: the HTTP routes and the functions that run on a
 * schedule or a queue. The CDK stacks and the local runtime are both built from this table. Each
 * capability declares its functions beside their OpenAPI description (shared/routes/<capability>.ts
 * and <capability>.docs.ts); this gathers them. A function's code is `functions/{name}.ts`,
 * exporting `handler`.
 */
import { CALLBACKS_FUNCTIONS } from './routes/callbacks.js';
import { CHAINS_FUNCTIONS } from './routes/chains.js';
import { CHECKOUT_FUNCTIONS } from './routes/checkout.js';
import { DASHBOARD_FUNCTIONS } from './routes/dashboard.js';
import type { GatewayFunction, HttpRoute } from './routes/function-definition.js';
import { INVOICING_FUNCTIONS } from './routes/invoicing.js';
import { LEDGER_FUNCTIONS } from './routes/ledger.js';
import { MERCHANTS_FUNCTIONS } from './routes/merchants.js';
import { PAYMENTS_FUNCTIONS } from './routes/payments.js';
import { PAYOUTS_FUNCTIONS } from './routes/payouts.js';
import { REFUNDS_FUNCTIONS } from './routes/refunds.js';
import { PROVIDERS_FUNCTIONS } from './routes/providers.js';
import { RATES_FUNCTIONS } from './routes/rates.js';
import { REFERENCE_FUNCTIONS } from './routes/reference.js';
import { TRANSACTIONS_FUNCTIONS } from './routes/transactions.js';
import type { Stage } from './stage.js';

export * from './routes/function-definition.js';

export const FUNCTIONS = [
  ...MERCHANTS_FUNCTIONS,
  ...INVOICING_FUNCTIONS,
  ...CHECKOUT_FUNCTIONS,
  ...TRANSACTIONS_FUNCTIONS,
  ...PAYMENTS_FUNCTIONS,
  ...PAYOUTS_FUNCTIONS,
  ...REFUNDS_FUNCTIONS,
  ...CHAINS_FUNCTIONS,
  ...RATES_FUNCTIONS,
  ...PROVIDERS_FUNCTIONS,
  ...CALLBACKS_FUNCTIONS,
  ...LEDGER_FUNCTIONS,
  ...DASHBOARD_FUNCTIONS,
  ...REFERENCE_FUNCTIONS,
] as const satisfies readonly GatewayFunction[];

type HttpFunction = Extract<(typeof FUNCTIONS)[number], { kind: 'http' }>;

export type HttpRouteName = HttpFunction['name'];

export const HTTP_ROUTES: readonly HttpRoute[] = FUNCTIONS.filter((f): f is HttpFunction => f.kind === 'http');

export function functionsForStage(stage: Stage): GatewayFunction[] {
  return FUNCTIONS.filter((f) => (f.stages as readonly Stage[]).includes(stage));
}

export function routeByName(name: HttpRouteName): HttpRoute {
  const route = HTTP_ROUTES.find((r) => r.name === name);
  if (!route) throw new Error(`No route named ${name}`);
  return route;
}
