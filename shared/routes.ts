/**
 * Every function of the gateway, defined once: the HTTP routes and the functions that run on a
 * schedule or a queue. The CDK stacks and the local runtime are both built from this table. A
 * function's code is `functions/{name}.ts`, exporting `handler`.
 */
import type { QueueName } from './platform.js';
import type { TableKey } from './store/tables.js';

export const STAGES = ['prod', 'demo'] as const;
export type Stage = (typeof STAGES)[number];

export type TableAccess = 'read' | 'readWrite';

interface FunctionDefinition {
  /** verb-noun; also the file name under `functions/`. */
  name: string;
  /** Stages that deploy this function; the local runtime runs the `demo` set. */
  stages: readonly Stage[];
  /** Least privilege: the tables this function touches, and how. */
  tables: Partial<Record<TableKey, TableAccess>>;
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
  /** Whether the function derives or looks up deposit addresses: it reads the wallets' extended public keys. */
  readsWalletKeys?: boolean;
  timeoutSeconds?: number;
  memoryMb?: number;
}

export type HttpMethod = 'GET' | 'POST';

export interface HttpRoute extends FunctionDefinition {
  kind: 'http';
  method: HttpMethod;
  /** API Gateway path template, e.g. `/api/v2/invoices/{invoiceId}`. */
  path: string;
  /** `apiKey`: the request passes the authorizer, which resolves the merchant. */
  auth: 'apiKey' | 'none';
  /**
   * Largest request body accepted, in bytes: above it the gateway tier answers 413 before any
   * function runs. Its proxy event must fit a synchronous invocation (`eventBytesBound`).
   */
  maxBodyBytes?: number;
}

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
   * Runs once per configured EVM network (one schedule each, the event `{ network }`), instead of
   * once: the chain watcher.
   */
  perEvmNetwork?: boolean;
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
    tables: { apiKeys: 'read' },
  },
  {
    kind: 'http',
    name: 'create-invoice',
    method: 'POST',
    path: '/api/v2/invoices',
    auth: 'apiKey',
    stages: BOTH,
    tables: { invoices: 'readWrite', uniques: 'readWrite', idempotency: 'readWrite', wallets: 'readWrite', rates: 'read' },
    readsWalletKeys: true,
  },
  {
    kind: 'http',
    name: 'get-invoice',
    method: 'GET',
    path: '/api/v2/invoices/{invoiceId}',
    auth: 'apiKey',
    stages: BOTH,
    tables: { invoices: 'read' },
  },
  {
    kind: 'http',
    name: 'get-transaction',
    method: 'GET',
    path: '/api/v2/transaction/{transactionId}',
    auth: 'apiKey',
    stages: BOTH,
    opensCallbackSecrets: true,
    tables: { transactions: 'read', merchants: 'read' },
  },
  {
    kind: 'http',
    name: 'simulate-deposit',
    method: 'POST',
    path: '/api/v2/simulate/deposit',
    auth: 'apiKey',
    stages: DEMO_ONLY,
    opensCallbackSecrets: true,
    // A deposit in another currency than its invoice's is valued at the current rates.
    tables: { invoices: 'readWrite', transactions: 'readWrite', outbox: 'readWrite', merchants: 'read', idempotency: 'readWrite', rates: 'read' },
    sendsTo: ['callbacks'],
  },
  {
    kind: 'http',
    name: 'simulate-withdrawal',
    method: 'POST',
    path: '/api/v2/simulate/withdrawal',
    auth: 'apiKey',
    stages: DEMO_ONLY,
    opensCallbackSecrets: true,
    tables: { transactions: 'readWrite', outbox: 'readWrite', merchants: 'read', idempotency: 'readWrite' },
    sendsTo: ['callbacks'],
  },
  {
    kind: 'http',
    name: 'confirm-deposit',
    method: 'POST',
    path: '/api/v2/gateway9/deposit/confirm',
    auth: 'apiKey',
    stages: BOTH,
    // A receipt of RECEIPT_MAX_BYTES (2 MiB) is 2.67 MiB of base64; the rest is room for the other fields.
    maxBodyBytes: 2.75 * 1024 * 1024,
    tables: { invoices: 'read', transactions: 'readWrite', uniques: 'readWrite', merchants: 'read', idempotency: 'readWrite' },
    sendsTo: ['fiatDecisions'],
    usesVault: true,
  },
  {
    kind: 'http',
    name: 'create-withdrawal',
    method: 'POST',
    path: '/api/v2/withdrawal',
    auth: 'apiKey',
    stages: BOTH,
    opensCallbackSecrets: true,
    // A withdrawal is valued in USD and EUR at the current rates.
    tables: { transactions: 'readWrite', uniques: 'readWrite', merchants: 'read', idempotency: 'readWrite', rates: 'read' },
    usesVault: true,
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
    tables: {},
  },
  {
    kind: 'schedule',
    name: 'expire-invoices',
    everySeconds: 60,
    stages: BOTH,
    tables: { invoices: 'readWrite' },
    timeoutSeconds: 60,
  },
  {
    // Hands to the queue any callback whose writer died before it could.
    kind: 'schedule',
    name: 'publish-callbacks',
    everySeconds: 60,
    localEverySeconds: 2,
    stages: BOTH,
    tables: { outbox: 'readWrite' },
    sendsTo: ['callbacks'],
    timeoutSeconds: 60,
  },
  {
    // Reads each configured EVM network for deposits to customers' addresses (decisions 15).
    kind: 'schedule',
    name: 'watch-chain',
    everySeconds: 60,
    perEvmNetwork: true,
    stages: BOTH,
    tables: { chain: 'readWrite', wallets: 'read', invoices: 'readWrite', transactions: 'readWrite', outbox: 'readWrite', uniques: 'readWrite', merchants: 'read', rates: 'read' },
    sendsTo: ['callbacks'],
    timeoutSeconds: 60,
  },
  {
    // Stores the newest price of every currency priced live, so invoices never convert at a stale one.
    kind: 'schedule',
    name: 'fetch-rates',
    everySeconds: 60,
    onlyWithLiveRates: true,
    stages: BOTH,
    tables: { rates: 'readWrite' },
    // The ticker request is bounded by TICKER_TIMEOUT_MS; the writes are a few conditional puts.
    timeoutSeconds: 30,
  },
  {
    kind: 'queue',
    name: 'send-callback',
    queue: 'callbacks',
    batchSize: 10,
    parksMessages: true,
    stages: BOTH,
    opensCallbackSecrets: true,
    tables: { outbox: 'readWrite', merchants: 'read' },
    // Deliveries run in parallel, each at most DELIVERY_TIMEOUT_MS.
    timeoutSeconds: 30,
  },
  {
    kind: 'queue',
    name: 'decide-fiat-payments',
    queue: 'fiatDecisions',
    batchSize: 10,
    stages: DEMO_ONLY,
    tables: { transactions: 'readWrite', invoices: 'readWrite', outbox: 'readWrite', merchants: 'read' },
    sendsTo: ['callbacks'],
  },
  {
    // The hosted checkout: customer-facing pages, no key; the invoice id in the link is the capability.
    kind: 'http',
    name: 'get-checkout',
    method: 'GET',
    path: '/checkout/{invoiceId}',
    auth: 'none',
    stages: BOTH,
    // Opening the page activates a created invoice.
    tables: { invoices: 'readWrite', merchants: 'read' },
  },
  {
    kind: 'http',
    name: 'get-checkout-status',
    method: 'GET',
    path: '/checkout/{invoiceId}/status',
    auth: 'none',
    stages: BOTH,
    tables: { invoices: 'read', merchants: 'read' },
  },
  {
    kind: 'http',
    name: 'submit-checkout-details',
    method: 'POST',
    path: '/checkout/{invoiceId}/details',
    auth: 'none',
    stages: BOTH,
    tables: { invoices: 'readWrite', merchants: 'read' },
  },
  {
    kind: 'http',
    name: 'get-checkout-provider',
    method: 'GET',
    path: '/checkout/{invoiceId}/provider',
    auth: 'none',
    stages: BOTH,
    // Direct-open invoices arrive here first and are activated; the UTR claims tell a payment under review.
    tables: { invoices: 'readWrite', merchants: 'read', uniques: 'read' },
  },
  {
    // The demo provider's transaction-information form (merchant-api.md 10).
    kind: 'http',
    name: 'submit-checkout-utr',
    method: 'POST',
    path: '/checkout/{invoiceId}/utr',
    auth: 'none',
    stages: DEMO_ONLY,
    tables: { invoices: 'read', transactions: 'readWrite', uniques: 'readWrite', merchants: 'read' },
    sendsTo: ['fiatDecisions'],
    usesVault: true,
  },
  {
    // The demo provider's outcome buttons for the methods without a UTR.
    kind: 'http',
    name: 'simulate-checkout-payment',
    method: 'POST',
    path: '/checkout/{invoiceId}/simulate',
    auth: 'none',
    stages: DEMO_ONLY,
    tables: { invoices: 'readWrite', transactions: 'readWrite', outbox: 'readWrite', merchants: 'read' },
    sendsTo: ['callbacks'],
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
