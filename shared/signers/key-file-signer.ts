import { chmod, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { readOrCreateSecretFile } from '../vault/secret-files.js';
import { KeyReads } from './key-reads.js';
import { assertDigest, SignerFault, TREASURY_FAMILIES, type RecoverableSignature, type TreasuryFamily, type TreasurySigner } from '../domain/payouts/index.js';

/** Where the local treasury keys live under a data directory. */
export const treasuryKeyDirectory = (dataDir: string): string => join(dataDir, 'treasury');

const SECRET_KEY_LENGTH = 32;
const OWNER_ONLY = 0o600;

interface KeyPair {
  secretKey: Uint8Array;
  publicKey: Uint8Array;
}

export class KeyFileTreasurySigner implements TreasurySigner {
  readonly #keys = new KeyReads<TreasuryFamily, KeyPair>();

  constructor(private readonly directory: string) {}

  /** The file holding a family's key. */
  keyFile(family: TreasuryFamily): string {
    if (!TREASURY_FAMILIES.includes(family)) throw new TypeError(`Not a treasury family: ${String(family)}`);
    return join(this.directory, `${family}.key`);
  }

  async publicKey(family: TreasuryFamily): Promise<Uint8Array> {
    return (await this.keyPair(family)).publicKey.slice();
  }

  async sign(family: TreasuryFamily, digest: Uint8Array): Promise<RecoverableSignature> {
    assertDigest(digest);
    const { secretKey } = await this.keyPair(family);
    // The digest is signed as given (no hashing), S low, and the recovery id in front: RFC 6979's deterministic nonce.
    const bytes = secp256k1.sign(digest, secretKey, { prehash: false, lowS: true, format: 'recovered' });
    const { r, s, recovery } = secp256k1.Signature.fromBytes(bytes, 'recovered');
    if (recovery !== 0 && recovery !== 1) throw new SignerFault(`The ${family} treasury's signature has recovery id ${recovery}, which chains cannot carry`);
    return { r, s, recovery };
  }

  private keyPair(family: TreasuryFamily): Promise<KeyPair> {
    return this.#keys.get(family, async () => {
      const secretKey = await readOrMakeKey(this.keyFile(family));
      return { secretKey, publicKey: secp256k1.getPublicKey(secretKey, true) };
    });
  }
}

/** The key in `path`, made first if there is none (one key of processes starting at once). */
async function readOrMakeKey(path: string): Promise<Uint8Array> {
  const bytes = await readOrCreateSecretFile(path, () => secp256k1.utils.randomSecretKey());
  const secretKey = new Uint8Array(bytes);
  bytes.fill(0);
  if (secretKey.length !== SECRET_KEY_LENGTH || !secp256k1.utils.isValidSecretKey(secretKey)) {
    secretKey.fill(0);
    throw new Error(`Treasury key file ${path} is not a secp256k1 private key of ${SECRET_KEY_LENGTH} bytes; it is never replaced by itself: restore it, or move it away to make a new treasury`);
  }
  // Owner-only, even if the file was copied in with wider rights.
  if (((await stat(path)).mode & 0o077) !== 0) await chmod(path, OWNER_ONLY);
  return secretKey;
}
