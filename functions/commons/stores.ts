/** The DynamoDB stores of transactions, balances, merchants and the callback outbox, shared by this container's functions. */
import { config } from '../../shared/config.js';
import { documentClient } from '../../shared/store/dynamo.js';
import { DynamoOutboxStore } from '../../shared/store/outbox.js';
import { DynamoTransactionStore } from '../../shared/store/transactions.js';

const { tables } = config();

export { balanceStore } from './balances.js';
export { merchantStore } from './merchants.js';
export const outboxStore = new DynamoOutboxStore(documentClient, tables.outbox);
export const transactionStore = new DynamoTransactionStore(documentClient, tables);
