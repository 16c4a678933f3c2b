/**
 * Merchants' callback secrets at rest: sealed with the vault (a KMS data key in AWS, the local key
 * file on one machine), bound to the merchant's id, and opened only where a callback is signed or
 * a transaction's `hash` is computed. An opened secret is kept for the container's life, keyed by
 * its sealed form, so a rotated secret is opened afresh and a container opens each one once.
 */
import type { SecretSealer } from '../domain/merchants/index.js';
import type { SealedSecret } from '../domain/kernel/index.js';
import { open, seal, type DataKeySource } from './envelope.js';

export const callbackSecretContext = (merchantId: string): string => `callback-secret:${merchantId}`;

/** Containers serve few merchants at a time; past this many opened secrets the oldest is dropped. */
const MAX_OPENED = 1_000;

export class CallbackSecretVault implements SecretSealer {
  private readonly opened = new Map<string, Promise<string>>();

  constructor(private readonly keys: DataKeySource) {}

  seal(merchantId: string, secret: string): Promise<SealedSecret> {
    return seal(this.keys, secret, callbackSecretContext(merchantId));
  }

  open(merchantId: string, sealed: SealedSecret): Promise<string> {
    const cacheKey = `${merchantId}:${sealed.encryptedKey}:${sealed.ciphertext}`;
    let secret = this.opened.get(cacheKey);
    if (!secret) {
      secret = open(this.keys, sealed, callbackSecretContext(merchantId));
      // A failure (KMS throttled, say) is not remembered.
      secret.catch(() => this.opened.delete(cacheKey));
      this.opened.set(cacheKey, secret);
      if (this.opened.size > MAX_OPENED) this.opened.delete(this.opened.keys().next().value!);
    }
    return secret;
  }
}
