import { STAGES, type Stage } from '../stage.js';

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
  /**
   * How long its consumer's event source waits to fill a batch (Lambda's batching window; the
   * local runtime's poller waits alike). Zero where a message's latency matters more than the
   * invocations a fuller batch saves.
   */
  batchingWindowSeconds: number;
  /**
   * A FIFO queue: each message group's messages are handed over one at a time, in order (its
   * name, and its dead-letter queue's, end in `.fifo`). Lambda takes no batching window from one.
   */
  fifo?: boolean;
  /**
   * Its URLs are in the environment of the functions that send to it or consume it alone (Lambda's
   * environment holds 4 KB); the others' are everywhere, where the shared configuration reads them.
   */
  namedWhereUsed?: true;
}

/** Every queue, defined once for the AWS stacks and the local runtime. */
export const QUEUES = {
  callbacks: {
    name: 'callbacks',
    urlVariable: 'CALLBACK_QUEUE_URL',
    deadLetterUrlVariable: 'CALLBACK_DLQ_URL',
    stages: STAGES,
    // send-callback: 6 x 30 s, and no batching window. A callback's retry delay is set per
    // message by the sender, so this only delays the redelivery of a batch whose invocation failed.
    visibilityTimeoutSeconds: 180,
    // A safety net for messages that crash the sender: above the ~28 receives of the 72-hour
    // retry schedule, after which the sender parks a message itself.
    maxReceiveCount: 40,
    // A merchant's callback goes as soon as it is queued: it does not wait for other merchants'
    // callbacks to fill a batch. A burst still arrives in batches, up to the sender's batch size.
    batchingWindowSeconds: 0,
  },
  reports: {
    name: 'reports',
    urlVariable: 'REPORT_QUEUE_URL',
    deadLetterUrlVariable: 'REPORT_DLQ_URL',
    stages: STAGES,
    // build-report: 6 x 300 s + 1 s batching window.
    visibilityTimeoutSeconds: 1801,
    // A report that failed three times is failed for its merchant, who may ask again.
    maxReceiveCount: 3,
    // Reports are built minutes long: a second spent gathering requests costs nothing noticeable.
    batchingWindowSeconds: 1,
  },
  payouts: {
    name: 'payouts',
    urlVariable: 'PAYOUT_QUEUE_URL',
    deadLetterUrlVariable: 'PAYOUT_DLQ_URL',
    stages: STAGES,
    // One sender per (treasury, network), so that a nonce or a coin is never used twice
    // (decisions on crypto payouts): the group is the network, each message a payout to send or
    // a stuck transaction to replace, deduplicated by what it asks.
    fifo: true,
    namedWhereUsed: true,
    // send-payout: 6 x 60 s. A payout the treasury cannot pay yet waits this long between tries,
    // holding its network's later payouts behind it, in order.
    visibilityTimeoutSeconds: 360,
    // About an hour of tries; past it the chain watcher hands the payout over again.
    maxReceiveCount: 10,
    batchingWindowSeconds: 0,
  },
} as const satisfies Record<string, QueueDefinition>;

/** The queue's name in SQS: a FIFO queue's ends in `.fifo`. */
export const queueNameOf = (definition: QueueDefinition): string => (definition.fifo ? `${definition.name}.fifo` : definition.name);

/** Its dead-letter queue's, of the same kind. */
export const deadLetterQueueNameOf = (definition: QueueDefinition): string => (definition.fifo ? `${definition.name}-dlq.fifo` : `${definition.name}-dlq`);

export type QueueName = keyof typeof QUEUES;

/** The callbacks queue's settings, which other settings are reasoned against. */
export const CALLBACK_QUEUE = QUEUES.callbacks;

/**
 * How long a settled callback (delivered, or skipped for want of a URL) stays in the outbox with
 * the record of its attempts, before DynamoDB's TTL deletes it. Parked callbacks carry no expiry:
 * they wait for an operator's redrive, and expire once that delivery settles.
 */
export const OUTBOX_RETENTION_DAYS = 30;
