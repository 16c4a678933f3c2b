import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { request as httpRequest, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayServer, RECEIVE_TIMEOUT_MS, type ApiGatewayOptions } from '../../infra/local/api-gateway.js';
import { parseLocalSettings } from '../../infra/local/environment.js';
import { AUTHORIZER_CACHE_SECONDS, LAMBDA_SYNC_PAYLOAD_BYTES, MAX_PAYLOAD_BYTES, eventBytesBound } from '../../shared/platform.js';
import { lambdaContext, type Invoke } from '../../infra/local/functions.js';
import { TokenBucketThrottle } from '../../infra/local/throttle.js';
import { UNAUTHORIZED_MESSAGE } from '../../shared/errors.js';
import { HTTP_ROUTES, maxBodyBytesOf, routeByName, type GatewayFunction, type HttpRoute } from '../../shared/routes.js';
import { createTestGateway, invoke, loadFunction, request } from '../support/invoke.js';
import { silentLog } from '../support/logs.js';
import { seedMerchant, testMerchantStore, type SeededMerchant } from '../support/merchants.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

interface Call {
  fn: GatewayFunction;
  event: unknown;
  context: Context;
}

/** The real authorizer in front of a route handler the test supplies; `options` set the authorizer cache's clock and time to live. */
function stubbedGateway(
  route: (event: APIGatewayProxyEvent, context: Context) => Promise<unknown>,
  throttle?: TokenBucketThrottle,
  options: Pick<ApiGatewayOptions, 'now' | 'authorizerCacheSeconds'> = {},
) {
  const calls: Call[] = [];
  const invoke: Invoke = async (fn, event) => {
    const context = lambdaContext(fn);
    calls.push({ fn, event, context });
    if (fn.kind === 'authorizer') return (await loadFunction(fn.name))!(event as never, context);
    return route(event as APIGatewayProxyEvent, context);
  };
  return { gateway: createTestGateway({ invoke, throttle, log: silentLog, ...options }), calls };
}

const ok = async () => ({ statusCode: 200, body: JSON.stringify({ success: true, data: 'ok' }) });

let merchant: SeededMerchant;

beforeAll(async () => {
  merchant = await seedMerchant();
});

describe('routing', () => {
  it('answers an unknown path with the not_found envelope and a request id', async () => {
    const response = await request('GET', '/api/v2/nothing-here');
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ success: false, errors: [{ code: 'not_found', message: 'Route not found' }] });
    expect(response.headers['x-request-id']).toMatch(UUID);
  });

  it('answers a known path with another method with method_not_allowed, naming the allowed ones', async () => {
    const response = await request('DELETE', '/api/v2/invoices');
    expect(response.status).toBe(405);
    expect(response.body).toEqual({ success: false, errors: [{ code: 'method_not_allowed', message: 'Method not allowed' }] });
    expect(response.headers.allow).toBe('POST, GET');
    expect(response.headers['x-request-id']).toMatch(UUID);
  });

  it('serves routes without auth without asking for a key', async () => {
    const { gateway, calls } = stubbedGateway(ok);
    const response = await request('GET', '/api/v2/openapi.json', { gateway });
    expect(response.status).toBe(200);
    expect(calls.map((c) => c.fn.name)).toEqual(['get-openapi']);
  });

  it("chooses the more specific path, as API Gateway does, whatever the route table's order: a literal segment before a parameter, a parameter before a greedy one", async () => {
    const { gateway, calls } = stubbedGateway(ok);
    expect(HTTP_ROUTES.findIndex((r) => r.name === 'get-dashboard-page')).toBeLessThan(HTTP_ROUTES.findIndex((r) => r.name === 'get-dashboard-receipt'));
    for (const path of ['/dashboard/receipts/abc', '/dashboard/transactions/abc', '/dashboard/receipts/abc/more']) {
      expect((await request('GET', path, { gateway })).status).toBe(200);
    }
    expect(calls.map((c) => [c.fn.name, (c.event as APIGatewayProxyEvent).pathParameters])).toEqual([
      ['get-dashboard-receipt', { transactionId: 'abc' }],
      ['get-dashboard-page', { page: 'transactions/abc' }],
      ['get-dashboard-page', { page: 'receipts/abc/more' }],
    ]);
  });
});

