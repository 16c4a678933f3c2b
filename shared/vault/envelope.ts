/**
 * Envelope encryption for secrets at rest (card numbers): each secret is sealed with AES-256-GCM
 * under its own data key, and only the data key's encrypted form is stored beside it. The data
 * keys come from KMS in AWS and from a local key file on one machine.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { SealedSecret } from '../domain/kernel/index.js';

export interface DataKey {
  plaintext: Uint8Array;
  /** The data key encrypted under the master key, base64; safe to store. */
  encrypted: string;
}

export interface DataKeySource {
  generate(): Promise<DataKey>;
  decrypt(encrypted: string): Promise<Uint8Array>;
}

export function aesGcmEncrypt(key: Uint8Array, plaintext: Buffer, associatedData?: string): { iv: Buffer; tag: Buffer; ciphertext: Buffer } {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  if (associatedData) cipher.setAAD(Buffer.from(associatedData, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return { iv, tag: cipher.getAuthTag(), ciphertext };
}

export function aesGcmDecrypt(key: Uint8Array, parts: { iv: Buffer; tag: Buffer; ciphertext: Buffer }, associatedData?: string): Buffer {
  const decipher = createDecipheriv('aes-256-gcm', key, parts.iv);
  if (associatedData) decipher.setAAD(Buffer.from(associatedData, 'utf8'));
  decipher.setAuthTag(parts.tag);
  return Buffer.concat([decipher.update(parts.ciphertext), decipher.final()]);
}

/**
 * Seals `secret`, bound to `context` (e.g. the transaction id) so a sealed value cannot be moved
 * to another record and still open.
 */
export async function seal(keys: DataKeySource, secret: string, context: string): Promise<SealedSecret> {
  const dataKey = await keys.generate();
  try {
    const { iv, tag, ciphertext } = aesGcmEncrypt(dataKey.plaintext, Buffer.from(secret, 'utf8'), context);
    return { algorithm: 'AES-256-GCM', encryptedKey: dataKey.encrypted, iv: iv.toString('base64'), tag: tag.toString('base64'), ciphertext: ciphertext.toString('base64') };
  } finally {
    dataKey.plaintext.fill(0);
  }
}

export async function open(keys: DataKeySource, sealed: SealedSecret, context: string): Promise<string> {
  const key = await keys.decrypt(sealed.encryptedKey);
  try {
    const parts = { iv: Buffer.from(sealed.iv, 'base64'), tag: Buffer.from(sealed.tag, 'base64'), ciphertext: Buffer.from(sealed.ciphertext, 'base64') };
    return aesGcmDecrypt(key, parts, context).toString('utf8');
  } finally {
    key.fill(0);
  }
}
