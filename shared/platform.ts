import type { GatewayFunction, HttpRoute } from './routes.js';

/**
 * Settings of the platform around the functions that the AWS stacks and the local runtime must
 * agree on: one definition, imported by both.
 */

/** Lambda settings for functions whose route-table entry names none. */
export const FUNCTION_DEFAULTS = { timeoutSeconds: 10, memoryMb: 512 } as const;

/** docs/merchant-guide.md#limits-and-throttling: 50 requests per second per API key, bursts of 100. */
export const PER_KEY_THROTTLE = { ratePerSecond: 50, burst: 100 } as const;

/** `Retry-After` of a throttled request: within a second the key's bucket holds 50 requests again. */
export const THROTTLED_RETRY_AFTER_SECONDS = 1;

/**
 * How long the gateway reuses the authorizer's decision about an `x-api-key` (API Gateway's result
 * cache; the local runtime's gateway keeps one alike): also how long a revoked key may still get
 * through (docs/merchant-guide.md#authentication).
 */
export const AUTHORIZER_CACHE_SECONDS = 30;

/**
 * What the reserved concurrencies below are derived from. The tables are on demand: a new
 * on-demand table serves up to 4,000 write request units a second (and 12,000 read units) without
 * throttling, and grows beyond only as its traffic doubles its previous peak. Most tables are
 * written by several functions (invoices by creation, the checkout, payments and the expiry
 * sweep), so one function may take at most half of that. A request of the gateway writes at most
 * 4 units to any one table (a transactional Put of an item up to 1 KB costs 2, as does the
 * conditional update that may follow it), and one function instance finishes about 50 requests a
 * second (some 20 ms of DynamoDB calls each). Reads are cheaper (a strongly consistent read of up
 * to 4 KB is one unit, of 12,000), so writes decide.
 */
export const TABLE_CAPACITY_BASIS = {
  onDemandWriteUnitsPerSecond: 4_000,
  shareOfOneFunction: 0.5,
  writeUnitsPerRequest: 4,
  requestsPerInstancePerSecond: 50,
} as const;

/**
 * Reserved concurrency: the most instances of one function that run at once. It bounds what one
 * function can ask of a table (10 instances x 50 requests/s x 4 units = 2,000 write units/s, half
 * a new table's capacity) and keeps a flood on one route from taking the account's concurrency
 * from the others. A route reserves no more than its method's throttle can send it (a route
 * without a key, at PUBLIC_ROUTE_THROTTLE's 200 requests/s, 4). The sweeps on a schedule run one
 * instance at a time, so a slow run is never overlapped by the next: that run is throttled, retried
 * for one period, then dropped, and the run after it does the same work (the chain watcher: see
 * `reservedConcurrencyOf`).
 *
 * AWS keeps 100 of an account's concurrency (1,000 by default) unreserved, so each stage reserves
 * at most `stageBudget`: two stages fit in one account. A stage must leave room in it for
 * `roomForRoutes` more routes with a key at `perFunction` each, watching every network, so that
 * the next capabilities deploy without raising the account's quota (docs/operations.md#prerequisites).
 */
export const CONCURRENCY = {
  perFunction: Math.floor(
    (TABLE_CAPACITY_BASIS.onDemandWriteUnitsPerSecond * TABLE_CAPACITY_BASIS.shareOfOneFunction) / (TABLE_CAPACITY_BASIS.writeUnitsPerRequest * TABLE_CAPACITY_BASIS.requestsPerInstancePerSecond),
  ),
  scheduled: 1,
  stageBudget: 450,
  roomForRoutes: 5,
} as const;

/**
 * A function's reserved concurrency. The chain watcher is one function serving every watched
 * network, one scheduled invocation per network each period: one instance would make the networks
 * wait on each other, so it has one per network, which lets each network's invocation go at once.
 * An invocation polls for most of its period and starts no run after `chainWatchSecondsOf` it, and
 * its timeout is at most the period, so it ends before the next of its network begins. Should they
 * still meet (a schedule late by seconds, a cold start), that overlap is safe:
 * the cursor moves only from the position a run read it at (the later run's move fails and it
 * stops), transfers are held and deposits recorded once per transfer (conditional writes on the
 * transfer's id), and settlements are conditional on the transaction's state.
 */
export function reservedConcurrencyOf(definition: GatewayFunction, watchedNetworks: number): number {
  // What the method's throttle lets through, at what an instance answers.
  if (definition.kind === 'http') return Math.ceil(methodThrottleOf(definition).ratePerSecond / TABLE_CAPACITY_BASIS.requestsPerInstancePerSecond);
  if (definition.kind !== 'schedule') return CONCURRENCY.perFunction;
  // Deployed without networks it is never invoked; zero would disable it.
  return definition.perNetwork ? Math.max(CONCURRENCY.scheduled, watchedNetworks) : CONCURRENCY.scheduled;
}

/**
 * The time a chain watcher's run normally needs (about a second), with room: an invocation starts no
 * run later than this before its timeout. A run that hangs (one RPC call times out at 10 s) is cut
 * off by the timeout, which is at most the period, and the next invocation does its work again.
 */
