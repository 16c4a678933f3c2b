/**
 * Runs every hour: checks that the books balance (docs/operations.md#the-books). Each difference
 * is logged with what differs, and their number is a metric, alarmed above zero.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { BooksCheck } from '../shared/domain/books-check.js';
import { logger } from '../shared/observability/logger.js';
import { businessMetrics } from '../shared/observability/metrics.js';
import { observed } from '../shared/observability/tracer.js';
import { balanceStore, merchantStore, transactionStore } from './commons/stores.js';

/** How long a merchant whose books differ waits to be read again: the indexes' usual lag, many times over. */
const SETTLE_MS = 5_000;

const check = new BooksCheck({ merchants: merchantStore, balances: balanceStore, transactions: transactionStore, settle: () => sleep(SETTLE_MS) });

export const handler = observed(async () => {
  const { differences, ...counted } = await check.run();
  for (const difference of differences) logger.error('The books differ', { difference });
  businessMetrics.booksChecked(differences.length);
  // Hourly: one line each time, so that a check that ran and found nothing shows too.
  logger.info('Checked the books', { ...counted, differences: differences.length });
  return { ...counted, differences: differences.length };
});
