/** The payment providers' functions: their events, and the reconciliation of what those missed. */
import { BOTH, POSTS_TO_BALANCES, COUNTS_DAY_TOTALS, type GatewayFunction } from './function-definition.js';

export const PROVIDERS_FUNCTIONS = [
  {
    // A payment provider's decisions (docs/provider-protocol.md#signatures): no key, the provider's signature instead.
    kind: 'http',
    name: 'receive-provider-event',
    method: 'POST',
    path: '/api/v2/providers/{providerId}/events',
    auth: 'none',
    calledByProviders: true,
    stages: BOTH,
    usesProviders: true,
    // A payment's deposit is recorded (with its claim) or settled, a rejected UTR's claim released;
    // a settlement that changes nothing on the invoice only checks it. Confirmed deposits and
    // settled payouts post to the merchant's balance.
    tables: {
      invoices: ['GetItem', 'UpdateItem', 'ConditionCheckItem'],
      // A refund that fails gives back what it held of its deposit (an update of the deposit's item).
      transactions: ['GetItem', 'PutItem', 'UpdateItem'],
      uniques: ['GetItem', 'PutItem', 'DeleteItem'],
      outbox: ['PutItem', 'UpdateItem'],
      merchants: ['GetItem'],
      ...POSTS_TO_BALANCES,
      ...COUNTS_DAY_TOTALS,
    },
    sendsTo: ['callbacks'],
  },
  {
    // Settles what a provider's event missed, and sends again what a provider never took (docs/provider-protocol.md#provider-to-gateway-events).
    kind: 'schedule',
    name: 'reconcile-provider-payments',
    everySeconds: 300,
    stages: BOTH,
    usesProviders: true,
    resendsProviderRequests: true,
    tables: {
      invoices: ['GetItem', 'UpdateItem', 'ConditionCheckItem'],
      transactions: ['GetItem', 'PutItem', 'UpdateItem'],
      uniques: ['GetItem', 'PutItem', 'DeleteItem'],
      outbox: ['PutItem', 'UpdateItem'],
      merchants: ['GetItem'],
      ...POSTS_TO_BALANCES,
      ...COUNTS_DAY_TOTALS,
    },
    queries: { invoices: ['awaitingProvider'], transactions: ['awaitingProvider'] },
    sendsTo: ['callbacks'],
    // Each provider call takes at most PROVIDER_TIMEOUT_MS; a run works through every waiting item.
    timeoutSeconds: 300,
  },
] as const satisfies readonly GatewayFunction[];
