/** The callback delivery log and resend of this container, wired once at load. */
import { CallbackLog } from '../../shared/domain/callback-tools.js';
import { callbackPublisher } from './callbacks.js';
import { merchantStore, outboxStore } from './stores.js';
import { transactionService } from './transactions.js';

export const callbackLog = new CallbackLog({
  transactions: transactionService,
  outbox: outboxStore,
  merchants: merchantStore,
  publisher: callbackPublisher,
  clock: () => new Date(),
});
