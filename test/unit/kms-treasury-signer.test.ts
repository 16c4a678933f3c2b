import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { GetPublicKeyCommand, SignCommand, type GetPublicKeyCommandOutput, type KMSClient, type SignCommandOutput } from '@aws-sdk/client-kms';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { numberToHex, recoverAddress, recoverPublicKey } from 'viem';
import { privateKeyToAddress } from 'viem/accounts';
import { beforeEach, describe, expect, it } from 'vitest';
import { isLowS, SignerFault, treasuryAddress, treasuryAddresses, type TreasuryFamily } from '../../shared/domain/payouts/index.js';
import { KmsTreasurySigner, type TreasuryKeyIds } from '../../shared/signers/kms-signer.js';

const N = secp256k1.Point.Fn.ORDER;
const KEY_IDS: TreasuryKeyIds = { evm: 'alias/treasury-evm', tron: 'alias/treasury-tron', bitcoin: 'alias/treasury-bitcoin' };
const randomDigest = (): Uint8Array => crypto.getRandomValues(new Uint8Array(32));

/** A public key as KMS's GetPublicKey gives it: DER SubjectPublicKeyInfo, written by OpenSSL from the key's coordinates. */
function spkiOf(secretKey: Uint8Array): Uint8Array {
  const point = secp256k1.getPublicKey(secretKey, false);
  const coordinate = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');
  const jwk = { kty: 'EC', crv: 'secp256k1', x: coordinate(point.subarray(1, 33)), y: coordinate(point.subarray(33)) };
  return new Uint8Array(createPublicKey({ key: jwk, format: 'jwk' }).export({ type: 'spki', format: 'der' }));
}

type Answer = Partial<GetPublicKeyCommandOutput & SignCommandOutput>;

/**
 * KMS as far as the signer uses it: a secp256k1 key per key id; `Sign` signs the digest with noble
 * (a fresh nonce each time, as KMS does) and answers DER, every other answer with the high S that
 * KMS gives about half of the time; a `RAW` message is hashed first, as KMS does.
 */
class FakeKms {
  readonly requests: (GetPublicKeyCommand | SignCommand)[] = [];
  highAnswers = 0;
  /** When set, the key that answers `Sign` whatever key is named. */
  impostor?: Uint8Array;
  /** Replaces an answer, for the faults. */
  override?: (command: GetPublicKeyCommand | SignCommand) => Answer | undefined;

  constructor(readonly keys: Readonly<Record<string, Uint8Array>>) {}

  readonly send = async (command: unknown): Promise<Answer> => {
    if (!(command instanceof GetPublicKeyCommand) && !(command instanceof SignCommand)) throw new Error('not a command the signer uses');
    this.requests.push(command);
    const overridden = this.override?.(command);
    if (overridden) return overridden;
    const secretKey = this.keys[command.input.KeyId!];
    if (!secretKey) throw Object.assign(new Error('Key not found'), { name: 'NotFoundException' });
    const arn = `arn:aws:kms:eu-west-1:111122223333:key/${bytesToHex(secp256k1.getPublicKey(secretKey)).slice(2, 34)}`;
    if (command instanceof GetPublicKeyCommand) {
      return { KeyId: arn, PublicKey: spkiOf(secretKey), KeySpec: 'ECC_SECG_P256K1', KeyUsage: 'SIGN_VERIFY', SigningAlgorithms: ['ECDSA_SHA_256'] };
    }
    const { Message, MessageType, SigningAlgorithm } = command.input;
    if (SigningAlgorithm !== 'ECDSA_SHA_256') throw Object.assign(new Error('Unsupported algorithm'), { name: 'InvalidKeyUsageException' });
    const low = secp256k1.Signature.fromBytes(secp256k1.sign(Message!, this.impostor ?? secretKey, { prehash: MessageType !== 'DIGEST', extraEntropy: true }), 'compact');
    const high = this.requests.filter((request) => request instanceof SignCommand).length % 2 === 0;
    if (high) this.highAnswers++;
    const signature = high ? new secp256k1.Signature(low.r, N - low.s) : low;
    return { KeyId: arn, Signature: signature.toBytes('der'), SigningAlgorithm };
  };

