import { STAGES, type Stage } from './routes.js';

/**
 * Settings of the platform around the functions that the AWS stacks and the local runtime must
 * agree on: one definition, imported by both.
 */

/** The service name of logs, traces and metrics, and the stacks' `service` tag. */
export const SERVICE_NAME = 'payment-gateway';

/** The CloudWatch namespace of the business metrics the functions emit and the stacks plot. */
export const METRICS_NAMESPACE = 'PaymentGateway';

export interface BusinessMetricDefinition {
  name: string;
  unit: 'Count' | 'Milliseconds' | 'Seconds';
  /** The dimension besides `service` and `stage`, when the metric has one. */
  dimension?: string;
}

/** Every business metric, by what it counts or measures: one definition for the emitters and the dashboards. */
export const BUSINESS_METRICS = {
  /** An invoice created (not a replay), by payment method (`crypto` or a fiat method code). */
  invoicesCreated: { name: 'InvoicesCreated', unit: 'Count', dimension: 'method' },
  /** A deposit reaching `confirmed`, by source: `simulated`, `fiat` (a provider's decision) or `chain`. */
  depositsConfirmed: { name: 'DepositsConfirmed', unit: 'Count', dimension: 'source' },
  /** A deposit reaching `failed`, by source. */
  depositsFailed: { name: 'DepositsFailed', unit: 'Count', dimension: 'source' },
  callbacksDelivered: { name: 'CallbacksDelivered', unit: 'Count' },
  /** A delivery attempt that failed and will be retried. */
  callbacksFailed: { name: 'CallbacksFailed', unit: 'Count' },
  /** A callback given up on after its 72-hour window, parked in the dead-letter queue. */
  callbacksParked: { name: 'CallbacksParked', unit: 'Count' },
  /** From the state change a callback announces to its delivery: what a merchant waits. */
  callbackDeliveryLatency: { name: 'CallbackDeliveryLatency', unit: 'Milliseconds' },
  /** After each fetch-rates run, the age of the oldest live price (a price never fetched leaves the run without one). */
  rateAge: { name: 'RateAge', unit: 'Seconds' },
} as const satisfies Record<string, BusinessMetricDefinition>;

/** Lambda settings for functions whose route-table entry names none. */
export const FUNCTION_DEFAULTS = { timeoutSeconds: 10, memoryMb: 512 } as const;

/** Decisions 12: 50 requests per second per API key, bursts of 100. */
export const PER_KEY_THROTTLE = { ratePerSecond: 50, burst: 100 } as const;

/** Messages of the errors the gateway itself (not a function) answers with. */
export const GATEWAY_MESSAGES = {
  routeNotFound: 'Route not found',
  methodNotAllowed: 'Method not allowed',
  tooManyRequests: 'Too many requests',
  payloadTooLarge: 'Request body too large',
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

export interface QueueDefinition {
  /** Queue name (the dead-letter queue is `{name}-dlq`). */
  name: string;
  /** Environment variables carrying the queue's and its dead-letter queue's URLs. */
  urlVariable: string;
  deadLetterUrlVariable: string;
  stages: readonly Stage[];
  /**
   * At least six times its consumer's timeout plus the consumer's batching window (AWS's guidance
   * for Lambda's SQS event sources: room for the poller's retries when the function is throttled),
   * so a message is never handled twice at once.
   */
  visibilityTimeoutSeconds: number;
  /** Receives after which SQS moves a message to the dead-letter queue. */
  maxReceiveCount: number;
}

/** Every queue, defined once for the AWS stacks and the local runtime. */
export const QUEUES = {
  callbacks: {
    name: 'callbacks',
    urlVariable: 'CALLBACK_QUEUE_URL',
    deadLetterUrlVariable: 'CALLBACK_DLQ_URL',
    stages: STAGES,
    // send-callback: 6 x 30 s + 1 s batching window, rounded up. A callback's retry delay is set
    // per message by the sender, so this only delays the redelivery of a batch whose invocation failed.
    visibilityTimeoutSeconds: 190,
    // A safety net for messages that crash the sender: above the ~28 receives of the 72-hour
    // retry schedule, after which the sender parks a message itself.
    maxReceiveCount: 40,
  },
  /** The demo provider's decisions on UTRs, each delayed by GATEWAY_PROVIDER_DELAY_S. */
  fiatDecisions: {
    name: 'fiat-decisions',
    urlVariable: 'FIAT_DECISION_QUEUE_URL',
    deadLetterUrlVariable: 'FIAT_DECISION_DLQ_URL',
    stages: ['demo'],
    // decide-fiat-payments: 6 x 10 s + 1 s batching window, rounded up.
    visibilityTimeoutSeconds: 70,
    maxReceiveCount: 5,
  },
} as const satisfies Record<string, QueueDefinition>;

export type QueueName = keyof typeof QUEUES;

/** The callbacks queue's settings, which other settings are reasoned against. */
export const CALLBACK_QUEUE = QUEUES.callbacks;

/** Blocks one chain-watcher run reads at most; a network further behind catches up over several runs. */
export const CHAIN_BLOCKS_PER_RUN = 200;
