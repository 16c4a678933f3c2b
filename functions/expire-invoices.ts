/**
 * Runs every minute: cancels open invoices whose lifetime has ended. Due invoices come from the
 * sparse index, and each cancellation is conditional, so a payment that lands first wins.
 */
import { logger } from '../shared/http/logger.js';
import { invoiceStore } from './commons/invoices.js';

export const handler = async (): Promise<{ due: number; expired: number }> => {
  const now = new Date();
  const due = await invoiceStore.listDue(now);
  const outcomes = await Promise.all(due.map((id) => invoiceStore.expire(id, now)));
  const expired = outcomes.filter(Boolean).length;
  if (due.length > 0) logger.info('Expired invoices', { due: due.length, expired });
  return { due: due.length, expired };
};
