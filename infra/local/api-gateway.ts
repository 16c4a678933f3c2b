/**
 * API Gateway (REST, Lambda proxy integration, REQUEST authorizer, usage-plan throttling) in
 * front of the same function handlers that run in AWS, with the stage's web ACL's body limits.
 * The failures API Gateway and the web ACL answer themselves are rendered as the error envelope,
 * as the AWS stack's gateway responses and web ACL render them.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createServer, STATUS_CODES, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { APIGatewayAuthorizerResult, APIGatewayProxyEvent, APIGatewayProxyResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { ApiError, UNAUTHORIZED_MESSAGE, type ErrorCode } from '../../shared/errors.js';
import { apiErrorResponse, internalErrorResponse, type Headers } from '../../shared/http/envelope.js';
import { redactQueryCredentials } from '../../shared/observability/redaction.js';
import { AUTHORIZER_CACHE_SECONDS, GATEWAY_MESSAGES, MAX_PAYLOAD_BYTES, THROTTLED_RETRY_AFTER_SECONDS } from '../../shared/platform.js';
import { maxBodyBytesOf, type AuthorizerFunction, type HttpRoute } from '../../shared/routes.js';
import type { Stage } from '../../shared/stage.js';
import { LOCAL_ACCOUNT_ID } from './environment.js';
import type { Invoke } from './functions.js';
import type { RuntimeLog } from './log.js';
import { TokenBucketThrottle } from './throttle.js';

const LOCAL_API_ID = 'local';
/** What API Gateway expects an authorizer to throw for a key it refuses. */
const AUTHORIZER_REFUSAL = 'Unauthorized';

export interface GatewayRequest {
  method: string;
  /** Path and query string, as on the request line. */
  target: string;
  /** Name and value pairs in arrival order, names as the client sent them. */
  headers: ReadonlyArray<readonly [string, string]>;
  body: Buffer;
  sourceIp: string;
}

export interface GatewayResponse {
  statusCode: number;
  /** Lower-cased names. */
  headers: Record<string, string[]>;
  body: Buffer;
}

export interface ApiGatewayOptions {
  stage: Stage;
  routes: readonly HttpRoute[];
  authorizer: AuthorizerFunction;
  invoke: Invoke;
  throttle?: TokenBucketThrottle;
  log: RuntimeLog;
  /**
   * How long the authorizer's decision about an `x-api-key` is reused, as API Gateway's result
   * cache reuses it: `AUTHORIZER_CACHE_SECONDS` unless given (GATEWAY_AUTHORIZER_CACHE_S); 0 asks
   * the authorizer every time.
   */
  authorizerCacheSeconds?: number;
  /** Milliseconds since the epoch, for the cache; the tests' clock stands in. */
  now?: () => number;
}

/** Decisions kept at most; past this, the expired ones are dropped, and all of them if none had expired. */
const MAX_CACHED_DECISIONS = 10_000;

interface CompiledRoute {
  route: HttpRoute;
  pattern: RegExp;
  parameterNames: string[];
}

type RouteMatch = { kind: 'route'; route: HttpRoute; pathParameters: Record<string, string> } | { kind: 'otherMethods'; allowed: string[] } | { kind: 'none' };

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * `/api/v2/invoices/{invoiceId}` -> a pattern capturing one path segment per parameter; a greedy
 * `{page+}`, as API Gateway's, captures the rest of the path, one segment or more.
 */
function compileRoute(route: HttpRoute): CompiledRoute {
  const parameterNames: string[] = [];
  const source = route.path
    .split('/')
    .map((segment) => {
      const [, parameter, greedy] = /^\{(\w+)(\+?)\}$/.exec(segment) ?? [];
      if (parameter === undefined) return escapeRegExp(segment);
      parameterNames.push(parameter);
      return greedy ? '([^/]+(?:/[^/]+)*)' : '([^/]+)';
    })
    .join('/');
  return { route, pattern: new RegExp(`^${source}$`), parameterNames };
}

/**
 * API Gateway's choice between paths that both match: segment by segment, a literal one before a
 * `{parameter}`, and that before a greedy `{parameter+}`; so `/dashboard/receipts/{id}` is chosen
 * over `/dashboard/{page+}` whatever the route table's order.
 */
