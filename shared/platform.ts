import { STAGES, type Stage } from './routes.js';

/**
 * Settings of the platform around the functions that the AWS stacks and the local runtime must
 * agree on: one definition, imported by both.
 */

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

export interface QueueDefinition {
  /** Queue name (the dead-letter queue is `{name}-dlq`). */
  name: string;
  /** Environment variables carrying the queue's and its dead-letter queue's URLs. */
  urlVariable: string;
  deadLetterUrlVariable: string;
  stages: readonly Stage[];
  /** Longer than its consumer's timeout, so a message is never handled twice at once. */
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
    visibilityTimeoutSeconds: 60,
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
    visibilityTimeoutSeconds: 60,
    maxReceiveCount: 5,
  },
} as const satisfies Record<string, QueueDefinition>;

export type QueueName = keyof typeof QUEUES;

/** The callbacks queue's settings, which other settings are reasoned against. */
export const CALLBACK_QUEUE = QUEUES.callbacks;
