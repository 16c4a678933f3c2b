/**
 * What a function of the gateway is: an HTTP route, the authorizer, or a function run on a
 * schedule or a queue, with what it may touch. Each capability declares its own functions in this
 * folder (shared/routes/<capability>.ts); shared/routes.ts gathers them into the one table the CDK
 * stacks and the local runtime are built from.
 */
import type { QueueName } from '../queue/queues.js';
import type { ApiKeyScope } from '../domain/merchants/index.js';
import { STAGES, type Stage } from '../stage.js';
import type { TABLES, TableKey } from '../store/tables.js';

/**
 * The DynamoDB actions a function may take on a table, each one it calls (a transaction's Put,
 * Update, Delete and ConditionCheck items need PutItem, UpdateItem, DeleteItem and
 * ConditionCheckItem). No Scan: every read is by key, a Query of the table's own key range
 * (`Query` here: a partition's items in sort-key order, as the day totals are read), or a Query of
 * an index in `queries`.
 */
export type TableAction = 'GetItem' | 'BatchGetItem' | 'Query' | 'ConditionCheckItem' | 'PutItem' | 'UpdateItem' | 'DeleteItem';

/**
 * What Powertools' idempotency records take: read, claim (a conditional Put), complete (Update),
 * and delete when the request fails, so that its retry runs.
 */
export const IDEMPOTENCY_RECORDS: readonly TableAction[] = ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'];

/** What converting at live prices takes: the newest price of each currency, read in one batch. */
export const LIVE_PRICES: readonly TableAction[] = ['BatchGetItem'];

/**
 * What moving a merchant's money takes: its balance read by key and written conditionally, and the
 * entries, each put once, in the same transaction as the state they account for.
 */
export const POSTS_TO_BALANCES = { balances: ['GetItem', 'PutItem'], balanceEntries: ['PutItem'] } as const satisfies Partial<Record<TableKey, readonly TableAction[]>>;

/**
 * What counting towards a merchant's day totals takes (shared/store/daily-totals.ts): an ADD to
 * their items, in the same transaction as the change counted. Creating an invoice counts it;
 * confirming a deposit counts its amount, and the invoice it completes.
 */
export const COUNTS_DAY_TOTALS = { dailyTotals: ['UpdateItem'] } as const satisfies Partial<Record<TableKey, readonly TableAction[]>>;

/** The names of a table's global secondary indexes. */
type IndexNameOf<K extends TableKey> = (typeof TABLES)[K] extends { indexes: ReadonlyArray<{ name: infer Name }> } ? Name : never;

/** Per table, the indexes a function queries. */
export type TableQueries = { [K in TableKey]?: ReadonlyArray<IndexNameOf<K>> };

export interface FunctionDefinition {
  /** verb-noun; also the file name under `functions/`. */
  name: string;
  /** Stages that deploy this function; the local runtime runs the `demo` set. */
  stages: readonly Stage[];
  /** Least privilege: the tables this function touches, and the actions it calls on each. */
  tables: Partial<Record<TableKey, readonly TableAction[]>>;
  /** The indexes it queries: Query is allowed on these and nowhere else (no table is ever scanned). */
  queries?: TableQueries;
  /** Queues the function sends to. */
  sendsTo?: readonly QueueName[];
  /**
   * Whether the function seals secrets and stores receipts: the KMS key and the receipts bucket
   * in AWS, the key file and receipts directory locally.
   */
  usesVault?: boolean;
  /**
   * Whether the function opens merchants' sealed callback secrets (to sign callbacks or show a
   * transaction's `hash`): decrypting with the vault's key, nothing more.
   */
  opensCallbackSecrets?: boolean;
  /** Whether the function seals new callback secrets (a rotation): data keys from the vault's key, nothing more. */
  sealsCallbackSecrets?: boolean;
  /** Whether the function derives or looks up deposit addresses: it reads the wallets' extended public keys. */
  readsWalletKeys?: boolean;
  /**
   * Reports' files (docs/merchant-guide.md#reports): `writes` them (the builder) or hands out
   * `links` to them; the reports bucket in AWS, the reports directory locally.
   */
  reportFiles?: 'writes' | 'links';
  /** Whether the function talks to payment providers (docs/operations.md#payment-providers): it reads their secrets from the secret store. */
  usesProviders?: boolean;
  /** Whether the function shows the providers' methods and limits, without talking to them (the docs page). */
  describesProviders?: boolean;
  /** Whether the function draws the hosted checkout's pages, whose payment links name the stage's token contracts. */
  drawsCheckoutPages?: boolean;
  /** Whether the function draws the dashboard's pages, whose transaction hashes link to the stage's block explorers. */
  drawsDashboardPages?: boolean;
  /**
   * Whether the function sends a provider again what it never took (the reconciliation): it opens
   * sealed card numbers and reads receipts, and nothing else of the vault.
   */
  resendsProviderRequests?: boolean;
  /**
   * Whether the function issues and revokes merchants' API keys (`ApiKeyService`): it adds each new
   * key to the stage's usage plan and deletes it there on revocation (API Gateway's key APIs, and
   * the SSM parameter naming the plan, in AWS). Its `tables` still name the key table's actions.
   */
  managesApiKeys?: boolean;
  /**
   * Whether the function sends payouts from the treasury: it alone may sign with the treasury's
   * KMS keys (`kms:Sign`, `kms:GetPublicKey`; docs/architecture.md#the-treasury-signer).
   */
  signsPayouts?: boolean;
  /**
   * Whether the function reads the treasury's addresses without signing (the watcher following
   * payouts, the routes that quote their network fee): it may read the treasury keys' public halves
   * (`kms:GetPublicKey`), never sign.
   */
  readsTreasuryKeys?: boolean;
  /**
   * Whether the function signs transaction receipts: it alone may sign with the stage's receipt key
   * (`kms:Sign`, `kms:GetPublicKey` in AWS; the key files locally).
   */
  signsReceipts?: boolean;
  /**
   * Whether the function lists the receipt keys' public halves (the JWKS): `kms:GetPublicKey` on the
   * current key and on the retired ones, which the stage's configuration names, never a signature.
   */
  listsReceiptKeys?: boolean;
  /**
   * Whether the function talks to the networks' nodes beside the chain watcher (a payout's fee
   * quote, its sending): it reads their endpoints from the stage's configuration.
   */
  usesChainNodes?: boolean;
  timeoutSeconds?: number;
  memoryMb?: number;
}