describe('authentication', () => {
  const unauthorized = { success: false, errors: [{ code: 'unauthorized', message: UNAUTHORIZED_MESSAGE }] };
  const invoicePath = () => `/api/v2/invoices/${randomUUID()}`;

  it('refuses a request without x-api-key without calling the authorizer', async () => {
    const { gateway, calls } = stubbedGateway(ok);
    const response = await request('GET', invoicePath(), { gateway });
    expect(response.status).toBe(401);
    expect(response.body).toEqual(unauthorized);
    expect(response.headers['x-request-id']).toMatch(UUID);
    expect(calls).toEqual([]);
  });

  it.each([
    ['malformed', 'not-a-key'],
    ['unknown', 'gw_demo_0123456789abcdefghijABCDEFGHIJ01'],
  ])('refuses a %s key', async (_, apiKey) => {
    const { gateway, calls } = stubbedGateway(ok);
    const response = await request('GET', invoicePath(), { gateway, apiKey });
    expect(response.status).toBe(401);
    expect(response.body).toEqual(unauthorized);
    expect(calls.map((c) => c.fn.kind)).toEqual(['authorizer']);
  });

  it('refuses a revoked key', async () => {
    const revoked = await seedMerchant();
    await testMerchantStore().revokeKey(revoked.merchant.id, revoked.key.keyId, new Date());
    const response = await request('GET', invoicePath(), { apiKey: revoked.apiKey });
    expect(response.status).toBe(401);
    expect(response.body).toEqual(unauthorized);
  });

  it('refuses when the authorizer denies, and fails when the authorizer breaks', async () => {
    const deny: Invoke = async () => ({
      principalId: 'someone',
      usageIdentifierKey: 'digest',
      policyDocument: { Version: '2012-10-17', Statement: [{ Action: 'execute-api:Invoke', Effect: 'Deny', Resource: '*' }] },
    });
    const denied = await request('GET', invoicePath(), { apiKey: merchant.apiKey, gateway: createTestGateway({ invoke: deny }) });
    expect(denied.status).toBe(401);
    expect(denied.body).toEqual(unauthorized);

    const broken: Invoke = async () => {
      throw new Error('connection refused');
    };
    const failed = await request('GET', invoicePath(), { apiKey: merchant.apiKey, gateway: createTestGateway({ invoke: broken, log: silentLog }) });
    const requestId = failed.headers['x-request-id'];
    expect(failed.status).toBe(500);
    expect(failed.body).toEqual({
      success: false,
      errors: [{ code: 'internal_server_error', message: `Internal server error (request id ${requestId})` }],
    });
  });
});

describe("the authorizer's decisions, reused as API Gateway's cache reuses them", () => {
  const invoicePath = () => `/api/v2/invoices/${randomUUID()}`;
  const authorizerCalls = (calls: Call[]) => calls.filter((call) => call.fn.kind === 'authorizer').length;

  it(`serve a key's requests for ${AUTHORIZER_CACHE_SECONDS} s: a key revoked meanwhile gets through until then, is refused after, and its refusal is reused in turn`, async () => {
    let nowMs = 0;
    const { gateway, calls } = stubbedGateway(ok, undefined, { now: () => nowMs });
    const revoked = await seedMerchant();
    const send = () => request('GET', invoicePath(), { gateway, apiKey: revoked.apiKey });
    expect((await send()).status).toBe(200);
    expect((await send()).status).toBe(200);
    expect(authorizerCalls(calls)).toBe(1);

    await testMerchantStore().revokeKey(revoked.merchant.id, revoked.key.keyId, new Date());
    nowMs = AUTHORIZER_CACHE_SECONDS * 1000 - 1;
    expect((await send()).status).toBe(200);
    expect(authorizerCalls(calls)).toBe(1);
    nowMs += 1;
    expect((await send()).status).toBe(401);
    expect((await send()).status).toBe(401);
    expect(authorizerCalls(calls)).toBe(2);
    // Another key is a decision of its own.
    expect((await request('GET', invoicePath(), { gateway, apiKey: merchant.apiKey })).status).toBe(200);
    expect(authorizerCalls(calls)).toBe(3);
  });

  it('are not taken from a failure: the request after an authorizer that broke asks it again', async () => {
    let broken = true;
    const calls: string[] = [];
    const flaky: Invoke = async (fn, event) => {
      calls.push(fn.kind);
      if (fn.kind === 'authorizer' && broken) throw new Error('connection refused');
      return fn.kind === 'authorizer' ? (await loadFunction(fn.name))!(event as never, lambdaContext(fn)) : ok();
    };
    const gateway = createTestGateway({ invoke: flaky, log: silentLog });
    expect((await request('GET', invoicePath(), { gateway, apiKey: merchant.apiKey })).status).toBe(500);
    broken = false;
    expect((await request('GET', invoicePath(), { gateway, apiKey: merchant.apiKey })).status).toBe(200);
    expect(calls).toEqual(['authorizer', 'authorizer', 'http']);
  });

  it("are kept as long as the stack's authorizer cache keeps them (30 s) by the runtime, unless GATEWAY_AUTHORIZER_CACHE_S says otherwise", () => {
    expect(AUTHORIZER_CACHE_SECONDS).toBe(30);
    expect(parseLocalSettings({}).authorizerCacheSeconds).toBe(AUTHORIZER_CACHE_SECONDS);
    expect(parseLocalSettings({ GATEWAY_AUTHORIZER_CACHE_S: '0' }).authorizerCacheSeconds).toBe(0);
    expect(() => parseLocalSettings({ GATEWAY_AUTHORIZER_CACHE_S: '-1' })).toThrow(/GATEWAY_AUTHORIZER_CACHE_S/);
  });

  it('are not reused with a cache of 0 s (GATEWAY_AUTHORIZER_CACHE_S=0)', async () => {
    const { gateway, calls } = stubbedGateway(ok, undefined, { authorizerCacheSeconds: 0 });
    for (let i = 0; i < 3; i++) expect((await request('GET', invoicePath(), { gateway, apiKey: merchant.apiKey })).status).toBe(200);
    expect(authorizerCalls(calls)).toBe(3);
  });
});

