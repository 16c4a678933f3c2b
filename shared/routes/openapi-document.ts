/**
 * The OpenAPI 3.0 document built from the route table and each route's description
 * (shared/routes/<capability>.docs.ts), whose schemas are the zod schemas that validate requests,
 * so the document cannot describe an API other than the one served. It carries what client
 * generators and readers need: tags, an example of every request and answer, the headers every
 * answer carries, and the callbacks the merchant receives.
 */
import * as z from 'zod';
import { callbackDeliverySchema } from '../domain/callbacks/index.js';
import { invoiceEventBodySchema, type InvoiceWallet, invoiceViewSchema } from '../domain/invoicing/index.js';
import type { CryptoNetwork } from '../domain/kernel/index.js';
import { type ApiKeyScope, merchantViewSchema, missingScopeMessage } from '../domain/merchants/index.js';
import { callbackPayloadSchema, transactionViewSchema } from '../domain/transactions/index.js';
import { ERROR_STATUS, type ErrorCode, type ErrorItem } from '../errors.js';
import { THROTTLED_RETRY_AFTER_SECONDS } from '../platform.js';
import type { Stage } from '../stage.js';
import { type HttpRoute, maxBodyBytesOf, replaysIdempotencyKey } from './function-definition.js';
import { EXAMPLE_IDS, type HiddenRoute, isDocumented, type RouteDoc, schemaRef, TAGS, type Tag } from './route-doc.js';

const errorItemSchema = z.object({
  code: z.enum(Object.keys(ERROR_STATUS) as [keyof typeof ERROR_STATUS, ...(keyof typeof ERROR_STATUS)[]]),
  message: z.string(),
  field: z.string().optional().describe('422 only: dotted path of the request field at fault'),
});

const errorEnvelopeSchema = z.strictObject({ success: z.literal(false), errors: z.array(errorItemSchema).min(1) });

const successEnvelope = (data: z.ZodType) => z.strictObject({ success: z.literal(true), data });

/** Models shared by several operations of each document: each is one component, referred to wherever it appears. */
const MODELS: Record<Audience, ReadonlyArray<[z.ZodType, string]>> = {
  merchants: [
    [invoiceViewSchema, 'Invoice'],
    [transactionViewSchema, 'Transaction'],
    [merchantViewSchema, 'Merchant'],
    [callbackDeliverySchema, 'CallbackDelivery'],
    [callbackPayloadSchema, 'CallbackPayload'],
    [invoiceEventBodySchema, 'InvoiceEvent'],
    [errorEnvelopeSchema, 'ErrorEnvelope'],
  ],
  providers: [[errorEnvelopeSchema, 'ErrorEnvelope']],
};

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
  invoiceId: { description: 'The invoice id (a UUID)', example: EXAMPLE_IDS.invoiceId },
  transactionId: { description: 'The transaction id (a UUID)', example: EXAMPLE_IDS.transactionId },
  reportId: { description: 'The report id (a UUID)', example: EXAMPLE_IDS.reportId },
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
      ? { 'application/json': { schema: schemaRef(`${doc.schemaName}Response`), example: { success: true, data: withOfferedNetworks(doc.responseExample, offered) } } }
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
            schema: schemaRef('ErrorEnvelope'),
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
            content: { 'application/json': { schema: schemaRef(`${doc.schemaName}Request`), example: doc.requestExample } },
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

/** Request schemas as clients send them (`io: 'input'`), responses as the gateway writes them. */
function componentSchemas(docs: RouteDoc[], models: ReadonlyArray<[z.ZodType, string]>): Record<string, unknown> {
  const registry = z.registry<{ id: string }>();
  for (const [schema, id] of models) registry.add(schema, { id });
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

/**
 * Whom a document is for: a merchant's developer, or a payment provider's (docs/provider-protocol.md). Each has a document of
 * its own, so that a tool walking the merchant's document never meets a route that is not the merchant's.
 */
type Audience = 'merchants' | 'providers';

const audienceOf = (route: HttpRoute): Audience => (route.calledByProviders ? 'providers' : 'merchants');

const INFO: Record<Audience, { title: string; description: string }> = {
  merchants: {
    title: 'Payment Gateway Merchant API',
    description:
      'Invoices for crypto and local-fiat deposits, transactions, deposit confirmation and callbacks. Every response is an ' +
      'envelope: `{ success: true, data }` or `{ success: false, errors: [{ code, message, field? }] }`, and carries an ' +
      '`x-request-id` header. Authenticate with the `x-api-key` header; each operation names the scope its key needs.',
  },
  providers: {
    title: 'Payment Gateway Provider Events',
    description:
      "What a payment provider sends the gateway: its decisions on the payments, payouts and refunds the gateway asked of it, signed with the provider's " +
      'secret in the Standard Webhooks headers (docs/provider-protocol.md). Not for merchants: their API is the merchant document, `/api/v2/openapi.json`.',
  },
};

/** The document for `audience` of the stage's routes, each described by `docs`, its examples offering `offered` networks. */
export function openApiDocument(
  described: { routes: readonly HttpRoute[]; docs: Readonly<Record<string, RouteDoc | HiddenRoute>>; callbacks: Record<string, unknown> },
  audience: Audience,
  serverUrl: string,
  stage: Stage,
  offered: readonly CryptoNetwork[],
) {
  const routes = described.routes.flatMap((route) => {
    const doc = described.docs[route.name];
    if (!doc) throw new Error(`The route ${route.name} has no description`);
    return (route.stages as readonly Stage[]).includes(stage) && audienceOf(route) === audience && isDocumented(doc) ? [{ route, doc }] : [];
  });
  const paths: Record<string, Record<string, unknown>> = {};
  for (const { route, doc } of routes) (paths[route.path] ??= {})[route.method.toLowerCase()] = operation(route, doc, offered);
  const usedTags = new Set(routes.map(({ doc }) => doc.tag));

  return {
    openapi: '3.0.3',
    info: { title: INFO[audience].title, version: '2', description: INFO[audience].description },
    servers: [{ url: serverUrl, description: audience === 'merchants' ? stage : 'The gateway, as the notifyUrl of its requests names it' }],
    tags: (Object.entries(TAGS) as [Tag, string][]).filter(([name]) => usedTags.has(name)).map(([name, description]) => ({ name, description })),
    components: {
      // A provider signs its events instead of sending a key, and receives no callbacks.
      securitySchemes: audience === 'merchants' ? { apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } } : {},
      headers: HEADERS,
      callbacks: audience === 'merchants' ? described.callbacks : {},
      schemas: componentSchemas(
        routes.map(({ doc }) => doc),
        MODELS[audience],
      ),
    },
    paths,
  };
}
