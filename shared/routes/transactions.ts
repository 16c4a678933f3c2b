/** The transactions' functions: money that moved, read, listed, and its signed receipts with the keys that check them. */
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
  {
    kind: 'http',
    name: 'get-transaction-receipt',
    method: 'GET',
    path: '/api/v2/transaction/{transactionId}/receipt',
    auth: 'apiKey',
    scope: 'read',
    stages: BOTH,
    // The receipt holds the transaction's view (its hash), its balance entries and its callbacks.
    opensCallbackSecrets: true,
    signsReceipts: true,
    tables: { transactions: ['GetItem'], merchants: ['GetItem'], outbox: ['BatchGetItem'] },
    queries: { outbox: ['byTransaction'], balanceEntries: ['byTransaction'] },
  },
  {
    kind: 'http',
    name: 'get-jwks',
    method: 'GET',
    path: '/.well-known/jwks.json',
    auth: 'none',
    stages: BOTH,
    listsReceiptKeys: true,
    tables: {},
  },
] as const satisfies readonly GatewayFunction[];
