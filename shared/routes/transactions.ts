/** The transactions' functions: money that moved, read and listed. */
import { BOTH, type GatewayFunction } from './function-definition.js';

export const TRANSACTIONS_FUNCTIONS = [
  {
    kind: 'http',
    name: 'get-transaction',
    method: 'GET',
    path: '/api/v2/transaction/{transactionId}',
    auth: 'apiKey',
    scope: 'read',
    stages: BOTH,
    opensCallbackSecrets: true,
    tables: { transactions: ['GetItem'], merchants: ['GetItem'] },
  },
  {
    kind: 'http',
    name: 'list-transactions',
    method: 'GET',
    path: '/api/v2/transactions',
    auth: 'apiKey',
    scope: 'read',
    stages: BOTH,
    opensCallbackSecrets: true,
    // The invoiceId filter checks the invoice is the merchant's.
    tables: { invoices: ['GetItem'], merchants: ['GetItem'] },
    queries: { transactions: ['byMerchant', 'byMerchantStatus', 'byMerchantType', 'byInvoice', 'byOrder'] },
  },
] as const satisfies readonly GatewayFunction[];
