/**
 * What the KMS signers ask of an asymmetric `SIGN_VERIFY` key, each answer checked: a key of
 * another spec or use, or an answer without what was asked, is a `SignerFault`.
 */
import { GetPublicKeyCommand, SignCommand, type KMSClient } from '@aws-sdk/client-kms';
import { SignerFault } from '../domain/payouts/index.js';

const SIGNING_ALGORITHM = 'ECDSA_SHA_256';

/** The key's public key (DER SubjectPublicKeyInfo), once KMS says it is a `keySpec` signing key; `what` names the key in errors. */
export async function kmsPublicKey(kms: Pick<KMSClient, 'send'>, keyId: string, keySpec: string, what: string): Promise<Uint8Array> {
  const answer = await kms.send(new GetPublicKeyCommand({ KeyId: keyId }));
  if (answer.KeySpec !== undefined && answer.KeySpec !== keySpec) throw new SignerFault(`${what} is ${answer.KeySpec}, not ${keySpec}`);
  if (answer.KeyUsage !== undefined && answer.KeyUsage !== 'SIGN_VERIFY') throw new SignerFault(`${what} is for ${answer.KeyUsage}, not SIGN_VERIFY`);
  if (!answer.PublicKey) throw new SignerFault(`KMS answered no public key for ${what}`);
  return answer.PublicKey;
}

/** KMS's DER signature of a 32-byte digest (`MessageType: DIGEST`: KMS signs it as given, hashing nothing). */
export async function kmsSignDigest(kms: Pick<KMSClient, 'send'>, keyId: string, digest: Uint8Array, what: string): Promise<Uint8Array> {
  const answer = await kms.send(new SignCommand({ KeyId: keyId, Message: digest, MessageType: 'DIGEST', SigningAlgorithm: SIGNING_ALGORITHM }));
  if (!answer.Signature) throw new SignerFault(`KMS answered no signature for ${what}`);
  if (answer.SigningAlgorithm !== undefined && answer.SigningAlgorithm !== SIGNING_ALGORITHM) {
    throw new SignerFault(`KMS signed with ${what} by ${answer.SigningAlgorithm}, not ${SIGNING_ALGORITHM}`);
  }
  return answer.Signature;
}
