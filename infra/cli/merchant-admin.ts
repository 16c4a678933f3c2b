/**
 * What the merchant admin CLI does, apart from where it does it: merchants, their keys, and
 * the gateway's own record of each key (an API Gateway usage-plan key in AWS).
 */
import type { HeldTransfer } from '../../shared/domain/chain-watcher.js';
import { CRYPTO_NETWORKS } from '../../shared/domain/currencies.js';
import { newApiKey, newMerchant, onchainDepositsByDefault, takesOnchainDeposits, type ApiKey, type Merchant, type NewMerchantInput, type SecretSealer } from '../../shared/domain/merchants.js';
import type { Stage } from '../../shared/stage.js';
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
    /** Where the chain watchers hold transfers for merchants that do not take on-chain deposits. */
    private readonly chain: { held(network: string): Promise<HeldTransfer[]> },
    private readonly stage: Stage,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** The callback secret is returned in clear this once; the store keeps it sealed. */
  async createMerchant(input: NewMerchantInput): Promise<{ merchant: Merchant; callbackSecret: string; key: IssuedKey }> {
    // Recorded explicitly, so a merchant's setting never depends on where it was read (docs/operations.md#watching-chains).
    const { merchant, callbackSecret } = await newMerchant({ onchainDeposits: onchainDepositsByDefault(this.stage), ...input }, this.sealer, this.clock());
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

  /** Turns crediting of on-chain transfers on or off; held ones are credited by the watchers' next runs once on. */
  async setOnchainDeposits(merchantId: string, on: boolean): Promise<Merchant> {
    const merchant = await this.store.updateMerchant(merchantId, { onchainDeposits: on });
    if (!merchant) throw new AdminError(`No merchant ${merchantId}`);
    return merchant;
  }

  /** Transfers held on every network, of one merchant or of all. */
  async heldDeposits(merchantId?: string): Promise<HeldTransfer[]> {
    const held = (await Promise.all(CRYPTO_NETWORKS.map((network) => this.chain.held(network)))).flat();
    return held.filter((transfer) => merchantId === undefined || transfer.merchantId === merchantId).sort((a, b) => a.seenAt.localeCompare(b.seenAt));
  }

  /** Each merchant with its keys and whether it takes on-chain deposits (its setting, else the stage's default). */
  async list(): Promise<Array<{ merchant: Merchant; keys: ApiKey[]; onchainDeposits: boolean }>> {
    const merchants = await this.store.listMerchants();
    return Promise.all(
      merchants.map(async (merchant) => ({ merchant, keys: await this.store.listKeys(merchant.id), onchainDeposits: takesOnchainDeposits(merchant, this.stage) })),
    );
  }

  /** The gateway first: a key the store holds always works, and an unstored one never does. */
  private async issueKey(merchantId: string): Promise<IssuedKey> {
    const { text, record } = newApiKey(merchantId, this.stage, this.clock());
    await this.registry.register(record);
    await this.store.addKey(record);
    return { merchantId, keyId: record.keyId, apiKey: text };
  }
}
