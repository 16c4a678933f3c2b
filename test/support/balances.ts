/** Merchants' balances in the test run's tables, and money put on them as the admin CLI's adjustment does. */
import { randomUUID } from 'node:crypto';
import { config } from '../../shared/config.js';
import { BalanceService } from '../../shared/domain/ledger/balance-service.js';
import { Decimal } from '../../shared/domain/kernel/money.js';
import { DynamoBalanceStore } from '../../shared/store/balances.js';
import { documentClient } from '../../shared/store/dynamo.js';
import { DynamoTransactionStore } from '../../shared/store/transactions.js';
import { testMerchantStore } from './merchants.js';

export const testBalanceStore = (): DynamoBalanceStore => new DynamoBalanceStore(documentClient, config().tables);

/** The operator's side of the books, over the test run's tables. */
export const testBalanceService = (): BalanceService =>
  new BalanceService({
    balances: testBalanceStore(),
    merchants: testMerchantStore(),
    transactions: new DynamoTransactionStore(documentClient, config().tables),
    clock: () => new Date(),
    newId: randomUUID,
  });

/** Money for a merchant's withdrawals: an adjustment, so no transaction or callback comes with it. */
export async function fundBalance(merchantId: string, currency: string, amount: string): Promise<void> {
  await testBalanceService().adjust(merchantId, { currency, amount: new Decimal(amount), reason: 'Funds for the test' });
}
