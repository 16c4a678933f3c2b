/**
 * What a merchant reads and changes of its own profile (docs/merchant-guide.md#merchant-settings): its settings, and its
 * callback secret's rotation with a period in which the replaced secrets sign beside the new one.
 */
import type { Stage } from '../../stage.js';
import {
  merchantView,
  authenticatedMerchant,
  generateCallbackSecret,
  rotationChanges,
  settingsChanges,
  type Merchant,
  type MerchantProfiles,
  type MerchantSettings,
  type MerchantView,
  type RotatedSecret,
  type RotatedSecretChanges,
  type SecretSealer,
} from './merchants.js';
import { Conflict, Invalid, optimisticAttempts } from '../kernel/index.js';

export interface MerchantAccountDeps {
  merchants: MerchantProfiles & {
    updateMerchant(id: string, changes: Partial<Merchant>): Promise<Merchant | undefined>;
    /** Writes a rotation, unless the secret is no longer `current`; false when it did not. */
    replaceCallbackSecret(id: string, current: Merchant['sealedCallbackSecret'], changes: RotatedSecretChanges): Promise<boolean>;
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
   * `overlapSeconds`, and so does every secret replaced before whose overlap has not ended: every
   * secret answered signs until its own overlap ends, however rotations interleave. One that lost
   * the race to another rotation is made again on the secret that one wrote; one beyond
   * `MAX_PREVIOUS_CALLBACK_SECRETS` is refused and changes nothing.
   */
  async rotateCallbackSecret(merchantId: string, sealer: SecretSealer, overlapSeconds: number): Promise<RotatedSecret> {
    const secret = generateCallbackSecret();
    // Sealed once: what a try reads of the merchant does not change it.
    const sealed = await sealer.seal(merchantId, secret);
    for await (const _attempt of optimisticAttempts()) {
      const merchant = await authenticatedMerchant(this.deps.merchants, merchantId);
      const changes = rotationChanges(merchant, sealed, this.deps.clock(), overlapSeconds);
      if (await this.deps.merchants.replaceCallbackSecret(merchantId, merchant.sealedCallbackSecret, changes)) {
        return { callbackSecret: secret, previousSecretExpiresAt: changes.previousCallbackSecrets[0]!.expiresAt };
      }
    }
    throw new Conflict('Other rotations of the callback secret kept being written while this one ran; this one changed nothing');
  }
}
