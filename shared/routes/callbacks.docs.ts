/** The OpenAPI description of the callbacks' routes: their delivery log, resending and a test, with their examples (shared/routes/route-doc.ts). */
import * as z from 'zod';
import { callbackDeliverySchema, FIRST_PAUSE_SECONDS, PAUSE_AFTER_TIMEOUTS, testCallbackResultSchema, type CallbackDelivery } from '../domain/callbacks/index.js';
import { AUTH_ERRORS, IDEMPOTENCY_CONFLICT, NO_CALLBACK_URL, type RouteDocs, EXAMPLE_IDS, schemaRef } from './route-doc.js';
import type { CALLBACKS_FUNCTIONS } from './callbacks.js';
import { transactionExample } from './transactions.docs.js';
import { invoiceExample } from './invoicing.docs.js';
import type { CallbackPayload } from '../domain/transactions/index.js';
import type { InvoiceEventBody } from '../domain/invoicing/index.js';
import type { TestCallbackResult } from '../domain/payments/index.js';

const { createdAt: _created, updatedAt: _updated, senderDetails: _sender, ...callbackFields } = transactionExample;

export const callbackPayloadExample: CallbackPayload = { ...callbackFields, callbackType: 'transaction' };

export const callbackLogExample: CallbackDelivery[] = [
  {
    webhookId: `${EXAMPLE_IDS.transactionId}:confirmed`,
    state: 'delivered',
    attempts: [
      { at: '2025-06-01T10:04:12.300Z', status: 503, latencyMs: 412, error: null },
      { at: '2025-06-01T10:05:12.900Z', status: 200, latencyMs: 187, error: null },
    ],
    pausedUntil: null,
  },
];

export const resendExample = { webhookId: `${EXAMPLE_IDS.transactionId}:confirmed` };

export const invoiceCallbackLogExample: CallbackDelivery[] = [
  { webhookId: `invoice:${EXAMPLE_IDS.invoiceId}:invoice.paid:1`, state: 'delivered', attempts: [{ at: '2025-06-01T10:04:12.500Z', status: 200, latencyMs: 164, error: null }], pausedUntil: null },
];

export const invoiceResendExample = { webhookId: `invoice:${EXAMPLE_IDS.invoiceId}:invoice.paid:1` };

export const invoiceEventExample: InvoiceEventBody = {
  callbackType: 'invoice',
  event: 'invoice.paid',
  invoice: {
    ...invoiceExample,
    status: 'completed',
    paidAmount: invoiceExample.paymentAmount,
    paymentStatus: 'paid',
    transactionIds: [EXAMPLE_IDS.transactionId],
    completedAt: '2025-06-01T10:04:12.000Z',
  },
};

export const testCallbackExample: TestCallbackResult = {
  webhookId: '00000000-0000-4000-8000-000000000000:test:0d9e8f7a-6b5c-4d3e-8f2a-1b0c9d8e7f6a',
  at: '2025-06-01T11:00:00.000Z',
  status: 200,
  latencyMs: 143,
  error: null,
};

