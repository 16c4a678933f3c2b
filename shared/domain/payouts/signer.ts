/**
 * The treasury's signer: the port that signs a payout's 32-byte digest with a family's treasury
 * key and gives that key's public key, and the rules every signature it answers keeps: S in the
 * lower half of the curve order, and a recovery id that recovers the family's own public key.
 * No I/O: the adapters (AWS KMS, a local key file) live in `shared/signers/`.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { equalBytes } from '@noble/curves/utils.js';

/** The treasury's accounts, one per chain family, as the admin CLI names them. */
export const TREASURY_FAMILIES = ['evm', 'tron', 'bitcoin'] as const;
export type TreasuryFamily = (typeof TREASURY_FAMILIES)[number];

/** An ECDSA signature over secp256k1 as two scalars, as a DER `Ecdsa-Sig-Value` carries it. */
export interface EcdsaSignature {
  r: bigint;
  s: bigint;
}

/**
 * A signature a chain takes: S low (Ethereum, Tron and Bitcoin's standardness refuse high S), and
 * the parity of R's y coordinate, which lets anyone recover the signer's public key from the
 * digest (Ethereum's and Tron's `v`).
 */
export interface RecoverableSignature extends EcdsaSignature {
  recovery: 0 | 1;
}

export interface TreasurySigner {
  /** The family's treasury public key, SEC1 compressed (33 bytes). */
  publicKey(family: TreasuryFamily): Promise<Uint8Array>;
  /** Signs a 32-byte digest with the family's treasury key; the answer is low-S and recovers to `publicKey(family)`. */
  sign(family: TreasuryFamily, digest: Uint8Array): Promise<RecoverableSignature>;
}

/** A signer that answered something no honest signer would: nothing it signed may be sent. */
export class SignerFault extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

export const SECP256K1_ORDER: bigint = secp256k1.Point.Fn.ORDER;
const HALF_ORDER = SECP256K1_ORDER >> 1n;
export const DIGEST_LENGTH = 32;
export const COMPRESSED_KEY_LENGTH = 33;

export function assertDigest(digest: Uint8Array): void {
  if (!(digest instanceof Uint8Array) || digest.length !== DIGEST_LENGTH) {
    throw new TypeError(`A treasury signature is over a ${DIGEST_LENGTH}-byte digest, got ${digest instanceof Uint8Array ? `${digest.length} bytes` : typeof digest}`);
  }
}

/** Refuses anything but a SEC1 compressed secp256k1 point (33 bytes, on the curve). */
export function assertCompressedPublicKey(publicKey: Uint8Array): void {
  const valid = publicKey instanceof Uint8Array && publicKey.length === COMPRESSED_KEY_LENGTH && (publicKey[0] === 0x02 || publicKey[0] === 0x03) && isOnCurve(publicKey);
  if (!valid) throw new TypeError('A treasury public key is a SEC1 compressed secp256k1 point (33 bytes)');
}

function isOnCurve(publicKey: Uint8Array): boolean {
  try {
    secp256k1.Point.fromBytes(publicKey);
    return true;
  } catch {
    return false;
  }
}

export const isLowS = (s: bigint): boolean => s >= 1n && s <= HALF_ORDER;

/**
 * The same signature with S in the lower half of the order: (r, s) and (r, n − s) both verify,
 * and chains take only the low one. (r, n − s) is what the nonce −k would have made: its point R
 * has the same x and the other y, so a recovery id, when there is one, flips its parity.
 */
export function normalizeLowS(signature: RecoverableSignature): RecoverableSignature;
export function normalizeLowS(signature: EcdsaSignature): EcdsaSignature;
export function normalizeLowS(signature: EcdsaSignature | RecoverableSignature): EcdsaSignature | RecoverableSignature {
  assertScalar('s', signature.s);
  assertScalar('r', signature.r);
  if (signature.s <= HALF_ORDER) return signature;
  const s = SECP256K1_ORDER - signature.s;
  if ('recovery' in signature) return { r: signature.r, s, recovery: signature.recovery === 0 ? 1 : 0 };
  return { r: signature.r, s };
}

/**
 * The recovery id (0 or 1) with which `signature` over `digest` recovers `publicKey` (any SEC1
 * encoding). Refuses when neither does: the signer answered for another key, or for another
 * digest. Ids 2 and 3 (R's x coordinate at or above the order, odds about 2^-127) are not
 * taken: Ethereum and Tron have no way to carry them.
 */
export function findRecoveryId(signature: EcdsaSignature, digest: Uint8Array, publicKey: Uint8Array): 0 | 1 {
  assertDigest(digest);
  const expected = secp256k1.Point.fromBytes(publicKey).toBytes(true);
  for (const recovery of [0, 1] as const) {
    let recovered: Uint8Array;
    try {
      recovered = new secp256k1.Signature(signature.r, signature.s, recovery).recoverPublicKey(digest).toBytes(true);
    } catch {
      continue;
    }
    if (equalBytes(recovered, expected)) return recovery;
  }
  throw new SignerFault('The signature does not recover to the treasury key: the signer answered for another key or another digest');
}

/** A signer's plain (r, s) made into what chains take: low S, and the recovery id found against the key it must be from. */
export function toRecoverableSignature(signature: EcdsaSignature, digest: Uint8Array, publicKey: Uint8Array): RecoverableSignature {
  const low = normalizeLowS(signature);
  return { r: low.r, s: low.s, recovery: findRecoveryId(low, digest, publicKey) };
}

function assertScalar(name: string, value: bigint): void {
  if (typeof value !== 'bigint' || value < 1n || value >= SECP256K1_ORDER) {
    throw new SignerFault(`Signature ${name} is not in [1, n)`);
  }
}
