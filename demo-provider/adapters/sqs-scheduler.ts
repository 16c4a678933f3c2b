/**
 * Waiting work in AWS: each job is a message on the demo provider's queue, held back by SQS until
 * it is due and then handed to the queue function. SQS holds a message back 15 minutes at most,
 * so a job due later travels in several hops: on each early arrival it is sent on again.
 */
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import * as z from 'zod';
import { jobSchema, type Job, type Scheduler } from '../core/ports.js';

/** SQS's longest delay. */
export const MAX_DELAY_SECONDS = 900;
/** A job that arrives this close to its time runs: waiting another hop would only make it later. */
const EARLY_TOLERANCE_MS = 1000;

const messageSchema = z.object({ job: jobSchema, dueAt: z.iso.datetime() });

export class SqsScheduler implements Scheduler {
  constructor(
    private readonly sqs: Pick<SQSClient, 'send'>,
    private readonly queueUrl: string,
    private readonly clock: () => Date,
  ) {}

  async schedule(job: Job, at: Date): Promise<void> {
    const waitSeconds = Math.ceil((at.getTime() - this.clock().getTime()) / 1000);
    await this.sqs.send(
      new SendMessageCommand({
        QueueUrl: this.queueUrl,
        MessageBody: JSON.stringify({ job, dueAt: at.toISOString() }),
        DelaySeconds: Math.min(Math.max(waitSeconds, 0), MAX_DELAY_SECONDS),
      }),
    );
  }

  /** A message of the queue: its job, run once due, else sent on for its next hop. */
  async receive(body: string, run: (job: Job) => Promise<void>): Promise<void> {
    const { job, dueAt } = messageSchema.parse(JSON.parse(body));
    const due = new Date(dueAt);
    if (due.getTime() - this.clock().getTime() > EARLY_TOLERANCE_MS) return this.schedule(job, due);
    await run(job);
  }
}
