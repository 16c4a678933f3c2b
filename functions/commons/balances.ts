/** The balance store of this container, and the merchant's reads of its balances and entries, wired once at load. */
import { randomUUID } from 'node:crypto';
import { config } from '../../shared/config.js';
import { BalanceService } from '../../shared/domain/ledger/index.js';
import { DynamoBalanceStore } from '../../shared/store/balances.js';
import { documentClient } from '../../shared/store/dynamo.js';

export const balanceStore = new DynamoBalanceStore(documentClient, config().tables);

export const balanceService = new BalanceService({ balances: balanceStore, clock: () => new Date(), newId: randomUUID });
