/**
 * Runs every hour: checks that the books balance (docs/operations.md#the-books). Each difference
 * is logged with what differs, and their number is a metric, alarmed above zero; a merchant whose
 * books differ has its payouts held until an operator clears the hold.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Context, ScheduledEvent } from 'aws-lambda';
import { BooksCheck } from '../shared/domain/books-check.js';
import { logger } from '../shared/observability/logger.js';
import { businessMetrics } from '../shared/observability/metrics.js';
import { observed } from '../shared/observability/tracer.js';
import { balanceStore, merchantStore, transactionStore } from './commons/stores.js';

/** How long a merchant whose books differ waits to be read again: the indexes' usual lag, many times over. */
const SETTLE_MS = 5_000;

const check = new BooksCheck({
  merchants: merchantStore,
  balances: balanceStore,
  transactions: transactionStore,
  settle: () => sleep(SETTLE_MS),
  clock: () => new Date(),
});

/** The run's time: the scheduled event's, whole seconds as EventBridge stamps it; now, for a run invoked by hand. */
const runTime = (event: Partial<Pick<ScheduledEvent, 'time'>>): string => event.time ?? new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

export const handler = observed(async (event: Partial<Pick<ScheduledEvent, 'time'>>, context: Context) => {
  const { differences, held, ...counted } = await check.run({ at: runTime(event), id: context.awsRequestId });
  for (const difference of differences) logger.error('The books differ', { difference });
  for (const { merchantId, hold } of held) logger.error('Payouts held until an operator clears the hold', { merchantId, hold });
  businessMetrics.booksChecked(differences.length);
  // Hourly: one line each time, so that a check that ran and found nothing shows too.
  logger.info('Checked the books', { ...counted, differences: differences.length, held: held.length });
  return { ...counted, differences: differences.length, held: held.length };
});
