/**
 * Transaction receipts' signer in AWS: KMS asymmetric keys (`ECC_NIST_P256`, `SIGN_VERIFY`) whose
 * private halves never leave KMS. The signing input is hashed here and KMS signs the digest
 * (`MessageType: DIGEST`, `ECDSA_SHA_256`), so a receipt of any size is one `Sign` call; its DER
 * answer becomes the 64 bytes r || s JOSE takes. Each key's public half is read once per container
 * (`GetPublicKey`), which names it by its thumbprint. The current key signs; retired keys (kept in
 * the stage's configuration after a rotation, docs/operations.md#receipt-keys) are only listed.
 */
import { createHash } from 'node:crypto';
import { GetPublicKeyCommand, SignCommand, type KMSClient } from '@aws-sdk/client-kms';
import { numberToBytesBE } from '@noble/curves/utils.js';
import { receiptPublicKey, type ReceiptPublicKey, type ReceiptSigner } from '../domain/payments/index.js';
import { P256_ORDER, parseDerSignature, parseP256Spki, SignerFault } from '../domain/payouts/index.js';

const KEY_SPEC = 'ECC_NIST_P256';
const SIGNING_ALGORITHM = 'ECDSA_SHA_256';
const SCALAR_BYTES = 32;

export interface ReceiptKeyIds {
  /** The key that signs: its id, ARN, alias name or alias ARN. */
  current: string;
  /** Keys rotated out, still listed for the receipts they signed: as the stage's configuration names them now. */
  retired: () => readonly string[];
}

export class KmsReceiptSigner implements ReceiptSigner {
  readonly #publicKeys = new Map<string, Promise<ReceiptPublicKey>>();

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
    const answer = await this.kms.send(new SignCommand({ KeyId: this.keyIds.current, Message: digest, MessageType: 'DIGEST', SigningAlgorithm: SIGNING_ALGORITHM }));
    if (!answer.Signature) throw new SignerFault('KMS answered no signature for the receipt key');
    if (answer.SigningAlgorithm !== undefined && answer.SigningAlgorithm !== SIGNING_ALGORITHM) {
      throw new SignerFault(`KMS signed a receipt with ${answer.SigningAlgorithm}, not ${SIGNING_ALGORITHM}`);
    }
    const { r, s } = parseDerSignature(answer.Signature, P256_ORDER);
    return Uint8Array.from([...numberToBytesBE(r, SCALAR_BYTES), ...numberToBytesBE(s, SCALAR_BYTES)]);
  }

  publicKeys(): Promise<ReceiptPublicKey[]> {
    return Promise.all([this.keyIds.current, ...this.keyIds.retired()].map((keyId) => this.publicKeyOf(keyId)));
  }

  private publicKeyOf(keyId: string): Promise<ReceiptPublicKey> {
    let publicKey = this.#publicKeys.get(keyId);
    if (!publicKey) {
      const reading = this.readPublicKey(keyId);
      // A failed read is not kept: the next call asks KMS again.
      reading.catch(() => {
        if (this.#publicKeys.get(keyId) === reading) this.#publicKeys.delete(keyId);
      });
      this.#publicKeys.set(keyId, reading);
      publicKey = reading;
    }
    return publicKey;
  }

  private async readPublicKey(keyId: string): Promise<ReceiptPublicKey> {
    const answer = await this.kms.send(new GetPublicKeyCommand({ KeyId: keyId }));
    if (answer.KeySpec !== undefined && answer.KeySpec !== KEY_SPEC) throw new SignerFault(`Receipt key ${keyId} is ${answer.KeySpec}, not ${KEY_SPEC}`);
    if (answer.KeyUsage !== undefined && answer.KeyUsage !== 'SIGN_VERIFY') throw new SignerFault(`Receipt key ${keyId} is for ${answer.KeyUsage}, not SIGN_VERIFY`);
    if (!answer.PublicKey) throw new SignerFault(`KMS answered no public key for receipt key ${keyId}`);
    const { x, y } = parseP256Spki(answer.PublicKey);
    return receiptPublicKey(x, y);
  }
}
