/**
 * The OpenAPI 3.0 document of the merchant API, generated from the route table and the same zod
 * schemas that validate requests, so the document cannot describe an API other than the one served.
 * It carries what client generators and readers need: tags, an example of every request and
 * answer, the headers every answer carries, and the callbacks the merchant receives.
 */
import * as z from 'zod';
import { ERROR_STATUS, type ErrorCode, type ErrorItem } from './errors.js';
import { callbackDeliverySchema, FIRST_PAUSE_SECONDS, PAUSE_AFTER_TIMEOUTS, testCallbackResultSchema } from './domain/callbacks/index.js';
import { type ApiKeyScope, MAX_PREVIOUS_CALLBACK_SECRETS, merchantSettingsRequestSchema, merchantViewSchema, missingScopeMessage, rotatedSecretSchema } from './domain/merchants/index.js';
import {
  balanceEntryViewSchema,
  balancesViewSchema,
  createReportRequestSchema,
  listBalanceEntriesQuerySchema,
  REPORT_LINK_SECONDS,
  reportAcceptedSchema,
  reportViewSchema,
} from './domain/ledger/index.js';
import {
  CONFIRMATION_ACCEPTED,
  createInvoiceRequestSchema,
  depositConfirmationRequestSchema,
  invoiceEventBodySchema,
  invoiceViewSchema,
  type InvoiceWallet,
  listInvoicesQuerySchema,
  RECEIPT_MAX_SIZE_TEXT,
  simulateDepositRequestSchema,
  simulateWithdrawalRequestSchema,
} from './domain/invoicing/index.js';
import { type CryptoNetwork, pageSchema } from './domain/kernel/index.js';
import { callbackPayloadSchema, listTransactionsQuerySchema, transactionViewSchema, withdrawalRequestSchema } from './domain/transactions/index.js';
import { providerEventReceivedSchema, providerEventSchema } from './connectors/protocol/messages.js';
import * as examples from './openapi-examples.js';
import { PER_KEY_THROTTLE, THROTTLED_RETRY_AFTER_SECONDS } from './platform.js';
import { HTTP_ROUTES, maxBodyBytesOf, replaysIdempotencyKey, type HttpRoute, type HttpRouteName } from './routes.js';
import type { Stage } from './stage.js';

const errorItemSchema = z.object({
  code: z.enum(Object.keys(ERROR_STATUS) as [keyof typeof ERROR_STATUS, ...(keyof typeof ERROR_STATUS)[]]),
  message: z.string(),
  field: z.string().optional().describe('422 only: dotted path of the request field at fault'),
});

const errorEnvelopeSchema = z.strictObject({ success: z.literal(false), errors: z.array(errorItemSchema).min(1) });

const successEnvelope = (data: z.ZodType) => z.strictObject({ success: z.literal(true), data });

/** Models shared by several operations: each is one component, referred to wherever it appears. */
const MODELS: ReadonlyArray<[z.ZodType, string]> = [
  [invoiceViewSchema, 'Invoice'],
  [transactionViewSchema, 'Transaction'],
  [merchantViewSchema, 'Merchant'],
  [callbackDeliverySchema, 'CallbackDelivery'],
  [callbackPayloadSchema, 'CallbackPayload'],
  [invoiceEventBodySchema, 'InvoiceEvent'],
  [errorEnvelopeSchema, 'ErrorEnvelope'],
];

const TAGS = {
  Invoices: 'Invoices and their hosted checkout',
  Transactions: 'Money that moved: deposits and withdrawals',
  Callbacks: 'The callbacks a merchant receives: their delivery log, resending, a test',
  Merchant: "The merchant's own settings and callback secret",
  Deposits: 'Host-to-host deposit confirmation',
  Withdrawals: 'Payouts',
  Balances: "The merchant's money per currency, and the entries that moved it",
  Reports: "CSV files of the merchant's transactions or balance entries, built off the request path",
  Simulation: 'Demo only: moving money without a chain or a bank',
  Providers: 'For payment providers, not merchants: their decisions on payments and payouts (the provider protocol, docs/provider-protocol.md)',
  Reference: 'This description',
} as const;

type Tag = keyof typeof TAGS;

