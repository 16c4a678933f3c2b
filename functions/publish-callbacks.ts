/**
 * The outbox sweep: hands to the queue every callback whose writer committed it but died before
 * enqueueing it. Entries younger than the grace period are left to their writer.
 */
import { logScheduledRun } from '../shared/observability/logger.js';
import { observed } from '../shared/observability/tracer.js';
import { callbackPublisher } from './commons/callbacks.js';
import { outboxStore } from './commons/stores.js';

const GRACE_MS = 5_000;

export const handler = observed(async (): Promise<{ pending: number; published: number }> => {
  const pending = await outboxStore.listUnpublished(new Date(Date.now() - GRACE_MS));
  const published = pending.length > 0 ? await callbackPublisher.publish(pending) : 0;
  logScheduledRun('Published callbacks left in the outbox', { pending: pending.length, published }, pending.length > 0);
  return { pending: pending.length, published };
});
