/**
 * The OpenAPI 3.0 document of the merchant API, generated from the route table and the same zod
 * schemas that validate requests, so the document cannot describe an API other than the one served.
 */
import * as z from 'zod';
import { ERROR_STATUS } from './errors.js';
import { createInvoiceRequestSchema, invoiceViewSchema } from './domain/invoices.js';
import { simulateDepositRequestSchema, simulateWithdrawalRequestSchema } from './domain/simulation.js';
import { transactionViewSchema } from './domain/transactions.js';
import { CONFIRMATION_ACCEPTED, RECEIPT_MAX_SIZE_TEXT, depositConfirmationRequestSchema } from './domain/deposit-confirmation.js';
import { withdrawalRequestSchema } from './domain/withdrawals.js';
import { HTTP_ROUTES, maxBodyBytesOf, type HttpRoute, type HttpRouteName, type Stage } from './routes.js';

const errorItemSchema = z.object({
  code: z.enum(Object.keys(ERROR_STATUS) as [keyof typeof ERROR_STATUS, ...(keyof typeof ERROR_STATUS)[]]),
  message: z.string(),
  field: z.string().optional().describe('422 only: dotted path of the request field at fault'),
});

const errorEnvelopeSchema = z.strictObject({ success: z.literal(false), errors: z.array(errorItemSchema).min(1) });

const successEnvelope = (data: z.ZodType) => z.strictObject({ success: z.literal(true), data });

interface RouteDoc {
  summary: string;
  /** Component name of the request and response schemas: `{schemaName}Request`, `{schemaName}Response`. */
  schemaName?: string;
  description: string;
  request?: z.ZodType;
  /** Schema of `data` in the success envelope; absent for routes that do not answer JSON envelopes. */
  response?: z.ZodType;
  /** Content type of a non-envelope success response. */
  produces?: string;
  errors: number[];
}

/** A route outside the merchant API (the customer-facing checkout): left out of the document. */
interface HiddenRoute {
  hidden: true;
}

const HIDDEN: HiddenRoute = { hidden: true };

const isDocumented = (doc: RouteDoc | HiddenRoute): doc is RouteDoc => !('hidden' in doc);

const AUTH_ERRORS = [401, 429, 500];
const BODY_ERRORS = [400, 413, 415, 422];

/** Every HTTP route documented or hidden; the type makes a route without an entry a compile error. */
const ROUTE_DOCS: Record<HttpRouteName, RouteDoc | HiddenRoute> = {
  'create-invoice': {
    summary: 'Create an invoice',
    description:
      'Creates an invoice for a crypto or local-fiat deposit at a fixed exchange rate and returns the hosted checkout link. ' +
      'The deposit family comes from paymentCurrency, else baseCurrency. An orderId is unique per merchant: the same body returns ' +
      'the existing invoice, another body is a 409. Optional Idempotency-Key header (1-255 characters): the same key and body ' +
      'within 24 h replay the first response. Where rates are live, an invoice that would convert at a price older than the ' +
      'deployment allows is a 503 `service_unavailable` naming the currency; retry shortly.',
    schemaName: 'CreateInvoice',
    request: createInvoiceRequestSchema,
    response: invoiceViewSchema,
    errors: [...BODY_ERRORS, 409, 503, ...AUTH_ERRORS],
  },
  'get-invoice': {
    summary: 'Retrieve an invoice',
    description: "Returns one of the merchant's invoices. Another merchant's invoice is a 404.",
    schemaName: 'GetInvoice',
    response: invoiceViewSchema,
    errors: [404, ...AUTH_ERRORS],
  },
  'get-transaction': {
    summary: 'Retrieve a transaction',
    description:
      "Returns one of the merchant's transactions, with the same `hash` as its callback. Confirm every callback with this call " +
      "before acting on it. Another merchant's transaction, an unknown id or one that is not a UUID is a 404.",
    schemaName: 'GetTransaction',
    response: transactionViewSchema,
    errors: [404, ...AUTH_ERRORS],
  },
  'simulate-deposit': {
    summary: 'Simulate a deposit (demo only)',
    description:
      "Creates a deposit on the merchant's own invoice: by default the invoice's payment amount and currency with status " +
      '`confirmed`; crypto deposits get a made-up transaction hash and the first network of the invoice. The callback follows. ' +
      'A canceled fiat invoice is a 410; a completed one a 409. A crypto deposit after cancellation is credited (`paidLate`).',
    schemaName: 'SimulateDeposit',
    request: simulateDepositRequestSchema,
    response: transactionViewSchema,
    errors: [...BODY_ERRORS, 404, 409, 410, ...AUTH_ERRORS],
  },
  'simulate-withdrawal': {
    summary: 'Simulate a withdrawal outcome (demo only)',
    description: 'Moves a processing withdrawal of the merchant to `confirmed` or `failed`; the `withdraw` callback follows.',
    schemaName: 'SimulateWithdrawal',
    request: simulateWithdrawalRequestSchema,
    response: transactionViewSchema,
    errors: [...BODY_ERRORS, 404, 409, ...AUTH_ERRORS],
  },
  'confirm-deposit': {
    summary: 'Confirm a deposit by UTR (host to host)',
    description:
      "Confirms a customer's INR payment with its unique transaction reference. No property beyond the schema's is accepted. " +
      'A `processing` deposit transaction exists from then on; the provider confirms it (invoice `completed`) or rejects it ' +
      '(transaction `failed`, invoice `canceled`), and the merchant gets the callback. The same invoice and UTR again is ' +
      'accepted again. A UTR already used by another invoice, of any merchant, is a 409 `db_unique_violation`; a canceled ' +
      'invoice a 410; a completed one a 409; an invoice that is not INR a 422 on `invoiceId`. Receipts: base64, jpg, jpeg, ' +
      `png or pdf matching their content, at most ${RECEIPT_MAX_SIZE_TEXT} decoded (else 413).`,
    schemaName: 'ConfirmDeposit',
    request: depositConfirmationRequestSchema,
    response: z.literal(CONFIRMATION_ACCEPTED),
    errors: [...BODY_ERRORS, 404, 409, 410, ...AUTH_ERRORS],
  },
  'create-withdrawal': {
    summary: 'Initiate a fiat withdrawal (deprecated, peer to peer)',
    description:
      'Every field is a string. The variant is the one whose required field is present: `cardNumber` (12-19 digits, Luhn), ' +
      '`phoneNumber`, or `bankAccountNumber` with `bankAccountName`; none or several is a 422. `orderId` is unique per merchant ' +
      '(409 `db_unique_violation`). Answers the withdraw transaction, `processing`, with the header `Deprecation: true`; the ' +
      '`withdraw` callback follows when it is settled. A card number is stored only encrypted and never returned.',
    schemaName: 'CreateWithdrawal',
    request: withdrawalRequestSchema,
    response: transactionViewSchema,
    errors: [...BODY_ERRORS, 409, ...AUTH_ERRORS],
  },
  'get-openapi': {
    summary: 'This document',
    description: 'The OpenAPI 3.0 description of the merchant API.',
    produces: 'application/json',
    errors: [],
  },
  'get-docs': {
    summary: 'Readable API reference',
    description: 'A self-contained HTML rendering of this document.',
    produces: 'text/html',
    errors: [],
  },
  'get-checkout': HIDDEN,
  'get-checkout-status': HIDDEN,
  'submit-checkout-details': HIDDEN,
  'get-checkout-provider': HIDDEN,
  'submit-checkout-utr': HIDDEN,
  'simulate-checkout-payment': HIDDEN,
};

