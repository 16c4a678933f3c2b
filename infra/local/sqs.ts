/**
 * An SQS-compatible server on a free loopback port with every queue of the local stage and its
 * dead-letter queue, configured like the AWS stack's (shared/platform.ts). It keeps messages in
 * memory only.
 */
import type { Server } from 'node:http';
import { SQSClient } from '@aws-sdk/client-sqs';
import { createSqsServer } from 'local-aws-sqs';
import { QUEUES, type QueueDefinition, type QueueName } from '../../shared/platform.js';
import { LOCAL_ACCOUNT_ID, LOCAL_CREDENTIALS, LOCAL_REGION, LOCAL_STAGE } from './environment.js';

export const localQueueUrl = (endpoint: string, queueName: string): string => `${endpoint}/${LOCAL_ACCOUNT_ID}/${queueName}`;
export const localQueueArn = (queueName: string): string => `arn:aws:sqs:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:${queueName}`;
export const deadLetterQueueName = (definition: QueueDefinition): string => `${definition.name}-dlq`;

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
  return { queueUrl: localQueueUrl(endpoint, definition.name), deadLetterQueueUrl: localQueueUrl(endpoint, deadLetterQueueName(definition)) };
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

export function localSqsClient(endpoint: string): SQSClient {
  return new SQSClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
}

export interface LocalSqs {
  endpoint: string;
  /** Every queue URL variable of the local stage, as the functions' environment carries them. */
  queueEnvironment: Record<string, string>;
  stop(): Promise<void>;
}

export async function startLocalSqs(): Promise<LocalSqs> {
  const server: Server = await createSqsServer({
    port: 0,
    hostname: '127.0.0.1',
    region: LOCAL_REGION,
    accountId: LOCAL_ACCOUNT_ID,
    queues: localQueues().flatMap(([, definition]) => [
      // The dead-letter queue first: a redrive policy must name a queue that exists.
      { QueueName: deadLetterQueueName(definition) },
      {
        QueueName: definition.name,
        Attributes: {
          VisibilityTimeout: definition.visibilityTimeoutSeconds,
          RedrivePolicy: JSON.stringify({
            deadLetterTargetArn: localQueueArn(deadLetterQueueName(definition)),
            maxReceiveCount: definition.maxReceiveCount * LOCAL_RECEIVE_COUNT_FACTOR,
          }),
        },
      },
    ]),
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
