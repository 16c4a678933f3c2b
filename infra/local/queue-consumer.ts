/**
 * Lambda's SQS event source mapping on one machine: for each queue function, one poller that
 * polls its queue, hands each batch to the function as an SQS event (with a Lambda context,
 * through the runtime's invoker), and deletes the messages the function did not report as batch
 * item failures. As in AWS, the messages of a failed invocation stay on the queue and come back
 * after their visibility timeout, and a function handles up to its reserved concurrency of
 * batches at once: the poller goes on receiving while a slow batch runs, so that batch holds only
 * its own messages, never the queue.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { DeleteMessageBatchCommand, ReceiveMessageCommand, type Message, type MessageAttributeValue, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSEvent, SQSMessageAttributes, SQSRecord, SQSRecordAttributes } from 'aws-lambda';
import { QUEUES } from '../../shared/queue/queues.js';
import type { QueueFunction } from '../../shared/routes.js';
import type { Invoke } from './functions.js';
import type { RuntimeLog } from './log.js';

/**
 * While the function is idle, short polls, paused while the queue is empty. The local server's long
 * poll answers only once it has a full batch or its wait is over (SQS answers as soon as a message
 * is there), so a long poll would hold every lone callback for the whole wait; a pause bounds that
 * delay instead.
 */
const EMPTY_POLL_PAUSE_MS = 100;
/** After a failed SQS call the poller waits this long, doubling up to the maximum. */
const BACKOFF_MS = { initial: 250, max: 5_000 } as const;
/** DeleteMessageBatch takes at most this many entries. */
const DELETE_BATCH_LIMIT = 10;

export interface QueueSource {
  url: string;
  arn: string;
}

export interface QueueConsumerJob {
  fn: QueueFunction;
  source: QueueSource;
  /** The most batches the function handles at once: its reserved concurrency (`reservedConcurrencyOf`). */
  concurrency: number;
}

export interface QueueConsumerOptions {
  sqs: Pick<SQSClient, 'send'>;
  invoke: Invoke;
  log: RuntimeLog;
  region: string;
  /** How long `stop` waits for the batches being handled before it lets go of them. */
  stopGraceMs: number;
}

export interface QueueConsumers {
  /**
   * Ends the polls at once and waits for the batches being handled (at most the grace period; a
   * batch let go of is neither waited for nor deleted, so its messages come back).
   */
  stop(): Promise<void>;
}

/** What the function reported: the ids of the messages to keep, or `all` for the whole batch. */
export type BatchOutcome = { failed: ReadonlySet<string> } | { failed: 'all'; reason: string };

function lambdaMessageAttributes(attributes: Record<string, MessageAttributeValue> | undefined): SQSMessageAttributes {
  return Object.fromEntries(
    Object.entries(attributes ?? {}).map(([name, value]) => [
      name,
      {
        ...(value.StringValue !== undefined ? { stringValue: value.StringValue } : {}),
        ...(value.BinaryValue !== undefined ? { binaryValue: Buffer.from(value.BinaryValue).toString('base64') } : {}),
        stringListValues: value.StringListValues ?? [],
        binaryListValues: (value.BinaryListValues ?? []).map((binary) => Buffer.from(binary).toString('base64')),
        dataType: value.DataType ?? 'String',
      },
    ]),
  );
}

/** A received message as Lambda puts it in an SQS event. */
export function sqsRecord(message: Message, source: QueueSource, region: string): SQSRecord {
  return {
    messageId: message.MessageId!,
    receiptHandle: message.ReceiptHandle!,
    body: message.Body ?? '',
    attributes: (message.Attributes ?? {}) as unknown as SQSRecordAttributes,
    messageAttributes: lambdaMessageAttributes(message.MessageAttributes),
    md5OfBody: message.MD5OfBody ?? '',
    ...(message.MD5OfMessageAttributes ? { md5OfMessageAttributes: message.MD5OfMessageAttributes } : {}),
    eventSource: 'aws:sqs',
    eventSourceARN: source.arn,
    awsRegion: region,
  };
}

/**
 * One record per message id. A receive can return a message twice (SQS delivers at least once;
 * the local server does when a message's visibility ends during the long poll); the last copy
 * carries the receipt handle that is current.
 */
export function uniqueMessages(messages: readonly Message[]): Message[] {
  const byId = new Map<string, Message>();
  for (const message of messages) if (message.MessageId && message.ReceiptHandle) byId.set(message.MessageId, message);
  return [...byId.values()];
}

/**
 * Reads a function's answer the way Lambda reads it with ReportBatchItemFailures: no answer or no
 * failures means every record succeeded; a failure naming no record of the batch fails it whole.
 */
