/** The transaction service of this container, wired once at load: it moves money and owes callbacks. */
import { randomUUID } from 'node:crypto';
import { config } from '../../shared/config.js';
import { TransactionService } from '../../shared/domain/transaction-service.js';
import { businessMetrics } from '../../shared/observability/metrics.js';
import { documentClient } from '../../shared/store/dynamo.js';
import { DynamoInvoiceStore } from '../../shared/store/invoices.js';
import { callbackPublisher } from './callbacks.js';
import { rateSource } from './rates.js';
import { balanceStore, merchantStore, transactionStore } from './stores.js';

export const transactionService = new TransactionService({
  ledger: transactionStore,
  balances: balanceStore,
  invoices: new DynamoInvoiceStore(documentClient, config().tables),
  merchants: merchantStore,
  callbacks: callbackPublisher,
  rates: rateSource,
  metrics: businessMetrics,
  clock: () => new Date(),
  newId: randomUUID,
});
