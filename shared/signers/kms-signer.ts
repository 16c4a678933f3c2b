/**
 * The treasury's signer in AWS: one KMS asymmetric key per family (`ECC_SECG_P256K1`,
 * `SIGN_VERIFY`), whose private half never leaves KMS. A digest is signed with `Sign`
 * (`MessageType: DIGEST`, `ECDSA_SHA_256`: KMS signs the 32 bytes as given, hashing nothing); the
 * DER answer is parsed, its S made low, and its recovery id found against the key's public key,
 * read once per family with `GetPublicKey` for the life of the container.
 */
import { GetPublicKeyCommand, SignCommand, type KMSClient } from '@aws-sdk/client-kms';
import {
  assertDigest,
  parseDerSignature,
  parseSecp256k1Spki,
  SignerFault,
  toRecoverableSignature,
  TREASURY_FAMILIES,
  type RecoverableSignature,
  type TreasuryFamily,
  type TreasurySigner,
} from '../domain/payouts/index.js';

/** Each family's KMS key: its id, ARN, alias name or alias ARN. */
export type TreasuryKeyIds = Readonly<Record<TreasuryFamily, string>>;

const KEY_SPEC = 'ECC_SECG_P256K1';
const SIGNING_ALGORITHM = 'ECDSA_SHA_256';

export class KmsTreasurySigner implements TreasurySigner {
  readonly #publicKeys = new Map<TreasuryFamily, Promise<Uint8Array>>();

  constructor(
    private readonly kms: Pick<KMSClient, 'send'>,
    private readonly keyIds: TreasuryKeyIds,
  ) {
    for (const family of TREASURY_FAMILIES) {
      if (!keyIds[family]) throw new Error(`No KMS key for the ${family} treasury`);
    }
  }

  publicKey(family: TreasuryFamily): Promise<Uint8Array> {
    let publicKey = this.#publicKeys.get(family);
    if (!publicKey) {
      publicKey = this.readPublicKey(family);
      // A failed read is not kept: the next call asks KMS again.
      const reading = publicKey;
      reading.catch(() => {
        if (this.#publicKeys.get(family) === reading) this.#publicKeys.delete(family);
      });
      this.#publicKeys.set(family, reading);
    }
    return publicKey.then((key) => key.slice());
  }

  async sign(family: TreasuryFamily, digest: Uint8Array): Promise<RecoverableSignature> {
    assertDigest(digest);
    const publicKey = await this.publicKey(family);
    const answer = await this.kms.send(new SignCommand({ KeyId: this.keyIds[family], Message: digest, MessageType: 'DIGEST', SigningAlgorithm: SIGNING_ALGORITHM }));
    if (!answer.Signature) throw new SignerFault(`KMS answered no signature for the ${family} treasury`);
    if (answer.SigningAlgorithm !== undefined && answer.SigningAlgorithm !== SIGNING_ALGORITHM) {
      throw new SignerFault(`KMS signed for the ${family} treasury with ${answer.SigningAlgorithm}, not ${SIGNING_ALGORITHM}`);
    }
    return toRecoverableSignature(parseDerSignature(answer.Signature), digest, publicKey);
  }

  private async readPublicKey(family: TreasuryFamily): Promise<Uint8Array> {
    const answer = await this.kms.send(new GetPublicKeyCommand({ KeyId: this.keyIds[family] }));
    if (answer.KeySpec !== undefined && answer.KeySpec !== KEY_SPEC) {
      throw new SignerFault(`The ${family} treasury's KMS key is ${answer.KeySpec}, not ${KEY_SPEC}`);
    }
    if (answer.KeyUsage !== undefined && answer.KeyUsage !== 'SIGN_VERIFY') {
      throw new SignerFault(`The ${family} treasury's KMS key is for ${answer.KeyUsage}, not SIGN_VERIFY`);
    }
    if (!answer.PublicKey) throw new SignerFault(`KMS answered no public key for the ${family} treasury`);
    return parseSecp256k1Spki(answer.PublicKey);
  }
}