export const CALLBACKS_DOCS: RouteDocs<typeof CALLBACKS_FUNCTIONS> = {
  'list-transaction-callbacks': {
    summary: "A transaction's callbacks and their delivery",
    description:
      'Each callback of the transaction (one per final state it reached, oldest first) with every delivery attempt: time, the ' +
      "receiver's HTTP status, latency and error. `pending`: being delivered or retried; `delivered`: a 2xx came back; " +
      '`parked`: no further attempt comes on its own (72 hours of retries ran out, or there was no callback URL). When the ' +
      `callback URL keeps timing out (${PAUSE_AFTER_TIMEOUTS} attempts in a row), deliveries to it pause, for ${FIRST_PAUSE_SECONDS / 60} minutes ` +
      'at first and twice as long each time it still times out: a pending callback then shows `pausedUntil`, before which it ' +
      'is neither attempted nor counted as failed.',
    tag: 'Callbacks',
    schemaName: 'ListTransactionCallbacks',
    response: z.array(callbackDeliverySchema),
    responseExample: callbackLogExample,
    success: "The transaction's callbacks, oldest first; empty while it is processing",
    errors: { 404: 'No transaction of this merchant has this id', ...AUTH_ERRORS },
    notFound: 'Transaction',
  },
  'resend-transaction-callback': {
    summary: "Resend a transaction's latest callback",
    description:
      'Queues the latest callback of the transaction again, with a fresh 72-hour retry window: a delivered or parked callback ' +
      'is delivered again (no operator needed); one still being retried keeps its next scheduled attempt and gets the fresh ' +
      'window. The callback keeps its `webhook-id`, so a receiver that already handled it can tell.',
    tag: 'Callbacks',
    schemaName: 'ResendTransactionCallback',
    response: z.object({ webhookId: z.string().describe('The `webhook-id` of the callback queued') }),
    responseExample: resendExample,
    success: 'Queued: its attempts show in the delivery log',
    successStatus: 202,
    errors: {
      422: 'The `Idempotency-Key` header is not 1 to 255 characters',
      404: 'No transaction of this merchant has this id',
      409: `The transaction is processing, so it has no callback yet; or ${NO_CALLBACK_URL}; or: ${IDEMPOTENCY_CONFLICT}`,
      ...AUTH_ERRORS,
    },
    notFound: 'Transaction',
    callbacks: true,
  },
  'list-invoice-callbacks': {
    summary: "An invoice's events and their delivery",
    description:
      'Each invoice event the invoice announced (`invoice.partially_paid`, `invoice.paid`, `invoice.expired`, `invoice.canceled`, ' +
      '`invoice.paid_late`, oldest first; sent only while `invoiceCallbacks` is on) with every delivery attempt, as the delivery log ' +
      "of a transaction's callbacks shows them.",
    tag: 'Callbacks',
    schemaName: 'ListInvoiceCallbacks',
    response: z.array(callbackDeliverySchema),
    responseExample: invoiceCallbackLogExample,
    success: "The invoice's events, oldest first; empty when it announced none",
    errors: { 404: 'No invoice of this merchant has this id', ...AUTH_ERRORS },
    notFound: 'Invoice',
  },
  'resend-invoice-callback': {
    summary: "Resend an invoice's latest event",
    description: "Queues the invoice's latest event again with a fresh 72-hour retry window, as a transaction's latest callback is resent. " + 'The event keeps its `webhook-id`.',
    tag: 'Callbacks',
    schemaName: 'ResendInvoiceCallback',
    response: z.object({ webhookId: z.string().describe('The `webhook-id` of the event queued') }),
    responseExample: invoiceResendExample,
    success: 'Queued: its attempts show in the delivery log',
    successStatus: 202,
    errors: {
      422: 'The `Idempotency-Key` header is not 1 to 255 characters',
      404: 'No invoice of this merchant has this id',
      409: `The invoice announced no event; or ${NO_CALLBACK_URL}; or: ${IDEMPOTENCY_CONFLICT}`,
      ...AUTH_ERRORS,
    },
    notFound: 'Invoice',
    invoiceEvents: true,
  },
  'send-test-callback': {
    summary: 'Send a test callback',
    description:
      'Posts a signed sample callback (`callbackType: "test"`, transaction id `00000000-0000-4000-8000-000000000000`) to the ' +
      "merchant's callback URL now, once, as every callback is sent (in production only to https URLs of public addresses), " +
      "and answers with the attempt: the receiver's status, the latency and the error. A failed attempt is still a 200: " +
      'it reports what the receiver did.',
    tag: 'Callbacks',
    schemaName: 'SendTestCallback',
    response: testCallbackResultSchema,
    responseExample: testCallbackExample,
    success: 'The attempt made',
    errors: { 422: 'The `Idempotency-Key` header is not 1 to 255 characters', 409: `${NO_CALLBACK_URL}; or: ${IDEMPOTENCY_CONFLICT}`, ...AUTH_ERRORS },
    callbacks: true,
  },
};

const header = (name: string, description: string, example: string) => ({ name, in: 'header', required: true, description, schema: { type: 'string' }, example });

