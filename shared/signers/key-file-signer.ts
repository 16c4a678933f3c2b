/**
 * The treasury's signer on one machine: each family's private key is a file of 32 raw bytes,
 * `{directory}/{family}.key` (the directory is `treasury/` under the data directory), owner-only,
 * made on first use and never replaced. The key is never logged nor shown: not in errors, not
 * when the signer is inspected.
 */
import { randomBytes } from 'node:crypto';
import { chmod, link, mkdir, open, readFile, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { secp256k1 } from '@noble/curves/secp256k1.js';
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
  readonly #keys = new Map<TreasuryFamily, Promise<KeyPair>>();

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
    let keyPair = this.#keys.get(family);
    if (!keyPair) {
      const reading = readOrMakeKey(this.keyFile(family)).then((secretKey) => ({ secretKey, publicKey: secp256k1.getPublicKey(secretKey, true) }));
      reading.catch(() => {
        if (this.#keys.get(family) === reading) this.#keys.delete(family);
      });
      this.#keys.set(family, reading);
      keyPair = reading;
    }
    return keyPair;
  }
}

/**
 * The key in `path`, made first if there is none. A new key is written whole to a file of its own
 * and then linked to `path`, which fails if `path` exists: two processes starting at once make one
 * key, the loser reads the winner's, and no one ever reads half a key.
 */
async function readOrMakeKey(path: string): Promise<Uint8Array> {
  const existing = await readKey(path);
  if (existing) return existing;
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const draft = `${path}.${randomBytes(8).toString('hex')}.new`;
  try {
    const file = await open(draft, 'wx', OWNER_ONLY);
    try {
      await file.writeFile(secp256k1.utils.randomSecretKey());
      await file.sync();
    } finally {
      await file.close();
    }
    await link(draft, path).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    });
  } finally {
    await rm(draft, { force: true });
  }
  const made = await readKey(path);
  if (!made) throw new Error(`Treasury key file ${path} vanished as it was made`);
  return made;
}

async function readKey(path: string): Promise<Uint8Array | undefined> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
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