function bySpecificity(a: CompiledRoute, b: CompiledRoute): number {
  const rank = (segment: string | undefined): number => (segment === undefined ? 3 : segment.endsWith('+}') ? 2 : segment.startsWith('{') ? 1 : 0);
  const left = a.route.path.split('/');
  const right = b.route.path.split('/');
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    const difference = rank(left[i]) - rank(right[i]);
    if (difference !== 0) return difference;
  }
  return 0;
}

const decodeSegment = (segment: string): string => {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
};

/** A greedy parameter is decoded segment by segment, as the one-segment ones are. */
const decodeSegments = (path: string): string => path.split('/').map(decodeSegment).join('/');

/** IAM resource and action patterns: `*` is any run of characters, `?` any one. */
const iamPattern = (pattern: string): RegExp =>
  new RegExp(
    `^${pattern
      .split('')
      .map((c) => (c === '*' ? '.*' : c === '?' ? '.' : escapeRegExp(c)))
      .join('')}$`,
  );

const asStrings = (value: unknown): string[] => (typeof value === 'string' ? [value] : Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);

/** Whether the authorizer's policy lets the caller invoke `methodArn`: an Allow and no Deny. */
function policyAllows(result: APIGatewayAuthorizerResult, methodArn: string): boolean {
  const statements = (result.policyDocument?.Statement ?? []) as unknown as Record<string, unknown>[];
  const matches = (effect: string) =>
    statements.some(
      (statement) =>
        statement.Effect === effect &&
        asStrings(statement.Action).some((action) => iamPattern(action).test('execute-api:Invoke')) &&
        asStrings(statement.Resource).some((resource) => iamPattern(resource).test(methodArn)),
    );
  return matches('Allow') && !matches('Deny');
}

function isAuthorizerResult(value: unknown): value is APIGatewayAuthorizerResult {
  if (typeof value !== 'object' || value === null) return false;
  const result = value as Partial<APIGatewayAuthorizerResult>;
  return typeof result.principalId === 'string' && typeof result.policyDocument === 'object' && result.policyDocument !== null;
}

function isProxyResult(value: unknown): value is APIGatewayProxyResult {
  if (typeof value !== 'object' || value === null) return false;
  const result = value as Partial<APIGatewayProxyResult>;
  return Number.isInteger(result.statusCode) && result.statusCode! >= 100 && result.statusCode! <= 599 && (result.body === undefined || typeof result.body === 'string');
}

/** Headers and multi-value headers merged as API Gateway merges them. */
function toGatewayResponse(result: APIGatewayProxyResult, requestId: string): GatewayResponse {
  const headers: Record<string, string[]> = {};
  for (const [name, values] of Object.entries(result.multiValueHeaders ?? {})) {
    headers[name.toLowerCase()] = values.map(String);
  }
  for (const [name, value] of Object.entries(result.headers ?? {})) {
    const values = (headers[name.toLowerCase()] ??= []);
    if (!values.includes(String(value))) values.push(String(value));
  }
  headers['content-type'] ??= ['application/json'];
  headers['x-request-id'] ??= [requestId];
  const body = Buffer.from(result.body ?? '', result.isBase64Encoded ? 'base64' : 'utf8');
  return { statusCode: result.statusCode, headers, body };
}

/**
 * Name and value pairs as API Gateway's single- and multi-value maps (the last value, and all).
 * Built from Maps: a name is the client's, and `__proto__` or `constructor` must stay a plain key.
 */
function singleAndMultiValue(pairs: Iterable<readonly [string, string]>): { single: Record<string, string>; multi: Record<string, string[]> } {
  const all = new Map<string, string[]>();
  for (const [name, value] of pairs) {
    const values = all.get(name);
    if (values) values.push(value);
    else all.set(name, [value]);
  }
  return {
    single: Object.fromEntries([...all].map(([name, values]) => [name, values.at(-1)!])),
    multi: Object.fromEntries(all),
  };
}

type Authorization = { allowed: false } | { allowed: true; principalId: string; usageIdentifierKey: string; context: Record<string, string> };