interface RouteDoc {
  summary: string;
  description: string;
  tag: Tag;
  /** Component name of the request and response schemas: `{schemaName}Request`, `{schemaName}Response`. */
  schemaName?: string;
  request?: z.ZodType;
  requestExample?: unknown;
  /** Query parameters: a strict object of optional parameters. */
  query?: z.ZodObject;
  /** Schema of `data` in the success envelope; absent for routes that do not answer JSON envelopes. */
  response?: z.ZodType;
  /** `data` of the success envelope, or the whole body of a route that answers no envelope. */
  responseExample: unknown;
  /** What the success answer holds. */
  success: string;
  successStatus?: 200 | 202;
  /** Content type of a non-envelope success response. */
  produces?: string;
  /** Each error status the route answers, with what it means there. */
  errors: Partial<Record<number, string>>;
  /** The record a 404 is about, for its example. */
  notFound?: 'Invoice' | 'Transaction' | 'Report';
  /** Query parameters as a client sends them, one example value each. */
  queryExample?: Record<string, string | number>;
  /** The operation leads to callbacks to the merchant's callback URL. */
  callbacks?: boolean;
  /** The operation may lead to invoice events, for a merchant that turned them on. */
  invoiceEvents?: boolean;
}

/** A route outside the merchant API (the customer-facing checkout): left out of the document. */
interface HiddenRoute {
  hidden: true;
}

const HIDDEN: HiddenRoute = { hidden: true };

const isDocumented = (doc: RouteDoc | HiddenRoute): doc is RouteDoc => !('hidden' in doc);

const AUTH_ERRORS = {
  401: 'The `x-api-key` header is missing, or names an unknown or revoked key',
  429: `More than ${PER_KEY_THROTTLE.ratePerSecond} requests per second with this key (bursts of ${PER_KEY_THROTTLE.burst}); retry after \`Retry-After\` seconds`,
  500: 'Something failed on our side; the message carries the request id to quote to support',
};
const BODY_ERRORS = {
  400: 'The body is not a JSON object (malformed, a property given twice, or nested too deeply)',
  413: "The body is over this route's limit (see the request body)",
  415: 'The `Content-Type` is not `application/json`',
  422: 'A field is missing, of the wrong type or invalid: each error item names its `field`',
};
const IDEMPOTENCY_CONFLICT = 'The `Idempotency-Key` was used with another body, or its first request is still running';
const QUERY_ERRORS = { 422: 'A filter, `limit` or `cursor` is invalid: each error item names its `field`' };
const NO_CALLBACK_URL = 'The merchant has no callback URL (set one with PATCH /api/v2/merchant)';