const STATUS_TEXT: Record<number, string> = Object.fromEntries(
  Object.entries(ERROR_STATUS).map(([code, status]) => [status, code.replace(/_/g, ' ')]),
);

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

function operation(route: HttpRoute, doc: RouteDoc) {
  const pathParameters = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  const parameters = [
    ...pathParameters.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
    ...(route.method === 'POST'
      ? [{ name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', minLength: 1, maxLength: 255 } }]
      : []),
  ];
  const success = doc.response
    ? { description: 'Success', content: { 'application/json': { schema: ref(`${doc.schemaName}Response`) } } }
    : { description: 'Success', content: { [doc.produces ?? 'application/json']: {} } };
  return {
    operationId: route.name.replace(/-(\w)/g, (_, c: string) => c.toUpperCase()),
    summary: doc.summary,
    description: doc.description,
    security: route.auth === 'apiKey' ? [{ apiKey: [] }] : [],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(doc.request
      ? {
          requestBody: {
            required: true,
            description: `At most ${maxBodyBytesOf(route)} bytes; a larger body is refused with 413 before anything runs.`,
            content: { 'application/json': { schema: ref(`${doc.schemaName}Request`) } },
          },
        }
      : {}),
    responses: {
      200: success,
      ...Object.fromEntries(
        [...new Set(doc.errors)]
          .sort()
          .map((status) => [status, { description: STATUS_TEXT[status] ?? 'error', content: { 'application/json': { schema: ref('ErrorEnvelope') } } }]),
      ),
    },
  };
}

/** Request schemas as clients send them (`io: 'input'`), responses as the gateway writes them. */
function componentSchemas(docs: RouteDoc[]): Record<string, unknown> {
  const registry = z.registry<{ id: string }>();
  registry.add(errorEnvelopeSchema, { id: 'ErrorEnvelope' });
  for (const doc of docs) {
    if (doc.request) registry.add(doc.request, { id: `${doc.schemaName}Request` });
    if (doc.response) registry.add(successEnvelope(doc.response), { id: `${doc.schemaName}Response` });
  }
  const { schemas } = z.toJSONSchema(registry, { target: 'openapi-3.0', io: 'input', uri: (id) => `#/components/schemas/${id}` });
  return Object.fromEntries(Object.entries(schemas).map(([id, { $id: _id, ...schema }]) => [id, schema]));
}

export function buildOpenApiDocument(serverUrl: string, stage: Stage) {
  const routes = HTTP_ROUTES.flatMap((route) => {
    const doc = ROUTE_DOCS[route.name as HttpRouteName];
    return (route.stages as readonly Stage[]).includes(stage) && isDocumented(doc) ? [{ route, doc }] : [];
  });
  const paths: Record<string, Record<string, unknown>> = {};
  for (const { route, doc } of routes) (paths[route.path] ??= {})[route.method.toLowerCase()] = operation(route, doc);

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
    components: {
      securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } },
      schemas: componentSchemas(routes.map(({ doc }) => doc)),
    },
    paths,
  };
}