export class ApiGateway {
  private readonly routes: CompiledRoute[];
  private readonly throttle: TokenBucketThrottle;
  /** The authorizer's decisions by the digest of the key they were about (the key text is not kept), until they expire. */
  private readonly decisions = new Map<string, { result: APIGatewayAuthorizerResult; expiresAt: number }>();

  constructor(private readonly options: ApiGatewayOptions) {
    this.routes = options.routes.map(compileRoute).sort(bySpecificity);
    this.throttle = options.throttle ?? new TokenBucketThrottle();
  }

  async handle(request: GatewayRequest): Promise<GatewayResponse> {
    const requestId = randomUUID();
    if (request.body.length > MAX_PAYLOAD_BYTES) return this.payloadTooLarge(requestId);
    try {
      return await this.dispatch(request, requestId);
    } catch (error) {
      this.options.log.error(`Request ${requestId} failed`, error);
      return toGatewayResponse(internalErrorResponse(requestId), requestId);
    }
  }

  /** For a body refused while it was still arriving. */
  payloadTooLarge(requestId: string = randomUUID()): GatewayResponse {
    return this.reject(requestId, 'payload_too_large', GATEWAY_MESSAGES.payloadTooLarge);
  }

  /** For a body that stopped arriving before it was whole. */
  requestTimeout(requestId: string = randomUUID()): GatewayResponse {
    return this.reject(requestId, 'request_timeout', GATEWAY_MESSAGES.requestTimeout);
  }

  private reject(requestId: string, code: ErrorCode, message: string, headers: Headers = {}): GatewayResponse {
    return toGatewayResponse(apiErrorResponse(new ApiError(code, message), headers), requestId);
  }

  private match(method: string, path: string): RouteMatch {
    const allowed: string[] = [];
    for (const { route, pattern, parameterNames } of this.routes) {
      const found = pattern.exec(path);
      if (!found) continue;
      if (route.method !== method) {
        allowed.push(route.method);
        continue;
      }
      const pathParameters = Object.fromEntries(parameterNames.map((name, i) => [name, decodeSegments(found[i + 1]!)]));
      return { kind: 'route', route, pathParameters };
    }
    return allowed.length > 0 ? { kind: 'otherMethods', allowed } : { kind: 'none' };
  }

  private async dispatch(request: GatewayRequest, requestId: string): Promise<GatewayResponse> {
    const queryStart = request.target.indexOf('?');
    const rawPath = queryStart < 0 ? request.target : request.target.slice(0, queryStart);
    const path = rawPath.length > 1 ? rawPath.replace(/\/+$/, '') : rawPath;
    const query = new URLSearchParams(queryStart < 0 ? '' : request.target.slice(queryStart + 1));

    const match = this.match(request.method, path);
    if (match.kind === 'none') return this.reject(requestId, 'not_found', GATEWAY_MESSAGES.routeNotFound);
    if (match.kind === 'otherMethods') {
      return this.reject(requestId, 'method_not_allowed', GATEWAY_MESSAGES.methodNotAllowed, { allow: match.allowed.join(', ') });
    }

    // The web ACL refuses a body over the route's limit before API Gateway authorizes anything.
    if (request.body.length > maxBodyBytesOf(match.route)) return this.payloadTooLarge(requestId);

    const event = this.proxyEvent(request, match.route, match.pathParameters, query, path, requestId);
    if (match.route.auth === 'apiKey') {
      const authorization = await this.authorize(event);
      if (!authorization.allowed) return this.reject(requestId, 'unauthorized', UNAUTHORIZED_MESSAGE);
      if (!this.throttle.tryTake(authorization.usageIdentifierKey)) {
        return this.reject(requestId, 'too_many_requests', GATEWAY_MESSAGES.tooManyRequests, { 'retry-after': String(THROTTLED_RETRY_AFTER_SECONDS) });
      }
      event.requestContext.authorizer = { ...authorization.context, principalId: authorization.principalId };
    }

    const result = await this.options.invoke(match.route, event);
    if (!isProxyResult(result)) throw new Error(`${match.route.name} returned no valid proxy result`);
    return toGatewayResponse(result, requestId);
  }