/** Every HTTP route documented or hidden; the type makes a route without an entry a compile error. */
const ROUTE_DOCS: Record<HttpRouteName, RouteDoc | HiddenRoute> = {
  'create-invoice': {
    summary: 'Create an invoice',
    description:
      'Creates an invoice for a crypto or local-fiat deposit at a fixed exchange rate and returns the hosted checkout link. ' +
      'The deposit family comes from paymentCurrency, else baseCurrency. An orderId is unique per merchant: the same body returns ' +
      'the existing invoice, another body is a 409. Optional Idempotency-Key header (1-255 characters): the same key and body ' +
      'within 24 h replay the first response. Where rates are live, an invoice that would convert at a price older than the ' +
      'deployment allows is a 503 `service_unavailable` naming the currency; retry shortly. The deposits that pay it are announced by callbacks.',
    tag: 'Invoices',
    schemaName: 'CreateInvoice',
    request: createInvoiceRequestSchema,
    requestExample: examples.createInvoiceExample,
    response: invoiceViewSchema,
    responseExample: examples.invoiceExample,
    success: 'The invoice: new, or the existing one of this orderId and body',
    invoiceEvents: true,
    errors: {
      ...BODY_ERRORS,
      409: `This orderId belongs to an invoice made from another body; or: ${IDEMPOTENCY_CONFLICT}`,
      503: 'Rates are live and a price the invoice converts through is older than the deployment allows (the message names the currency); retry shortly',
      ...AUTH_ERRORS,
    },
    callbacks: true,
  },
  'get-invoice': {
    summary: 'Retrieve an invoice',
    description: "Returns one of the merchant's invoices. Another merchant's invoice is a 404.",
    tag: 'Invoices',
    schemaName: 'GetInvoice',
    response: invoiceViewSchema,
    responseExample: examples.invoiceExample,
    success: 'The invoice',
    errors: { 404: 'No invoice of this merchant has this id', ...AUTH_ERRORS },
    notFound: 'Invoice',
  },
  'get-transaction': {
    summary: 'Retrieve a transaction',
    description:
      "Returns one of the merchant's transactions, with the same `hash` as its callback. Confirm every callback with this call " +
      "before acting on it. Another merchant's transaction, an unknown id or one that is not a UUID is a 404.",
    tag: 'Transactions',
    schemaName: 'GetTransaction',
    response: transactionViewSchema,
    responseExample: examples.transactionExample,
    success: 'The transaction',
    errors: { 404: 'No transaction of this merchant has this id', ...AUTH_ERRORS },
    notFound: 'Transaction',
  },
  'simulate-deposit': {
    summary: 'Simulate a deposit (demo only)',
    description:
      "Creates a deposit on the merchant's own invoice: by default the invoice's payment amount and currency with status " +
      '`confirmed`; crypto deposits get a made-up transaction hash and the first network of the invoice. The callback follows. ' +
      'A canceled fiat invoice is a 410; a completed one a 409. A crypto deposit after cancellation is credited (`paidLate`).',
    tag: 'Simulation',
    schemaName: 'SimulateDeposit',
    request: simulateDepositRequestSchema,
    requestExample: examples.simulateDepositExample,
    response: transactionViewSchema,
    responseExample: examples.transactionExample,
    success: 'The deposit transaction',
    errors: {
      ...BODY_ERRORS,
      404: 'No invoice of this merchant has this id',
      409: `The fiat invoice is already paid, or it kept changing; or: ${IDEMPOTENCY_CONFLICT}`,
      410: 'The fiat invoice is canceled and takes no payment',
      ...AUTH_ERRORS,
    },
    notFound: 'Invoice',
    callbacks: true,
  },
  'simulate-withdrawal': {
    summary: 'Simulate a withdrawal outcome (demo only)',
    description: 'Moves a processing withdrawal of the merchant to `confirmed` or `failed`; the `withdraw` callback follows.',
    tag: 'Simulation',
    schemaName: 'SimulateWithdrawal',
    request: simulateWithdrawalRequestSchema,
    requestExample: examples.simulateWithdrawalExample,
    response: transactionViewSchema,
    responseExample: { ...examples.withdrawalExample, status: 'confirmed' },
    success: 'The settled withdrawal',
    errors: {
      ...BODY_ERRORS,
      404: 'No transaction of this merchant has this id',
      409: `The withdrawal already has the other outcome; or: ${IDEMPOTENCY_CONFLICT}`,
      ...AUTH_ERRORS,
    },
    notFound: 'Transaction',
    callbacks: true,
  },
  'confirm-deposit': {
    summary: 'Confirm a deposit by UTR (host to host)',
    description:
      "Confirms a customer's INR payment with its unique transaction reference. No property beyond the schema's is accepted. " +
      'A `processing` deposit transaction exists from then on; the provider confirms it (invoice `completed`) or rejects it ' +
      '(transaction `failed`, invoice `canceled`), and the merchant gets the callback. The same invoice and UTR again is ' +
      'accepted again. A UTR already used by another invoice, of any merchant, is a 409 `db_unique_violation` (one the provider ' +
      'rejected is released for another invoice); a canceled ' +
      'invoice a 410; a completed one a 409; an invoice that is not INR a 422 on `invoiceId`. Receipts: base64, jpg, jpeg, ' +
      `png or pdf matching their content, at most ${RECEIPT_MAX_SIZE_TEXT} decoded (else 413).`,
    tag: 'Deposits',
    schemaName: 'ConfirmDeposit',
    request: depositConfirmationRequestSchema,
    requestExample: examples.confirmDepositExample,
    response: z.literal(CONFIRMATION_ACCEPTED),
    responseExample: CONFIRMATION_ACCEPTED,
    success: 'The confirmation is accepted; the decision follows by callback',
    errors: {
      ...BODY_ERRORS,
      413: `The body is over this route's limit, or the receipt is over ${RECEIPT_MAX_SIZE_TEXT} decoded`,
      422: 'A field is missing or invalid, the invoice is not INR, or the receipt does not match its extension: `field` names it',
      404: 'No invoice of this merchant has this id',
      409: `The invoice is completed, or the UTR was used by another invoice (\`db_unique_violation\`); or: ${IDEMPOTENCY_CONFLICT}`,
      410: 'The invoice is canceled',
      ...AUTH_ERRORS,
    },
    notFound: 'Invoice',
    callbacks: true,
  },
  'create-withdrawal': {
    summary: 'Initiate a fiat withdrawal (deprecated, peer to peer)',
    description:
      'Every field is a string. The variant is the one whose required field is present: `cardNumber` (12-19 digits, Luhn), ' +
      '`phoneNumber`, or `bankAccountNumber` with `bankAccountName`; none or several is a 422. `orderId` is unique per merchant ' +
      '(409 `db_unique_violation`). The amount and its fee are paid from the available balance in the currency: they are ' +
      'reserved with the withdrawal, paid out when it is confirmed and released when it fails; more than is available is a ' +
      '402 `payment_required` and nothing is written. While your books are under review (the hourly books check found them off), ' +
      "every withdrawal is a 423 `locked`, whatever the balance, and nothing is written, until the gateway's operator clears the hold. " +
      'Answers the withdraw transaction, `processing`, with the header ' +
      '`Deprecation: true`; the `withdraw` callback follows when it is settled. A card number is stored only encrypted and never returned.',
    tag: 'Withdrawals',
    schemaName: 'CreateWithdrawal',
    request: withdrawalRequestSchema,
    requestExample: examples.createWithdrawalExample,
    response: transactionViewSchema,
    responseExample: examples.withdrawalExample,
    success: 'The withdraw transaction, `processing`',
    errors: {
      ...BODY_ERRORS,
      402: 'The available balance in the currency is less than the amount and its fee (the message names what is available); nothing is written',
      409: `This orderId belongs to another withdrawal (\`db_unique_violation\`), or the balance kept changing; or: ${IDEMPOTENCY_CONFLICT}`,
      423: "Payouts are held while your books are under review: the books check found them off (the message names the check's time); nothing is written, and retrying does not help until the gateway's operator clears the hold",
      ...AUTH_ERRORS,
    },
    callbacks: true,
  },
  'get-openapi': {
    summary: 'This document',
    description: 'The OpenAPI 3.0 description of the merchant API.',
    tag: 'Reference',
    produces: 'application/json',
    responseExample: examples.openApiDocumentExample,
    success: 'The OpenAPI document',
    errors: {},
  },
  'get-docs': {
    summary: 'Readable API reference',
    description: 'A self-contained HTML rendering of this document.',
    tag: 'Reference',
    produces: 'text/html',
    responseExample: examples.docsPageExample,
    success: 'The reference page',
    errors: {},
  },
  'receive-provider-event': {
    summary: "A payment provider's decision",
    description:
      'Not for merchants: a payment provider tells the gateway that a payment or a payout is confirmed or failed. No API key: the ' +
      "request carries the Standard Webhooks headers signed with the provider's secret, checked (5 minutes' tolerance) before " +
      'anything else is read. The same `webhook-id`, or the same outcome, again is answered 200 and changes nothing. A payment ' +
      'confirmed for another amount than the invoice asked is counted as what arrived: partial, paid or overpaid.',
    tag: 'Providers',
    schemaName: 'ProviderEvent',
    request: providerEventSchema,
    requestExample: examples.providerEventExample,
    response: providerEventReceivedSchema,
    responseExample: examples.providerEventReceivedExample,
    success: 'The event is applied, or was already',
    errors: {
      401: "The `webhook-signature` is missing or does not verify with the provider's secret, or `webhook-timestamp` is more than 5 minutes away",
      404: 'No provider has this id, or the reference or provider reference is not one the gateway sent this provider',
      409: 'The event contradicts what is settled: a payment confirmed and then failed, or confirmed again for another amount',
      413: "The body is over this route's limit",
      422: 'The body is not an event of this shape: each error item names its `field`',
      429: 'Too many events from this address; retry later',
      500: 'Something failed on our side; send the event again with the same `webhook-id`',
    },
  },
  // The dashboard is pages for people (docs/merchant-guide.md#dashboard), not the merchant API.
  'open-dashboard': HIDDEN,
  'get-dashboard-page': HIDDEN,
  'submit-dashboard-form': HIDDEN,
  'get-checkout': HIDDEN,
  'get-checkout-status': HIDDEN,
  'submit-checkout-details': HIDDEN,
  'get-checkout-provider': HIDDEN,
  'submit-checkout-utr': HIDDEN,
  'list-invoices': {
    summary: 'List invoices',
    description:
      "The merchant's invoices, newest first, a page at a time: follow `nextCursor` until it is null. Filters combine; each " + 'is read from an index of its own. `orderId` names at most one invoice.',
    tag: 'Invoices',
    schemaName: 'ListInvoices',
    query: listInvoicesQuerySchema,
    queryExample: examples.listInvoicesQueryExample,
    response: pageSchema(invoiceViewSchema),
    responseExample: examples.invoicePageExample,
    success: 'A page of invoices',
    errors: { ...QUERY_ERRORS, ...AUTH_ERRORS },
  },
  'list-transactions': {
    summary: 'List transactions',
    description:
      "The merchant's deposits and withdrawals, newest first, a page at a time: follow `nextCursor` until it is null. Filters " +
      'combine; each is read from an index of its own. `orderId` gives the deposits of that order and the withdrawal of that orderId.',
    tag: 'Transactions',
    schemaName: 'ListTransactions',
    query: listTransactionsQuerySchema,
    queryExample: examples.listTransactionsQueryExample,
    response: pageSchema(transactionViewSchema),
    responseExample: examples.transactionPageExample,
    success: 'A page of transactions',
    errors: { ...QUERY_ERRORS, ...AUTH_ERRORS },
  },
  'list-balances': {
    summary: 'Balances',
    description:
      "The merchant's `available` and `reserved` money in each currency it has had money in. Confirmed deposits credit " +
      '`available` (less their fee); a withdrawal moves its amount and fee from `available` to `reserved` when it is accepted, ' +
      'and takes them out when it is confirmed, or moves them back when it fails. Read consistently: a deposit confirmed a ' +
      'moment ago is in it.',
    tag: 'Balances',
    schemaName: 'ListBalances',
    response: balancesViewSchema,
    responseExample: examples.balancesExample,
    success: 'One balance per currency, by currency code',
    errors: { ...AUTH_ERRORS },
  },
  'list-balance-entries': {
    summary: 'Balance entries',
    description:
      'The entries that moved the balances, newest first, a page at a time: follow `nextCursor` until it is null. Each is ' +
      'written in the same database transaction as the state of the transaction it accounts for, once: `deposit` and `fee` ' +
      'for a confirmed deposit; `payout_reserve` for an accepted withdrawal, then `payout` and `fee` when it is confirmed or ' +
      '`payout_release` when it fails; `adjustment` for a correction by the operator. `amount` is signed; `availableAfter` and ' +
      '`reservedAfter` are the balances right after the entry. Filters combine; each is read from an index of its own.',
    tag: 'Balances',
    schemaName: 'ListBalanceEntries',
    query: listBalanceEntriesQuerySchema,
    queryExample: examples.listBalanceEntriesQueryExample,
    response: pageSchema(balanceEntryViewSchema),
    responseExample: examples.balanceEntryPageExample,
    success: 'A page of balance entries',
    errors: { ...QUERY_ERRORS, ...AUTH_ERRORS },
  },
  'create-report': {
    summary: 'Ask for a report',
    description:
      "A CSV file of the merchant's `transactions` (deposits and withdrawals) or `balance_entries` created in the range " +
      '(both ends inclusive), in one currency when `currency` is given. It is built off the request path: the answer is the ' +
      "report's id, `pending`; read it with `GET /api/v2/reports/{reportId}` until it is `ready`. The file is RFC 4180 " +
      '(UTF-8, CRLF, a header row, one row per record, oldest first, amounts as decimal text) and has no limit on its rows. ' +
      'A range that does not run forwards, is longer than one year, or ends in the future is a 422 naming `createdTo`.',
    tag: 'Reports',
    schemaName: 'CreateReport',
    request: createReportRequestSchema,
    requestExample: examples.createReportExample,
    response: reportAcceptedSchema,
    responseExample: examples.reportAcceptedExample,
    success: 'Recorded and queued for building',
    successStatus: 202,
    errors: { ...BODY_ERRORS, 409: IDEMPOTENCY_CONFLICT, ...AUTH_ERRORS },
  },
  'get-report': {
    summary: 'Retrieve a report',
    description:
      `A report and, once it is \`ready\`, a link to its file valid ${REPORT_LINK_SECONDS / 60} minutes from this answer: ask again for ` +
      "a new one. `failed`: it could not be built; ask for it again. Reports are kept 7 days. Another merchant's report is a 404.",
    tag: 'Reports',
    schemaName: 'GetReport',
    response: reportViewSchema,
    responseExample: examples.reportExample,
    success: 'The report',
    errors: { 404: 'No report of this merchant has this id', ...AUTH_ERRORS },
    notFound: 'Report',
  },
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
    responseExample: examples.callbackLogExample,
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
    responseExample: examples.resendExample,
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
    responseExample: examples.invoiceCallbackLogExample,
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
    responseExample: examples.invoiceResendExample,
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
    responseExample: examples.testCallbackExample,
    success: 'The attempt made',
    errors: { 422: 'The `Idempotency-Key` header is not 1 to 255 characters', 409: `${NO_CALLBACK_URL}; or: ${IDEMPOTENCY_CONFLICT}`, ...AUTH_ERRORS },
    callbacks: true,
  },
  'get-merchant': {
    summary: "The merchant's settings",
    description: 'The callback URL, the return URL, who may frame the checkout, and whether on-chain deposits are credited.',
    tag: 'Merchant',
    schemaName: 'GetMerchant',
    response: merchantViewSchema,
    responseExample: examples.merchantExample,
    success: "The merchant's settings",
    errors: { ...AUTH_ERRORS },
  },
  'update-merchant': {
    summary: "Change the merchant's settings",
    description:
      'Changes the properties given, all or none: `callbackUrl` and `returnUrl` (absolute URLs, https in production, without ' +
      "control characters; null removes them; kept in the URL parser's form: host in punycode, path percent-encoded) and " +
      '`frameAncestors` (CSP frame-ancestors sources). A `callbackUrl` whose host is or resolves to a loopback, private, ' +
      'link-local or other non-public address is a 422: deployed stages call back public addresses only. Any other property is a 422.',
    tag: 'Merchant',
    schemaName: 'UpdateMerchant',
    request: merchantSettingsRequestSchema,
    requestExample: examples.merchantSettingsExample,
    response: merchantViewSchema,
    responseExample: examples.merchantExample,
    success: "The merchant's settings, changed",
    errors: {
      ...BODY_ERRORS,
      422:
        'A value is invalid (a URL that is not absolute, not https in production, or a callback URL at a non-public address; a source that is not a frame-ancestors source) ' +
        'or a property is not one of these three: each error item names its `field`, and nothing is changed',
      ...AUTH_ERRORS,
    },
  },
  'rotate-callback-secret': {
    summary: 'Rotate the callback secret',
    description:
      'Answers a new `whsec_…` secret, once: it is not shown again. For 24 hours every callback also carries a signature with ' +
      "the secret it replaced in `webhook-signature`, space-separated after the new secret's, so a receiver verifies with either " +
      "while it switches; then only the new. The transactions' `hash` takes the new secret at once. Every secret answered signs " +
      'until its own 24 hours end: rotating again within them, or several rotations at once, keeps each replaced secret signing ' +
      `beside the newest, at most ${MAX_PREVIOUS_CALLBACK_SECRETS} of them. \`Idempotency-Key\` is not honoured here: a replay would need the secret ` +
      'kept in clear.',
    tag: 'Merchant',
    schemaName: 'RotateCallbackSecret',
    response: rotatedSecretSchema,
    responseExample: examples.rotatedSecretExample,
    success: 'The new secret',
    errors: {
      409:
        `${MAX_PREVIOUS_CALLBACK_SECRETS} replaced secrets still sign within their overlap (the message says when the next rotation is possible), ` +
        'or other rotations kept being written while this one ran: this one changed nothing',
      ...AUTH_ERRORS,
    },
  },
};

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

