/** The OpenAPI description of the transactions' routes, with their examples (shared/routes/route-doc.ts). */
import * as z from 'zod';
import { pageSchema, type Page } from '../domain/kernel/index.js';
import { jwkThumbprint, type ReceiptPayload, type ReceiptPublicKey } from '../domain/payments/index.js';
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

const receiptKeyCoordinates = { kty: 'EC', crv: 'P-256', x: 'EQ-omAh2sxT2sM0T4SXq2bFPq05aslzBC71DJrVSMcg', y: 'jpmLnXot1heBFUsNawfzR0vFBgdM5kc_kMmMH-lAIKU' } as const;

export const receiptKeyExample: ReceiptPublicKey = { ...receiptKeyCoordinates, kid: jwkThumbprint(receiptKeyCoordinates), alg: 'ES256', use: 'sig' };

const { senderDetails: _retrievalOnly, ...receiptTransaction } = transactionExample;

/** What the example receipt holds: the example transaction, credited on chain, its one balance entry and its delivered callback. */
export const receiptPayloadExample: ReceiptPayload = {
  iss: 'https://pay.example.com',
  sub: EXAMPLE_IDS.transactionId,
  iat: 1748772300,
  transaction: receiptTransaction,
  evidence: {
    source: 'chain',
    network: 'ethereum',
    transactionHash: transactionExample.transactionHash,
    blockNumber: 22611093,
    blockHash: '0x9e1b4c0f7d2a6e5b3c8d1f0a2b4c6d8e0f1a3b5c7d9e1f2a4b6c8d0e2f4a6b8c',
    logIndex: 41,
    to: '0x6f1d3c8a2b5e4f7091a2b3c4d5e6f708192a3b4c',
    contract: '0xdAC17F958D2ee523a2206206994597C13D831ec7',
    confirmations: 12,
  },
  missing: [],
  entries: [{ id: 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d', type: 'deposit', amount: '24.500000' }],
  callbacks: [{ webhookId: `${EXAMPLE_IDS.transactionId}:confirmed`, state: 'delivered', attempts: 1, lastStatusCode: 200 }],
};

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** The example's compact JWS: its header and payload as signed; its signature stands in for the 64 bytes a receipt key makes. */
export const receiptExample = {
  receipt: `${base64url({ alg: 'ES256', kid: receiptKeyExample.kid, typ: 'JWT' })}.${base64url(receiptPayloadExample)}.${'MEUCIQDx7sQ2vJ3kLr9pT4wYb6nZ1aFc8uHd0eKg5iMj2oNl'.padEnd(86, 'A')}`,
};

const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{86}$/;

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
  'get-transaction-receipt': {
    summary: "A transaction's signed receipt",
    description:
      'The transaction as `GET /api/v2/transaction/{transactionId}` shows it (less `senderDetails`), what shows its money moved ' +
      "(the transfer on chain, the provider's decision, or a simulation), its balance entries and its callbacks, signed by the " +
      "stage's receipt key: a compact JWS (ES256) that anyone can check against `GET /.well-known/jwks.json`, and, for a transfer " +
      "on chain, against the chain itself (docs/merchant-guide.md#receipts). Another merchant's transaction, an unknown id or one " +
      'that is not a UUID is a 404.',
    tag: 'Transactions',
    schemaName: 'GetTransactionReceipt',
    response: z.object({ receipt: z.string().regex(COMPACT_JWS).describe('The compact JWS: header `{"alg":"ES256","kid":…,"typ":"JWT"}`, the receipt as its payload') }),
    responseExample: receiptExample,
    success: 'The receipt',
    errors: { 404: 'No transaction of this merchant has this id', ...AUTH_ERRORS },
    notFound: 'Transaction',
  },
  'get-jwks': {
    summary: 'The receipt keys',
    description:
      "The public keys of the stage's receipt key (RFC 7517), each named by its RFC 7638 thumbprint, the receipts' `kid`: the " +
      'current key and every key rotated out, kept so that older receipts still verify. No key needed; cache it a few minutes.',
    tag: 'Transactions',
    produces: 'application/jwk-set+json',
    responseExample: { keys: [receiptKeyExample] },
    success: 'The key set',
    errors: {},
  },
};
