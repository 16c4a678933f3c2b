/**
 * Requests through the local runtime's API Gateway emulation, in process: the real authorizer,
 * throttling and route handlers against the test run's tables, without an HTTP server.
 */
import { ApiGateway, type ApiGatewayOptions, type GatewayResponse } from '../../infra/local/api-gateway.js';
import { LOCAL_STAGE } from '../../infra/local/environment.js';
import { invoker, loadHandler, type LambdaHandler } from '../../infra/local/functions.js';
import { functionsForStage, routeByName, type AuthorizerFunction, type HttpRoute, type HttpRouteName } from '../../shared/routes.js';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '../../shared/config.js';
import { documentClient } from '../../shared/store/dynamo.js';
import { quietLog } from './logs.js';

const functions = functionsForStage(LOCAL_STAGE);
const authorizer = functions.find((fn): fn is AuthorizerFunction => fn.kind === 'authorizer')!;
const routes = functions.filter((fn): fn is HttpRoute => fn.kind === 'http');

/** Each function module is loaded once per test file, on first use. */
const loaded = new Map<string, Promise<LambdaHandler | undefined>>();
export const loadFunction = (name: string): Promise<LambdaHandler | undefined> => {
  let handler = loaded.get(name);
  if (!handler) loaded.set(name, (handler = loadHandler(name)));
  return handler;
};

/**
 * A gateway over the demo route table; replace `invoke` to put stubs behind it. It reuses the
 * authorizer's decisions as the runtime does (AUTHORIZER_CACHE_SECONDS) unless told otherwise;
 * `now` moves its clock.
 */
export function createTestGateway(options: Partial<Pick<ApiGatewayOptions, 'invoke' | 'throttle' | 'log' | 'authorizerCacheSeconds' | 'now'>> = {}): ApiGateway {
  return new ApiGateway({ stage: LOCAL_STAGE, routes, authorizer, invoke: invoker(loadFunction), log: quietLog, ...options });
}

let defaultGateway: ApiGateway | undefined;

export interface RequestOptions {
  /** Sent as `x-api-key`. */
  apiKey?: string;
  headers?: Record<string, string>;
  /** An object or array is sent as JSON (with `content-type: application/json` unless given); a string or Buffer as is. */
  body?: unknown;
  /** Defaults to one gateway shared by the test file. */
  gateway?: ApiGateway;
}

export interface InvokeOptions extends RequestOptions {
  /** Defaults to the route's method. */
  method?: string;
  pathParameters?: Record<string, string>;
  query?: Record<string, string>;
}

export interface GatewayResult<Body = any> {
  status: number;
  /** Lower-cased names; repeated headers joined with `, `. */
  headers: Record<string, string>;
  /** Parsed when the response is JSON, else the text. */
  body: Body;
  rawBody: Buffer;
}

function toResult(response: GatewayResponse): GatewayResult {
  const headers = Object.fromEntries(Object.entries(response.headers).map(([name, values]) => [name, values.join(', ')]));
  const text = response.body.toString('utf8');
  const isJson = /^application\/([\w.-]+\+)?json\b/i.test(headers['content-type'] ?? '');
  return { status: response.statusCode, headers, body: isJson && text !== '' ? JSON.parse(text) : text, rawBody: response.body };
}

/** Any method and path (with query string), e.g. for routes that do not exist. */
export async function request(method: string, target: string, options: RequestOptions = {}): Promise<GatewayResult> {
  const headers: Record<string, string> = { host: 'localhost', 'user-agent': 'gateway-tests', ...options.headers };
  if (options.apiKey !== undefined) headers['x-api-key'] = options.apiKey;
  let body = Buffer.alloc(0);
  if (typeof options.body === 'string' || Buffer.isBuffer(options.body)) {
    body = Buffer.from(options.body);
  } else if (options.body !== undefined) {
    body = Buffer.from(JSON.stringify(options.body));
    if (!Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
  }
  const gateway = options.gateway ?? (defaultGateway ??= createTestGateway());
  const response = await gateway.handle({ method, target, headers: Object.entries(headers), body, sourceIp: '127.0.0.1' });
  return toResult(response);
}

/** A request to the named route of the route table, its path filled from `pathParameters`. */
export async function invoke(routeName: HttpRouteName, options: InvokeOptions = {}): Promise<GatewayResult> {
  const route = routeByName(routeName);
  const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = options.pathParameters?.[name];
    if (value === undefined) throw new Error(`invoke(${routeName}): pathParameters.${name} is missing`);
    return encodeURIComponent(value);
  });
  const query = new URLSearchParams(options.query).toString();
  return request(options.method ?? route.method, query ? `${path}?${query}` : path, options);
}

/** Ends the invoice's lifetime now and runs the expiry schedule: an open invoice is canceled. */
export async function expireInvoice(invoiceId: string): Promise<void> {
  await documentClient.send(
    new UpdateCommand({
      TableName: config().tables.invoices,
      Key: { id: invoiceId },
      UpdateExpression: 'SET expiresAt = :past',
      ExpressionAttributeValues: { ':past': new Date(Date.now() - 1000).toISOString() },
    }),
  );
  await (await loadFunction('expire-invoices'))!({} as never, {} as never);
}
