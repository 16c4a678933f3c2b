/**
 * The two DER structures an ECDSA signer outside the process answers with (AWS KMS's `Sign` and
 * `GetPublicKey`; secp256k1 for the treasury, P-256 for transaction receipts), read strictly: an
 * ECDSA signature (`Ecdsa-Sig-Value`, RFC 3279 2.2.3) and an EC public key (`SubjectPublicKeyInfo`, RFC 5480). Anything that is not exactly one of them, in
 * its one distinguished encoding, is refused: a signer answering otherwise is at fault.
 */
import { p256 } from '@noble/curves/nist.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToNumberBE, equalBytes } from '@noble/curves/utils.js';
import { SECP256K1_ORDER, SignerFault, type EcdsaSignature } from './signer.js';

const TAG_INTEGER = 0x02;
const TAG_BIT_STRING = 0x03;
const TAG_OBJECT_IDENTIFIER = 0x06;
const TAG_SEQUENCE = 0x30;

/** 1.2.840.10045.2.1, id-ecPublicKey (RFC 5480 2.1.1). */
const OID_EC_PUBLIC_KEY = Uint8Array.of(0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01);
/** 1.3.132.0.10, secp256k1 (SEC 2 A.2.1). */
const OID_SECP256K1 = Uint8Array.of(0x2b, 0x81, 0x04, 0x00, 0x0a);
/** 1.2.840.10045.3.1.7, secp256r1 or P-256 (RFC 5480 2.1.1.1). */
const OID_P256 = Uint8Array.of(0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07);

/** The order of P-256's group: a receipt signature's scalars lie below it. */
export const P256_ORDER: bigint = p256.Point.Fn.ORDER;

/** Two 33-byte INTEGERs with their headers, in a SEQUENCE: 2 + 2 × (2 + 33). */
const MAX_SIGNATURE_LENGTH = 72;
/** A scalar below the order, plus the 0x00 a high first bit needs. */
const MAX_SCALAR_LENGTH = 33;
const UNCOMPRESSED_POINT_LENGTH = 65;

interface Tlv {
  tag: number;
  content: Uint8Array;
  /** The offset just past this element. */
  end: number;
}

const malformed = (what: string, reason: string) => new SignerFault(`Malformed ${what}: ${reason}`);

/** One element at `offset`, with a definite length in its shortest form. */
function readTlv(bytes: Uint8Array, offset: number, what: string): Tlv {
  if (offset + 2 > bytes.length) throw malformed(what, 'truncated');
  const tag = bytes[offset]!;
  const first = bytes[offset + 1]!;
  let start = offset + 2;
  let length = first;
  if (first & 0x80) {
    const count = first & 0x7f;
    if (count === 0) throw malformed(what, 'indefinite length');
    if (count > 2) throw malformed(what, 'length too long');
    if (start + count > bytes.length) throw malformed(what, 'truncated');
    if (bytes[start] === 0) throw malformed(what, 'length not in its shortest form');
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + bytes[start + i]!;
    if (length < 0x80) throw malformed(what, 'length not in its shortest form');
    start += count;
  }
  const end = start + length;
  if (end > bytes.length) throw malformed(what, 'length beyond the data');
  return { tag, content: bytes.subarray(start, end), end };
}

/** The elements that make up `bytes` exactly, each of the tag expected in its place. */
function readElements(bytes: Uint8Array, tags: readonly number[], what: string): Uint8Array[] {
  const contents: Uint8Array[] = [];
  let offset = 0;
  for (const tag of tags) {
    const element = readTlv(bytes, offset, what);
    if (element.tag !== tag) throw malformed(what, `tag 0x${element.tag.toString(16).padStart(2, '0')} where 0x${tag.toString(16).padStart(2, '0')} belongs`);
    contents.push(element.content);
    offset = element.end;
  }
  if (offset !== bytes.length) throw malformed(what, 'bytes after its end');
  return contents;
}

