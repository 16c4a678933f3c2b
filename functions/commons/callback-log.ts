/** The callback delivery log and resend of this container, wired once at load. */
import { CallbackLog } from '../../shared/domain/payments/index.js';
import { callbackPublisher } from './callbacks.js';
import { merchantStore, outboxStore } from './stores.js';
import { transactionService } from './transactions.js';
import { invoiceServiceWith } from './invoices.js';

export const callbackLog = new CallbackLog({
  transactions: transactionService,
  invoices: invoiceServiceWith(),
  outbox: outboxStore,
  merchants: merchantStore,
  publisher: callbackPublisher,
  clock: () => new Date(),
});
