/**
 * A secret as the vault seals it (envelope encryption: a data key from the key service encrypts the
 * secret with AES-256-GCM, and is kept encrypted beside it). The domain keeps such secrets on its
 * records and hands them to the vault's port to open; it never reads them.
 */
export interface SealedSecret {
  algorithm: 'AES-256-GCM';
  encryptedKey: string;
  iv: string;
  tag: string;
  ciphertext: string;
}