const camelCase = (name: string): string => name.replace(/-(\w)/g, (_, c: string) => c.toUpperCase());

/** Headers of the answers, defined once. */
const HEADERS = {
  RequestId: { description: 'Identifies the request; quote it to support', schema: { type: 'string' }, example: '2f6d1c1e-93b4-4d55-9c1a-0a4b6e3f7d21' },
  Deprecation: { description: 'The endpoint is deprecated', schema: { type: 'string', enum: ['true'] }, example: 'true' },
  RetryAfter: { description: 'Seconds to wait before trying again', schema: { type: 'integer' }, example: THROTTLED_RETRY_AFTER_SECONDS },
} as const;

const headerRef = (name: keyof typeof HEADERS) => ({ $ref: `#/components/headers/${name}` });

/** The message the gateway answers each error status with, for the examples. */
const EXAMPLE_ERRORS: Partial<Record<number, ErrorItem>> = {
  400: { code: 'bad_request', message: 'Request body is not valid JSON' },
  401: { code: 'unauthorized', message: 'You do not have permission to access this resource' },
  402: { code: 'payment_required', message: 'Insufficient balance: 120.00 INR available' },
  409: { code: 'conflict', message: 'This Idempotency-Key was already used with a different request body' },
  410: { code: 'gone', message: 'Invoice is canceled (expired) and takes no payment' },
  413: { code: 'payload_too_large', message: 'Request body too large' },
  415: { code: 'unsupported_media_type', message: 'Content-Type must be application/json' },
  423: { code: 'locked', message: "Payouts are held: the books check of 2026-11-29T04:00:00Z found this merchant's books off; an operator must clear the hold" },
  429: { code: 'too_many_requests', message: 'Too many requests' },
  500: { code: 'internal_server_error', message: 'Internal server error (request id 2f6d1c1e-93b4-4d55-9c1a-0a4b6e3f7d21)' },
};

