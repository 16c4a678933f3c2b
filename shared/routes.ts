/**
 * Every function of the gateway, defined once: the HTTP routes and the functions that run on a
 * schedule or a queue. The CDK stacks and the local runtime are both built from this table. A
 * function's code is `functions/{name}.ts`, exporting `handler`.
 */
import type { QueueName } from './queue/queues.js';
import type { ApiKeyScope } from './domain/merchants/index.js';
import { STAGES, type Stage } from './stage.js';
import type { TABLES, TableKey } from './store/tables.js';

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
const IDEMPOTENCY_RECORDS: readonly TableAction[] = ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'];

/** What converting at live prices takes: the newest price of each currency, read in one batch. */
const LIVE_PRICES: readonly TableAction[] = ['BatchGetItem'];

/**
 * What moving a merchant's money takes: its balance read by key and written conditionally, and the
 * entries, each put once, in the same transaction as the state they account for.
 */
const POSTS_TO_BALANCES = { balances: ['GetItem', 'PutItem'], balanceEntries: ['PutItem'] } as const satisfies Partial<Record<TableKey, readonly TableAction[]>>;

/**
 * What counting towards a merchant's day totals takes (shared/store/daily-totals.ts): an ADD to
 * their items, in the same transaction as the change counted. Creating an invoice counts it;
 * confirming a deposit counts its amount, and the invoice it completes.
 */
const COUNTS_DAY_TOTALS = { dailyTotals: ['UpdateItem'] } as const satisfies Partial<Record<TableKey, readonly TableAction[]>>;

/** The names of a table's global secondary indexes. */
type IndexNameOf<K extends TableKey> = (typeof TABLES)[K] extends { indexes: ReadonlyArray<{ name: infer Name }> } ? Name : never;

/** Per table, the indexes a function queries. */
export type TableQueries = { [K in TableKey]?: ReadonlyArray<IndexNameOf<K>> };

interface FunctionDefinition {
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
  timeoutSeconds?: number;
  memoryMb?: number;
}

/** Whether the function reads the stage's providers: to route payments and talk to them, or to describe their limits. */
export const readsProviders = (definition: GatewayFunction): boolean => Boolean(definition.usesProviders || definition.describesProviders);

/**
 * Whether the function reads the stage's configuration (docs/operations.md#stage-configuration):
 * its providers, its tokens in the checkout's payment links, or, for the chain watcher, its
 * networks' endpoints. In AWS it reads its SSM parameter when its container loads.
 */
export const readsStageConfiguration = (definition: GatewayFunction): boolean => readsProviders(definition) || Boolean(definition.drawsCheckoutPages) || watchesChains(definition);

/** Whether the function is the chain watcher, run per watched network: it alone reads the networks' node endpoints. */
export const watchesChains = (definition: GatewayFunction): boolean => definition.kind === 'schedule' && Boolean(definition.perNetwork);

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

const BOTH: readonly Stage[] = STAGES;
const DEMO_ONLY: readonly Stage[] = ['demo'];
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024;

export const maxBodyBytesOf = (route: HttpRoute): number => route.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;

