/** The payouts' functions: the fiat withdrawal, its simulated outcome on the demo stage, and the payout addresses. */
import { BOTH, DEMO_ONLY, IDEMPOTENCY_RECORDS, LIVE_PRICES, POSTS_TO_BALANCES, type GatewayFunction } from './function-definition.js';

export const PAYOUTS_FUNCTIONS = [
  {
    kind: 'http',
    name: 'create-withdrawal',
    method: 'POST',
    path: '/api/v2/withdrawal',
    auth: 'apiKey',
    scope: 'payouts',
    stages: BOTH,
    deprecated: true,
    opensCallbackSecrets: true,
    // A withdrawal is valued in USD and EUR at the current rates; it records the provider's reference of its payout.
    // Its reserve is written with it; a refused or lost write reads the orderId's claim to tell a repeat.
    tables: {
      transactions: ['PutItem', 'UpdateItem'],
      uniques: ['GetItem', 'PutItem'],
      merchants: ['GetItem'],
      idempotency: IDEMPOTENCY_RECORDS,
      rates: LIVE_PRICES,
      ...POSTS_TO_BALANCES,
    },
    usesProviders: true,
    usesVault: true,
    // The payout sent to the provider: PROVIDER_TIMEOUT_MS at most.
    timeoutSeconds: 15,
  },
  {
    kind: 'http',
    name: 'simulate-withdrawal',
    method: 'POST',
    path: '/api/v2/simulate/withdrawal',
    auth: 'apiKey',
    scope: 'payments',
    stages: DEMO_ONLY,
    opensCallbackSecrets: true,
    // The outcome pays the reserve out, or releases it; a refund's adds to its invoice's refunded
    // amount, or gives back what it held of its deposit.
    tables: {
      transactions: ['GetItem', 'PutItem', 'UpdateItem'],
      invoices: ['GetItem', 'UpdateItem'],
      outbox: ['PutItem', 'UpdateItem'],
      merchants: ['GetItem'],
      idempotency: IDEMPOTENCY_RECORDS,
      ...POSTS_TO_BALANCES,
    },
    sendsTo: ['callbacks'],
  },
  {
    kind: 'http',
    name: 'create-payout',
    method: 'POST',
    path: '/api/v2/payouts',
    auth: 'apiKey',
    scope: 'payouts',
    requiresIdempotencyKey: true,
    stages: BOTH,
    opensCallbackSecrets: true,
    // Valued at the current rates, its network fee quoted by the network's node; its reserve is
    // written with it, and a refused or lost write reads the orderId's claim to tell a repeat.
    tables: {
      transactions: ['PutItem'],
      uniques: ['GetItem', 'PutItem'],
      merchants: ['GetItem'],
      payoutAddresses: ['Query'],
      idempotency: IDEMPOTENCY_RECORDS,
      rates: LIVE_PRICES,
      ...POSTS_TO_BALANCES,
    },
    usesChainNodes: true,
    // The fee of a transfer from the treasury is estimated from its address.
    readsTreasuryKeys: true,
    sendsTo: ['payouts'],
    // The node's fee quote: an RPC call or two, each bounded by its timeout.
    timeoutSeconds: 15,
  },
  {
    // The one sender of each (treasury, network): the payouts queue's message group is the network.
    kind: 'queue',
    name: 'send-payout',
    queue: 'payouts',
    batchSize: 1,
    stages: BOTH,
    // The payout, its signed transactions, and the EVM treasury's stored nonce beside the watchers' cursors;
    // the network's other payouts in flight, whose amounts the treasury's balance does not show yet.
    tables: { transactions: ['GetItem', 'PutItem'], chain: ['GetItem', 'PutItem'] },
    queries: { transactions: ['pendingOnChain'] },
    usesChainNodes: true,
    signsPayouts: true,
    // Reading the treasury, signing with KMS, storing, broadcasting: a few calls, each bounded.
    timeoutSeconds: 60,
  },
  {
    kind: 'http',
    name: 'list-payout-addresses',
    method: 'GET',
    path: '/api/v2/payout-addresses',
    auth: 'apiKey',
    scope: 'read',
    stages: BOTH,
    // The merchant's partition, read whole and consistently. Addresses are added in the dashboard and by the operator only.
    tables: { payoutAddresses: ['Query'] },
  },
] as const satisfies readonly GatewayFunction[];