  client(): Pick<KMSClient, 'send'> {
    return this as unknown as Pick<KMSClient, 'send'>;
  }

  count(kind: typeof GetPublicKeyCommand | typeof SignCommand, keyId?: string): number {
    return this.requests.filter((request) => request instanceof kind && (keyId === undefined || request.input.KeyId === keyId)).length;
  }
}

const secretKeys = {
  evm: secp256k1.utils.randomSecretKey(),
  tron: secp256k1.utils.randomSecretKey(),
  bitcoin: secp256k1.utils.randomSecretKey(),
} satisfies Record<TreasuryFamily, Uint8Array>;

let kms: FakeKms;
let signer: KmsTreasurySigner;
beforeEach(() => {
  kms = new FakeKms({ [KEY_IDS.evm]: secretKeys.evm, [KEY_IDS.tron]: secretKeys.tron, [KEY_IDS.bitcoin]: secretKeys.bitcoin });
  signer = new KmsTreasurySigner(kms.client(), KEY_IDS);
});

describe('KmsTreasurySigner', () => {
  it("gives each family's public key, compressed, from its own key", async () => {
    for (const family of ['evm', 'tron', 'bitcoin'] as const) {
      expect(await signer.publicKey(family)).toEqual(secp256k1.getPublicKey(secretKeys[family], true));
    }
  });

  it('answers low-S signatures that verify and whose recovery id recovers the key, from high-S answers too', async () => {
    const publicKey = secp256k1.getPublicKey(secretKeys.tron, true);
    for (let i = 0; i < 24; i++) {
      const digest = randomDigest();
      const { r, s, recovery } = await signer.sign('tron', digest);
      expect(isLowS(s)).toBe(true);
      expect(secp256k1.verify(new secp256k1.Signature(r, s).toBytes(), digest, publicKey, { prehash: false, lowS: true })).toBe(true);
      expect(new secp256k1.Signature(r, s, recovery).recoverPublicKey(digest).toBytes(true)).toEqual(publicKey);
    }
    expect(kms.highAnswers).toBe(12);
  });

  it("recovers, as an Ethereum client does, to the EVM treasury's address", async () => {
    const address = treasuryAddress('evm', await signer.publicKey('evm'), 'prod');
    expect(address).toBe(privateKeyToAddress(`0x${bytesToHex(secretKeys.evm)}`));
    const uncompressed = `0x${bytesToHex(secp256k1.getPublicKey(secretKeys.evm, false))}`;
    for (let i = 0; i < 6; i++) {
      const hash = `0x${bytesToHex(randomDigest())}` as const;
      const { r, s, recovery } = await signer.sign('evm', Buffer.from(hash.slice(2), 'hex'));
      const signature = { r: numberToHex(r, { size: 32 }), s: numberToHex(s, { size: 32 }), yParity: recovery };
      expect(await recoverAddress({ hash, signature })).toBe(address);
      expect(await recoverAddress({ hash, signature: { ...signature, yParity: undefined, v: 27n + BigInt(recovery) } })).toBe(address);
      expect(await recoverPublicKey({ hash, signature })).toBe(uncompressed);
    }
  });

  it("asks KMS to sign the digest as given with the family's key: DIGEST, ECDSA_SHA_256", async () => {
    const digest = randomDigest();
    await signer.sign('bitcoin', digest);
    const sign = kms.requests.find((request) => request instanceof SignCommand)!;
    expect(sign.input).toEqual({ KeyId: KEY_IDS.bitcoin, Message: digest, MessageType: 'DIGEST', SigningAlgorithm: 'ECDSA_SHA_256' });
    expect(kms.count(GetPublicKeyCommand)).toBe(1);
    expect(kms.requests[0]!.input.KeyId).toBe(KEY_IDS.bitcoin);
  });

  it("reads a family's public key once for the container's life, however many signatures, at once or one after another", async () => {
    await Promise.all(Array.from({ length: 10 }, () => signer.sign('evm', randomDigest())));
    for (let i = 0; i < 5; i++) await signer.sign('evm', randomDigest());
    await signer.publicKey('evm');
    expect(kms.count(SignCommand)).toBe(15);
    expect(kms.count(GetPublicKeyCommand)).toBe(1);
    await signer.sign('tron', randomDigest());
    expect(kms.count(GetPublicKeyCommand, KEY_IDS.tron)).toBe(1);
    expect(kms.count(GetPublicKeyCommand)).toBe(2);
  });

  it('refuses a signature KMS made with another key', async () => {
    kms.impostor = secp256k1.utils.randomSecretKey();
    await expect(signer.sign('evm', randomDigest())).rejects.toThrow(SignerFault);
    await expect(signer.sign('evm', randomDigest())).rejects.toThrow(/does not recover to the treasury key/);
  });

  it('refuses a signature over another digest', async () => {
    kms.override = (command) =>
      command instanceof SignCommand ? { Signature: secp256k1.sign(randomDigest(), secretKeys.evm, { prehash: false, format: 'der' }), SigningAlgorithm: 'ECDSA_SHA_256' } : undefined;
    await expect(signer.sign('evm', randomDigest())).rejects.toThrow(SignerFault);
  });

  it('refuses a Sign answer with no signature, a malformed one, or by another algorithm', async () => {
    const good = secp256k1.sign(randomDigest(), secretKeys.evm, { prehash: false, format: 'der' });
    for (const answer of [{}, { Signature: good.subarray(1) }, { Signature: Uint8Array.of(...good, 0) }, { Signature: good, SigningAlgorithm: 'ECDSA_SHA_384' as const }]) {
      kms.override = (command) => (command instanceof SignCommand ? answer : undefined);
      await expect(signer.sign('evm', randomDigest())).rejects.toThrow(SignerFault);
    }
  });

  it('refuses a key that is not a secp256k1 signing key', async () => {
    const p256 = new Uint8Array(generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).publicKey.export({ type: 'spki', format: 'der' }));
    const spki = spkiOf(secretKeys.evm);
    for (const answer of [
      { PublicKey: p256, KeySpec: 'ECC_NIST_P256' as const },
      { PublicKey: p256 },
      { PublicKey: spki, KeySpec: 'ECC_SECG_P256K1' as const, KeyUsage: 'ENCRYPT_DECRYPT' as const },
      { KeySpec: 'ECC_SECG_P256K1' as const },
    ]) {
      const fresh = new KmsTreasurySigner(kms.client(), KEY_IDS);
      kms.override = (command) => (command instanceof GetPublicKeyCommand ? answer : undefined);
      await expect(fresh.publicKey('evm')).rejects.toThrow(SignerFault);
      await expect(fresh.sign('evm', randomDigest())).rejects.toThrow(SignerFault);
    }
    expect(kms.count(SignCommand)).toBe(0);
  });

  it('asks for the public key again after a failed read', async () => {
    kms.override = (command) => {
      if (command instanceof GetPublicKeyCommand && kms.count(GetPublicKeyCommand) === 1) throw Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' });
      return undefined;
    };
    await expect(signer.publicKey('evm')).rejects.toThrow(/Rate exceeded/);
    expect(await signer.publicKey('evm')).toEqual(secp256k1.getPublicKey(secretKeys.evm, true));
    expect(kms.count(GetPublicKeyCommand)).toBe(2);
  });

  it('refuses a digest that is not 32 bytes, before asking KMS', async () => {
    await expect(signer.sign('evm', new Uint8Array(31))).rejects.toThrow(TypeError);
    await expect(signer.sign('evm', new Uint8Array(64))).rejects.toThrow(TypeError);
    expect(kms.requests).toEqual([]);
  });

  it('needs a key for every family', () => {
    expect(() => new KmsTreasurySigner(kms.client(), { ...KEY_IDS, bitcoin: '' })).toThrow(/bitcoin/);
  });

  it("gives the treasury's addresses from each family's key", async () => {
    const addresses = await treasuryAddresses(signer, 'prod');
    expect(addresses.evm).toBe(privateKeyToAddress(`0x${bytesToHex(secretKeys.evm)}`));
    expect(addresses.tron).toBe(treasuryAddress('tron', secp256k1.getPublicKey(secretKeys.tron, true), 'prod'));
    expect(addresses.bitcoin).toBe(treasuryAddress('bitcoin', secp256k1.getPublicKey(secretKeys.bitcoin, true), 'prod'));
    expect(new Set(Object.values(addresses)).size).toBe(3);
  });
});
