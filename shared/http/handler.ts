/**
 * The one middy chain every HTTP function uses, in middy's documented order: tracing, logging
 * context, request id, authentication, body parsing, validation, and the error handler last.
 */
import { randomUUID } from 'node:crypto';
import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { z } from 'zod';
import { decodeKeyReach, keyRefusal, type ApiKeyScope } from '../domain/merchants/index.js';
import { ApiError, UNAUTHORIZED_MESSAGE } from '../errors.js';
import { apiErrorOf } from './errors.js';
import { TRACE_OPTIONS, tracer } from '../observability/tracer.js';
import { DEFAULT_MAX_BODY_BYTES, replaysIdempotencyKey, type HttpRoute } from '../routes.js';
import { apiErrorResponse, internalErrorResponse, successResponse, type Headers } from './envelope.js';
import type { idempotentByHeader } from './idempotency.js';
import { logger } from '../observability/logger.js';
import { parseJsonBody } from './json-body.js';
import { parseOrThrow } from './validation.js';

export interface RouteRequest<Body> {
  body: Body;
  /** The body exactly as sent (what a signature covers); empty without one. */
  rawBody: string;
  pathParameters: Record<string, string>;
  queryParameters: Record<string, string>;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  /** The authenticated merchant; empty on routes without auth. */
  merchantId: string;
  /** The scopes of the API key the request came with; none on routes without auth. */
  scopes: readonly ApiKeyScope[];
  requestId: string;
}

export type RouteResult = { status?: number; data: unknown; headers?: Headers } | { status?: number; raw: string; contentType: string; headers?: Headers };

/** What the middlewares learn about a request, kept on the event for the handler. */
interface GatewayEvent extends APIGatewayProxyEvent {
  gateway?: { requestId?: string; merchantId?: string; scopes?: readonly ApiKeyScope[]; body?: unknown };
}

type Request = middy.Request<GatewayEvent, APIGatewayProxyResult, Error, Context>;
type Middleware = middy.MiddlewareObj<GatewayEvent, APIGatewayProxyResult, Error, Context>;

const lowerCaseKeys = (record: Record<string, string | undefined> | null): Record<string, string> =>
  Object.fromEntries(Object.entries(record ?? {}).flatMap(([k, v]) => (v === undefined ? [] : [[k.toLowerCase(), v]])));

const gatewayOf = (event: GatewayEvent) => (event.gateway ??= {});

const requestIdOf = (event: GatewayEvent): string => (gatewayOf(event).requestId ??= event.requestContext?.requestId ?? randomUUID());

const withRequestId = (request: Request, response: APIGatewayProxyResult): APIGatewayProxyResult => ({
  ...response,
  headers: { ...response.headers, 'x-request-id': requestIdOf(request.event) },
});

const requestIdMiddleware = (): Middleware => ({
  before: (request) => {
    logger.appendKeys({ requestId: requestIdOf(request.event) });
  },
  after: (request) => {
    request.response = withRequestId(request as Request, request.response!);
  },
});

/**
 * The authorizer (API Gateway's, or the local runtime's) resolved the key to a merchant, its scopes
 * and the addresses it may be used from; the route needs `scope`. A key beyond its reach is a 403
 * before anything is read or written (docs/merchant-guide.md#key-scopes).
 */
const merchantMiddleware = (scope: ApiKeyScope): Middleware => ({
  before: (request) => {
    const authorizer = request.event.requestContext?.authorizer;
    const merchantId = authorizer?.merchantId;
    if (typeof merchantId !== 'string' || merchantId === '') throw new ApiError('unauthorized', UNAUTHORIZED_MESSAGE);
    const reach = decodeKeyReach(authorizer ?? {});
    const refusal = keyRefusal(reach, scope, request.event.requestContext?.identity?.sourceIp);
    if (refusal) throw new ApiError('forbidden', refusal.message);
    Object.assign(gatewayOf(request.event), { merchantId, scopes: reach.scopes });
  },
});

export const IDEMPOTENCY_HEADER = 'idempotency-key';

/** A deprecated route says so on every answer of its function, errors included (docs/merchant-guide.md#withdrawals-deprecated). */
const deprecationMiddleware = (): Middleware => {
  const mark = (request: Request) => {
    if (request.response) request.response = { ...request.response, headers: { ...request.response.headers, deprecation: 'true' } };
  };
  return { after: mark, onError: mark };
};

/** JSON for the merchant API; form-urlencoded for the hosted checkout's HTML forms. */
export type BodyFormat = 'json' | 'form';

interface BodyParser {
  mediaType: string;
  accepts: (mediaType: string) => boolean;
  /** The body as an object of fields; throws a 400 when it is not one. */
  parse: (text: string) => Record<string, unknown>;
}

const BODY_PARSERS: Record<BodyFormat, BodyParser> = {
  json: {
    mediaType: 'application/json',
    accepts: (mediaType) => mediaType === 'application/json' || /^application\/[\w.-]+\+json$/.test(mediaType),
    parse: (text) => {
      const body = parseJsonBody(text);
      if (typeof body !== 'object' || body === null || Array.isArray(body)) {
        throw new ApiError('bad_request', 'Request body must be a JSON object');
      }
      return body as Record<string, unknown>;
    },
  },
  form: {
    mediaType: 'application/x-www-form-urlencoded',
    accepts: (mediaType) => mediaType === 'application/x-www-form-urlencoded',
    parse: (text) => Object.fromEntries(new URLSearchParams(text)),
  },
};

