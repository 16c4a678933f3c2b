/**
 * Transaction receipts' signer on one machine: P-256 private keys as PKCS #8 PEM files,
 * `{directory}/{n}.pem` (the directory is `receipt-keys/` under the data directory, beside the
 * treasury's keys), owner-only. The highest `n` is the current key; the others are retired and
 * stay listed for verification. The first key is made on first use; `rotate` adds the next. The
 * directory is read on each use, so a rotation by the admin CLI takes effect in a running gateway.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { receiptPublicKey, type ReceiptPublicKey, type ReceiptSigner } from '../domain/payments/index.js';
import { readOrCreateSecretFile } from '../vault/secret-files.js';
import { KeyReads } from './key-reads.js';

/** Where the local receipt keys live under a data directory. */
export const receiptKeyDirectory = (dataDir: string): string => join(dataDir, 'receipt-keys');

const KEY_FILE = /^(\d+)\.pem$/;

interface ReceiptKey {
  privateKey: KeyObject;
  publicKey: ReceiptPublicKey;
}

export class KeyFileReceiptSigner implements ReceiptSigner {
  /** Keys read, by file name: a key file is never rewritten. */
  readonly #keys = new KeyReads<string, ReceiptKey>();

  constructor(private readonly directory: string) {}

  async currentKeyId(): Promise<string> {
    return (await this.keys())[0]!.publicKey.kid;
  }

  async sign(kid: string, signingInput: Uint8Array): Promise<Uint8Array> {
    const key = (await this.keys()).find((candidate) => candidate.publicKey.kid === kid);
    if (!key) throw new Error(`No receipt key ${kid} in ${this.directory}`);
    // IEEE P1363 is the JOSE form: r || s, 32 bytes each.
    return new Uint8Array(sign('sha256', signingInput, { key: key.privateKey, dsaEncoding: 'ieee-p1363' }));
  }

  async publicKeys(): Promise<ReceiptPublicKey[]> {
    return (await this.keys()).map((key) => key.publicKey);
  }

  /** Makes a new key the current one; the one before stays listed. Answers the new key's `kid`. */
  async rotate(): Promise<string> {
    const numbers = await this.keyNumbers();
    await this.makeKey((numbers[0] ?? 0) + 1);
    return this.currentKeyId();
  }

  /** Every key, the current (highest numbered) first; the first key is made when there is none. */
  private async keys(): Promise<ReceiptKey[]> {
    let numbers = await this.keyNumbers();
    if (numbers.length === 0) {
      await this.makeKey(1);
      numbers = await this.keyNumbers();
    }
    return Promise.all(numbers.map((number) => this.keyOf(`${number}.pem`)));
  }

  private async keyNumbers(): Promise<number[]> {
    let names: string[];
    try {
      names = await readdir(this.directory);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    return names
      .flatMap((name) => KEY_FILE.exec(name)?.[1] ?? [])
      .map(Number)
      .sort((a, b) => b - a);
  }

  private keyOf(name: string): Promise<ReceiptKey> {
    return this.#keys.get(name, () => readKey(join(this.directory, name)));
  }

  /** Makes key `number`; of two processes making it at once, one wins and both read its key. */
  private async makeKey(number: number): Promise<void> {
    await readOrCreateSecretFile(join(this.directory, `${number}.pem`), () => generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }));
  }
}

async function readKey(path: string): Promise<ReceiptKey> {
  const privateKey = createPrivateKey(await readFile(path));
  if (privateKey.asymmetricKeyType !== 'ec' || privateKey.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
    throw new Error(`Receipt key file ${path} is not a P-256 private key`);
  }
  const { x, y } = createPublicKey(privateKey).export({ format: 'jwk' });
  return { privateKey, publicKey: receiptPublicKey(Buffer.from(x!, 'base64url'), Buffer.from(y!, 'base64url')) };
}