describe('the proxy event and context', () => {
  it('carries what API Gateway passes: path, parameters, headers, body, request context and the authorizer context', async () => {
    let seen: { event: APIGatewayProxyEvent; remainingMs: number; context: Context } | undefined;
    const { gateway } = stubbedGateway(async (event, context) => {
      seen = { event, context, remainingMs: context.getRemainingTimeInMillis() };
      return ok();
    });
    const response = await request('POST', '/api/v2/invoices/?tag=a&tag=b&plain=x%20y', {
      gateway,
      apiKey: merchant.apiKey,
      headers: { 'Content-Type': 'application/json', 'X-Trace': 'one' },
      body: { amount: 10, note: 'naïve' },
    });

    expect(response.status).toBe(200);
    const { event, context, remainingMs } = seen!;
    expect(event).toMatchObject({
      resource: '/api/v2/invoices',
      path: '/api/v2/invoices',
      httpMethod: 'POST',
      pathParameters: null,
      queryStringParameters: { tag: 'b', plain: 'x y' },
      multiValueQueryStringParameters: { tag: ['a', 'b'], plain: ['x y'] },
      body: JSON.stringify({ amount: 10, note: 'naïve' }),
      isBase64Encoded: false,
      stageVariables: null,
    });
    expect(event.headers).toMatchObject({ 'Content-Type': 'application/json', 'X-Trace': 'one', 'x-api-key': merchant.apiKey });
    expect(event.multiValueHeaders['X-Trace']).toEqual(['one']);
    expect(event.requestContext).toMatchObject({
      stage: 'demo',
      httpMethod: 'POST',
      resourcePath: '/api/v2/invoices',
      path: '/demo/api/v2/invoices',
      requestId: response.headers['x-request-id'],
      identity: { sourceIp: '127.0.0.1' },
      authorizer: { merchantId: merchant.merchant.id, keyId: merchant.key.keyId, principalId: merchant.merchant.id },
    });
    expect(context.awsRequestId).toMatch(UUID);
    expect(context.functionName).toBe('create-invoice');
    expect(remainingMs).toBeGreaterThan(9_000);
    expect(remainingMs).toBeLessThanOrEqual(10_000);
  });

  it('decodes path parameters', async () => {
    let pathParameters: unknown;
    const { gateway } = stubbedGateway(async (event) => {
      pathParameters = event.pathParameters;
      return ok();
    });
    await request('GET', '/api/v2/invoices/a%20b', { gateway, apiKey: merchant.apiKey });
    expect(pathParameters).toEqual({ invoiceId: 'a b' });
  });

  it('answers with what the handler returns: merged headers, base64 bodies', async () => {
    const { gateway } = stubbedGateway(async () => ({
      statusCode: 201,
      headers: { 'Content-Type': 'application/octet-stream', 'X-One': '1' },
      multiValueHeaders: { 'Set-Cookie': ['a=1', 'b=2'] },
      body: Buffer.from([0, 1, 2, 255]).toString('base64'),
      isBase64Encoded: true,
    }));
    const response = await request('GET', '/api/v2/openapi.json', { gateway });
    expect(response.status).toBe(201);
    expect(response.rawBody).toEqual(Buffer.from([0, 1, 2, 255]));
    expect(response.headers).toMatchObject({ 'content-type': 'application/octet-stream', 'x-one': '1', 'set-cookie': 'a=1, b=2' });
    expect(response.headers['x-request-id']).toMatch(UUID);
  });

  it.each([
    [
      'throws',
      async () => {
        throw new Error('database exploded at 10.0.0.7');
      },
    ],
    ['returns no proxy result', async () => ({ hello: 'world' })],
  ])('answers 500 without internals when the handler %s', async (_, handler) => {
    const { gateway } = stubbedGateway(handler);
    const response = await request('GET', '/api/v2/openapi.json', { gateway });
    const requestId = response.headers['x-request-id'];
    expect(response.status).toBe(500);
    expect(requestId).toMatch(UUID);
    expect(response.body).toEqual({
      success: false,
      errors: [{ code: 'internal_server_error', message: `Internal server error (request id ${requestId})` }],
    });
  });

  it('refuses a body over 10 MB before the authorizer or the handler run', async () => {
    const { gateway, calls } = stubbedGateway(ok);
    const response = await request('POST', '/api/v2/invoices', {
      gateway,
      apiKey: merchant.apiKey,
      body: Buffer.alloc(MAX_PAYLOAD_BYTES + 1, 'a'),
    });
    expect(response.status).toBe(413);
    expect(response.body).toEqual({ success: false, errors: [{ code: 'payload_too_large', message: 'Request body too large' }] });
    expect(response.headers['x-request-id']).toMatch(UUID);
    expect(calls).toEqual([]);
  });
});

