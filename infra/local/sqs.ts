/**
 * An SQS-compatible server on a free loopback port with every queue of the local stage and its
 * dead-letter queue, configured like the AWS stack's (shared/platform.ts). It keeps messages in
 * memory only.
 */
import type { Server } from 'node:http';
import { randomUUID } from 'node:crypto';
import { CreateQueueCommand, ListQueueTagsCommand, SQSClient, TagQueueCommand } from '@aws-sdk/client-sqs';
import { createSqsServer } from 'local-aws-sqs';
import { deadLetterQueueNameOf, QUEUES, queueNameOf, type QueueDefinition, type QueueName } from '../../shared/queue/queues.js';
import { LOCAL_ACCOUNT_ID, LOCAL_REGION, LOCAL_STAGE } from './environment.js';
import type { RuntimeLog } from './log.js';

export const localQueueUrl = (endpoint: string, queueName: string): string => `${endpoint}/${LOCAL_ACCOUNT_ID}/${queueName}`;
export const localQueueArn = (queueName: string): string => `arn:aws:sqs:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:${queueName}`;

/**
 * The local server counts ChangeMessageVisibility as a receive, and the callback sender changes
 * a message's visibility once per attempt to schedule the next one: with the AWS value a failing
 * callback would reach maxReceiveCount after about 20 attempts, hours short of its 72-hour
 * window, and be moved to the dead-letter queue by the server instead of parked by the sender.
 * Doubling the count keeps the AWS meaning (a safety net above the sender's own parking).
 */
export const LOCAL_RECEIVE_COUNT_FACTOR = 2;

/** The queues of the local stage, by route-table name. */
export function localQueues(): Array<[QueueName, QueueDefinition]> {
  return (Object.entries(QUEUES) as Array<[QueueName, QueueDefinition]>).filter(([, definition]) => definition.stages.includes(LOCAL_STAGE));
}

/** The queue's and its dead-letter queue's URLs on the local server at `endpoint`. */
export function localQueueUrls(endpoint: string, definition: QueueDefinition): { queueUrl: string; deadLetterQueueUrl: string } {
  return { queueUrl: localQueueUrl(endpoint, queueNameOf(definition)), deadLetterQueueUrl: localQueueUrl(endpoint, deadLetterQueueNameOf(definition)) };
}

/** Every queue URL variable of the local stage (`CALLBACK_QUEUE_URL`, ...) for the server at `endpoint`. */
export function localQueueEnvironment(endpoint: string): Record<string, string> {
  return Object.fromEntries(
    localQueues().flatMap(([, definition]) => {
      const { queueUrl, deadLetterQueueUrl } = localQueueUrls(endpoint, definition);
      return [
        [definition.urlVariable, queueUrl],
        [definition.deadLetterUrlVariable, deadLetterQueueUrl],
      ];
    }),
  );
}

/** The callbacks queue's URLs on the local server at `endpoint` (runtime.json names the endpoint). */
export function localCallbackQueueUrls(endpoint: string): { callbackQueueUrl: string; callbackDlqUrl: string } {
  const { queueUrl, deadLetterQueueUrl } = localQueueUrls(endpoint, QUEUES.callbacks);
  return { callbackQueueUrl: queueUrl, callbackDlqUrl: deadLetterQueueUrl };
}

/** The local server listens on loopback only and checks no credentials; the SDK still wants some. */
const ANY_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' } as const;

export function localSqsClient(endpoint: string): SQSClient {
  return new SQSClient({ endpoint, region: LOCAL_REGION, credentials: ANY_CREDENTIALS });
}

export interface LocalSqs {
  endpoint: string;
  /** Every queue URL variable of the local stage, as the functions' environment carries them. */
  queueEnvironment: Record<string, string>;
  stop(): Promise<void>;
}

/** Every queue of the local stage and its dead-letter queue, as CreateQueue takes them (dead-letter queues first). */
function queueDefinitions(): Array<{ QueueName: string; Attributes?: Record<string, string> }> {
  return localQueues().flatMap(([, definition]) => [
    // The dead-letter queue first: a redrive policy must name a queue that exists.
    { QueueName: deadLetterQueueNameOf(definition), ...(definition.fifo ? { Attributes: { FifoQueue: 'true' } } : {}) },
    {
      QueueName: queueNameOf(definition),
      Attributes: {
        ...(definition.fifo ? { FifoQueue: 'true' } : {}),
        VisibilityTimeout: String(definition.visibilityTimeoutSeconds),
        RedrivePolicy: JSON.stringify({
          deadLetterTargetArn: localQueueArn(deadLetterQueueNameOf(definition)),
          maxReceiveCount: definition.maxReceiveCount * LOCAL_RECEIVE_COUNT_FACTOR,
        }),
      },
    },
  ]);
}

/** Starts the server, on `port` when given (a restart where the last one listened), else on a free one. */
export async function startLocalSqs(options: { port?: number } = {}): Promise<LocalSqs> {
  const server: Server = await createSqsServer({
    port: options.port ?? 0,
    hostname: '127.0.0.1',
    region: LOCAL_REGION,
    accountId: LOCAL_ACCOUNT_ID,
    queues: queueDefinitions(),
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('The local SQS server has no TCP address');
  const endpoint = `http://127.0.0.1:${address.port}`;
  return {
    endpoint,
    queueEnvironment: localQueueEnvironment(endpoint),
    stop: () =>
      new Promise<void>((resolveStop) => {
        server.close(() => resolveStop());
        // Long polls would hold the server open until their wait ends.
        server.closeAllConnections();
      }),
  };
}

/** An SQS-compatible server that runs already (AWS_ENDPOINT_URL_SQS): the stage's queues are created there if missing. */
export async function connectLocalSqs(endpoint: string): Promise<LocalSqs> {
  const client = localSqsClient(endpoint);
  try {
    for (const queue of queueDefinitions()) await client.send(new CreateQueueCommand(queue));
  } finally {
    client.destroy();
  }
  // Someone else's server: it is theirs to stop.
  return { endpoint, queueEnvironment: localQueueEnvironment(endpoint), stop: async () => undefined };
}

/** The tag that marks a queue as seen by this runtime: a queue without it is a new one, empty. */
const RUN_TAG = 'gateway-run';

/**
 * Watches a queue of an in-memory server for a restart, which loses every message it held: each
 * check (every `everyMs`) looks for this run's tag on the queue; a queue found without it has
 * been created anew, and `onRestart` hands its messages back (the callbacks from the outbox).
 * An unreachable server is checked again next time.
 */
export function watchQueueRestarts(options: { endpoint: string; queueUrl: string; everyMs: number; log: RuntimeLog; onRestart: () => Promise<void> }): { stop(): void } {
  const client = localSqsClient(options.endpoint);
  const mark = randomUUID();
  let marked = false;
  const check = async () => {
    const { Tags } = await client.send(new ListQueueTagsCommand({ QueueUrl: options.queueUrl }));
    if (Tags?.[RUN_TAG] === mark) return;
    // Marked first: a restart during the hand-back is then seen at the next check.
    await client.send(new TagQueueCommand({ QueueUrl: options.queueUrl, Tags: { [RUN_TAG]: mark } }));
    if (marked) {
      options.log.warn(`The queue server restarted and lost ${options.queueUrl}'s messages; handing them back`);
      await options.onRestart();
    }
    marked = true;
  };
  let running = Promise.resolve();
  const timer = setInterval(() => {
    running = running.then(check).catch(() => undefined);
  }, options.everyMs);
  running = check().catch(() => undefined);
  return {
    stop: () => {
      clearInterval(timer);
      client.destroy();
    },
  };
}