  private proxyEvent(request: GatewayRequest, route: HttpRoute, pathParameters: Record<string, string>, query: URLSearchParams, path: string, requestId: string): APIGatewayProxyEvent {
    const { single: headers, multi: multiValueHeaders } = singleAndMultiValue(request.headers);
    const { single: queryStringParameters, multi: multiValueQueryStringParameters } = singleAndMultiValue(query);
    const hasQuery = Object.keys(queryStringParameters).length > 0;
    const header = (name: string) => Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1] ?? null;
    const now = Date.now();
    return {
      resource: route.path,
      path,
      httpMethod: request.method,
      headers,
      multiValueHeaders,
      pathParameters: Object.keys(pathParameters).length > 0 ? pathParameters : null,
      queryStringParameters: hasQuery ? queryStringParameters : null,
      multiValueQueryStringParameters: hasQuery ? multiValueQueryStringParameters : null,
      stageVariables: null,
      body: request.body.length > 0 ? request.body.toString('utf8') : null,
      isBase64Encoded: false,
      requestContext: {
        accountId: LOCAL_ACCOUNT_ID,
        apiId: LOCAL_API_ID,
        authorizer: null,
        protocol: 'HTTP/1.1',
        httpMethod: request.method,
        path: `/${this.options.stage}${path}`,
        stage: this.options.stage,
        requestId,
        requestTimeEpoch: now,
        requestTime: new Date(now).toISOString(),
        resourceId: route.name,
        resourcePath: route.path,
        domainName: header('host') ?? undefined,
        identity: {
          sourceIp: request.sourceIp,
          userAgent: header('user-agent'),
          accessKey: null,
          accountId: null,
          apiKey: null,
          apiKeyId: null,
          caller: null,
          clientCert: null,
          cognitoAuthenticationProvider: null,
          cognitoAuthenticationType: null,
          cognitoIdentityId: null,
          cognitoIdentityPoolId: null,
          principalOrgId: null,
          user: null,
          userArn: null,
        },
      },
    };
  }

  /**
   * Runs the REQUEST authorizer, or reuses its decision about the same key for as long as API
   * Gateway's cache would (a revoked key gets through until then). A missing key is refused
   * without calling it (the header is its identity source); an authorizer that throws
   * `Unauthorized` or denies refuses the request, and one that fails otherwise fails the request,
   * as in AWS; neither a throw nor a failure is cached.
   */
  private async authorize(event: APIGatewayProxyEvent): Promise<Authorization> {
    const apiKey = Object.entries(event.headers).find(([name]) => name.toLowerCase() === 'x-api-key')?.[1];
    if (!apiKey) return { allowed: false };

    const methodArn = `arn:aws:execute-api:local:${LOCAL_ACCOUNT_ID}:${LOCAL_API_ID}/${this.options.stage}/${event.httpMethod}${event.path}`;
    const cacheKey = createHash('sha256').update(apiKey, 'utf8').digest('hex');
    const now = (this.options.now ?? Date.now)();
    const cached = this.decisions.get(cacheKey);
    const result = cached && cached.expiresAt > now ? cached.result : await this.runAuthorizer(event, methodArn);
    if (result === undefined) return { allowed: false };
    if (result !== cached?.result) this.remember(cacheKey, result, now);

    if (!policyAllows(result, methodArn)) return { allowed: false };
    if (!result.usageIdentifierKey) throw new Error(`${this.options.authorizer.name} returned no usageIdentifierKey to throttle by`);
    // API Gateway hands the context to the integration with every value as a string.
    const context = Object.fromEntries(Object.entries(result.context ?? {}).flatMap(([name, value]) => (value === null || value === undefined ? [] : [[name, String(value)]])));
    return { allowed: true, principalId: result.principalId, usageIdentifierKey: result.usageIdentifierKey, context };
  }

  private remember(cacheKey: string, result: APIGatewayAuthorizerResult, now: number): void {
    const ttlMs = (this.options.authorizerCacheSeconds ?? AUTHORIZER_CACHE_SECONDS) * 1000;
    if (ttlMs <= 0) return;
    if (this.decisions.size >= MAX_CACHED_DECISIONS) {
      for (const [key, decision] of this.decisions) if (decision.expiresAt <= now) this.decisions.delete(key);
      if (this.decisions.size >= MAX_CACHED_DECISIONS) this.decisions.clear();
    }
    this.decisions.set(cacheKey, { result, expiresAt: now + ttlMs });
  }

  /** The authorizer's answer; undefined when it threw `Unauthorized`. */
  private async runAuthorizer(event: APIGatewayProxyEvent, methodArn: string): Promise<APIGatewayAuthorizerResult | undefined> {
    const authorizerEvent: APIGatewayRequestAuthorizerEvent = {
      type: 'REQUEST',
      methodArn,
      resource: event.resource,
      path: event.path,
      httpMethod: event.httpMethod,
      headers: event.headers,
      multiValueHeaders: event.multiValueHeaders,
      pathParameters: event.pathParameters,
      queryStringParameters: event.queryStringParameters,
      multiValueQueryStringParameters: event.multiValueQueryStringParameters,
      stageVariables: event.stageVariables,
      requestContext: { ...event.requestContext, authorizer: undefined },
    };

    let result: unknown;
    try {
      result = await this.options.invoke(this.options.authorizer, authorizerEvent);
    } catch (error) {
      if (error instanceof Error && error.message === AUTHORIZER_REFUSAL) return undefined;
      throw error;
    }
    if (!isAuthorizerResult(result)) throw new Error(`${this.options.authorizer.name} returned no valid authorizer result`);
    return result;
  }
}

