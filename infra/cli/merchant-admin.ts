/**
 * What the merchant admin CLI does, apart from where it does it: merchants, their keys, and
 * the gateway's own record of each key (an API Gateway usage-plan key in AWS).
 */
import {
  type ApiKeyScope,
  ApiKeyService,
  type ApiKeyView,
  type KeyRegistry,
  type Merchant,
  newMerchant,
  type NewMerchantInput,
  onchainDepositsByDefault,
  type SecretSealer,
  takesOnchainDeposits,
} from '../../shared/domain/merchants/index.js';
import type { HeldTransfer } from '../../shared/domain/payments/index.js';
import { Conflict, CRYPTO_NETWORKS, Invalid, NotFound } from '../../shared/domain/kernel/index.js';
import type { DashboardAccess, Invitation, InvitationRequest } from '../../shared/domain/dashboard/index.js';
import type { NewPayoutAddressRequest, PayoutAddresses, PayoutAddressView } from '../../shared/domain/payouts/index.js';
import type { Stage } from '../../shared/stage.js';
import type { MerchantStore } from '../../shared/store/merchants.js';

/** The name of a key the CLI issues when it is given none (docs/operations.md#merchants-and-keys). */
export const CLI_KEY_NAME = 'CLI';

/** A failure the operator can act on, reported as its message alone. */
export class AdminError extends Error {
  override readonly name = 'AdminError';
}

export interface IssuedKey {
  merchantId: string;
  keyId: string;
  /** The key text: shown once, never stored. */
  apiKey: string;
  scopes: ApiKeyScope[];
  allowedIps: string[];
}

/** What a key the operator issues is: named `CLI_KEY_NAME`, with every scope, from anywhere, unless given. */
export interface KeyRequest {
  name?: string;
  scopes?: ApiKeyScope[];
  allowedIps?: string[];
}

export class MerchantAdmin {
  private readonly keys: ApiKeyService;

  constructor(
    private readonly store: MerchantStore,
    /** The gateway's record of keys: the stage's usage plan in AWS (shared/store/api-gateway-keys.ts). */
    registry: KeyRegistry,
    /** Seals each new merchant's callback secret: the vault's key of the target environment. */
    private readonly sealer: SecretSealer,
    /** Where the chain watchers hold transfers for merchants that do not take on-chain deposits. */
    private readonly chain: { held(network: string): Promise<HeldTransfer[]> },
    private readonly stage: Stage,
    private readonly clock: () => Date = () => new Date(),
  ) {
    this.keys = new ApiKeyService({ keys: store, merchants: store, registry, stage, clock });
  }

  /** The callback secret is returned in clear this once; the store keeps it sealed. The merchant's first key is named `CLI_KEY_NAME`. */
  async createMerchant(input: NewMerchantInput, key: KeyRequest = {}): Promise<{ merchant: Merchant; callbackSecret: string; key: IssuedKey }> {
    // Recorded explicitly, so a merchant's setting never depends on where it was read (docs/operations.md#watching-chains).
    const { merchant, callbackSecret } = await newMerchant({ onchainDeposits: onchainDepositsByDefault(this.stage), ...input }, this.sealer, this.clock());
    await this.store.createMerchant(merchant);
    return { merchant, callbackSecret, key: await this.addKey(merchant.id, key) };
  }

  /** The operator's reach is the whole API: any scope. */
  async addKey(merchantId: string, { name = CLI_KEY_NAME, scopes, allowedIps }: KeyRequest = {}): Promise<IssuedKey> {
    const { apiKey, key } = await this.keys.issue(merchantId, { name, scopes, allowedIps }).catch(operatorError(`No merchant ${merchantId}`));
    return { merchantId, keyId: key.id, apiKey, scopes: key.scopes, allowedIps: key.allowedIps };
  }

  async revokeKey(merchantId: string, keyId: string): Promise<void> {
    await this.keys.revoke(merchantId, keyId).catch(operatorError(`Merchant ${merchantId} has no key ${keyId}`));
  }

  /** Invites a person to the merchant's dashboard as `operator`: the invitation and its link's token, shown this once. */
  async invite(merchantId: string, request: InvitationRequest, access: DashboardAccess<unknown>): Promise<{ token: string; invitation: Invitation }> {
    if (!(await this.store.getMerchant(merchantId))) throw new AdminError(`No merchant ${merchantId}`);
    return access.invite(merchantId, request, 'operator').catch((error: unknown) => {
      if (error instanceof Conflict) throw new AdminError(error.message);
      throw error;
    });
  }

  /** Turns crediting of on-chain transfers on or off; held ones are credited by the watchers' next runs once on. */
  async setOnchainDeposits(merchantId: string, on: boolean): Promise<Merchant> {
    const merchant = await this.store.updateMerchant(merchantId, { onchainDeposits: on });
    if (!merchant) throw new AdminError(`No merchant ${merchantId}`);
    return merchant;
  }

  /** Adds a payout address as `operator` (docs/operations.md#merchants-and-keys), pending for the merchant's delay like any other. */
  async addPayoutAddress(merchantId: string, request: NewPayoutAddressRequest, addresses: PayoutAddresses): Promise<PayoutAddressView> {
    return addresses.add(merchantId, request, 'operator').catch(operatorError(`No merchant ${merchantId}`));
  }

  async removePayoutAddress(merchantId: string, id: string, addresses: PayoutAddresses): Promise<void> {
    await addresses.remove(merchantId, id, 'operator').catch(operatorError(`Merchant ${merchantId} has no payout address ${id}`));
  }

  async payoutAddresses(merchantId: string, addresses: PayoutAddresses): Promise<PayoutAddressView[]> {
    if (!(await this.store.getMerchant(merchantId))) throw new AdminError(`No merchant ${merchantId}`);
    return (await addresses.list(merchantId)).items;
  }

  /** How long the merchant's new payout addresses wait before they are active; those added before keep their time. */
  async setPayoutAddressDelay(merchantId: string, seconds: number): Promise<Merchant> {
    const merchant = await this.store.updateMerchant(merchantId, { payoutAddressDelaySeconds: seconds });
    if (!merchant) throw new AdminError(`No merchant ${merchantId}`);
    return merchant;
  }

  /** Transfers held on every network, of one merchant or of all. */
  async heldDeposits(merchantId?: string): Promise<HeldTransfer[]> {
    const held = (await Promise.all(CRYPTO_NETWORKS.map((network) => this.chain.held(network)))).flat();
    return held.filter((transfer) => merchantId === undefined || transfer.merchantId === merchantId).sort((a, b) => a.seenAt.localeCompare(b.seenAt));
  }

  /** Each merchant with its keys (newest first) and whether it takes on-chain deposits (its setting, else the stage's default). */
  async list(): Promise<Array<{ merchant: Merchant; keys: ApiKeyView[]; onchainDeposits: boolean }>> {
    const merchants = await this.store.listMerchants();
    return Promise.all(merchants.map(async (merchant) => ({ merchant, keys: await this.keys.list(merchant.id), onchainDeposits: takesOnchainDeposits(merchant, this.stage) })));
  }
}

/** A refusal of the domain in the operator's words (`notFound` for what was not found); any other failure as it is. */
const operatorError =
  (notFound: string) =>
  (error: unknown): never => {
    if (error instanceof NotFound) throw new AdminError(notFound);
    if (error instanceof Invalid || error instanceof Conflict) throw new AdminError(error.message);
    throw error;
  };
