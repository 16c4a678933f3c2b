/** Where data keys come from: KMS in AWS, a key file under the data directory locally. */
import { hkdfSync, randomBytes } from 'node:crypto';
import { DecryptCommand, GenerateDataKeyCommand, type KMSClient } from '@aws-sdk/client-kms';
import { aesGcmDecrypt, aesGcmEncrypt, type DataKey, type DataKeySource } from './envelope.js';
import { readOrCreateSecretFile } from './secret-files.js';

export class KmsDataKeySource implements DataKeySource {
  constructor(
    private readonly kms: KMSClient,
    private readonly keyId: string,
  ) {}

  async generate(): Promise<DataKey> {
    const { Plaintext, CiphertextBlob } = await this.kms.send(new GenerateDataKeyCommand({ KeyId: this.keyId, KeySpec: 'AES_256' }));
    if (!Plaintext || !CiphertextBlob) throw new Error('KMS returned no data key');
    return { plaintext: Plaintext, encrypted: Buffer.from(CiphertextBlob).toString('base64') };
  }

  async decrypt(encrypted: string): Promise<Uint8Array> {
    const { Plaintext } = await this.kms.send(new DecryptCommand({ KeyId: this.keyId, CiphertextBlob: Buffer.from(encrypted, 'base64') }));
    if (!Plaintext) throw new Error('KMS returned no plaintext');
    return Plaintext;
  }
}

/**
 * A 256-bit master key in a file (created on first use, mode 0600) wraps each data key with
 * AES-256-GCM: the same envelope as KMS, for one machine.
 */
export class KeyFileDataKeySource implements DataKeySource {
  private master?: Promise<Buffer>;

  constructor(private readonly path: string) {}

  private masterKey(): Promise<Buffer> {
    this.master ??= readOrCreateSecretFile(this.path, () => randomBytes(32));
    return this.master;
  }

  /** A key of its own for one purpose (signing report links), derived from the master key (HKDF-SHA256). */
  async derivedKey(purpose: string): Promise<Buffer> {
    return Buffer.from(hkdfSync('sha256', await this.masterKey(), Buffer.alloc(0), purpose, 32));
  }

  async generate(): Promise<DataKey> {
    const plaintext = randomBytes(32);
    const { iv, tag, ciphertext } = aesGcmEncrypt(await this.masterKey(), plaintext);
    return { plaintext, encrypted: Buffer.concat([iv, tag, ciphertext]).toString('base64') };
  }

  async decrypt(encrypted: string): Promise<Uint8Array> {
    const bytes = Buffer.from(encrypted, 'base64');
    return aesGcmDecrypt(await this.masterKey(), { iv: bytes.subarray(0, 12), tag: bytes.subarray(12, 28), ciphertext: bytes.subarray(28) });
  }
}
