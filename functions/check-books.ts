/**
 * Runs every hour: checks that the books balance (docs/operations.md#the-hourly-check), reading
 * what changed since the last run, then going on with the full pass for the time left. Each
 * difference is logged with what differs, and their number is a metric, alarmed above zero; a
 * merchant whose books differ has its payouts held until an operator clears the hold.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Context, ScheduledEvent } from 'aws-lambda';
import { config } from '../shared/config.js';
import { BooksCheck } from '../shared/domain/ledger/index.js';
import { invocationBudget } from '../shared/domain/kernel/index.js';
import { logger } from '../shared/observability/logger.js';
import { businessMetrics } from '../shared/observability/metrics.js';
import { observed } from '../shared/observability/tracer.js';
import { DynamoBooksCheckStore } from '../shared/store/books-check.js';
import { documentClient } from '../shared/store/dynamo.js';
import { balanceStore, merchantStore, transactionStore } from './commons/stores.js';

/** How long what differs waits to be read again: the indexes' usual lag, many times over. */
const SETTLE_MS = 5_000;

/**
 * The time a run leaves itself once its budget is spent: the page under way, what differs read
 * again after SETTLE_MS, the holds and the state written. Its timeout (shared/routes.ts) is the
 * work a run does, ten minutes, plus this.
 */
const BOOKS_CHECK_RESERVE_MS = 120_000;

const check = new BooksCheck({
  merchants: merchantStore,
  balances: balanceStore,
  transactions: transactionStore,
  state: new DynamoBooksCheckStore(documentClient, config().tables.booksCheck),
  settle: () => sleep(SETTLE_MS),
  clock: () => new Date(),
});

/** The run's time: the scheduled event's, whole seconds as EventBridge stamps it; now, for a run invoked by hand. */
const runTime = (event: Partial<Pick<ScheduledEvent, 'time'>>): string => event.time ?? new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

export const handler = observed(async (event: Partial<Pick<ScheduledEvent, 'time'>>, context: Context) => {
  const budget = invocationBudget(() => context.getRemainingTimeInMillis(), BOOKS_CHECK_RESERVE_MS);
  const { differences, held, ...counted } = await check.run({ at: runTime(event), id: context.awsRequestId }, budget);
  for (const difference of differences) logger.error('The books differ', { difference });
  for (const { merchantId, hold } of held) logger.error('Payouts held until an operator clears the hold', { merchantId, hold });
  businessMetrics.booksChecked(differences.length);
  // Hourly: one line each time, so that a check that ran and found nothing shows too.
  logger.info('Checked the books', { ...counted, differences: differences.length, held: held.length });
  return { ...counted, differences: differences.length, held: held.length };
});