function errorExample(status: number, doc: RouteDoc): { success: false; errors: ErrorItem[] } {
  const code = (Object.entries(ERROR_STATUS).find(([, s]) => s === status)?.[0] ?? 'bad_request') as ErrorCode;
  let item = EXAMPLE_ERRORS[status] ?? { code, message: code.replace(/_/g, ' ') };
  if (status === 404) item = { code, message: `${doc.notFound ?? 'Resource'} not found` };
  if (status === 422) {
    const field = doc.query ? 'limit' : doc.request ? (Object.keys((doc.request as z.ZodObject).shape ?? {})[0] ?? 'body') : 'Idempotency-Key';
    item = { code, message: `${field} is invalid`, field };
  }
  return { success: false, errors: [item] };
}

/** A query parameter from a zod schema, as the client sends it. */
function parameterFrom(name: string, location: 'query', schema: z.ZodType, example: unknown) {
  const { description, ...json } = z.toJSONSchema(schema, { target: 'openapi-3.0', io: 'input' }) as Record<string, unknown>;
  return { name, in: location, required: !schema.safeParse(undefined).success, description, schema: json, ...(example === undefined ? {} : { example }) };
}

/**
 * Errors API Gateway answers before the function runs (a key refused, the throttle, a body over
 * the limit): they do not carry what the function adds to its answers.
 */
