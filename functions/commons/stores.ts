/** The DynamoDB stores of transactions, merchants and the callback outbox, shared by this container's functions. */
import { config } from '../../shared/config.js';
import { documentClient } from '../../shared/store/dynamo.js';
import { DynamoMerchantStore } from '../../shared/store/merchants.js';
import { DynamoOutboxStore } from '../../shared/store/outbox.js';
import { DynamoTransactionStore } from '../../shared/store/transactions.js';

const { tables } = config();

export const outboxStore = new DynamoOutboxStore(documentClient, tables.outbox);
export const merchantStore = new DynamoMerchantStore(documentClient, tables);
export const transactionStore = new DynamoTransactionStore(documentClient, tables);