describe('body limits', () => {
  const payloadTooLarge = { success: false, errors: [{ code: 'payload_too_large', message: 'Request body too large' }] };
  const confirm = routeByName('confirm-deposit');
  const createInvoice = routeByName('create-invoice');
  /** A path of the route, its parameters filled in. */
  const pathOf = (route: HttpRoute) => route.path.replace(/\{\w+\}/g, randomUUID());

  it.each([confirm, createInvoice].map((route) => [route.name, route] as const))(
    '%s: a body one byte over the route limit gets the 413 envelope before the authorizer runs; at the limit it reaches the function',
    async (_, route) => {
      const limit = maxBodyBytesOf(route);
      const over = stubbedGateway(ok);
      const refused = await request(route.method, pathOf(route), { gateway: over.gateway, apiKey: merchant.apiKey, body: Buffer.alloc(limit + 1, 'a') });
      expect(refused.status).toBe(413);
      expect(refused.body).toEqual(payloadTooLarge);
      expect(refused.headers['x-request-id']).toMatch(UUID);
      expect(over.calls).toEqual([]);

      const at = stubbedGateway(ok);
      const passed = await request(route.method, pathOf(route), { gateway: at.gateway, apiKey: merchant.apiKey, body: Buffer.alloc(limit, 'a') });
      expect(passed.status).toBe(200);
      expect(at.calls.map((c) => c.fn.name)).toEqual(['authorize-merchant', route.name]);
      expect((at.calls[1]!.event as APIGatewayProxyEvent).body).toHaveLength(limit);
    },
  );

  it('applies to routes without a key and to routes that read no body', async () => {
    for (const route of [routeByName('submit-checkout-details'), routeByName('get-openapi')]) {
      const { gateway, calls } = stubbedGateway(ok);
      const response = await request(route.method, pathOf(route), { gateway, body: Buffer.alloc(maxBodyBytesOf(route) + 1, 'a') });
      expect(response.status, route.name).toBe(413);
      expect(response.body).toEqual(payloadTooLarge);
      expect(calls).toEqual([]);
    }
  });

  it('leaves a path with another method to its 405, whatever its body', async () => {
    const { gateway, calls } = stubbedGateway(ok);
    const response = await request('GET', confirm.path, { gateway, body: Buffer.alloc(maxBodyBytesOf(confirm) + 1, 'a') });
    expect(response.status).toBe(405);
    expect(calls).toEqual([]);
  });

  // The allowance of shared/platform.ts, checked against the event this emulation builds: the
  // largest body of each route, of characters JSON escapes, under 10 KiB of headers (API Gateway's most).
  it.each(HTTP_ROUTES.filter((route) => route.stages.includes('demo')).map((route) => [route.name, route] as const))(
    '%s: the largest event its limit lets through stays within the bound, and within a synchronous invocation',
    async (_, route) => {
      let event: unknown;
      const { gateway } = stubbedGateway(async (seen) => {
        event = seen;
        return ok();
      });
      const headers = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`x-padding-${i}`, '"'.repeat(480)]));
      const body = Buffer.alloc(maxBodyBytesOf(route), '"');
      const response = await request(route.method, `${pathOf(route)}?${'q=%22&'.repeat(50)}`, { gateway, apiKey: merchant.apiKey, headers, body });
      expect(response.status).toBe(200);
      const eventBytes = Buffer.byteLength(JSON.stringify(event));
      expect(eventBytes).toBeGreaterThan(2 * maxBodyBytesOf(route));
      expect(eventBytes).toBeLessThanOrEqual(eventBytesBound(maxBodyBytesOf(route)));
      expect(eventBytes).toBeLessThanOrEqual(LAMBDA_SYNC_PAYLOAD_BYTES);
    },
  );

  it('fails as Lambda fails an event over 6 MB (a body within the limit of characters JSON escapes sixfold), and passes one of characters it doubles', async () => {
    const limit = maxBodyBytesOf(confirm);
    const sixfold = await request('POST', confirm.path, {
      apiKey: merchant.apiKey,
      headers: { 'content-type': 'application/json' },
      body: Buffer.alloc(limit, 0x01),
      gateway: createTestGateway({ log: silentLog }),
    });
    expect(sixfold.status).toBe(500);
    expect(sixfold.body.errors[0]).toEqual({ code: 'internal_server_error', message: `Internal server error (request id ${sixfold.headers['x-request-id']})` });
    // Doubled, the same length fits: the function answers, here that it is not JSON.
    const doubled = await request('POST', confirm.path, { apiKey: merchant.apiKey, headers: { 'content-type': 'application/json' }, body: Buffer.alloc(limit, '"') });
    expect(doubled.status).toBe(400);
    expect(doubled.body.errors[0].code).toBe('bad_request');
  });
});

