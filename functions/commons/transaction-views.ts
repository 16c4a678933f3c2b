/**
 * Transaction views of this container: it opens callback secrets, so its function fails to start
 * without the vault. Reading needs no transaction service (and so no queue client).
 */
import { ownedTransaction } from '../../shared/domain/payments/index.js';
import { TransactionViews } from '../../shared/domain/transactions/index.js';
import { merchantStore, transactionStore } from './stores.js';
import { requireVault } from './vault.js';

export const transactionViews = new TransactionViews({
  transactions: { owned: (merchantId, transactionId) => ownedTransaction(transactionStore, merchantId, transactionId) },
  ledger: transactionStore,
  merchants: merchantStore,
  secrets: requireVault().callbackSecrets,
});
