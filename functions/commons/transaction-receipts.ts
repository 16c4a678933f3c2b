/** The transaction receipts of this container, wired once at load: it signs, and lists no retired key. */
import { config } from '../../shared/config.js';
import { ownedTransaction, TransactionReceipts } from '../../shared/domain/payments/index.js';
import { receiptSignerWith } from './receipt-signer.js';
import { balanceStore, outboxStore, transactionStore } from './stores.js';
import { transactionViews } from './transaction-views.js';

export const transactionReceipts = new TransactionReceipts({
  transactions: { owned: (merchantId, transactionId) => ownedTransaction(transactionStore, merchantId, transactionId) },
  views: transactionViews,
  entries: balanceStore,
  callbacks: outboxStore,
  signer: receiptSignerWith(() => []),
  issuer: config().publicBaseUrl,
  clock: () => new Date(),
});