const GATEWAY_STATUSES = new Set([401, 413, 429]);

const PATH_PARAMETERS: Record<string, { description: string; example: string }> = {
  invoiceId: { description: 'The invoice id (a UUID)', example: examples.EXAMPLE_IDS.invoiceId },
  transactionId: { description: 'The transaction id (a UUID)', example: examples.EXAMPLE_IDS.transactionId },
  reportId: { description: 'The report id (a UUID)', example: examples.EXAMPLE_IDS.reportId },
  providerId: { description: "The provider's id in the gateway's configuration", example: 'psp-one' },
};

/** What a key beyond its reach is answered on a route needing `scope` (docs/merchant-guide.md#key-scopes). */
const keyReachError = (scope: ApiKeyScope): string => `The key lacks the scope \`${scope}\` (\`${missingScopeMessage(scope)}\`), or is not allowed from the address the request came from`;

function operation(route: HttpRoute, doc: RouteDoc, offered: readonly CryptoNetwork[]) {
  const pathParameters = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  const parameters = [
    ...pathParameters.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' }, ...PATH_PARAMETERS[name] })),
    ...Object.entries(doc.query?.shape ?? {}).map(([name, schema]) => parameterFrom(name, 'query', schema as z.ZodType, doc.queryExample?.[name])),
    ...(replaysIdempotencyKey(route)
      ? [
          {
            name: 'Idempotency-Key',
            in: 'header',
            required: false,
            description: 'The same key and body within 24 hours answer the first response again',
            schema: { type: 'string', minLength: 1, maxLength: 255 },
            example: 'order-1001-attempt',
          },
        ]
      : []),
  ];
  const requestId = { 'x-request-id': headerRef('RequestId') };
  const deprecation = route.deprecated ? { Deprecation: headerRef('Deprecation') } : {};
  const successStatus = doc.successStatus ?? 200;
  const success = {
    description: doc.success,
    headers: { ...requestId, ...deprecation },
    content: doc.response
      ? { 'application/json': { schema: ref(`${doc.schemaName}Response`), example: { success: true, data: withOfferedNetworks(doc.responseExample, offered) } } }
      : { [doc.produces ?? 'application/json']: { example: doc.responseExample } },
  };
  const errors = Object.entries({ ...(route.auth === 'apiKey' && { 403: keyReachError(route.scope) }), ...doc.errors })
    .map(([status, description]) => [Number(status), description!] as const)
    .sort(([a], [b]) => a - b)
    .map(([status, description]) => [
      status,
      {
        description,
        headers: { ...requestId, ...(GATEWAY_STATUSES.has(status) ? {} : deprecation), ...(status === 429 ? { 'Retry-After': headerRef('RetryAfter') } : {}) },
        content: {
          'application/json': {
            schema: ref('ErrorEnvelope'),
            example: status === 403 && route.auth === 'apiKey' ? { success: false, errors: [{ code: 'forbidden', message: missingScopeMessage(route.scope) }] } : errorExample(status, doc),
          },
        },
      },
    ]);
  return {
    operationId: camelCase(route.name),
    summary: doc.summary,
    description: route.auth === 'apiKey' ? `${doc.description}\n\nScope: \`${route.scope}\`.` : doc.description,
    tags: [doc.tag],
    ...(route.deprecated ? { deprecated: true } : {}),
    security: route.auth === 'apiKey' ? [{ apiKey: [] }] : [],
    // An API key scheme has no scopes in OpenAPI 3.0: the one the key needs is this extension, and the description's last line.
    ...(route.auth === 'apiKey' ? { 'x-scope': route.scope } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(doc.request
      ? {
          requestBody: {
            required: true,
            description: `At most ${maxBodyBytesOf(route)} bytes; a larger body is refused with 413 before anything runs.`,
            content: { 'application/json': { schema: ref(`${doc.schemaName}Request`), example: doc.requestExample } },
          },
        }
      : {}),
    responses: { [successStatus]: success, ...Object.fromEntries(errors) },
    ...(doc.callbacks || doc.invoiceEvents
      ? {
          callbacks: {
            ...(doc.callbacks ? { transactionCallback: { $ref: '#/components/callbacks/TransactionCallback' } } : {}),
            ...(doc.invoiceEvents ? { invoiceEvent: { $ref: '#/components/callbacks/InvoiceEvent' } } : {}),
          },
        }
      : {}),
  };
}

/**
 * The callback a merchant receives (docs/merchant-guide.md#callbacks): posted to the merchant's callback URL, which
 * is a setting (GET and PATCH /api/v2/merchant) rather than part of any request.
 */
function transactionCallback() {
  const header = (name: string, description: string, example: string) => ({ name, in: 'header', required: true, description, schema: { type: 'string' }, example });
  const transactionId = examples.EXAMPLE_IDS.transactionId;
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
          content: { 'application/json': { schema: ref('CallbackPayload'), example: examples.callbackPayloadExample } },
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
  const header = (name: string, description: string, example: string) => ({ name, in: 'header', required: true, description, schema: { type: 'string' }, example });
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
          header('webhook-id', 'Unique per event: `invoice:{invoiceId}:{event}:{n}`, n counting that event for that invoice from 1', examples.invoiceResendExample.webhookId),
          header('webhook-timestamp', 'Unix seconds at signing', '1748772252'),
          header(
            'webhook-signature',
            '`v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}`; while replaced secrets are within their overlap, one per secret signing, space-separated, the newest first',
            'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
          ),
        ],
        requestBody: { required: true, content: { 'application/json': { schema: ref('InvoiceEvent'), example: examples.invoiceEventExample } } },
        responses: {
          '2XX': { description: 'Delivered' },
          '4XX': { description: 'Not delivered: retried as transaction callbacks are' },
          '5XX': { description: 'Not delivered: retried as transaction callbacks are' },
        },
      },
    },
  };
}