export const FUNCTIONS = [
  {
    kind: 'authorizer',
    name: 'authorize-merchant',
    stages: BOTH,
    // Reads the key by its digest; records its last use, at most once an hour (a conditional update).
    tables: { apiKeys: ['GetItem', 'UpdateItem'] },
  },
  {
    kind: 'http',
    name: 'create-invoice',
    method: 'POST',
    path: '/api/v2/invoices',
    auth: 'apiKey',
    scope: 'payments',
    stages: BOTH,
    // An order's invoice, its claim and its count in the day totals are written together; a
    // repeated order reads them back.
    // Amounts in another currency than the invoice's are converted at the live prices. A
    // direct-open fiat invoice gets its payment at the provider at once, kept on the invoice.
    usesProviders: true,
    tables: {
      invoices: ['GetItem', 'PutItem', 'UpdateItem'],
      uniques: ['GetItem', 'PutItem'],
      idempotency: IDEMPOTENCY_RECORDS,
      wallets: ['GetItem', 'PutItem', 'UpdateItem'],
      rates: LIVE_PRICES,
      ...COUNTS_DAY_TOTALS,
    },
    readsWalletKeys: true,
  },
  {
    kind: 'http',
    name: 'get-invoice',
    method: 'GET',
    path: '/api/v2/invoices/{invoiceId}',
    auth: 'apiKey',
    scope: 'read',
    stages: BOTH,
    tables: { invoices: ['GetItem'] },
  },
  {
    kind: 'http',
    name: 'get-transaction',
    method: 'GET',
    path: '/api/v2/transaction/{transactionId}',
    auth: 'apiKey',
    scope: 'read',
    stages: BOTH,
    opensCallbackSecrets: true,
    tables: { transactions: ['GetItem'], merchants: ['GetItem'] },
  },
  {
    kind: 'http',
    name: 'simulate-deposit',
    method: 'POST',
    path: '/api/v2/simulate/deposit',
    auth: 'apiKey',
    scope: 'payments',
    stages: DEMO_ONLY,
    opensCallbackSecrets: true,
    // A deposit sent with an Idempotency-Key claims it in uniques within the same write; a retry
    // reads the claim and the transaction it names.
    // A deposit in another currency than its invoice's is valued at the current rates. A confirmed
    // one credits the merchant's balance in the same write.
    tables: {
      invoices: ['GetItem', 'UpdateItem'],
      transactions: ['GetItem', 'PutItem'],
      uniques: ['GetItem', 'PutItem'],
      outbox: ['PutItem', 'UpdateItem'],
      merchants: ['GetItem'],
      idempotency: IDEMPOTENCY_RECORDS,
      rates: LIVE_PRICES,
      ...POSTS_TO_BALANCES,
      ...COUNTS_DAY_TOTALS,
    },
    sendsTo: ['callbacks'],
  },
  {
    kind: 'http',
    name: 'simulate-withdrawal',
    method: 'POST',
    path: '/api/v2/simulate/withdrawal',
    auth: 'apiKey',
    scope: 'payments',
    stages: DEMO_ONLY,
    opensCallbackSecrets: true,
    // The outcome pays the reserve out, or releases it.
    tables: { transactions: ['GetItem', 'PutItem'], outbox: ['PutItem', 'UpdateItem'], merchants: ['GetItem'], idempotency: IDEMPOTENCY_RECORDS, ...POSTS_TO_BALANCES },
    sendsTo: ['callbacks'],
  },
  {
    kind: 'http',
    name: 'confirm-deposit',
    method: 'POST',
    path: '/api/v2/gateway9/deposit/confirm',
    auth: 'apiKey',
    scope: 'payments',
    stages: BOTH,
    // A receipt of RECEIPT_MAX_BYTES (2 MiB) is 2.67 MiB of base64; the rest is room for the other fields.
    maxBodyBytes: 2.75 * 1024 * 1024,
    // The deposit is written with its claims and the invoice's new transaction id, in one
    // transaction; the invoice gets its payment at the provider first when it has none, and the
    // deposit records when the provider took the UTR.
    tables: { invoices: ['GetItem', 'UpdateItem'], transactions: ['PutItem', 'UpdateItem'], uniques: ['GetItem', 'PutItem'], merchants: ['GetItem'], idempotency: IDEMPOTENCY_RECORDS },
    usesProviders: true,
    usesVault: true,
    // A payment made at the provider, then the UTR sent to it: PROVIDER_TIMEOUT_MS each at most.
    timeoutSeconds: 25,
  },
  {
    kind: 'http',
    name: 'create-withdrawal',
    method: 'POST',
    path: '/api/v2/withdrawal',
    auth: 'apiKey',
    scope: 'payouts',
    stages: BOTH,
    deprecated: true,
    opensCallbackSecrets: true,
    // A withdrawal is valued in USD and EUR at the current rates; it records the provider's reference of its payout.
    // Its reserve is written with it; a refused or lost write reads the orderId's claim to tell a repeat.
    tables: {
      transactions: ['PutItem', 'UpdateItem'],
      uniques: ['GetItem', 'PutItem'],
      merchants: ['GetItem'],
      idempotency: IDEMPOTENCY_RECORDS,
      rates: LIVE_PRICES,
      ...POSTS_TO_BALANCES,
    },
    usesProviders: true,
    usesVault: true,
    // The payout sent to the provider: PROVIDER_TIMEOUT_MS at most.
    timeoutSeconds: 15,
  },
  {
    kind: 'http',
    name: 'get-openapi',
    method: 'GET',
    path: '/api/v2/openapi.json',
    auth: 'none',
    stages: BOTH,
    tables: {},
  },
  {
    kind: 'http',
    name: 'get-docs',
    method: 'GET',
    path: '/docs',
    auth: 'none',
    stages: BOTH,
    describesProviders: true,
    tables: {},
  },
  {
    kind: 'schedule',
    name: 'expire-invoices',
    everySeconds: 60,
    stages: BOTH,
    // Reads each due invoice's owner, which its status index key names, then cancels it conditionally;
    // for a merchant that takes invoice events (its settings read once a sweep), reads the invoice and
    // writes its invoice.expired in the same transaction, then hands it to the queue.
    tables: { invoices: ['GetItem', 'UpdateItem'], merchants: ['GetItem'], outbox: ['PutItem', 'UpdateItem'] },
    queries: { invoices: ['openByExpiry'] },
    sendsTo: ['callbacks'],
    timeoutSeconds: 60,
  },
  {
    // Hands to the queue any callback whose writer died before it could.
    kind: 'schedule',
    name: 'publish-callbacks',
    everySeconds: 60,
    localEverySeconds: 2,
    stages: BOTH,
    tables: { outbox: ['UpdateItem'] },
    queries: { outbox: ['unpublished'] },
    sendsTo: ['callbacks'],
    timeoutSeconds: 60,
  },
  {
    // Reads each configured network (EVM, Bitcoin, Tron) for deposits to customers' addresses (docs/merchant-guide.md#on-chain-deposits).
    kind: 'schedule',
    name: 'watch-chain',
    everySeconds: 60,
    perNetwork: true,
    stages: BOTH,
    // A settlement that changes nothing on the invoice only checks it; a deposit whose block left
    // the chain gives up its claim; a held transfer credited or gone is deleted. A transfer in
    // another currency than its invoice's is valued at the current rates.
    tables: {
      chain: ['GetItem', 'PutItem', 'DeleteItem'],
      wallets: ['GetItem', 'BatchGetItem'],
      invoices: ['GetItem', 'UpdateItem', 'ConditionCheckItem'],
      transactions: ['GetItem', 'PutItem'],
      outbox: ['PutItem', 'UpdateItem'],
      uniques: ['GetItem', 'PutItem', 'DeleteItem'],
      merchants: ['GetItem'],
      rates: LIVE_PRICES,
      ...POSTS_TO_BALANCES,
      ...COUNTS_DAY_TOTALS,
    },
    queries: { chain: ['held'], invoices: ['byCustomer'], transactions: ['pendingOnChain'], wallets: ['ownersByFamily'] },
    sendsTo: ['callbacks'],
    // An invocation polls until one poll interval before the next (chainWatchSecondsOf: 55 s of its
    // minute); the timeout, no longer than the period, cuts off a last run that hangs before the next
    // invocation begins.
    timeoutSeconds: 60,
  },
  {
    // Stores the newest price of every currency priced live, so invoices never convert at a stale one.
    kind: 'schedule',
    name: 'fetch-rates',
    everySeconds: 60,
    onlyWithLiveRates: true,
    stages: BOTH,
    // Each price is a conditional put; then all are read back to report the oldest one's age.
    tables: { rates: ['PutItem', 'BatchGetItem'] },
    // The ticker request is bounded by TICKER_TIMEOUT_MS; the writes are a few conditional puts.
    timeoutSeconds: 30,
  },
  {
    kind: 'queue',
    name: 'send-callback',
    queue: 'callbacks',
    batchSize: 10,
    parksMessages: true,
    delaysRetries: true,
    stages: BOTH,
    opensCallbackSecrets: true,
    // Counts the timeouts of a merchant's callback URL and pauses its deliveries on the merchant's item.
    tables: { outbox: ['GetItem', 'UpdateItem'], merchants: ['GetItem', 'UpdateItem'] },
    // Deliveries run in parallel, each at most DELIVERY_TIMEOUT_MS.
    timeoutSeconds: 30,
  },
  {
    // A payment provider's decisions (docs/provider-protocol.md#signatures): no key, the provider's signature instead.
    kind: 'http',
    name: 'receive-provider-event',
    method: 'POST',
    path: '/api/v2/providers/{providerId}/events',
    auth: 'none',
    calledByProviders: true,
    stages: BOTH,
    usesProviders: true,
    // A payment's deposit is recorded (with its claim) or settled, a rejected UTR's claim released;
    // a settlement that changes nothing on the invoice only checks it. Confirmed deposits and
    // settled payouts post to the merchant's balance.
    tables: {
      invoices: ['GetItem', 'UpdateItem', 'ConditionCheckItem'],
      transactions: ['GetItem', 'PutItem'],
      uniques: ['GetItem', 'PutItem', 'DeleteItem'],
      outbox: ['PutItem', 'UpdateItem'],
      merchants: ['GetItem'],
      ...POSTS_TO_BALANCES,
      ...COUNTS_DAY_TOTALS,
    },
    sendsTo: ['callbacks'],
  },
  {
    // Settles what a provider's event missed, and sends again what a provider never took (docs/provider-protocol.md#provider-to-gateway-events).
    kind: 'schedule',
    name: 'reconcile-provider-payments',
    everySeconds: 300,
    stages: BOTH,
    usesProviders: true,
    resendsProviderRequests: true,
    tables: {
      invoices: ['GetItem', 'UpdateItem', 'ConditionCheckItem'],
      transactions: ['GetItem', 'PutItem', 'UpdateItem'],
      uniques: ['GetItem', 'PutItem', 'DeleteItem'],
      outbox: ['PutItem', 'UpdateItem'],
      merchants: ['GetItem'],
      ...POSTS_TO_BALANCES,
      ...COUNTS_DAY_TOTALS,
    },
    queries: { invoices: ['awaitingProvider'], transactions: ['awaitingProvider'] },
    sendsTo: ['callbacks'],
    // Each provider call takes at most PROVIDER_TIMEOUT_MS; a run works through every waiting item.
    timeoutSeconds: 300,
  },
  {
    // The hosted checkout: customer-facing pages, no key; the invoice id in the link is the capability.
    kind: 'http',
    name: 'get-checkout',
    method: 'GET',
    path: '/checkout/{invoiceId}',
    auth: 'none',
    stages: BOTH,
    drawsCheckoutPages: true,
    // Opening the page activates a created invoice.
    tables: { invoices: ['GetItem', 'UpdateItem'], merchants: ['GetItem'] },
  },
  {
    kind: 'http',
    name: 'get-checkout-status',
    method: 'GET',
    path: '/checkout/{invoiceId}/status',
    auth: 'none',
    stages: BOTH,
    tables: { invoices: ['GetItem'], merchants: ['GetItem'] },
  },
  {
    kind: 'http',
    name: 'submit-checkout-details',
    method: 'POST',
    path: '/checkout/{invoiceId}/details',
    auth: 'none',
    stages: BOTH,
    drawsCheckoutPages: true,
    tables: { invoices: ['GetItem', 'UpdateItem'], merchants: ['GetItem'] },
  },
  {
    kind: 'http',
    name: 'get-checkout-provider',
    method: 'GET',
    path: '/checkout/{invoiceId}/provider',
    auth: 'none',
    stages: BOTH,
    drawsCheckoutPages: true,
    // Direct-open invoices arrive here first and are activated; the invoice gets its payment at
    // the provider; the UTR claims tell a payment under review.
    tables: { invoices: ['GetItem', 'UpdateItem'], merchants: ['GetItem'], uniques: ['GetItem'] },
    usesProviders: true,
    // The payment made at the provider: PROVIDER_TIMEOUT_MS at most, and the customer is told to try again.
    timeoutSeconds: 15,
  },
  {
    // The transaction-information form of P2P payments (docs/merchant-guide.md#the-hosted-checkout): the customer's UTR, as the merchant's host-to-host call takes it.
    kind: 'http',
    name: 'submit-checkout-utr',
    method: 'POST',
    path: '/checkout/{invoiceId}/utr',
    auth: 'none',
    stages: BOTH,
    drawsCheckoutPages: true,
    tables: { invoices: ['GetItem', 'UpdateItem'], transactions: ['PutItem', 'UpdateItem'], uniques: ['GetItem', 'PutItem'], merchants: ['GetItem'] },
    usesProviders: true,
    usesVault: true,
    // As confirm-deposit: a payment made at the provider, then the UTR sent to it.
    timeoutSeconds: 25,
  },
  {
    kind: 'http',
    name: 'list-invoices',
    method: 'GET',
    path: '/api/v2/invoices',
    auth: 'apiKey',
    scope: 'read',
    stages: BOTH,
    // An orderId is looked up through its uniqueness claim.
    tables: { invoices: ['GetItem'], uniques: ['GetItem'] },
    queries: { invoices: ['byMerchant', 'byMerchantStatus', 'byCustomer'] },
  },
  {
    kind: 'http',
    name: 'list-transactions',
    method: 'GET',
    path: '/api/v2/transactions',
    auth: 'apiKey',
    scope: 'read',
    stages: BOTH,
    opensCallbackSecrets: true,
    // The invoiceId filter checks the invoice is the merchant's.
    tables: { invoices: ['GetItem'], merchants: ['GetItem'] },
    queries: { transactions: ['byMerchant', 'byMerchantStatus', 'byMerchantType', 'byInvoice', 'byOrder'] },
  },
  {
    kind: 'http',
    name: 'list-balances',
    method: 'GET',
    path: '/api/v2/balances',
    auth: 'apiKey',
    scope: 'read',
    stages: BOTH,
    // Every currency's balance read by key in one batch: consistent with the last posting, and no index to keep.
    tables: { balances: ['BatchGetItem'] },
  },
  {
    kind: 'http',
    name: 'list-balance-entries',
    method: 'GET',
    path: '/api/v2/balance/entries',
    auth: 'apiKey',
    scope: 'read',
    stages: BOTH,
    tables: {},
    queries: { balanceEntries: ['byMerchant', 'byMerchantCurrency', 'byMerchantType', 'byTransaction'] },
  },
  {
    kind: 'http',
    name: 'create-report',
    method: 'POST',
    path: '/api/v2/reports',
    auth: 'apiKey',
    scope: 'reports',
    stages: BOTH,
    // The report is recorded pending, then queued for its builder; one that cannot be queued is failed.
    tables: { reports: ['PutItem', 'UpdateItem'], idempotency: IDEMPOTENCY_RECORDS },
    sendsTo: ['reports'],
  },
  {
    kind: 'http',
    name: 'get-report',
    method: 'GET',
    path: '/api/v2/reports/{reportId}',
    auth: 'apiKey',
    scope: 'read',
    stages: BOTH,
    tables: { reports: ['GetItem'] },
    reportFiles: 'links',
  },
  {
    // Builds a report's CSV file off the request path, streaming its rows into the file a part at a
    // time; a report bigger than one invocation builds is queued again, and the next goes on with it.
    kind: 'queue',
    name: 'build-report',
    queue: 'reports',
    batchSize: 1,
    stages: BOTH,
    tables: { reports: ['GetItem', 'UpdateItem'] },
    queries: { transactions: ['byMerchant'], balanceEntries: ['byMerchant', 'byMerchantCurrency'] },
    reportFiles: 'writes',
    sendsTo: ['reports'],
    // Four minutes of work an invocation, then BUILD_RESERVE_MS (functions/build-report.ts) to finish
    // the part under way and hand the rest on; memory for a part and the rows being read.
    timeoutSeconds: 300,
    memoryMb: 512,
  },
  {
    // The books balance (docs/operations.md#the-hourly-check): per merchant and currency, the entries sum to the balance, and every settled transaction has its entries.
    kind: 'schedule',
    name: 'check-books',
    everySeconds: 3600,
    stages: BOTH,
    // The changes since the last run, then the full pass (every merchant's books) for the time left:
    // balances read by key and their entries in order of sequence from where the last reading
    // stopped (booksCheck keeps where), the entries a transaction calls for asked by key. A
    // merchant whose books differ has its payouts held, on its item (shared/domain/ledger/books-hold.ts).
    tables: { balances: ['GetItem'], balanceEntries: ['BatchGetItem'], merchants: ['UpdateItem'], booksCheck: ['GetItem', 'PutItem', 'UpdateItem'] },
    queries: { merchants: ['directory'], transactions: ['changes', 'byMerchant'], balances: ['changes'], balanceEntries: ['bySequence'] },
    // Ten minutes of work a run, then BOOKS_CHECK_RESERVE_MS (functions/check-books.ts) to finish
    // the step under way and save where the next run goes on.
    timeoutSeconds: 720,
    memoryMb: 512,
  },
  {
    kind: 'http',
    name: 'list-transaction-callbacks',
    method: 'GET',
    path: '/api/v2/transaction/{transactionId}/callbacks',
    auth: 'apiKey',
    scope: 'read',
    stages: BOTH,
    // The merchant's item tells whether deliveries to its callback URL are paused.
    tables: { transactions: ['GetItem'], outbox: ['BatchGetItem'], merchants: ['GetItem'] },
    queries: { outbox: ['byTransaction'] },
  },
  {
    kind: 'http',
    name: 'resend-transaction-callback',
    method: 'POST',
    path: '/api/v2/transaction/{transactionId}/callbacks/resend',
    auth: 'apiKey',
    scope: 'settings',
    stages: BOTH,
    tables: { transactions: ['GetItem'], outbox: ['GetItem', 'BatchGetItem', 'UpdateItem'], merchants: ['GetItem'], idempotency: IDEMPOTENCY_RECORDS },
    queries: { outbox: ['byTransaction'] },
    sendsTo: ['callbacks'],
  },
  {
    kind: 'http',
    name: 'list-invoice-callbacks',
    method: 'GET',
    path: '/api/v2/invoices/{invoiceId}/callbacks',
    auth: 'apiKey',
    scope: 'read',
    stages: BOTH,
    // The invoice's owner first; the merchant's item tells whether deliveries to its callback URL are paused.
    tables: { invoices: ['GetItem'], outbox: ['BatchGetItem'], merchants: ['GetItem'] },
    queries: { outbox: ['byInvoice'] },
  },
  {
    kind: 'http',
    name: 'resend-invoice-callback',
    method: 'POST',
    path: '/api/v2/invoices/{invoiceId}/callbacks/resend',
    auth: 'apiKey',
    scope: 'settings',
    stages: BOTH,
    tables: { invoices: ['GetItem'], outbox: ['GetItem', 'BatchGetItem', 'UpdateItem'], merchants: ['GetItem'], idempotency: IDEMPOTENCY_RECORDS },
    queries: { outbox: ['byInvoice'] },
    sendsTo: ['callbacks'],
  },
  {
    kind: 'http',
    name: 'send-test-callback',
    method: 'POST',
    path: '/api/v2/webhooks/test',
    auth: 'apiKey',
    scope: 'settings',
    stages: BOTH,
    opensCallbackSecrets: true,
    tables: { merchants: ['GetItem'], idempotency: IDEMPOTENCY_RECORDS },
    // Waits for the merchant's answer, at most DELIVERY_TIMEOUT_MS.
    timeoutSeconds: 15,
  },
  {
    kind: 'http',
    name: 'get-merchant',
    method: 'GET',
    path: '/api/v2/merchant',
    auth: 'apiKey',
    scope: 'read',
    stages: BOTH,
    tables: { merchants: ['GetItem'] },
  },
  {
    kind: 'http',
    name: 'update-merchant',
    method: 'PATCH',
    path: '/api/v2/merchant',
    auth: 'apiKey',
    scope: 'settings',
    stages: BOTH,
    tables: { merchants: ['GetItem', 'UpdateItem'] },
  },
  {
    kind: 'http',
    name: 'rotate-callback-secret',
    method: 'POST',
    path: '/api/v2/merchant/callback-secret/rotate',
    auth: 'apiKey',
    scope: 'settings',
    stages: BOTH,
    // Seals the new secret; the old one moves, still sealed, beside it.
    sealsCallbackSecrets: true,
    answersSecret: true,
    tables: { merchants: ['GetItem', 'UpdateItem'] },
  },
  {
    kind: 'http',
    name: 'open-dashboard',
    method: 'GET',
    path: '/dashboard',
    auth: 'none',
    stages: BOTH,
    // Sends the browser on to the overview, which asks for a sign-in when there is no session.
    tables: {},
  },
  {
    kind: 'http',
    name: 'get-dashboard-page',
    method: 'GET',
    path: '/dashboard/{page+}',
    auth: 'none',
    stages: BOTH,
    // Every page reads through the API's own services (docs/merchant-guide.md#dashboard); the
    // session is checked and its idle limit moved on at each page, in the function.
    opensCallbackSecrets: true,
    reportFiles: 'links',
    tables: {
      dashboardSessions: ['GetItem', 'UpdateItem'],
      dashboardUsers: ['GetItem'],
      dashboardInvitations: ['GetItem'],
      merchants: ['GetItem'],
      apiKeys: ['GetItem'],
      invoices: ['GetItem'],
      // The invoices' orderId filter looks the order up through its uniqueness claim, as list-invoices does.
      uniques: ['GetItem'],
      transactions: ['GetItem'],
      outbox: ['BatchGetItem'],
      balances: ['BatchGetItem'],
      reports: ['GetItem'],
      dailyTotals: ['Query'],
    },
    queries: {
      dashboardUsers: ['byMerchant'],
      auditLog: ['byMerchant'],
      apiKeys: ['byMerchant'],
      invoices: ['byMerchant', 'byMerchantStatus', 'byCustomer'],
      transactions: ['byMerchant', 'byMerchantStatus', 'byMerchantType', 'byInvoice', 'byOrder'],
      outbox: ['byTransaction', 'byInvoice'],
      reports: ['byMerchant'],
    },
  },
  {
    kind: 'http',
    name: 'submit-dashboard-form',
    method: 'POST',
    path: '/dashboard/{page+}',
    auth: 'none',
    stages: BOTH,
    // Sign-in opens the user's sealed TOTP seed, joining seals one, and rotating the callback
    // secret seals the merchant's; keys are registered with the gateway's usage plan. Each change
    // is written with its audit entry.
    opensCallbackSecrets: true,
    sealsCallbackSecrets: true,
    managesApiKeys: true,
    sendsTo: ['callbacks', 'reports'],
    tables: {
      dashboardSessions: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
      dashboardUsers: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
      dashboardInvitations: ['GetItem', 'PutItem', 'DeleteItem'],
      auditLog: ['PutItem'],
      merchants: ['GetItem', 'UpdateItem'],
      apiKeys: ['GetItem', 'PutItem', 'UpdateItem'],
      invoices: ['GetItem'],
      transactions: ['GetItem'],
      outbox: ['GetItem', 'BatchGetItem', 'UpdateItem'],
      reports: ['PutItem', 'UpdateItem'],
    },
    queries: {
      dashboardSessions: ['byUser'],
      dashboardUsers: ['byMerchant'],
      auditLog: ['byMerchant'],
      apiKeys: ['byMerchant'],
      outbox: ['byTransaction', 'byInvoice'],
      reports: ['byMerchant'],
    },
  },
] as const satisfies readonly GatewayFunction[];

export type HttpRouteName = Extract<(typeof FUNCTIONS)[number], { kind: 'http' }>['name'];

export const HTTP_ROUTES: readonly HttpRoute[] = FUNCTIONS.filter((f): f is Extract<(typeof FUNCTIONS)[number], { kind: 'http' }> => f.kind === 'http');

export function functionsForStage(stage: Stage): GatewayFunction[] {
  return FUNCTIONS.filter((f) => (f.stages as readonly Stage[]).includes(stage));
}

export function routeByName(name: HttpRouteName): HttpRoute {
  const route = HTTP_ROUTES.find((r) => r.name === name);
  if (!route) throw new Error(`No route named ${name}`);
  return route;
}
