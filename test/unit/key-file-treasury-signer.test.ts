import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { numberToHex, recoverAddress } from 'viem';
import { privateKeyToAddress } from 'viem/accounts';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findRecoveryId, isLowS, treasuryAddress } from '../../shared/domain/payouts/index.js';
import { KeyFileTreasurySigner, treasuryKeyDirectory } from '../../shared/signers/key-file-signer.js';

const randomDigest = (): Uint8Array => crypto.getRandomValues(new Uint8Array(32));

let dataDir: string;
let directory: string;
beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'treasury-keys-'));
  directory = treasuryKeyDirectory(dataDir);
});
afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

describe('KeyFileTreasurySigner', () => {
  it("makes a family's key on first use: 32 bytes in {dataDir}/treasury/{family}.key, owner-only, its public key the signer's", async () => {
    const signer = new KeyFileTreasurySigner(directory);
    await expect(readdir(dataDir)).resolves.toEqual([]);
    const publicKey = await signer.publicKey('evm');
    const path = join(dataDir, 'treasury', 'evm.key');
    expect(signer.keyFile('evm')).toBe(path);
    expect(await readdir(directory)).toEqual(['evm.key']);
    const secretKey = new Uint8Array(await readFile(path));
    expect(secretKey).toHaveLength(32);
    expect(secp256k1.getPublicKey(secretKey, true)).toEqual(publicKey);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect((await stat(directory)).mode & 0o077).toBe(0);
  });

  it('makes one key under 10 first uses at once, by one signer or by ten', async () => {
    const one = new KeyFileTreasurySigner(directory);
    const fromOne = await Promise.all(Array.from({ length: 10 }, () => one.publicKey('tron')));
    expect(new Set(fromOne.map(bytesToHex)).size).toBe(1);
    // Ten signers (ten containers, ten processes) racing, several times over: every one of them
    // holds the key that is in the file, and no loser leaves a file behind.
    for (let round = 0; round < 8; round++) {
      const roundDirectory = join(dataDir, `race-${round}`);
      const keys = await Promise.all(Array.from({ length: 10 }, () => new KeyFileTreasurySigner(roundDirectory).publicKey('bitcoin')));
      const inFile = secp256k1.getPublicKey(new Uint8Array(await readFile(join(roundDirectory, 'bitcoin.key'))), true);
      expect(keys.map(bytesToHex)).toEqual(Array.from({ length: 10 }, () => bytesToHex(inFile)));
      expect(await readdir(roundDirectory)).toEqual(['bitcoin.key']);
    }
    expect(await readdir(directory)).toEqual(['tron.key']);
  });

  it('keeps the same key across signers, and a key of its own per family', async () => {
    const first = await new KeyFileTreasurySigner(directory).publicKey('evm');
    expect(await new KeyFileTreasurySigner(directory).publicKey('evm')).toEqual(first);
    const tron = await new KeyFileTreasurySigner(directory).publicKey('tron');
    expect(bytesToHex(tron)).not.toBe(bytesToHex(first));
  });

  it('signs low-S signatures whose recovery id recovers its public key', async () => {
    const signer = new KeyFileTreasurySigner(directory);
    const publicKey = await signer.publicKey('bitcoin');
    for (let i = 0; i < 24; i++) {
      const digest = randomDigest();
      const signature = await signer.sign('bitcoin', digest);
      expect(isLowS(signature.s)).toBe(true);
      expect(secp256k1.verify(new secp256k1.Signature(signature.r, signature.s).toBytes(), digest, publicKey, { prehash: false, lowS: true })).toBe(true);
      expect(new secp256k1.Signature(signature.r, signature.s, signature.recovery).recoverPublicKey(digest).toBytes(true)).toEqual(publicKey);
      expect(findRecoveryId(signature, digest, publicKey)).toBe(signature.recovery);
    }
  });

  it("signs so that an Ethereum client recovers the EVM treasury's address", async () => {
    const signer = new KeyFileTreasurySigner(directory);
    await signer.publicKey('evm');
    const secretKey = `0x${bytesToHex(await readFile(signer.keyFile('evm')))}` as const;
    const address = treasuryAddress('evm', await signer.publicKey('evm'), 'demo');
    expect(address).toBe(privateKeyToAddress(secretKey));
    const digest = randomDigest();
    const { r, s, recovery } = await signer.sign('evm', digest);
    const signature = { r: numberToHex(r, { size: 32 }), s: numberToHex(s, { size: 32 }), yParity: recovery };
    expect(await recoverAddress({ hash: digest, signature })).toBe(address);
  });

  it('refuses a key file that is not a private key, and leaves it as it is', async () => {
    await mkdir(directory, { recursive: true });
    for (const content of [new Uint8Array(31), new Uint8Array(32), Buffer.from('ff'.repeat(32), 'hex'), new Uint8Array(33).fill(1)]) {
      await writeFile(join(directory, 'evm.key'), content, { mode: 0o600 });
      await expect(new KeyFileTreasurySigner(directory).publicKey('evm')).rejects.toThrow(/evm\.key is not a secp256k1 private key/);
      expect(new Uint8Array(await readFile(join(directory, 'evm.key')))).toEqual(new Uint8Array(content));
    }
  });

  it('makes a key file copied in with wider rights owner-only', async () => {
    await mkdir(directory, { recursive: true });
    const secretKey = secp256k1.utils.randomSecretKey();
    await writeFile(join(directory, 'tron.key'), secretKey, { mode: 0o644 });
    expect(await new KeyFileTreasurySigner(directory).publicKey('tron')).toEqual(secp256k1.getPublicKey(secretKey, true));
    expect((await stat(join(directory, 'tron.key'))).mode & 0o777).toBe(0o600);
  });

  it('shows its key nowhere: not when inspected, not in its errors', async () => {
    const signer = new KeyFileTreasurySigner(directory);
    await signer.sign('evm', randomDigest());
    const secretHex = bytesToHex(await readFile(signer.keyFile('evm')));
    expect(inspect(signer, { showHidden: true, depth: 10 })).not.toContain(secretHex);
    expect(inspect(signer, { showHidden: true, depth: 10 })).not.toMatch(/Uint8Array/);
    expect(JSON.stringify(signer)).not.toContain(secretHex);
    const error = await signer.sign('evm', new Uint8Array(5)).catch((caught: Error) => caught);
    expect(error).toBeInstanceOf(TypeError);
    expect(`${(error as Error).message} ${(error as Error).stack}`).not.toContain(secretHex);
  });

  it('refuses a digest that is not 32 bytes', async () => {
    const signer = new KeyFileTreasurySigner(directory);
    await expect(signer.sign('evm', new Uint8Array(31))).rejects.toThrow(TypeError);
    await expect(signer.sign('evm', new Uint8Array(33))).rejects.toThrow(TypeError);
  });
});