/** Request schemas as clients send them (`io: 'input'`), responses as the gateway writes them. */
function componentSchemas(docs: RouteDoc[]): Record<string, unknown> {
  const registry = z.registry<{ id: string }>();
  for (const [schema, id] of MODELS) registry.add(schema, { id });
  for (const doc of docs) {
    if (doc.request) registry.add(doc.request, { id: `${doc.schemaName}Request` });
    if (doc.response) registry.add(successEnvelope(doc.response), { id: `${doc.schemaName}Response` });
  }
  const { schemas } = z.toJSONSchema(registry, { target: 'openapi-3.0', io: 'input', uri: (id) => `#/components/schemas/${id}` });
  return Object.fromEntries(Object.entries(schemas).map(([id, { $id: _id, ...schema }]) => [id, schema]));
}

/**
 * The example with its invoices' wallets narrowed to the networks the stage offers (`offeredNetworks`).
 * A wallet none of whose networks is offered is left whole: what a stage watching them answers.
 */
function withOfferedNetworks<T>(example: T, offered: readonly CryptoNetwork[]): T {
  if (Array.isArray(example)) return example.map((item) => withOfferedNetworks(item, offered)) as T;
  if (example === null || typeof example !== 'object') return example;
  const narrowed = Object.fromEntries(Object.entries(example).map(([key, value]) => [key, withOfferedNetworks(value, offered)]));
  const wallet = (example as { wallet?: InvoiceWallet | null }).wallet;
  const addresses = wallet?.addresses.filter(({ network }) => offered.includes(network)) ?? [];
  if (!wallet || addresses.length === 0) return narrowed as T;
  return { ...narrowed, wallet: { address: addresses[0]!.address, networks: addresses.map(({ network }) => network), addresses } } as T;
}