/** A positive INTEGER in its minimal two's-complement encoding, within [1, n). */
function readScalar(content: Uint8Array, name: string, order: bigint): bigint {
  const what = 'DER signature';
  if (content.length === 0) throw malformed(what, `${name} is empty`);
  if (content.length > MAX_SCALAR_LENGTH) throw malformed(what, `${name} is too long`);
  if (content[0]! & 0x80) throw malformed(what, `${name} is negative`);
  if (content[0] === 0 && content.length > 1 && !(content[1]! & 0x80)) throw malformed(what, `${name} has a needless leading zero`);
  const value = bytesToNumberBE(content);
  if (value < 1n || value >= order) throw malformed(what, `${name} is not in [1, n)`);
  return value;
}

/** `SEQUENCE { r INTEGER, s INTEGER }` (RFC 3279 2.2.3), as KMS's `Sign` answers for ECDSA, on the curve of `order`. S is as the signer made it: high or low. */
export function parseDerSignature(der: Uint8Array, order: bigint = SECP256K1_ORDER): EcdsaSignature {
  const what = 'DER signature';
  if (der.length > MAX_SIGNATURE_LENGTH) throw malformed(what, `longer than ${MAX_SIGNATURE_LENGTH} bytes`);
  const [sequence] = readElements(der, [TAG_SEQUENCE], what);
  const [r, s] = readElements(sequence!, [TAG_INTEGER, TAG_INTEGER], what);
  return { r: readScalar(r!, 'r', order), s: readScalar(s!, 's', order) };
}

/** The uncompressed point of a DER `SubjectPublicKeyInfo`: algorithm id-ecPublicKey with the named curve `curveOid`. */
function spkiPoint(der: Uint8Array, curveOid: Uint8Array, curveName: string): Uint8Array {
  const what = 'public key';
  const [info] = readElements(der, [TAG_SEQUENCE], what);
  const [algorithm, subjectPublicKey] = readElements(info!, [TAG_SEQUENCE, TAG_BIT_STRING], what);
  const [algorithmOid, namedCurve] = readElements(algorithm!, [TAG_OBJECT_IDENTIFIER, TAG_OBJECT_IDENTIFIER], what);
  if (!equalBytes(algorithmOid!, OID_EC_PUBLIC_KEY)) throw malformed(what, 'not an EC public key (id-ecPublicKey)');
  if (!equalBytes(namedCurve!, curveOid)) throw malformed(what, `not on the curve ${curveName}`);
  const bits = subjectPublicKey!;
  if (bits.length === 0 || bits[0] !== 0) throw malformed(what, 'a bit string that is empty or has unused bits');
  const point = bits.subarray(1);
  if (point.length !== UNCOMPRESSED_POINT_LENGTH || point[0] !== 0x04) throw malformed(what, 'not an uncompressed point');
  return point;
}

/**
 * The compressed (33-byte SEC1) public key of a DER `SubjectPublicKeyInfo` holding a secp256k1
 * key, as KMS's `GetPublicKey` answers for an `ECC_SECG_P256K1` key: algorithm id-ecPublicKey
 * with the named curve secp256k1, and the uncompressed point, which must lie on the curve.
 */
export function parseSecp256k1Spki(der: Uint8Array): Uint8Array {
  const point = spkiPoint(der, OID_SECP256K1, 'secp256k1');
  try {
    return secp256k1.Point.fromBytes(point).toBytes(true);
  } catch {
    throw malformed('public key', 'the point is not on secp256k1');
  }
}

/** The coordinates (32 bytes each) of a DER `SubjectPublicKeyInfo` holding a P-256 key, as KMS answers for an `ECC_NIST_P256` key. */
export function parseP256Spki(der: Uint8Array): { x: Uint8Array; y: Uint8Array } {
  const point = spkiPoint(der, OID_P256, 'P-256');
  try {
    p256.Point.fromBytes(point).assertValidity();
  } catch {
    throw malformed('public key', 'the point is not on P-256');
  }
  return { x: point.slice(1, 33), y: point.slice(33) };
}