/** Whether the function reads the stage's providers: to route payments and talk to them, or to describe their limits. */
export const readsProviders = (definition: GatewayFunction): boolean => Boolean(definition.usesProviders || definition.describesProviders);

/**
 * Whether the function reads the stage's configuration (docs/operations.md#stage-configuration):
 * its providers, its tokens in the checkout's payment links, its block explorers in the dashboard's
 * pages, the retired receipt keys of the JWKS, or, for the chain watcher, its networks' endpoints. In AWS it reads its SSM parameter when its container loads.
 */
export const readsStageConfiguration = (definition: GatewayFunction): boolean =>
  readsProviders(definition) || Boolean(definition.drawsCheckoutPages || definition.drawsDashboardPages || definition.listsReceiptKeys) || readsChainEndpoints(definition);

/** Whether the function is the chain watcher, run per watched network. */
export const watchesChains = (definition: GatewayFunction): boolean => definition.kind === 'schedule' && Boolean(definition.perNetwork);

/** Whether the function reads the networks' node endpoints: the chain watcher, and what quotes and sends payouts. */
export const readsChainEndpoints = (definition: GatewayFunction): boolean => watchesChains(definition) || Boolean(definition.usesChainNodes);

export type HttpMethod = 'GET' | 'POST' | 'PATCH';

/**
 * Who may call a route. `apiKey`: the request passes the authorizer, which resolves the key's
 * merchant, scopes and allowed addresses, and the key must have the route's `scope`
 * (docs/merchant-guide.md#key-scopes); `none`: anyone (customers' pages, providers' events, docs).
 */
export type RouteAccess = { auth: 'apiKey'; scope: ApiKeyScope } | { auth: 'none'; scope?: never };

interface HttpRouteDefinition extends FunctionDefinition {
  kind: 'http';
  method: HttpMethod;
  /** API Gateway path template, e.g. `/api/v2/invoices/{invoiceId}`. */
  path: string;
  /**
   * Largest request body accepted, in bytes: above it the gateway tier answers 413 before any
   * function runs. Its proxy event must fit a synchronous invocation (`eventBytesBound`).
   */
  maxBodyBytes?: number;
  /** The answer holds a secret shown once, so it is never stored to be replayed for an `Idempotency-Key`. */
  answersSecret?: boolean;
  /** The route refuses a request without `Idempotency-Key` (400): what it starts must never start twice. */
  requiresIdempotencyKey?: boolean;
  /** Deprecated (docs/merchant-guide.md#withdrawals-deprecated): every answer of its function carries `Deprecation: true`. */
  deprecated?: boolean;
  /** Called by payment providers, not merchants or customers: it has a rate rule of its own in the web ACL. */
  calledByProviders?: boolean;
}

export type HttpRoute = HttpRouteDefinition & RouteAccess;

/** POSTs with a key answer a repeated `Idempotency-Key` with their first response (docs/merchant-guide.md#idempotency), unless that holds a secret. */
export const replaysIdempotencyKey = (route: HttpRoute): boolean => route.method === 'POST' && route.auth === 'apiKey' && !route.answersSecret;

export interface AuthorizerFunction extends FunctionDefinition {
  kind: 'authorizer';
}

export interface ScheduledFunction extends FunctionDefinition {
  kind: 'schedule';
  /** Every this many seconds (EventBridge rate in AWS, a timer locally); whole minutes. */
  everySeconds: number;
  /** How often the local runtime runs it, when more often than EventBridge could. */
  localEverySeconds?: number;
  /**
   * Runs once per configured network (one schedule each, the event `{ network }`), instead of
   * once: the chain watcher.
   */
  perNetwork?: boolean;
  /** Scheduled only where the stage prices currencies live (GATEWAY_RATES_URL); deployed and idle elsewhere. */
  onlyWithLiveRates?: boolean;
}

/** Consumes its queue in batches, reporting partial batch failures. */
export interface QueueFunction extends FunctionDefinition {
  kind: 'queue';
  queue: QueueName;
  batchSize: number;
  /** Whether the function moves messages to the queue's dead-letter queue itself. */
  parksMessages?: boolean;
  /** Whether the function schedules a message's next attempt itself, hiding it until then (ChangeMessageVisibility). */
  delaysRetries?: boolean;
}

export type GatewayFunction = HttpRoute | AuthorizerFunction | ScheduledFunction | QueueFunction;

/** Deployed on every stage. */
export const BOTH: readonly Stage[] = STAGES;
/** Deployed on the demo stage only: the simulation API (docs/operations.md#deploying). */
export const DEMO_ONLY: readonly Stage[] = ['demo'];
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024;

export const maxBodyBytesOf = (route: HttpRoute): number => route.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
