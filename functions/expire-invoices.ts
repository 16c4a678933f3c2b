/**
 * Runs every minute: cancels open invoices whose lifetime has ended. Due invoices come from the
 * sparse index, and each cancellation is conditional, so a payment that lands first wins.
 */
import { logScheduledRun } from '../shared/observability/logger.js';
import { observed } from '../shared/observability/tracer.js';
import { invoiceStore } from './commons/invoices.js';

const EXPIRE_CONCURRENCY = 25;

export const handler = observed(async (): Promise<{ due: number; expired: number }> => {
  const now = new Date();
  const due = await invoiceStore.listDue(now);
  let expired = 0;
  // A bounded number of writes in flight, so a large backlog cannot exhaust the table's burst.
  for (let start = 0; start < due.length; start += EXPIRE_CONCURRENCY) {
    const outcomes = await Promise.all(due.slice(start, start + EXPIRE_CONCURRENCY).map((invoice) => invoiceStore.expire(invoice, now)));
    expired += outcomes.filter(Boolean).length;
  }
  logScheduledRun('Expired invoices', { due: due.length, expired }, due.length > 0);
  return { due: due.length, expired };
});
