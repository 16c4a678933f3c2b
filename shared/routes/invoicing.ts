/** The invoicing functions: invoices made, read and listed, and their expiry (docs/merchant-guide.md#invoices). */
import { BOTH, IDEMPOTENCY_RECORDS, LIVE_PRICES, COUNTS_DAY_TOTALS, type GatewayFunction } from './function-definition.js';

export const INVOICING_FUNCTIONS = [
  {
    kind: 'http',
    name: 'create-invoice',
    method: 'POST',
    path: '/api/v2/invoices',
    auth: 'apiKey',
    scope: 'payments',
    stages: BOTH,
    // An order's invoice, its claim and its count in the day totals are written together; a
    // repeated order reads them back.
    // Amounts in another currency than the invoice's are converted at the live prices. A
    // direct-open fiat invoice gets its payment at the provider at once, kept on the invoice.
    usesProviders: true,
    tables: {
      invoices: ['GetItem', 'PutItem', 'UpdateItem'],
      uniques: ['GetItem', 'PutItem'],
      idempotency: IDEMPOTENCY_RECORDS,
      wallets: ['GetItem', 'PutItem', 'UpdateItem'],
      rates: LIVE_PRICES,
      ...COUNTS_DAY_TOTALS,
    },
    readsWalletKeys: true,
  },
  {
    kind: 'http',
    name: 'get-invoice',
    method: 'GET',
    path: '/api/v2/invoices/{invoiceId}',
    auth: 'apiKey',
    scope: 'read',
    stages: BOTH,
    tables: { invoices: ['GetItem'] },
  },
  {
    kind: 'http',
    name: 'list-invoices',
    method: 'GET',
    path: '/api/v2/invoices',
    auth: 'apiKey',
    scope: 'read',
    stages: BOTH,
    // An orderId is looked up through its uniqueness claim.
    tables: { invoices: ['GetItem'], uniques: ['GetItem'] },
    queries: { invoices: ['byMerchant', 'byMerchantStatus', 'byCustomer'] },
  },
  {
    kind: 'schedule',
    name: 'expire-invoices',
    everySeconds: 60,
    stages: BOTH,
    // Reads each due invoice's owner, which its status index key names, then cancels it conditionally;
    // for a merchant that takes invoice events (its settings read once a sweep), reads the invoice and
    // writes its invoice.expired in the same transaction, then hands it to the queue.
    tables: { invoices: ['GetItem', 'UpdateItem'], merchants: ['GetItem'], outbox: ['PutItem', 'UpdateItem'] },
    queries: { invoices: ['openByExpiry'] },
    sendsTo: ['callbacks'],
    timeoutSeconds: 60,
  },
] as const satisfies readonly GatewayFunction[];