describe('the real handlers behind it', () => {
  it('runs the authorizer and the route handler of the route table', async () => {
    const response = await invoke('get-invoice', { pathParameters: { invoiceId: randomUUID() }, apiKey: merchant.apiKey });
    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ success: false, errors: [{ code: 'not_found' }] });
    expect(response.headers['x-request-id']).toMatch(UUID);
  });
});

describe('throttling per key', () => {
  it('lets a burst of 100 through, refuses the next with too_many_requests, and refills at 50 per second', async () => {
    let nowMs = 0;
    const throttle = new TokenBucketThrottle({ ratePerSecond: 50, burst: 100 }, () => nowMs);
    const { gateway } = stubbedGateway(ok, throttle);
    const other = await seedMerchant();
    const send = (apiKey: string) => request('GET', `/api/v2/invoices/${randomUUID()}`, { gateway, apiKey });

    const burst = await Promise.all(Array.from({ length: 100 }, () => send(merchant.apiKey)));
    expect(burst.every((r) => r.status === 200)).toBe(true);

    const throttled = await send(merchant.apiKey);
    expect(throttled.status).toBe(429);
    expect(throttled.body).toEqual({ success: false, errors: [{ code: 'too_many_requests', message: 'Too many requests' }] });
    expect(throttled.headers['x-request-id']).toMatch(UUID);
    expect((await send(other.apiKey)).status).toBe(200);

    nowMs += 20; // one token at 50 per second
    expect((await send(merchant.apiKey)).status).toBe(200);
    expect((await send(merchant.apiKey)).status).toBe(429);
  });
});

