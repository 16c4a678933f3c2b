/** The deposits' functions: a deposit confirmed by UTR, and a simulated one on the demo stage. */
import { BOTH, DEMO_ONLY, IDEMPOTENCY_RECORDS, LIVE_PRICES, POSTS_TO_BALANCES, COUNTS_DAY_TOTALS, type GatewayFunction } from './function-definition.js';

export const PAYMENTS_FUNCTIONS = [
  {
    kind: 'http',
    name: 'confirm-deposit',
    method: 'POST',
    path: '/api/v2/gateway9/deposit/confirm',
    auth: 'apiKey',
    scope: 'payments',
    stages: BOTH,
    // A receipt of RECEIPT_MAX_BYTES (2 MiB) is 2.67 MiB of base64; the rest is room for the other fields.
    maxBodyBytes: 2.75 * 1024 * 1024,
    // The deposit is written with its claims and the invoice's new transaction id, in one
    // transaction; the invoice gets its payment at the provider first when it has none, and the
    // deposit records when the provider took the UTR.
    tables: { invoices: ['GetItem', 'UpdateItem'], transactions: ['PutItem', 'UpdateItem'], uniques: ['GetItem', 'PutItem'], merchants: ['GetItem'], idempotency: IDEMPOTENCY_RECORDS },
    usesProviders: true,
    usesVault: true,
    // A payment made at the provider, then the UTR sent to it: PROVIDER_TIMEOUT_MS each at most.
    timeoutSeconds: 25,
  },
  {
    kind: 'http',
    name: 'simulate-deposit',
    method: 'POST',
    path: '/api/v2/simulate/deposit',
    auth: 'apiKey',
    scope: 'payments',
    stages: DEMO_ONLY,
    opensCallbackSecrets: true,
    // A deposit sent with an Idempotency-Key claims it in uniques within the same write; a retry
    // reads the claim and the transaction it names.
    // A deposit in another currency than its invoice's is valued at the current rates. A confirmed
    // one credits the merchant's balance in the same write.
    tables: {
      invoices: ['GetItem', 'UpdateItem'],
      transactions: ['GetItem', 'PutItem'],
      uniques: ['GetItem', 'PutItem'],
      outbox: ['PutItem', 'UpdateItem'],
      merchants: ['GetItem'],
      idempotency: IDEMPOTENCY_RECORDS,
      rates: LIVE_PRICES,
      ...POSTS_TO_BALANCES,
      ...COUNTS_DAY_TOTALS,
    },
    sendsTo: ['callbacks'],
  },
] as const satisfies readonly GatewayFunction[];
