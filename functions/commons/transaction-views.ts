/** Transaction views of this container: it opens callback secrets, so its function fails to start without the vault. */
import { TransactionViews } from '../../shared/domain/transaction-views.js';
import { ledger, merchantStore, transactionService } from './transactions.js';
import { requireVault } from './vault.js';

export const transactionViews = new TransactionViews({ transactions: transactionService, ledger, merchants: merchantStore, secrets: requireVault().callbackSecrets });
