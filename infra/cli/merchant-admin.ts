/**
 * What the merchant admin CLI does, apart from where it does it: merchants, their keys, and
 * the gateway's own record of each key (an API Gateway usage-plan key in AWS).
 */
import { newApiKey, newMerchant, type ApiKey, type Merchant, type NewMerchantInput, type SecretSealer } from '../../shared/domain/merchants.js';
import type { Stage } from '../../shared/routes.js';
import type { MerchantStore } from '../../shared/store/merchants.js';

/** The gateway's side of a key: a key must be registered there to get past its throttling. */
export interface KeyRegistry {
  register(key: ApiKey): Promise<void>;
  /** Safe to repeat: a key the gateway does not hold is left alone. */
  unregister(key: ApiKey): Promise<void>;
}

/** The local gateway throttles by the digest the authorizer returns; it keeps no list of keys. */
export const localKeyRegistry: KeyRegistry = {
  register: async () => undefined,
  unregister: async () => undefined,
};

/** A failure the operator can act on, reported as its message alone. */
export class AdminError extends Error {
  override readonly name = 'AdminError';
}

export interface IssuedKey {
  merchantId: string;
  keyId: string;
  /** The key text: shown once, never stored. */
  apiKey: string;
}

export class MerchantAdmin {
  constructor(
    private readonly store: MerchantStore,
    private readonly registry: KeyRegistry,
    /** Seals each new merchant's callback secret: the vault's key of the target environment. */
    private readonly sealer: SecretSealer,
    private readonly stage: Stage,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** The callback secret is returned in clear this once; the store keeps it sealed. */
  async createMerchant(input: NewMerchantInput): Promise<{ merchant: Merchant; callbackSecret: string; key: IssuedKey }> {
    const { merchant, callbackSecret } = await newMerchant(input, this.sealer, this.clock());
    await this.store.createMerchant(merchant);
    return { merchant, callbackSecret, key: await this.issueKey(merchant.id) };
  }

  async addKey(merchantId: string): Promise<IssuedKey> {
    if (!(await this.store.getMerchant(merchantId))) throw new AdminError(`No merchant ${merchantId}`);
    return this.issueKey(merchantId);
  }

  async revokeKey(merchantId: string, keyId: string): Promise<void> {
    const key = (await this.store.listKeys(merchantId)).find((k) => k.keyId === keyId);
    if (!key) throw new AdminError(`Merchant ${merchantId} has no key ${keyId}`);
    // The store first: from then on the authorizer refuses the key, whatever the gateway holds.
    await this.store.revokeKey(merchantId, keyId, this.clock());
    await this.registry.unregister(key);
  }

  async list(): Promise<Array<{ merchant: Merchant; keys: ApiKey[] }>> {
    const merchants = await this.store.listMerchants();
    return Promise.all(merchants.map(async (merchant) => ({ merchant, keys: await this.store.listKeys(merchant.id) })));
  }

  /** The gateway first: a key the store holds always works, and an unstored one never does. */
  private async issueKey(merchantId: string): Promise<IssuedKey> {
    const { text, record } = newApiKey(merchantId, this.stage, this.clock());
    await this.registry.register(record);
    await this.store.addKey(record);
    return { merchantId, keyId: record.keyId, apiKey: text };
  }
}