/** The document of the stage's routes, its examples offering `offered` networks. */
export function buildOpenApiDocument(serverUrl: string, stage: Stage, offered: readonly CryptoNetwork[]) {
  const routes = HTTP_ROUTES.flatMap((route) => {
    const doc = ROUTE_DOCS[route.name as HttpRouteName];
    return (route.stages as readonly Stage[]).includes(stage) && isDocumented(doc) ? [{ route, doc }] : [];
  });
  const paths: Record<string, Record<string, unknown>> = {};
  for (const { route, doc } of routes) (paths[route.path] ??= {})[route.method.toLowerCase()] = operation(route, doc, offered);
  const usedTags = new Set(routes.map(({ doc }) => doc.tag));

  return {
    openapi: '3.0.3',
    info: {
      title: 'Payment Gateway Merchant API',
      version: '2',
      description:
        'Invoices for crypto and local-fiat deposits, transactions, deposit confirmation and callbacks. Every response is an ' +
        'envelope: `{ success: true, data }` or `{ success: false, errors: [{ code, message, field? }] }`, and carries an ' +
        '`x-request-id` header. Authenticate with the `x-api-key` header.',
    },
    servers: [{ url: serverUrl, description: stage }],
    tags: (Object.entries(TAGS) as [Tag, string][]).filter(([name]) => usedTags.has(name)).map(([name, description]) => ({ name, description })),
    components: {
      securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } },
      headers: HEADERS,
      callbacks: { TransactionCallback: transactionCallback(), InvoiceEvent: invoiceEventCallback() },
      schemas: componentSchemas(routes.map(({ doc }) => doc)),
    },
    paths,
  };
}
