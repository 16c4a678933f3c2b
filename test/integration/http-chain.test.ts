/**
 * The one middy chain every HTTP function is built with (shared/http/handler.ts), driven directly
 * with API Gateway proxy events: what reaches the route function, and the envelope of every
 * refusal and failure.
 */
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import * as z from 'zod';
import { jsonNumberAmount } from '../../shared/domain/kernel/amounts.js';
import { ApiError } from '../../shared/errors.js';
import { httpHandler, type RouteRequest, type RouteResult } from '../../shared/http/handler.js';
import { idempotentByHeader } from '../../shared/http/idempotency.js';
import { logger } from '../../shared/observability/logger.js';
import { replaysIdempotencyKey, type HttpRoute } from '../../shared/routes.js';

const MAX_BODY_BYTES = 1024;
const MERCHANT_ID = 'merchant-http-chain';

const bodySchema = z.strictObject({
  amount: jsonNumberAmount('Amount'),
  currency: z.string().regex(/^[A-Z]{3}$/),
  customer: z.strictObject({ email: z.email(), name: z.string().min(1) }).optional(),
  note: z.string().optional(),
});
type Body = z.output<typeof bodySchema>;

/** A route of its own per handler: the name is the idempotency records' key prefix. */
const testRoute = (overrides: Partial<HttpRoute> = {}): HttpRoute =>
  ({
    kind: 'http',
    name: `test-http-chain-${randomUUID()}`,
    method: 'POST',
    path: '/test/http-chain',
    auth: 'apiKey',
    scope: 'payments',
    stages: ['demo'],
    tables: {},
    maxBodyBytes: MAX_BODY_BYTES,
    ...overrides,
  }) as HttpRoute;

type RouteFn = (request: RouteRequest<Body>) => Promise<RouteResult>;

/** A handler over `fn` that records every request that reaches it. */
function chain(fn: RouteFn = async ({ body }) => ({ data: body }), route = testRoute()) {
  const calls: RouteRequest<Body>[] = [];
  const idempotency = replaysIdempotencyKey(route) ? idempotentByHeader : undefined;
  const handler = httpHandler(route, { body: bodySchema, idempotency }, async (request) => {
    calls.push(request);
    return fn(request);
  });
  const call = (event: APIGatewayProxyEvent) => handler(event, context(route)) as Promise<APIGatewayProxyResult>;
  return { call, calls };
}

function context(route: HttpRoute): Context {
  const fail = (): never => {
    throw new Error('Callback-style completion is not used');
  };
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: route.name,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${route.name}`,
    memoryLimitInMB: '512',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${route.name}`,
    logStreamName: 'test',
    getRemainingTimeInMillis: () => 10_000,
    done: fail,
    fail,
    succeed: fail,
  };
}

interface EventOptions {
  body?: string | null;
  headers?: Record<string, string>;
  isBase64Encoded?: boolean;
  /** `null` leaves the authorizer out of the request context. */
  merchantId?: string | null;
  requestId?: string;
  /** The key's scopes and allowed addresses as the authorizer passes them; every scope from anywhere unless given. */
  scopes?: string;
  allowedIps?: string;
  sourceIp?: string;
}

function proxyEvent(options: EventOptions = {}): APIGatewayProxyEvent {
  const headers = options.headers ?? { 'Content-Type': 'application/json' };
  const merchantId = options.merchantId === undefined ? MERCHANT_ID : options.merchantId;
  return {
    resource: '/test/http-chain',
    path: '/test/http-chain',
    httpMethod: 'POST',
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value]])),
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    body: options.body === undefined ? JSON.stringify({ amount: 25, currency: 'USD' }) : options.body,
    isBase64Encoded: options.isBase64Encoded ?? false,
    requestContext: {
      accountId: '000000000000',
      apiId: 'test-api',
      authorizer:
        merchantId === null ? null : { merchantId, keyId: 'key-1', principalId: merchantId, scopes: options.scopes ?? 'read payments payouts reports settings', allowedIps: options.allowedIps ?? '' },
      protocol: 'HTTP/1.1',
      httpMethod: 'POST',
      path: '/demo/test/http-chain',
      stage: 'demo',
      requestId: options.requestId ?? randomUUID(),
      requestTimeEpoch: Date.now(),
      resourceId: 'test',
      resourcePath: '/test/http-chain',
      identity: { sourceIp: options.sourceIp ?? '127.0.0.1', userAgent: 'http-chain-tests' } as APIGatewayProxyEvent['requestContext']['identity'],
    },
  };
}

