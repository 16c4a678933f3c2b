/**
 * Runs every minute: cancels open invoices whose lifetime has ended, announcing each to a merchant
 * that takes invoice events (shared/domain/invoicing/invoice-expiry.ts). Due invoices come from the sparse
 * index, and each cancellation is conditional, so a payment that lands first wins.
 */
import { config } from '../shared/config.js';
import { InvoiceExpiry } from '../shared/domain/invoicing/index.js';
import { logScheduledRun } from '../shared/observability/logger.js';
import { observed } from '../shared/observability/tracer.js';
import { documentClient } from '../shared/store/dynamo.js';
import { DynamoInvoiceStore } from '../shared/store/invoices.js';
import { callbackPublisher } from './commons/callbacks.js';
import { merchantStore } from './commons/stores.js';

const { tables, publicBaseUrl } = config();
const expiry = new InvoiceExpiry({ invoices: new DynamoInvoiceStore(documentClient, tables), merchants: merchantStore, callbacks: callbackPublisher, publicBaseUrl });

export const handler = observed(async (): Promise<{ due: number; expired: number }> => {
  const { due, expired } = await expiry.sweep(new Date());
  logScheduledRun('Expired invoices', { due, expired }, due > 0);
  return { due, expired };
});