/**
 * How long the gateway waits for a request's headers, and then for the whole of its body: a client
 * that announces a body and stalls holds a connection no longer than this (API Gateway's edge
 * drops such clients alike).
 */
export const RECEIVE_TIMEOUT_MS = 10_000;

type ReceivedBody = { body: Buffer } | { refused: 'too_large' | 'timed_out' };

/** Reads a body up to `limit` bytes, within `timeoutMs`. */
function readBody(request: IncomingMessage, limit: number, timeoutMs: number): Promise<ReceivedBody> {
  return new Promise((resolveBody, rejectBody) => {
    if (Number(request.headers['content-length']) > limit) {
      request.resume();
      resolveBody({ refused: 'too_large' });
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const timer = setTimeout(() => {
      chunks.length = 0;
      resolveBody({ refused: 'timed_out' });
    }, timeoutMs);
    const settle = (received: ReceivedBody) => {
      clearTimeout(timer);
      resolveBody(received);
    };
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        chunks.length = 0;
        settle({ refused: 'too_large' });
      } else {
        chunks.push(chunk);
      }
    });
    request.on('end', () => settle(size > limit ? { refused: 'too_large' } : { body: Buffer.concat(chunks) }));
    request.on('error', (error) => {
      clearTimeout(timer);
      rejectBody(error);
    });
  });
}

function headerPairs(rawHeaders: string[]): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) pairs.push([rawHeaders[i]!, rawHeaders[i + 1]!]);
  return pairs;
}

function writeResponse(response: ServerResponse, answer: GatewayResponse, closeConnection: boolean): void {
  response.writeHead(answer.statusCode, {
    ...answer.headers,
    'content-length': String(answer.body.length),
    ...(closeConnection ? { connection: 'close' } : {}),
  });
  response.end(answer.body);
}

/**
 * Files served beside the API, as S3 serves a presigned link in AWS: `serves` tells a request for
 * one, `answer` writes it (or a 403 for a link that does not hold).
 */
export interface FileServer {
  serves(method: string, target: string): boolean;
  answer(target: string, response: ServerResponse): Promise<number>;
}

/**
 * The HTTP side: reads the request, lets the gateway answer, writes the answer, logs one line.
 * Given a promise, requests wait until the gateway is ready.
 */
