/**
 * KMS as far as the receipt signer uses it, for the unit tests and the receipts' bench: P-256 keys
 * by key id; `GetPublicKey` answers DER SubjectPublicKeyInfo (written by OpenSSL), `Sign` signs
 * the digest given (`MessageType: DIGEST`) and answers DER, with the high S half the time, as any
 * ECDSA signer may. Every request is kept, to count the calls a receipt costs.
 */
import { createPublicKey } from 'node:crypto';
import { GetPublicKeyCommand, SignCommand, type KMSClient } from '@aws-sdk/client-kms';
import { p256 } from '@noble/curves/nist.js';

export class FakeReceiptKms {
  readonly requests: (GetPublicKeyCommand | SignCommand)[] = [];
  /** The key spec `GetPublicKey` claims, for the faults. */
  keySpec = 'ECC_NIST_P256';
  readonly #keys = new Map<string, Uint8Array>();

  /** A new P-256 key under `keyId`. */
  addKey(keyId: string): void {
    this.#keys.set(keyId, p256.utils.randomSecretKey());
  }

  readonly send = async (command: unknown): Promise<unknown> => {
    if (!(command instanceof GetPublicKeyCommand) && !(command instanceof SignCommand)) throw new Error('not a command the signer uses');
    this.requests.push(command);
    const secretKey = this.#keys.get(command.input.KeyId!);
    if (!secretKey) throw Object.assign(new Error('Key not found'), { name: 'NotFoundException' });
    if (command instanceof GetPublicKeyCommand) {
      const point = p256.getPublicKey(secretKey, false);
      const coordinate = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');
      const jwk = { kty: 'EC', crv: 'P-256', x: coordinate(point.subarray(1, 33)), y: coordinate(point.subarray(33)) };
      const spki = new Uint8Array(createPublicKey({ key: jwk, format: 'jwk' }).export({ type: 'spki', format: 'der' }));
      return { PublicKey: spki, KeySpec: this.keySpec, KeyUsage: 'SIGN_VERIFY', SigningAlgorithms: ['ECDSA_SHA_256'] };
    }
    const { Message, MessageType, SigningAlgorithm } = command.input;
    if (MessageType !== 'DIGEST' || Message?.length !== 32) throw Object.assign(new Error('A digest of 32 bytes is expected'), { name: 'ValidationException' });
    const low = p256.Signature.fromBytes(p256.sign(Message, secretKey, { prehash: false, lowS: true, extraEntropy: true }), 'compact');
    const high = this.count(SignCommand) % 2 === 0;
    const signature = high ? new p256.Signature(low.r, p256.Point.Fn.ORDER - low.s) : low;
    return { Signature: signature.toBytes('der'), SigningAlgorithm };
  };

  client(): Pick<KMSClient, 'send'> {
    return this as unknown as Pick<KMSClient, 'send'>;
  }

  count(kind: typeof GetPublicKeyCommand | typeof SignCommand): number {
    return this.requests.filter((request) => request instanceof kind).length;
  }
}
