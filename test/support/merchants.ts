/** Merchants and keys in the test run's tables, made the way the admin CLI makes them. */
import { randomUUID } from 'node:crypto';
import { config } from '../../shared/config.js';
import type { ApiKeyScope } from '../../shared/domain/merchants/api-key-scopes.js';
import { newApiKey, newMerchant, type ApiKey, type Merchant, type NewMerchantInput } from '../../shared/domain/merchants/merchants.js';
import { documentClient } from '../../shared/store/dynamo.js';
import { DynamoChainStore } from '../../shared/store/chain.js';
import { DynamoMerchantStore } from '../../shared/store/merchants.js';
import { CallbackSecretVault } from '../../shared/vault/callback-secrets.js';
import { KeyFileDataKeySource } from '../../shared/vault/key-sources.js';

export const testMerchantStore = (): DynamoMerchantStore => new DynamoMerchantStore(documentClient, config().tables);

/** The vault the test run's functions use (the key file under the run's directory). */
export function testCallbackSecrets(): CallbackSecretVault {
  const keys = config().vaultKeys;
  if (keys?.kind !== 'local') throw new Error('The test environment has no local vault key file');
  return new CallbackSecretVault(new KeyFileDataKeySource(keys.keyFile));
}

export interface SeededMerchant {
  merchant: Merchant;
  /** The callback secret in clear, as the admin CLI shows it once. */
  callbackSecret: string;
  /** The key text, for `x-api-key`. */
  apiKey: string;
  key: ApiKey;
}

/** A new merchant with one active key; a unique name unless one is given. */
export async function seedMerchant(input: Partial<NewMerchantInput> = {}): Promise<SeededMerchant> {
  const store = testMerchantStore();
  const now = new Date();
  const { merchant, callbackSecret } = await newMerchant({ name: `Test merchant ${randomUUID().slice(0, 8)}`, ...input }, testCallbackSecrets(), now);
  const { text, record } = newApiKey(merchant.id, config().stage, now);
  await store.createMerchant(merchant);
  await store.addKey(record);
  return { merchant, callbackSecret, apiKey: text, key: record };
}

/** Another key of the merchant, with the scopes and allowed addresses given (every scope, from anywhere, unless given); its text. */
export async function seedKey(merchantId: string, options: { scopes?: ApiKeyScope[]; allowedIps?: string[] } = {}): Promise<string> {
  const { text, record } = newApiKey(merchantId, config().stage, new Date(), options);
  await testMerchantStore().addKey(record);
  return text;
}

/** The chain watchers' state in the test run's tables. */
export const testChainStore = (): DynamoChainStore => new DynamoChainStore(documentClient, config().tables.chain);