export function httpListener(gateway: ApiGateway | Promise<ApiGateway>, log: RuntimeLog, files?: FileServer, receiveTimeoutMs = RECEIVE_TIMEOUT_MS): RequestListener {
  const serve = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const startedAt = performance.now();
    if (files?.serves(request.method ?? 'GET', request.url ?? '/')) {
      request.resume();
      const status = await files.answer(request.url ?? '/', response);
      log.info(`${request.method} ${redactQueryCredentials(request.url ?? '/')} ${status} ${Math.round(performance.now() - startedAt)} ms`);
      return;
    }
    const received = await readBody(request, MAX_PAYLOAD_BYTES, receiveTimeoutMs);
    const ready = await gateway;
    const answer =
      'refused' in received
        ? received.refused === 'too_large'
          ? ready.payloadTooLarge()
          : ready.requestTimeout()
        : await ready.handle({
            method: request.method ?? 'GET',
            target: request.url ?? '/',
            headers: headerPairs(request.rawHeaders),
            body: received.body,
            sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
          });
    // The rest of an oversized or stalled body is not worth waiting for: answer, then drop the connection.
    writeResponse(response, answer, 'refused' in received);
    if ('refused' in received && received.refused === 'timed_out') response.once('finish', () => request.socket.destroySoon());
    const elapsed = Math.round(performance.now() - startedAt);
    log.info(`${request.method} ${redactQueryCredentials(request.url ?? '/')} ${answer.statusCode} ${elapsed} ms ${answer.headers['x-request-id']?.[0] ?? ''}`);
  };
  return (request, response) => {
    serve(request, response).catch((error: unknown) => {
      log.error(`Could not answer ${request.method} ${redactQueryCredentials(request.url ?? '/')}`, error);
      response.destroy();
    });
  };
}

/**
 * What Node answers itself, before a request reaches the gateway (headers over its 16 KiB limit,
 * headers that did not arrive in time, a request line it cannot parse), as the error envelope with
 * a request id too: 431 `request_header_fields_too_large`, 408 `request_timeout` or 400
 * `bad_request`, then the connection closes.
 */
const CLIENT_ERROR_DRAIN_MS = 5_000;

function clientErrorListener(log: RuntimeLog): (error: Error & { code?: string }, socket: Duplex) => void {
  return (error, socket) => {
    // A client that went away, or a connection already answered: nothing is left to say.
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const requestId = randomUUID();
    const refusal =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? new ApiError('request_header_fields_too_large', GATEWAY_MESSAGES.headersTooLarge)
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? new ApiError('request_timeout', GATEWAY_MESSAGES.requestTimeout)
          : new ApiError('bad_request', GATEWAY_MESSAGES.malformedRequest);
    const answer = toGatewayResponse(apiErrorResponse(refusal), requestId);
    const headers = Object.entries({ ...answer.headers, 'content-length': [String(answer.body.length)], connection: ['close'] })
      .flatMap(([name, values]) => values.map((value) => `${name}: ${value}\r\n`))
      .join('');
    socket.end(Buffer.concat([Buffer.from(`HTTP/1.1 ${answer.statusCode} ${STATUS_CODES[answer.statusCode]}\r\n${headers}\r\n`), answer.body]));
    // Read what the client still sends, so that closing does not reset the connection before it reads the answer.
    socket.resume();
    setTimeout(() => socket.destroy(), CLIENT_ERROR_DRAIN_MS).unref();
    log.info(`Refused a request Node could not read (${error.code ?? error.message}): ${answer.statusCode} ${requestId}`);
  };
}

/** The local API Gateway's HTTP server: every answer, Node's own refusals included, an envelope. */
export function gatewayServer(
  gateway: ApiGateway | Promise<ApiGateway>,
  log: RuntimeLog,
  files?: FileServer,
  /** `RECEIVE_TIMEOUT_MS` but in tests, which wait less. */
  receiveTimeoutMs = RECEIVE_TIMEOUT_MS,
): Server {
  // Headers too slow to arrive are Node's to cut (a clientError), checked every second rather than every 30.
  const server = createServer({ headersTimeout: receiveTimeoutMs, requestTimeout: 0, connectionsCheckingInterval: Math.min(1_000, receiveTimeoutMs) }, httpListener(gateway, log, files, receiveTimeoutMs));
  server.on('clientError', clientErrorListener(log));
  return server;
}
