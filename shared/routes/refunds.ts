/** The refunds' function: part or all of a confirmed deposit given back to the customer. */
import { BOTH, IDEMPOTENCY_RECORDS, LIVE_PRICES, POSTS_TO_BALANCES, type GatewayFunction } from './function-definition.js';

export const REFUNDS_FUNCTIONS = [
  {
    kind: 'http',
    name: 'create-refund',
    method: 'POST',
    path: '/api/v2/refunds',
    auth: 'apiKey',
    scope: 'payouts',
    requiresIdempotencyKey: true,
    stages: BOTH,
    opensCallbackSecrets: true,
    // The refund, its reserve and what it holds of its deposit (an update of the deposit's item)
    // in one write; a crypto refund's network fee is quoted by the network's node at the live rate.
    tables: {
      transactions: ['GetItem', 'PutItem', 'UpdateItem'],
      // A fiat deposit's invoice names the provider payment it was; a refund its provider will not make fails at once, without a callback.
      invoices: ['GetItem'],
      merchants: ['GetItem'],
      idempotency: IDEMPOTENCY_RECORDS,
      rates: LIVE_PRICES,
      ...POSTS_TO_BALANCES,
    },
    usesChainNodes: true,
    // The fee of a transfer from the treasury is estimated from its address.
    readsTreasuryKeys: true,
    sendsTo: ['payouts'],
    // A fiat refund is asked of the provider that took the deposit's payment.
    usesProviders: true,
    // The node's fee quote, or the provider's answer: PROVIDER_TIMEOUT_MS at most.
    timeoutSeconds: 15,
  },
] as const satisfies readonly GatewayFunction[];