const parsed = (response: APIGatewayProxyResult) => JSON.parse(response.body) as { success: boolean; data?: unknown; errors?: Array<Record<string, unknown>> };

/** The status, the single error item, and the request id header of a refusal. */
async function refusal(event: APIGatewayProxyEvent, fn?: RouteFn) {
  const { call, calls } = chain(fn);
  const response = await call(event);
  const body = parsed(response);
  expect(body.success).toBe(false);
  expect(response.headers?.['x-request-id']).toBe(event.requestContext.requestId);
  return { status: response.statusCode, errors: body.errors!, calls, response };
}

// Failures caused on purpose are logged; the log is checked, not printed.
let loggedErrors: MockInstance<typeof logger.error>;
beforeAll(() => {
  loggedErrors = vi.spyOn(logger, 'error').mockImplementation(() => undefined);
});
beforeEach(() => loggedErrors.mockClear());
afterAll(() => loggedErrors.mockRestore());

describe('the HTTP chain', () => {
  it('answers success with the data envelope, the request id header, and hands the route what it parsed', async () => {
    const { call, calls } = chain(async ({ body, merchantId }) => ({ data: { received: body, merchantId } }));
    const event = proxyEvent({
      body: JSON.stringify({ amount: 12.5, currency: 'EUR', customer: { email: 'a@example.com', name: 'A' } }),
      headers: { 'Content-Type': 'application/json', 'X-Custom': 'yes' },
    });
    const response = await call(event);
    expect(response.statusCode).toBe(200);
    expect(response.headers?.['x-request-id']).toBe(event.requestContext.requestId);
    expect(response.headers?.['content-type']).toMatch(/^application\/json/);
    expect(parsed(response)).toEqual({
      success: true,
      data: { received: { amount: '12.5', currency: 'EUR', customer: { email: 'a@example.com', name: 'A' } }, merchantId: MERCHANT_ID },
    });
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ merchantId: MERCHANT_ID, requestId: event.requestContext.requestId, headers: { 'x-custom': 'yes' } });
  });

  it('is built with the replay store exactly for the routes that take Idempotency-Key: POST with a key, unless it answers a secret', () => {
    const respond = async () => ({ data: null });
    expect(() => httpHandler(testRoute(), {}, respond)).toThrow(/takes Idempotency-Key: pass idempotentByHeader/);
    expect(() => httpHandler(testRoute({ method: 'GET' }), { idempotency: idempotentByHeader }, respond)).toThrow(/takes no Idempotency-Key/);
    expect(() => httpHandler(testRoute({ auth: 'none' }), { idempotency: idempotentByHeader }, respond)).toThrow(/takes no Idempotency-Key/);
    expect(() => httpHandler(testRoute({ answersSecret: true }), { idempotency: idempotentByHeader }, respond)).toThrow(/takes no Idempotency-Key/);
    expect(() => httpHandler(testRoute({ method: 'GET' }), {}, respond)).not.toThrow();
  });

  it('hides an unexpected exception behind a 500 that quotes only the request id', async () => {
    const requestId = randomUUID();
    const secret = 'connect ECONNREFUSED 10.0.0.7:5432 password=hunter2';
    const { status, errors, response } = await refusal(proxyEvent({ requestId }), async () => {
      throw new Error(secret);
    });
    expect(status).toBe(500);
    expect(errors).toEqual([{ code: 'internal_server_error', message: `Internal server error (request id ${requestId})` }]);
    expect(response.headers?.['x-request-id']).toBe(requestId);
    for (const fragment of ['ECONNREFUSED', '10.0.0.7', 'hunter2', 'stack', 'Error:']) expect(response.body).not.toContain(fragment);
    // The details go to the log instead.
    expect(loggedErrors).toHaveBeenCalledWith('Unexpected failure', expect.objectContaining({ message: secret }));
  });

  it('hides a thrown non-Error the same way', async () => {
    const requestId = randomUUID();
    const { status, errors, response } = await refusal(proxyEvent({ requestId }), async () => {
      throw 'raw string failure';
    });
    expect(status).toBe(500);
    expect(errors).toEqual([{ code: 'internal_server_error', message: `Internal server error (request id ${requestId})` }]);
    expect(response.body).not.toContain('raw string failure');
  });

  it('renders an ApiError with its status and items', async () => {
    const { status, errors } = await refusal(proxyEvent(), async () => {
      throw new ApiError('conflict', 'Order already exists', [
        { code: 'conflict', message: 'Order already exists' },
        { code: 'db_unique_violation', message: 'orderId is taken' },
      ]);
    });
    expect(status).toBe(409);
    expect(errors).toEqual([
      { code: 'conflict', message: 'Order already exists' },
      { code: 'db_unique_violation', message: 'orderId is taken' },
    ]);
  });

  it.each([
    ['no authorizer context', null],
    ['an authorizer context without a merchant', ''],
  ])('refuses %s with 401 before the route runs', async (_, merchantId) => {
    const { status, errors, calls } = await refusal(proxyEvent({ merchantId }));
    expect(status).toBe(401);
    expect(errors).toEqual([{ code: 'unauthorized', message: 'You do not have permission to access this resource' }]);
    expect(calls).toEqual([]);
  });

  it.each([
    ["a key without the route's scope", { scopes: 'read settings' }, 'This API key lacks the scope payments'],
    ['an authorizer context without scopes', { scopes: '' }, 'This API key lacks the scope payments'],
    ['a key from an address outside its allowed ones', { allowedIps: '10.0.0.0/8,2001:db8::/32', sourceIp: '127.0.0.1' }, 'This API key is not allowed from this address'],
    ['a key allowed from one address, called from another', { allowedIps: '203.0.113.7', sourceIp: '203.0.113.8' }, 'This API key is not allowed from this address'],
  ])('refuses %s with 403 before the body is read or the route runs', async (_, options, message) => {
    // A body that would be a 400: the key's reach is decided first, and nothing is parsed, replayed or written.
    const { status, errors, calls } = await refusal(proxyEvent({ ...options, body: 'not json', headers: { 'Content-Type': 'application/json', 'Idempotency-Key': randomUUID() } }));
    expect(status).toBe(403);
    expect(errors).toEqual([{ code: 'forbidden', message }]);
    expect(calls).toEqual([]);
  });

  it.each([
    ["the route's scope alone", { scopes: 'payments' }],
    ['an address inside an allowed range', { allowedIps: '10.0.0.0/8', sourceIp: '10.20.30.40' }],
    ['an IPv4 address seen as IPv4-mapped IPv6', { allowedIps: '203.0.113.7', sourceIp: '::ffff:203.0.113.7' }],
    ['an IPv6 address inside an allowed range', { allowedIps: '127.0.0.1,2001:db8::/32', sourceIp: '2001:db8::5' }],
  ])('lets a key with %s through', async (_, options) => {
    const { call, calls } = chain();
    const response = await call(proxyEvent(options));
    expect(response.statusCode).toBe(200);
    expect(calls).toHaveLength(1);
  });

  it('refuses a body over the route limit with 413, counting bytes', async () => {
    // 400 three-byte characters: under the limit in characters, over it in bytes.
    const body = JSON.stringify({ amount: 1, currency: 'USD', note: '€'.repeat(400) });
    expect(body.length).toBeLessThan(MAX_BODY_BYTES);
    const { status, errors, calls } = await refusal(proxyEvent({ body }));
    expect(status).toBe(413);
    expect(errors).toEqual([{ code: 'payload_too_large', message: `Request body exceeds ${MAX_BODY_BYTES} bytes` }]);
    expect(calls).toEqual([]);
  });

  it('accepts a body of exactly the limit', async () => {
    const { call, calls } = chain();
    const filler = JSON.stringify({ amount: 1, currency: 'USD', note: '' }).length;
    const body = JSON.stringify({ amount: 1, currency: 'USD', note: 'x'.repeat(MAX_BODY_BYTES - filler) });
    expect(Buffer.byteLength(body)).toBe(MAX_BODY_BYTES);
    expect((await call(proxyEvent({ body }))).statusCode).toBe(200);
    expect(calls).toHaveLength(1);
  });

  it.each([
    ['missing', {}],
    ['text/plain', { 'Content-Type': 'text/plain' }],
    ['form-encoded', { 'content-type': 'application/x-www-form-urlencoded' }],
  ])('refuses a %s content type with 415', async (_, headers) => {
    const { status, errors, calls } = await refusal(proxyEvent({ headers }));
    expect(status).toBe(415);
    expect(errors).toEqual([{ code: 'unsupported_media_type', message: 'Content-Type must be application/json' }]);
    expect(calls).toEqual([]);
  });

  it.each([['application/json; charset=utf-8'], ['Application/JSON'], ['application/vnd.api+json']])('accepts the content type %s', async (contentType) => {
    const { call } = chain();
    const response = await call(proxyEvent({ headers: { 'content-type': contentType } }));
    expect(response.statusCode).toBe(200);
    expect(parsed(response)).toEqual({ success: true, data: { amount: '25', currency: 'USD' } });
  });

  it.each([
    ['malformed JSON', '{"amount": 25,', 'Request body is not valid JSON'],
    ['an empty body', '', 'Request body is not valid JSON'],
    ['a JSON array', '[1, 2]', 'Request body must be a JSON object'],
    ['a JSON string', '"hello"', 'Request body must be a JSON object'],
    ['JSON null', 'null', 'Request body must be a JSON object'],
  ])('refuses %s with 400 bad_request naming no field', async (_, body, message) => {
    const { status, errors, calls } = await refusal(proxyEvent({ body }));
    expect(status).toBe(400);
    expect(errors).toEqual([{ code: 'bad_request', message }]);
    expect(errors[0]).not.toHaveProperty('field');
    expect(calls).toEqual([]);
  });

  it('refuses a schema failure with 422, one item per problem, each naming its dotted field', async () => {
    const body = JSON.stringify({ amount: '25', customer: { email: 'not-an-email', name: '', extra: 1 } });
    const { status, errors, calls } = await refusal(proxyEvent({ body }));
    expect(status).toBe(422);
    expect(errors.map((e) => e.field).sort()).toEqual(['amount', 'currency', 'customer.email', 'customer.extra', 'customer.name']);
    for (const error of errors) {
      expect(error).toEqual({ code: 'unprocessable_content', field: expect.any(String), message: expect.any(String) });
    }
    expect(errors.find((e) => e.field === 'currency')?.message).toBe('currency is required');
    expect(errors.find((e) => e.field === 'customer.extra')?.message).toBe('Unknown property "extra"');
    expect(calls).toEqual([]);
  });

  it('decodes a base64-encoded body', async () => {
    const { call, calls } = chain();
    const json = JSON.stringify({ amount: 7, currency: 'TRY', customer: { email: 'sule@example.com', name: 'Şule Yılmaz' } });
    const response = await call(proxyEvent({ body: Buffer.from(json, 'utf8').toString('base64'), isBase64Encoded: true }));
    expect(response.statusCode).toBe(200);
    expect(JSON.parse(JSON.stringify(calls[0]?.body))).toEqual({ amount: '7', currency: 'TRY', customer: { email: 'sule@example.com', name: 'Şule Yılmaz' } });
  });

  it('measures a base64 body by its decoded size against the limit', async () => {
    const { call } = chain();
    const fits = Buffer.from(JSON.stringify({ amount: 1, currency: 'USD', note: 'x'.repeat(900) })).toString('base64');
    expect(fits.length).toBeGreaterThan(MAX_BODY_BYTES);
    expect((await call(proxyEvent({ body: fits, isBase64Encoded: true }))).statusCode).toBe(200);

    const tooLarge = Buffer.from(JSON.stringify({ amount: 1, currency: 'USD', note: 'x'.repeat(1000) })).toString('base64');
    const { status, errors } = await refusal(proxyEvent({ body: tooLarge, isBase64Encoded: true }));
    expect(status).toBe(413);
    expect(errors).toEqual([{ code: 'payload_too_large', message: `Request body exceeds ${MAX_BODY_BYTES} bytes` }]);
  });

  describe('Idempotency-Key', () => {
    it('replays the first response for the same key and body without running the route again', async () => {
      let created = 0;
      const { call, calls } = chain(async () => ({ data: { n: ++created } }));
      const key = randomUUID();
      const headers = { 'content-type': 'application/json', 'Idempotency-Key': key };
      const first = await call(proxyEvent({ headers }));
      const second = await call(proxyEvent({ headers }));
      expect(parsed(first)).toEqual({ success: true, data: { n: 1 } });
      expect(parsed(second)).toEqual(parsed(first));
      expect(calls).toHaveLength(1);
    });

    it('answers 409 for the same key with another body', async () => {
      const { call } = chain();
      const headers = { 'content-type': 'application/json', 'Idempotency-Key': randomUUID() };
      expect((await call(proxyEvent({ headers }))).statusCode).toBe(200);
      const other = await call(proxyEvent({ headers, body: JSON.stringify({ amount: 26, currency: 'USD' }) }));
      expect(other.statusCode).toBe(409);
      expect(parsed(other).errors?.[0]).toMatchObject({ code: 'conflict' });
    });

    it('runs the route each time without the header', async () => {
      const { call, calls } = chain();
      await call(proxyEvent());
      await call(proxyEvent());
      expect(calls).toHaveLength(2);
    });
  });
});