export function batchOutcome(response: unknown, records: readonly SQSRecord[]): BatchOutcome {
  if (response === undefined || response === null) return { failed: new Set() };
  if (typeof response !== 'object') return { failed: 'all', reason: 'the function returned something other than an object' };
  const failures = (response as { batchItemFailures?: unknown }).batchItemFailures;
  if (failures === undefined || failures === null) return { failed: new Set() };
  if (!Array.isArray(failures)) return { failed: 'all', reason: 'batchItemFailures is not an array' };
  const ids = new Set(records.map((record) => record.messageId));
  const failed = new Set<string>();
  for (const failure of failures as unknown[]) {
    const id = (failure as { itemIdentifier?: unknown } | null)?.itemIdentifier;
    if (typeof id !== 'string' || !ids.has(id)) return { failed: 'all', reason: `batchItemFailures names ${JSON.stringify(id)}, not a record of the batch` };
    failed.add(id);
  }
  return { failed };
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

class Poller {
  private readonly aborted = new AbortController();
  /** Set once `stop` stops waiting: the batches in hand are no longer deleted. */
  private abandoned = false;
  private readonly inFlight = new Set<Promise<void>>();
  /** Settles once the polls have ended and every batch in hand is handled. */
  readonly done: Promise<void>;

  constructor(
    private readonly job: QueueConsumerJob,
    private readonly options: QueueConsumerOptions,
  ) {
    this.done = this.run().catch((error: unknown) => options.log.error(`The poller of ${job.fn.name} stopped`, error));
  }

  async stop(): Promise<void> {
    this.aborted.abort();
    let timer: NodeJS.Timeout | undefined;
    const graceOver = new Promise<'late'>((resolveLate) => (timer = setTimeout(() => resolveLate('late'), this.options.stopGraceMs)));
    const outcome = await Promise.race([this.done.then(() => 'done' as const), graceOver]);
    clearTimeout(timer);
    if (outcome === 'late') {
      this.abandoned = true;
      const batches = this.inFlight.size === 1 ? 'a batch' : `${this.inFlight.size} batches`;
      this.options.log.warn(`${this.job.fn.name} was still handling ${batches}; their messages return to the queue after their visibility timeout`);
    }
  }

  private get stopping(): boolean {
    return this.aborted.signal.aborted;
  }

  private async run(): Promise<void> {
    let backoffMs: number = BACKOFF_MS.initial;
    while (!this.stopping) {
      // Every instance busy: the next receive waits for one, as Lambda's poller does at the function's concurrency.
      if (this.inFlight.size >= this.job.concurrency) {
        await Promise.race(this.inFlight);
        continue;
      }
      let messages: Message[];
      try {
        messages = await this.receive();
        backoffMs = BACKOFF_MS.initial;
      } catch (error) {
        if (this.stopping) break;
        this.options.log.warn(`${this.job.fn.name}: receiving from ${this.job.source.url} failed (${messageOf(error)}); retrying in ${backoffMs} ms`);
        await sleep(backoffMs, undefined, { signal: this.aborted.signal }).catch(() => undefined);
        backoffMs = Math.min(backoffMs * 2, BACKOFF_MS.max);
        continue;
      }
      if (messages.length === 0) {
        await sleep(EMPTY_POLL_PAUSE_MS, undefined, { signal: this.aborted.signal }).catch(() => undefined);
        continue;
      }
      const batch = this.handle(messages.map((message) => sqsRecord(message, this.job.source, this.options.region))).finally(() => this.inFlight.delete(batch));
      this.inFlight.add(batch);
    }
    await Promise.all(this.inFlight);
  }

  private async receive(): Promise<Message[]> {
    const { fn, source } = this.job;
    const { Messages } = await this.options.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: source.url,
        MaxNumberOfMessages: fn.batchSize,
        // While the function handles a batch, the next receive is that long poll for the queue's
        // batching window, gathering a batch as Lambda's poller does; a queue without one is
        // polled at once, as its event source hands each message over.
        WaitTimeSeconds: this.inFlight.size > 0 ? QUEUES[fn.queue].batchingWindowSeconds : 0,
        // Both spellings: the local server reads the older one.
        MessageSystemAttributeNames: ['All'],
        AttributeNames: ['All'],
        MessageAttributeNames: ['All'],
      }),
      { abortSignal: this.aborted.signal },
    );
    return uniqueMessages(Messages ?? []);
  }

  /** One invocation, then the deletes. Never throws: what fails stays on the queue. */
  private async handle(records: SQSRecord[]): Promise<void> {
    const { fn } = this.job;
    const event: SQSEvent = { Records: records };
    let outcome: BatchOutcome;
    try {
      outcome = batchOutcome(await this.options.invoke(fn, event), records);
    } catch (error) {
      if (!this.abandoned) this.options.log.error(`${fn.name} failed on a batch of ${records.length}; its messages return after their visibility timeout`, error);
      return;
    }
    if (this.abandoned) return;
    if (outcome.failed === 'all') {
      this.options.log.error(`${fn.name} answered a batch of ${records.length} with an invalid response (${outcome.reason}); the whole batch returns to the queue`);
      return;
    }
    const failed = outcome.failed;
    await this.delete(records.filter((record) => !failed.has(record.messageId)));
  }

  private async delete(records: SQSRecord[]): Promise<void> {
    for (let start = 0; start < records.length; start += DELETE_BATCH_LIMIT) {
      const chunk = records.slice(start, start + DELETE_BATCH_LIMIT);
      try {
        const { Failed } = await this.options.sqs.send(
          new DeleteMessageBatchCommand({
            QueueUrl: this.job.source.url,
            Entries: chunk.map((record, index) => ({ Id: String(index), ReceiptHandle: record.receiptHandle })),
          }),
        );
        for (const failure of Failed ?? []) {
          const record = chunk[Number(failure.Id)];
          this.options.log.warn(`${this.job.fn.name}: message ${record?.messageId} was handled but not deleted (${failure.Code}: ${failure.Message}); it will be received again`);
        }
      } catch (error) {
        if (this.abandoned) return;
        this.options.log.warn(`${this.job.fn.name}: deleting ${chunk.length} handled messages failed (${messageOf(error)}); they will be received again`);
      }
    }
  }
}

/** Starts one poller per queue function, each with up to its function's concurrency of batches in hand. */
export function startQueueConsumers(jobs: readonly QueueConsumerJob[], options: QueueConsumerOptions): QueueConsumers {
  const pollers = jobs.map((job) => new Poller(job, options));
  return {
    async stop() {
      await Promise.all(pollers.map((poller) => poller.stop()));
    },
  };
}
