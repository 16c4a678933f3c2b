/** The callbacks' functions: their publishing and delivery, their log, resending and a test. */
import { BOTH, IDEMPOTENCY_RECORDS, type GatewayFunction } from './function-definition.js';

export const CALLBACKS_FUNCTIONS = [
  {
    // Hands to the queue any callback whose writer died before it could.
    kind: 'schedule',
    name: 'publish-callbacks',
    everySeconds: 60,
    localEverySeconds: 2,
    stages: BOTH,
    tables: { outbox: ['UpdateItem'] },
    queries: { outbox: ['unpublished'] },
    sendsTo: ['callbacks'],
    timeoutSeconds: 60,
  },
  {
    kind: 'queue',
    name: 'send-callback',
    queue: 'callbacks',
    batchSize: 10,
    parksMessages: true,
    delaysRetries: true,
    stages: BOTH,
    opensCallbackSecrets: true,
    // Counts the timeouts of a merchant's callback URL and pauses its deliveries on the merchant's item.
    tables: { outbox: ['GetItem', 'UpdateItem'], merchants: ['GetItem', 'UpdateItem'] },
    // Deliveries run in parallel, each at most DELIVERY_TIMEOUT_MS.
    timeoutSeconds: 30,
  },
  {
    kind: 'http',
    name: 'list-transaction-callbacks',
    method: 'GET',
    path: '/api/v2/transaction/{transactionId}/callbacks',
    auth: 'apiKey',
    scope: 'read',
    stages: BOTH,
    // The merchant's item tells whether deliveries to its callback URL are paused.
    tables: { transactions: ['GetItem'], outbox: ['BatchGetItem'], merchants: ['GetItem'] },
    queries: { outbox: ['byTransaction'] },
  },
  {
    kind: 'http',
    name: 'resend-transaction-callback',
    method: 'POST',
    path: '/api/v2/transaction/{transactionId}/callbacks/resend',
    auth: 'apiKey',
    scope: 'settings',
    stages: BOTH,
    tables: { transactions: ['GetItem'], outbox: ['GetItem', 'BatchGetItem', 'UpdateItem'], merchants: ['GetItem'], idempotency: IDEMPOTENCY_RECORDS },
    queries: { outbox: ['byTransaction'] },
    sendsTo: ['callbacks'],
  },
  {
    kind: 'http',
    name: 'list-invoice-callbacks',
    method: 'GET',
    path: '/api/v2/invoices/{invoiceId}/callbacks',
    auth: 'apiKey',
    scope: 'read',
    stages: BOTH,
    // The invoice's owner first; the merchant's item tells whether deliveries to its callback URL are paused.
    tables: { invoices: ['GetItem'], outbox: ['BatchGetItem'], merchants: ['GetItem'] },
    queries: { outbox: ['byInvoice'] },
  },
  {
    kind: 'http',
    name: 'resend-invoice-callback',
    method: 'POST',
    path: '/api/v2/invoices/{invoiceId}/callbacks/resend',
    auth: 'apiKey',
    scope: 'settings',
    stages: BOTH,
    tables: { invoices: ['GetItem'], outbox: ['GetItem', 'BatchGetItem', 'UpdateItem'], merchants: ['GetItem'], idempotency: IDEMPOTENCY_RECORDS },
    queries: { outbox: ['byInvoice'] },
    sendsTo: ['callbacks'],
  },
  {
    kind: 'http',
    name: 'send-test-callback',
    method: 'POST',
    path: '/api/v2/webhooks/test',
    auth: 'apiKey',
    scope: 'settings',
    stages: BOTH,
    opensCallbackSecrets: true,
    tables: { merchants: ['GetItem'], idempotency: IDEMPOTENCY_RECORDS },
    // Waits for the merchant's answer, at most DELIVERY_TIMEOUT_MS.
    timeoutSeconds: 15,
  },
] as const satisfies readonly GatewayFunction[];
