/** The transaction service and callback publishing of this container, wired once at load. */
import { randomUUID } from 'node:crypto';
import { config } from '../../shared/config.js';
import { TransactionService } from '../../shared/domain/transaction-service.js';
import { businessMetrics } from '../../shared/observability/metrics.js';
import { CallbackPublisher } from '../../shared/queue/callbacks.js';
import { sqsClient } from '../../shared/queue/sqs.js';
import { documentClient } from '../../shared/store/dynamo.js';
import { DynamoInvoiceStore } from '../../shared/store/invoices.js';
import { DynamoMerchantStore } from '../../shared/store/merchants.js';
import { DynamoOutboxStore } from '../../shared/store/outbox.js';
import { DynamoTransactionStore } from '../../shared/store/transactions.js';
import { rateSource } from './rates.js';

const { tables, callbackQueueUrl } = config();

export const outboxStore = new DynamoOutboxStore(documentClient, tables.outbox);
export const merchantStore = new DynamoMerchantStore(documentClient, tables);
export const callbackPublisher = new CallbackPublisher(sqsClient, callbackQueueUrl, outboxStore);

export const transactionService = new TransactionService({
  ledger: new DynamoTransactionStore(documentClient, tables),
  invoices: new DynamoInvoiceStore(documentClient, tables),
  merchants: merchantStore,
  callbacks: callbackPublisher,
  rates: rateSource,
  metrics: businessMetrics,
  clock: () => new Date(),
  newId: randomUUID,
});
