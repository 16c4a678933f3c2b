/**
 * The treasury's signer in AWS: one KMS asymmetric key per family (`ECC_SECG_P256K1`,
 * `SIGN_VERIFY`), whose private half never leaves KMS. A digest is signed with `Sign`
 * (`MessageType: DIGEST`, `ECDSA_SHA_256`: KMS signs the 32 bytes as given, hashing nothing); the
 * DER answer is parsed, its S made low, and its recovery id found against the key's public key,
 * read once per family with `GetPublicKey` for the life of the container.
 */
import type { KMSClient } from '@aws-sdk/client-kms';
import {
  assertDigest,
  parseDerSignature,
  parseSecp256k1Spki,
  toRecoverableSignature,
  TREASURY_FAMILIES,
  type RecoverableSignature,
  type TreasuryFamily,
  type TreasurySigner,
} from '../domain/payouts/index.js';
import { KeyReads } from './key-reads.js';
import { kmsPublicKey, kmsSignDigest } from './kms-keys.js';

/** Each family's KMS key: its id, ARN, alias name or alias ARN. */
export type TreasuryKeyIds = Readonly<Record<TreasuryFamily, string>>;

const KEY_SPEC = 'ECC_SECG_P256K1';

const keyName = (family: TreasuryFamily): string => `the ${family} treasury's KMS key`;

export class KmsTreasurySigner implements TreasurySigner {
  readonly #publicKeys = new KeyReads<TreasuryFamily, Uint8Array>();

  constructor(
    private readonly kms: Pick<KMSClient, 'send'>,
    private readonly keyIds: TreasuryKeyIds,
  ) {
    for (const family of TREASURY_FAMILIES) {
      if (!keyIds[family]) throw new Error(`No KMS key for the ${family} treasury`);
    }
  }

  publicKey(family: TreasuryFamily): Promise<Uint8Array> {
    return this.#publicKeys.get(family, async () => parseSecp256k1Spki(await kmsPublicKey(this.kms, this.keyIds[family], KEY_SPEC, keyName(family)))).then((key) => key.slice());
  }

  async sign(family: TreasuryFamily, digest: Uint8Array): Promise<RecoverableSignature> {
    assertDigest(digest);
    const publicKey = await this.publicKey(family);
    const signature = await kmsSignDigest(this.kms, this.keyIds[family], digest, keyName(family));
    return toRecoverableSignature(parseDerSignature(signature), digest, publicKey);
  }
}
