/**
 * The stage's SQS queues: those of `QUEUES` (shared/platform.ts) whose stages include it, each
 * with its dead-letter queue, and their URLs and ARNs as outputs, which redrives take.
 *
 * Made in the data stack itself (gateway-data.ts says why).
 */
import { Duration, type CfnOutputProps, type RemovalPolicy, type Stack } from 'aws-cdk-lib';
import { DeduplicationScope, FifoThroughputLimit, Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { QUEUES, type QueueDefinition, type QueueName } from '../../shared/queue/queues.js';
import type { Stage } from '../../shared/stage.js';
import { pascalCase } from './construct-ids.js';
import type { StageQueues } from './gateway-function.js';
import { acknowledge } from './nag.js';

/** The callback retry schedule runs 72 hours; messages must outlive it. */
const QUEUE_RETENTION = Duration.days(4);
const DEAD_LETTER_RETENTION = Duration.days(14);

/** The queues of `QUEUES` a stage has. */
export const queuesOfStage = (stage: Stage): Array<[QueueName, QueueDefinition]> =>
  (Object.entries(QUEUES) as Array<[QueueName, QueueDefinition]>).filter(([, definition]) => definition.stages.includes(stage));

/** `CALLBACK_DLQ_URL` -> `CallbackDlqUrl`: a queue's stack output is named after its variable. */
const outputName = (variable: string): string =>
  variable
    .toLowerCase()
    .split('_')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');

/** `CALLBACK_DLQ_URL` -> `CallbackDlqArn`: the ARN next to the URL, which SQS's redrive takes. */
const arnOutputName = (urlVariable: string): string => outputName(urlVariable).replace(/Url$/, 'Arn');

export interface GatewayQueuesProps {
  stage: Stage;
  /** Prod's parked messages wait for an operator, even past the stack. */
  removalPolicy: RemovalPolicy;
}

export class GatewayQueues {
  readonly queues: StageQueues = {};
  readonly outputs: Record<string, CfnOutputProps> = {};

  constructor(stack: Stack, { stage, removalPolicy }: GatewayQueuesProps) {
    for (const [name, definition] of queuesOfStage(stage)) {
      const id = pascalCase(definition.name);
      const deadLetterQueue = new Queue(stack, `${id}DeadLetterQueue`, {
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        retentionPeriod: DEAD_LETTER_RETENTION,
        removalPolicy,
        ...(definition.fifo ? { fifo: true } : {}),
      });
      acknowledge(deadLetterQueue, ['Serverless-SQSRedrivePolicy'], 'It is a dead-letter queue: an operator moves its messages back to their queue, never onward.');
      const queue = new Queue(stack, `${id}Queue`, {
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        visibilityTimeout: Duration.seconds(definition.visibilityTimeoutSeconds),
        retentionPeriod: QUEUE_RETENTION,
        deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: definition.maxReceiveCount },
        removalPolicy,
        // Deduplicated by the id each message carries: a payout asked for twice is sent once.
        ...(definition.fifo ? { fifo: true, deduplicationScope: DeduplicationScope.MESSAGE_GROUP, fifoThroughputLimit: FifoThroughputLimit.PER_MESSAGE_GROUP_ID } : {}),
      });
      this.queues[name] = { queue, deadLetterQueue, visibilityTimeoutSeconds: definition.visibilityTimeoutSeconds };

      const queueOutput = outputName(definition.urlVariable);
      const deadLetters = `Messages of the ${definition.name} queue given up on, to redrive to ${queueOutput}`;
      Object.assign(this.outputs, {
        [queueOutput]: { value: queue.queueUrl, description: `The ${definition.name} queue` },
        [arnOutputName(definition.urlVariable)]: { value: queue.queueArn, description: `The ${definition.name} queue (redrive destination)` },
        [outputName(definition.deadLetterUrlVariable)]: { value: deadLetterQueue.queueUrl, description: deadLetters },
        [arnOutputName(definition.deadLetterUrlVariable)]: { value: deadLetterQueue.queueArn, description: `${deadLetters} (redrive source)` },
      });
    }
  }
}
