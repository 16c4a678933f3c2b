/**
 * Transaction receipts' signer in AWS: KMS asymmetric keys (`ECC_NIST_P256`, `SIGN_VERIFY`) whose
 * private halves never leave KMS. The signing input is hashed here and KMS signs the digest
 * (`MessageType: DIGEST`, `ECDSA_SHA_256`), so a receipt of any size is one `Sign` call; its DER
 * answer becomes the 64 bytes r || s JOSE takes. Each key's public half is read once per container
 * (`GetPublicKey`), which names it by its thumbprint. The current key signs; retired keys (kept in
 * the stage's configuration after a rotation, docs/operations.md#receipt-keys) are only listed.
 */
import { createHash } from 'node:crypto';
import type { KMSClient } from '@aws-sdk/client-kms';
import { numberToBytesBE } from '@noble/curves/utils.js';
import { receiptPublicKey, type ReceiptPublicKey, type ReceiptSigner } from '../domain/payments/index.js';
import { P256_ORDER, parseDerSignature, parseP256Spki, SignerFault } from '../domain/payouts/index.js';
import { KeyReads } from './key-reads.js';
import { kmsPublicKey, kmsSignDigest } from './kms-keys.js';

const KEY_SPEC = 'ECC_NIST_P256';
const SCALAR_BYTES = 32;

export interface ReceiptKeyIds {
  /** The key that signs: its id, ARN, alias name or alias ARN. */
  current: string;
  /** Keys rotated out, still listed for the receipts they signed: as the stage's configuration names them now. */
  retired: () => readonly string[];
}

export class KmsReceiptSigner implements ReceiptSigner {
  readonly #publicKeys = new KeyReads<string, ReceiptPublicKey>();

  constructor(
    private readonly kms: Pick<KMSClient, 'send'>,
    private readonly keyIds: ReceiptKeyIds,
  ) {}

  async currentKeyId(): Promise<string> {
    return (await this.publicKeyOf(this.keyIds.current)).kid;
  }

  async sign(kid: string, signingInput: Uint8Array): Promise<Uint8Array> {
    if (kid !== (await this.currentKeyId())) throw new SignerFault(`Receipts are signed with the current key, not ${kid}`);
    const digest = createHash('sha256').update(signingInput).digest();
    const { r, s } = parseDerSignature(await kmsSignDigest(this.kms, this.keyIds.current, digest, `receipt key ${this.keyIds.current}`), P256_ORDER);
    return Uint8Array.from([...numberToBytesBE(r, SCALAR_BYTES), ...numberToBytesBE(s, SCALAR_BYTES)]);
  }

  publicKeys(): Promise<ReceiptPublicKey[]> {
    return Promise.all([this.keyIds.current, ...this.keyIds.retired()].map((keyId) => this.publicKeyOf(keyId)));
  }

  private publicKeyOf(keyId: string): Promise<ReceiptPublicKey> {
    return this.#publicKeys.get(keyId, async () => {
      const { x, y } = parseP256Spki(await kmsPublicKey(this.kms, keyId, KEY_SPEC, `receipt key ${keyId}`));
      return receiptPublicKey(x, y);
    });
  }
}
