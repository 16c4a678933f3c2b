/**
 * The card vault in memory: what it seals is a reference that reveals nothing of the secret, and
 * opens only under the context it was sealed for, as the envelope encryption's associated data binds it.
 */
import { randomUUID } from 'node:crypto';
import type { CardVault } from '../../../shared/domain/payments/fiat-service.js';
import type { SealedSecret } from '../../../shared/domain/kernel/sealed-secret.js';

export class MemoryVault implements CardVault {
  private readonly secrets = new Map<string, { secret: string; context: string }>();

  async seal(secret: string, context: string): Promise<SealedSecret> {
    const ciphertext = randomUUID();
    this.secrets.set(ciphertext, { secret, context });
    return { algorithm: 'AES-256-GCM', encryptedKey: 'memory', iv: '', tag: '', ciphertext };
  }

  open(sealed: SealedSecret, context: string): string {
    const sealedFor = this.secrets.get(sealed.ciphertext);
    if (sealedFor?.context !== context) throw new Error('Unsupported state or unable to authenticate data');
    return sealedFor.secret;
  }
}