export const CHAIN_RUN_ALLOWANCE_SECONDS = 3;

/**
 * How long a chain watcher's invocation keeps polling, scheduled every `everySeconds` and reading
 * every `pollSeconds`: its last run starts one poll interval before the next invocation, so runs
 * stay a poll interval apart across invocations too (55 s of a minute at 5 s).
 */
export const chainWatchSecondsOf = (everySeconds: number, pollSeconds: number): number => Math.max(0, everySeconds - pollSeconds);

/**
 * The stage's throttle for every method: what a function at its reserved concurrency answers
 * (10 instances x 50 requests/s). Beyond it API Gateway answers 429 itself, before Lambda would
 * throttle the invocation into a 5xx. Per-key throttling comes on top for the merchant API.
 */
export const STAGE_METHOD_THROTTLE = {
  ratePerSecond: CONCURRENCY.perFunction * TABLE_CAPACITY_BASIS.requestsPerInstancePerSecond,
  burst: CONCURRENCY.perFunction * TABLE_CAPACITY_BASIS.requestsPerInstancePerSecond,
} as const;

/**
 * Routes without an API key (checkout pages, docs, the OpenAPI document) serve anonymous clients,
 * so they are limited per method for all clients together and per client address. An open
 * checkout page polls its status every 2 s: 200 requests/s on one route is 400 customers watching
 * their invoices at once. A client address may send 1,500 requests in 5 minutes (5 a second), room
 * for about ten customers behind one address; past it, its requests to these routes are refused
 * until its rate drops.
 */
export const PUBLIC_ROUTE_THROTTLE = {
  ratePerSecond: 200,
  burst: 400,
  perAddress: { requests: 1_500, windowSeconds: 300 },
} as const;

/** The throttle of a route's method: its own for a route without a key, the stage's otherwise. */
export const methodThrottleOf = (route: Pick<HttpRoute, 'auth'>): { ratePerSecond: number; burst: number } => (route.auth === 'none' ? PUBLIC_ROUTE_THROTTLE : STAGE_METHOD_THROTTLE);

/**
 * Providers' events come from a few addresses, in bursts when a provider catches up
 * (docs/provider-protocol.md): an address may send 6,000 in 5 minutes (20 a second) before the web ACL answers 429, and
 * the provider sends again later with the same `webhook-id`.
 */
export const PROVIDER_EVENTS_THROTTLE = { perAddress: { requests: 6_000, windowSeconds: 300 } } as const;

/**
 * Dashboard sign-ins and invitations taken (docs/merchant-guide.md#signing-in): an address may post 20 in 5 minutes
 * before the web ACL answers 429, beside the lockout of an account after five failures: guessing
 * across many accounts from one address is slowed as well as guessing one.
 */
export const DASHBOARD_SIGN_IN_THROTTLE = { perAddress: { requests: 20, windowSeconds: 300 } } as const;

/** The dashboard's pages that take a password, under `/dashboard/`: what the sign-in rate rule counts. */
export const DASHBOARD_SIGN_IN_PAGES = ['sign-in', 'join/{token}'] as const;

/** Messages of the errors the gateway itself (not a function) answers with. */
export const GATEWAY_MESSAGES = {
  routeNotFound: 'Route not found',
  methodNotAllowed: 'Method not allowed',
  tooManyRequests: 'Too many requests',
  payloadTooLarge: 'Request body too large',
  headersTooLarge: 'Request header fields too large',
  malformedRequest: 'Malformed request',
  requestTimeout: 'The request did not arrive in time',
} as const;

/** API Gateway's own ceiling on a request body. */
export const MAX_PAYLOAD_BYTES = 10 * 1024 * 1024;

/**
 * The most a synchronous Lambda invocation carries: the whole event JSON, not only the body.
 * API Gateway invokes every route's function synchronously; a larger event fails the request
 * (a 5xx), so every route's body limit must leave the event below this.
 */
export const LAMBDA_SYNC_PAYLOAD_BYTES = 6_291_456;

/**
 * Allowance for everything in a proxy event besides the body: the headers (API Gateway takes at
 * most 10,240 bytes of request line and headers) twice, as `headers` and `multiValueHeaders`, each
 * possibly doubled by JSON escaping, plus the request context, the authorizer's context and the
 * path and query parameters (a few KiB).
 */
export const EVENT_OVERHEAD_BYTES = 64 * 1024;

/**
 * How much a body can grow as the event's JSON string, assumed: the routes take JSON or form
 * bodies, UTF-8 text in which JSON escapes only `"`, `\` and the whitespace controls tab, CR and LF
 * (one byte becoming two), and keeps every other character, non-ASCII included, as its UTF-8 bytes.
 * A body of other control characters could grow up to sixfold (`\u0001`); its event can then exceed
 * the invocation limit and fail as Lambda fails it, and the local runtime checks the serialized
 * event to fail it alike.
 */
export const BODY_ESCAPE_FACTOR = 2;

/** The largest proxy event a body limit allows, by the assumptions above. */
export const eventBytesBound = (maxBodyBytes: number): number => maxBodyBytes * BODY_ESCAPE_FACTOR + EVENT_OVERHEAD_BYTES;
