/** Merchants and keys in the test run's tables, made the way the admin CLI makes them. */
import { randomUUID } from 'node:crypto';
import { config } from '../../shared/config.js';
import { newApiKey, newMerchant, type ApiKey, type Merchant, type NewMerchantInput } from '../../shared/domain/merchants.js';
import { documentClient } from '../../shared/store/dynamo.js';
import { DynamoMerchantStore } from '../../shared/store/merchants.js';

export const testMerchantStore = (): DynamoMerchantStore => new DynamoMerchantStore(documentClient, config().tables);

export interface SeededMerchant {
  merchant: Merchant;
  /** The key text, for `x-api-key`. */
  apiKey: string;
  key: ApiKey;
}

/** A new merchant with one active key; a unique name unless one is given. */
export async function seedMerchant(input: Partial<NewMerchantInput> = {}): Promise<SeededMerchant> {
  const store = testMerchantStore();
  const now = new Date();
  const merchant = newMerchant({ name: `Test merchant ${randomUUID().slice(0, 8)}`, ...input }, now);
  const { text, record } = newApiKey(merchant.id, config().stage, now);
  await store.createMerchant(merchant);
  await store.addKey(record);
  return { merchant, apiKey: text, key: record };
}