/**
 * The callback a merchant receives (docs/merchant-guide.md#callbacks): posted to the merchant's callback URL, which
 * is a setting (GET and PATCH /api/v2/merchant) rather than part of any request.
 */
function transactionCallback() {
  const transactionId = EXAMPLE_IDS.transactionId;
  return {
    'https://merchant.example/callbacks': {
      summary: "The merchant's callback URL",
      description: 'Callbacks go to the `callbackUrl` of the merchant (GET /api/v2/merchant; set it with PATCH /api/v2/merchant).',
      post: {
        operationId: 'transactionCallback',
        summary: 'A transaction reached a final state',
        description:
          'Sent when a deposit or withdrawal becomes `confirmed` or `failed` (and on request: resend, test). Verify ' +
          '`webhook-signature` with any Standard Webhooks library and the `whsec_…` secret, then confirm with ' +
          'GET /api/v2/transaction/{id} before acting. Delivery is at least once: drop repeats by `webhook-id`. Any 2xx within ' +
          '10 s is a delivery; otherwise it is retried after 1 min, 5 min, 15 min, 1 h, then every 3 h for 72 h. Redirects are ' +
          'not followed.',
        tags: ['Callbacks'],
        // Not a key: the receiver checks the signature headers below.
        security: [],
        parameters: [
          header('webhook-id', 'Unique per transaction state: `{transactionId}:{status}`', `${transactionId}:confirmed`),
          header('webhook-timestamp', 'Unix seconds at signing', '1748772252'),
          header(
            'webhook-signature',
            '`v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}`; while replaced secrets are within their overlap, one per secret signing, space-separated, the newest first',
            'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
          ),
        ],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: schemaRef('CallbackPayload'), example: callbackPayloadExample } },
        },
        responses: {
          '2XX': { description: 'Delivered' },
          '4XX': { description: 'Not delivered: retried on the schedule above' },
          '5XX': { description: 'Not delivered: retried on the schedule above' },
        },
      },
    },
  };
}

/** The invoice event a merchant with `invoiceCallbacks` on receives (docs/merchant-guide.md#invoice-events). */
function invoiceEventCallback() {
  return {
    'https://merchant.example/callbacks': {
      summary: "The merchant's callback URL",
      description: 'Invoice events go to the same `callbackUrl` as transaction callbacks, once `invoiceCallbacks` is on (PATCH /api/v2/merchant).',
      post: {
        operationId: 'invoiceEvent',
        summary: 'An invoice changed',
        description:
          '`invoice.partially_paid` (a confirmed deposit left it short), `invoice.paid` (completed: paid or overpaid), ' +
          '`invoice.expired`, `invoice.canceled` (its provider rejected the payment) or `invoice.paid_late` (completed after it ' +
          'was canceled), with the invoice as GET /api/v2/invoices/{id} shows it after the change. Signed, delivered at least ' +
          'once and retried exactly as transaction callbacks; drop repeats by `webhook-id`. No `hash`: verify the signature.',
        tags: ['Callbacks'],
        security: [],
        parameters: [
          header('webhook-id', 'Unique per event: `invoice:{invoiceId}:{event}:{n}`, n counting that event for that invoice from 1', invoiceResendExample.webhookId),
          header('webhook-timestamp', 'Unix seconds at signing', '1748772252'),
          header(
            'webhook-signature',
            '`v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}`; while replaced secrets are within their overlap, one per secret signing, space-separated, the newest first',
            'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
          ),
        ],
        requestBody: { required: true, content: { 'application/json': { schema: schemaRef('InvoiceEvent'), example: invoiceEventExample } } },
        responses: {
          '2XX': { description: 'Delivered' },
          '4XX': { description: 'Not delivered: retried as transaction callbacks are' },
          '5XX': { description: 'Not delivered: retried as transaction callbacks are' },
        },
      },
    },
  };
}

/** The callbacks a merchant receives, as components of the document that operations refer to. */
export const CALLBACK_EVENTS = { TransactionCallback: transactionCallback(), InvoiceEvent: invoiceEventCallback() };
