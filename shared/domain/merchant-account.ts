/**
 * What a merchant reads and changes of its own profile (decisions 16): its settings, and its
 * callback secret's rotation with a period in which both the old and the new secret sign.
 */
import { ApiError } from '../errors.js';
import type { Stage } from '../routes.js';
import {
  merchantView,
  rotatedCallbackSecret,
  settingsChanges,
  type Merchant,
  type MerchantSettings,
  type MerchantView,
  type RotatedSecret,
  type SecretSealer,
} from './merchants.js';

export interface MerchantAccountDeps {
  merchants: {
    getMerchant(id: string): Promise<Merchant | undefined>;
    updateMerchant(id: string, changes: Partial<Merchant>): Promise<Merchant | undefined>;
    replaceCallbackSecret(id: string, current: Merchant['sealedCallbackSecret'], changes: Pick<Merchant, 'sealedCallbackSecret' | 'previousCallbackSecret'>): Promise<boolean>;
  };
  stage: Stage;
  clock: () => Date;
}

/** Rotations racing each other are rare; a few re-reads settle any of them. */
const ROTATION_ATTEMPTS = 3;

export class MerchantAccount {
  constructor(private readonly deps: MerchantAccountDeps) {}

  async view(merchantId: string): Promise<MerchantView> {
    return merchantView(await this.merchant(merchantId), this.deps.stage);
  }

  /** Validates every change first, then writes them in one update: a refused request changes nothing. */
  async update(merchantId: string, request: MerchantSettings): Promise<MerchantView> {
    const changes = settingsChanges(request, this.deps.stage);
    const updated = await this.deps.merchants.updateMerchant(merchantId, changes);
    if (!updated) throw new Error(`Authenticated merchant ${merchantId} has no profile`);
    return merchantView(updated, this.deps.stage);
  }

  /**
   * A new callback secret, returned this once. The one it replaces keeps signing beside it for
   * `overlapSeconds`; a second rotation within that time replaces the first one's secret, and the
   * secret before it stops signing.
   */
  async rotateCallbackSecret(merchantId: string, sealer: SecretSealer, overlapSeconds: number): Promise<RotatedSecret> {
    for (let attempt = 0; attempt < ROTATION_ATTEMPTS; attempt++) {
      const merchant = await this.merchant(merchantId);
      const { secret, changes } = await rotatedCallbackSecret(merchant, sealer, this.deps.clock(), overlapSeconds);
      if (await this.deps.merchants.replaceCallbackSecret(merchant.id, merchant.sealedCallbackSecret, changes)) {
        return { callbackSecret: secret, previousSecretExpiresAt: changes.previousCallbackSecret.expiresAt };
      }
    }
    throw new ApiError('conflict', 'The callback secret kept changing; retry the request');
  }

  private async merchant(merchantId: string): Promise<Merchant> {
    const merchant = await this.deps.merchants.getMerchant(merchantId);
    if (!merchant) throw new Error(`Authenticated merchant ${merchantId} has no profile`);
    return merchant;
  }
}
