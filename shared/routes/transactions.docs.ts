/** The OpenAPI description of the transactions' routes, with their examples (shared/routes/route-doc.ts). */
import { pageSchema, type Page } from '../domain/kernel/index.js';
import { listTransactionsQuerySchema, transactionViewSchema, type TransactionView } from '../domain/transactions/index.js';
import { AUTH_ERRORS, QUERY_ERRORS, type RouteDocs, EXAMPLE_IDS, PAGE_QUERY_EXAMPLE } from './route-doc.js';
import type { TRANSACTIONS_FUNCTIONS } from './transactions.js';

export const transactionExample: TransactionView = {
  id: EXAMPLE_IDS.transactionId,
  invoiceId: EXAMPLE_IDS.invoiceId,
  type: 'deposit',
  status: 'confirmed',
  amount: '25.000000',
  currency: 'USDT',
  network: 'ethereum',
  transactionHash: '0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060',
  customerId: 'cust-42',
  orderId: '1001',
  applicationId: null,
  hash: 'Z/BLK8SR5JoTSb30tthnHL0zj+CN6Ze6yCGz/x2UT2cpoY/dg9pE3mB3NgtJAdzde9T4jnGDlJiLMqnriLo5Jw==',
  createdAt: '2025-06-01T10:04:12.000Z',
  updatedAt: '2025-06-01T10:04:12.000Z',
  info: {
    exchangeRate: '1',
    referenceAmount: '25.000000',
    referenceCurrency: 'USDT',
    referenceExchangeRate: '1',
    transactionAmount: '25.000000',
    transactionCurrency: 'USDT',
  },
  fees: { processing: '0.500000', technical: null },
  eur: '23.15',
  usd: '25.00',
  senderDetails: { senderIban: '', senderAccountNumber: '', senderSortCode: '' },
};

export const listTransactionsQueryExample = { type: 'deposit', status: 'confirmed', invoiceId: EXAMPLE_IDS.invoiceId, orderId: '1001', ...PAGE_QUERY_EXAMPLE };

export const transactionPageExample: Page<TransactionView> = { items: [transactionExample], nextCursor: null };

export const TRANSACTIONS_DOCS: RouteDocs<typeof TRANSACTIONS_FUNCTIONS> = {
  'get-transaction': {
    summary: 'Retrieve a transaction',
    description:
      "Returns one of the merchant's transactions, with the same `hash` as its callback. Confirm every callback with this call " +
      "before acting on it. Another merchant's transaction, an unknown id or one that is not a UUID is a 404.",
    tag: 'Transactions',
    schemaName: 'GetTransaction',
    response: transactionViewSchema,
    responseExample: transactionExample,
    success: 'The transaction',
    errors: { 404: 'No transaction of this merchant has this id', ...AUTH_ERRORS },
    notFound: 'Transaction',
  },
  'list-transactions': {
    summary: 'List transactions',
    description:
      "The merchant's deposits and withdrawals, newest first, a page at a time: follow `nextCursor` until it is null. Filters " +
      'combine; each is read from an index of its own. `orderId` gives the deposits of that order and the withdrawal of that orderId.',
    tag: 'Transactions',
    schemaName: 'ListTransactions',
    query: listTransactionsQuerySchema,
    queryExample: listTransactionsQueryExample,
    response: pageSchema(transactionViewSchema),
    responseExample: transactionPageExample,
    success: 'A page of transactions',
    errors: { ...QUERY_ERRORS, ...AUTH_ERRORS },
  },
};
