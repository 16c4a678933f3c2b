/**
 * An SQS-compatible server on a free loopback port with the callbacks queue and its dead-letter
 * queue, configured like the AWS stack's. It keeps messages in memory only.
 */
import type { Server } from 'node:http';
import { SQSClient } from '@aws-sdk/client-sqs';
import { createSqsServer } from 'local-aws-sqs';
import { CALLBACK_QUEUE } from '../../shared/platform.js';
import type { QueueFunction } from '../../shared/routes.js';
import { LOCAL_ACCOUNT_ID, LOCAL_CREDENTIALS, LOCAL_REGION } from './environment.js';

/** The local name of each queue the route table's queue functions consume. */
export const LOCAL_QUEUE_NAMES = { callbacks: 'callbacks' } as const satisfies Record<QueueFunction['queue'], string>;
const CALLBACK_QUEUE_NAME = LOCAL_QUEUE_NAMES.callbacks;
const CALLBACK_DLQ_NAME = 'callbacks-dlq';

export const localQueueUrl = (endpoint: string, queueName: string): string => `${endpoint}/${LOCAL_ACCOUNT_ID}/${queueName}`;
export const localQueueArn = (queueName: string): string => `arn:aws:sqs:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:${queueName}`;

/** The queue URLs of the local server at `endpoint` (runtime.json names the endpoint). */
export function localCallbackQueueUrls(endpoint: string): { callbackQueueUrl: string; callbackDlqUrl: string } {
  return { callbackQueueUrl: localQueueUrl(endpoint, CALLBACK_QUEUE_NAME), callbackDlqUrl: localQueueUrl(endpoint, CALLBACK_DLQ_NAME) };
}

export function localSqsClient(endpoint: string): SQSClient {
  return new SQSClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
}

export interface LocalSqs {
  endpoint: string;
  callbackQueueUrl: string;
  callbackDlqUrl: string;
  stop(): Promise<void>;
}

export async function startLocalSqs(): Promise<LocalSqs> {
  const server: Server = await createSqsServer({
    port: 0,
    hostname: '127.0.0.1',
    region: LOCAL_REGION,
    accountId: LOCAL_ACCOUNT_ID,
    queues: [
      // The dead-letter queue first: a redrive policy must name a queue that exists.
      { QueueName: CALLBACK_DLQ_NAME },
      {
        QueueName: CALLBACK_QUEUE_NAME,
        Attributes: {
          VisibilityTimeout: CALLBACK_QUEUE.visibilityTimeoutSeconds,
          RedrivePolicy: JSON.stringify({
            deadLetterTargetArn: localQueueArn(CALLBACK_DLQ_NAME),
            maxReceiveCount: CALLBACK_QUEUE.maxReceiveCount,
          }),
        },
      },
    ],
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('The local SQS server has no TCP address');
  const endpoint = `http://127.0.0.1:${address.port}`;
  return {
    endpoint,
    ...localCallbackQueueUrls(endpoint),
    stop: () =>
      new Promise<void>((resolveStop) => {
        server.close(() => resolveStop());
        // Long polls would hold the server open until their wait ends.
        server.closeAllConnections();
      }),
  };
}