describe('over HTTP', () => {
  let server: Server;
  let port: number;

  beforeAll(async () => {
    const { gateway } = stubbedGateway(ok);
    server = gatewayServer(gateway, silentLog).listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolveClose) => server.close(resolveClose));
  });

  /** Node's client rather than fetch: it reads an early answer to an upload it has not finished. */
  const send = (method: string, path: string, headers: Record<string, string>, body?: Buffer) =>
    new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolveResponse, rejectResponse) => {
      const req = httpRequest({ host: '127.0.0.1', port, method, path, headers }, (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
        res.on('end', () => resolveResponse({ status: res.statusCode!, headers: res.headers, body: text }));
      });
      req.on('error', rejectResponse);
      req.end(body);
    });

  it('serves requests and sets content-length and x-request-id', async () => {
    const response = await send('GET', '/api/v2/openapi.json', {});
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body)).toEqual({ success: true, data: 'ok' });
    expect(response.headers['content-length']).toBe(String(Buffer.byteLength(response.body)));
    expect(response.headers['x-request-id']).toMatch(UUID);
  });

  it('answers headers over what Node reads (16 KiB) with the 431 envelope, and closes the connection', async () => {
    const response = await send('POST', '/api/v2/invoices', { 'x-padding': 'h'.repeat(20_000), 'content-type': 'application/json' }, Buffer.from('{}'));
    expect(response.status).toBe(431);
    expect(JSON.parse(response.body)).toEqual({
      success: false,
      errors: [{ code: 'request_header_fields_too_large', message: 'Request header fields too large' }],
    });
    expect(response.headers['x-request-id']).toMatch(UUID);
    expect(response.headers.connection).toBe('close');
  });

  it('answers 413 to a declared oversized body without reading it, and closes the connection', async () => {
    const response = await send('POST', '/api/v2/invoices', {
      'content-type': 'application/json',
      'content-length': String(MAX_PAYLOAD_BYTES + 1),
      'x-api-key': merchant.apiKey,
    });
    expect(response.status).toBe(413);
    expect(JSON.parse(response.body)).toEqual({ success: false, errors: [{ code: 'payload_too_large', message: 'Request body too large' }] });
    expect(response.headers['x-request-id']).toMatch(UUID);
    expect(response.headers.connection).toBe('close');
  });
});

describe('a client that stalls', () => {
  /** The gateway's wait, shortened: the same server, waiting 1 s where `npm start` waits RECEIVE_TIMEOUT_MS. */
  const WAIT_MS = 1_000;
  let server: Server;
  let port: number;

  beforeAll(async () => {
    const { gateway } = stubbedGateway(ok);
    server = gatewayServer(gateway, silentLog, undefined, WAIT_MS).listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolveClose) => server.close(resolveClose));
  });

  /** Writes `text` on a raw connection and never more; resolves to what came back once the gateway closed it, and when. */
  const stall = (text: string) =>
    new Promise<{ answer: string; closedAfterMs: number }>((resolveStall, rejectStall) => {
      const startedAt = performance.now();
      const socket = connect(port, '127.0.0.1', () => socket.write(text));
      let answer = '';
      socket.on('data', (chunk: Buffer) => (answer += chunk.toString('utf8')));
      socket.on('close', () => resolveStall({ answer, closedAfterMs: performance.now() - startedAt }));
      socket.on('error', rejectStall);
    });

  const envelopeOf = (answer: string) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));

  it('waits 10 s for a request in npm start', () => {
    expect(RECEIVE_TIMEOUT_MS).toBe(10_000);
  });

  it('cuts a body announced at 2,000 bytes that stops after 5, with the 408 envelope, and closes the connection', async () => {
    const { answer, closedAfterMs } = await stall(
      `POST /api/v2/invoices HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 2000\r\nx-api-key: ${merchant.apiKey}\r\n\r\n{"amo`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(answer).toMatch(/\r\nconnection: close\r\n/i);
    expect(answer).toMatch(/\r\nx-request-id: [0-9a-f-]{36}\r\n/i);
    expect(envelopeOf(answer)).toEqual({ success: false, errors: [{ code: 'request_timeout', message: 'The request did not arrive in time' }] });
    expect(closedAfterMs).toBeGreaterThanOrEqual(WAIT_MS - 50);
  });

  it('cuts headers that stop arriving, with the 408 envelope', async () => {
    const { answer } = await stall('POST /api/v2/invoices HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Ty');
    expect(answer).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(envelopeOf(answer)).toEqual({ success: false, errors: [{ code: 'request_timeout', message: 'The request did not arrive in time' }] });
  });
});
