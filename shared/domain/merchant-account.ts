/**
 * What a merchant reads and changes of its own profile (docs/merchant-guide.md#merchant-settings): its settings, and its
 * callback secret's rotation with a period in which both the old and the new secret sign.
 */
import type { Stage } from '../stage.js';
import {
  merchantView,
  authenticatedMerchant,
  rotatedCallbackSecret,
  settingsChanges,
  type Merchant,
  type MerchantProfiles,
  type MerchantSettings,
  type MerchantView,
  type RotatedSecret,
  type RotatedSecretChanges,
  type SecretSealer,
} from './merchants.js';
import { Conflict, Invalid } from './errors.js';

export interface MerchantAccountDeps {
  merchants: MerchantProfiles & {
    updateMerchant(id: string, changes: Partial<Merchant>): Promise<Merchant | undefined>;
    /**
     * Writes a rotation, unless the secret is no longer `current` or a rotation was written at or
     * after `requestedAt`; false when it did not.
     */
    replaceCallbackSecret(id: string, current: Merchant['sealedCallbackSecret'], changes: RotatedSecretChanges, requestedAt: Date): Promise<boolean>;
  };
  stage: Stage;
  /**
   * Why a callback URL may not be used where this stage delivers (a deployed stage calls public
   * addresses only), or undefined; absent where any address may be called back (one machine).
   */
  callbackUrlGuard?: (url: string) => Promise<string | undefined>;
  clock: () => Date;
}

export class MerchantAccount {
  constructor(private readonly deps: MerchantAccountDeps) {}

  async view(merchantId: string): Promise<MerchantView> {
    return merchantView(await authenticatedMerchant(this.deps.merchants, merchantId), this.deps.stage);
  }

  /** Validates every change first, then writes them in one update: a refused request changes nothing. */
  async update(merchantId: string, request: MerchantSettings): Promise<MerchantView> {
    const changes = settingsChanges(request, this.deps.stage);
    const guardProblem = changes.callbackUrl && (await this.deps.callbackUrlGuard?.(changes.callbackUrl));
    if (guardProblem) throw Invalid.of('callbackUrl', `callbackUrl ${guardProblem}`);
    const updated = await this.deps.merchants.updateMerchant(merchantId, changes);
    if (!updated) throw new Error(`Authenticated merchant ${merchantId} has no profile`);
    return merchantView(updated, this.deps.stage);
  }

  /**
   * A new callback secret, returned this once. The one it replaces keeps signing beside it for
   * `overlapSeconds`; a second rotation within that time replaces the first one's secret, and the
   * secret before it stops signing. Rotations requested at the same time do not chain: one is
   * written, and each other one, having been requested before that write, is a 409 that changes
   * nothing. So every secret answered is the one the merchant has once the burst is over.
   */
  async rotateCallbackSecret(merchantId: string, sealer: SecretSealer, overlapSeconds: number, requestedAt: Date): Promise<RotatedSecret> {
    const merchant = await authenticatedMerchant(this.deps.merchants, merchantId);
    const { secret, changes } = await rotatedCallbackSecret(merchant, sealer, this.deps.clock(), overlapSeconds);
    if (!(await this.deps.merchants.replaceCallbackSecret(merchant.id, merchant.sealedCallbackSecret, changes, requestedAt))) {
      throw new Conflict('Another rotation of the callback secret was made while this one ran; this one changed nothing');
    }
    return { callbackSecret: secret, previousSecretExpiresAt: changes.previousCallbackSecret.expiresAt };
  }
}