const rawBodyOf = (event: APIGatewayProxyEvent): Buffer => (event.body === null || event.body === undefined ? Buffer.alloc(0) : Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8'));

const bodyMiddleware = (maxBytes: number, parser: BodyParser): Middleware => ({
  before: (request) => {
    const { event } = request;
    const raw = rawBodyOf(event);
    if (raw.length > maxBytes) throw new ApiError('payload_too_large', `Request body exceeds ${maxBytes} bytes`);
    const mediaType = lowerCaseKeys(event.headers)['content-type']?.split(';')[0]?.trim().toLowerCase() ?? '';
    if (!parser.accepts(mediaType)) throw new ApiError('unsupported_media_type', `Content-Type must be ${parser.mediaType}`);
    gatewayOf(request.event).body = parser.parse(raw.toString('utf8'));
  },
});

const errorHandlerMiddleware = (): Middleware => ({
  onError: (request) => {
    const { error } = request;
    const refusal = apiErrorOf(error);
    if (refusal) {
      if (refusal.status >= 500) logger.error('Request failed', { code: refusal.code });
      request.response = withRequestId(request, apiErrorResponse(refusal));
      return;
    }
    logger.error('Unexpected failure', error instanceof Error ? error : String(error));
    request.response = withRequestId(request, internalErrorResponse(requestIdOf(request.event)));
  },
});

function toProxyResult(result: RouteResult): APIGatewayProxyResult {
  if ('raw' in result) {
    return { statusCode: result.status ?? 200, headers: { 'content-type': result.contentType, ...result.headers }, body: result.raw };
  }
  return successResponse(result.data, result.status, result.headers);
}

/**
 * Builds a route's Lambda handler: parse, call `fn` (which calls the domain), envelope. The body,
 * when the route takes one, is validated with `body` after parsing as `bodyFormat` (JSON unless
 * given).
 */
export function httpHandler<S extends z.ZodType = z.ZodUndefined>(
  route: HttpRoute,
  options: {
    body?: S;
    bodyFormat?: BodyFormat;
    /**
     * What of the body the idempotency record keeps a hash of, to tell a repeat from another
     * request: secrets (a card number) must be masked, as a hash of few candidates is reversible.
     */
    idempotencyFingerprint?: (body: unknown) => unknown;
    /**
     * The replay store, for the routes that take `Idempotency-Key`: given by the function rather
     * than imported here, so that the others' bundles go without it (and its DynamoDB client).
     */
    idempotency?: typeof idempotentByHeader;
  },
  fn: (request: RouteRequest<z.output<S>>) => Promise<RouteResult>,
) {
  const chain = middy<GatewayEvent, APIGatewayProxyResult, Error, Context>()
    .use(captureLambdaHandler(tracer, TRACE_OPTIONS))
    .use(injectLambdaContext(logger, { resetKeys: true }));
  // Before the others that answer, so its `after` and `onError` run after theirs, on the answer they made.
  if (route.deprecated) chain.use(deprecationMiddleware());
  chain.use(requestIdMiddleware());
  if (route.auth === 'apiKey') chain.use(merchantMiddleware(route.scope));
  if (options.body) chain.use(bodyMiddleware(route.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES, BODY_PARSERS[options.bodyFormat ?? 'json']));
  chain.use(errorHandlerMiddleware());

  // Replays are kept per merchant (docs/merchant-guide.md#idempotency): routes without a key have no merchant to keep them apart by.
  if (replaysIdempotencyKey(route) !== (options.idempotency !== undefined)) {
    throw new Error(`${route.name} ${replaysIdempotencyKey(route) ? 'takes Idempotency-Key: pass idempotentByHeader' : 'takes no Idempotency-Key: pass no idempotency'}`);
  }
  const idempotent = options.idempotency?.<APIGatewayProxyResult>(route.name);

  return chain.handler(async (event, context) => {
    const gateway = gatewayOf(event);
    const headers = lowerCaseKeys(event.headers);
    const run = async () =>
      toProxyResult(
        await fn({
          body: (options.body ? parseOrThrow(options.body, gateway.body) : undefined) as z.output<S>,
          rawBody: rawBodyOf(event).toString('utf8'),
          pathParameters: { ...(event.pathParameters as Record<string, string> | null) },
          queryParameters: { ...(event.queryStringParameters as Record<string, string> | null) },
          headers,
          merchantId: gateway.merchantId ?? '',
          scopes: gateway.scopes ?? [],
          requestId: requestIdOf(event),
        }),
      );
    const key = headers[IDEMPOTENCY_HEADER];
    if (key === undefined && route.requiresIdempotencyKey) {
      throw new ApiError('bad_request', `${route.method} ${route.path} needs an Idempotency-Key header, so that a retried request never does it twice`);
    }
    if (!idempotent || key === undefined) return run();
    const fingerprint = options.idempotencyFingerprint ?? ((body: unknown) => body);
    return idempotent({ merchantId: gateway.merchantId ?? '', key, body: fingerprint(gateway.body ?? null) }, context, run);
  });
}
