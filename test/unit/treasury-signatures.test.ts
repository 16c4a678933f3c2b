import { createHash, generateKeyPairSync, sign as opensslSign, type KeyObject } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { hexToBytes } from '@noble/hashes/utils.js';
import { describe, expect, it } from 'vitest';
import { findRecoveryId, isLowS, normalizeLowS, parseDerSignature, parseSecp256k1Spki, SignerFault, toRecoverableSignature } from '../../shared/domain/payouts/index.js';

const N = secp256k1.Point.Fn.ORDER;
const randomDigest = (): Uint8Array => crypto.getRandomValues(new Uint8Array(32));

/** A DER element, written here by hand so the malformed ones can be made. */
const tlv = (tag: number, content: Uint8Array): Uint8Array => {
  if (content.length >= 0x80) throw new Error('short form only in these tests');
  return Uint8Array.of(tag, content.length, ...content);
};
/** A positive integer's minimal DER content. */
const integerContent = (value: bigint): Uint8Array => {
  let hex = value.toString(16);
  if (hex.length % 2) hex = `0${hex}`;
  const bytes = hexToBytes(hex);
  return bytes[0]! & 0x80 ? Uint8Array.of(0, ...bytes) : bytes;
};
const derOf = (r: Uint8Array, s: Uint8Array): Uint8Array => tlv(0x30, Uint8Array.of(...tlv(0x02, r), ...tlv(0x02, s)));

/** Signatures noble makes over a random digest with a random key: the DER of the low-S form, and of the high-S form (s replaced by n − s). */
function signed() {
  const secretKey = secp256k1.utils.randomSecretKey();
  const publicKey = secp256k1.getPublicKey(secretKey, true);
  const digest = randomDigest();
  const low = secp256k1.Signature.fromBytes(secp256k1.sign(digest, secretKey, { prehash: false, format: 'recovered' }), 'recovered');
  const high = new secp256k1.Signature(low.r, N - low.s);
  return { secretKey, publicKey, digest, low, lowDer: low.toBytes('der'), highDer: high.toBytes('der') };
}

describe('parseDerSignature and normalizeLowS', () => {
  it('read the low-S and the high-S DER of the same signature as one low-S signature that verifies', () => {
    for (let i = 0; i < 64; i++) {
      const { publicKey, digest, low, lowDer, highDer } = signed();
      const fromLow = parseDerSignature(lowDer);
      const fromHigh = parseDerSignature(highDer);
      expect(fromLow).toEqual({ r: low.r, s: low.s });
      expect(fromHigh).toEqual({ r: low.r, s: N - low.s });
      expect(isLowS(fromHigh.s)).toBe(false);
      for (const parsed of [fromLow, fromHigh]) {
        const normalized = normalizeLowS(parsed);
        expect(isLowS(normalized.s)).toBe(true);
        const compact = new secp256k1.Signature(normalized.r, normalized.s).toBytes('compact');
        expect(secp256k1.verify(compact, digest, publicKey, { prehash: false, lowS: true })).toBe(true);
      }
    }
  });

  it('read the DER that OpenSSL makes (high S half the time), and their recovery id recovers the key', () => {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'secp256k1' });
    const compressed = parseSecp256k1Spki(publicKey.export({ type: 'spki', format: 'der' }));
    let high = 0;
    for (let i = 0; i < 64; i++) {
      const message = crypto.getRandomValues(new Uint8Array(40));
      const digest = createHash('sha256').update(message).digest();
      const parsed = parseDerSignature(opensslSign('sha256', message, { key: privateKey, dsaEncoding: 'der' }));
      if (!isLowS(parsed.s)) high++;
      const { r, s, recovery } = toRecoverableSignature(parsed, digest, compressed);
      expect(isLowS(s)).toBe(true);
      expect(new secp256k1.Signature(r, s, recovery).recoverPublicKey(digest).toBytes(true)).toEqual(compressed);
    }
    expect(high).toBeGreaterThan(0);
  });

  it('flips the recovery id with S, and leaves a low S as it is', () => {
    const { publicKey, digest, low } = signed();
    const recovery = low.recovery as 0 | 1;
    expect(normalizeLowS({ r: low.r, s: low.s, recovery })).toEqual({ r: low.r, s: low.s, recovery });
    const flipped = normalizeLowS({ r: low.r, s: N - low.s, recovery: recovery === 0 ? 1 : 0 });
    expect(flipped).toEqual({ r: low.r, s: low.s, recovery });
    expect(new secp256k1.Signature(flipped.r, flipped.s, flipped.recovery).recoverPublicKey(digest).toBytes(true)).toEqual(publicKey);
  });

  it('reads minimal integers of every length', () => {
    for (const [r, s] of [
      [1n, 1n],
      [0x7fn, 0x80n],
      [N - 1n, (N - 1n) / 2n],
    ] as const) {
      expect(parseDerSignature(derOf(integerContent(r), integerContent(s)))).toEqual({ r, s });
    }
  });

  describe('refuses, for its own reason', () => {
    const { lowDer, low } = signed();
    const { r, s } = parseDerSignature(lowDer);
    const rc = integerContent(r);
    const sc = integerContent(s);
    // Small integers, so that a structure's fault is found before the length bound.
    const a = integerContent(0x1234n);
    const b = integerContent(0x5678n);
    const cases: Record<string, [Uint8Array, RegExp]> = {
      'another outer tag (SET)': [Uint8Array.of(0x31, ...lowDer.subarray(1)), /tag 0x31 where 0x30/],
      'another integer tag (BIT STRING)': [tlv(0x30, Uint8Array.of(...tlv(0x03, rc), ...tlv(0x02, sc))), /tag 0x03 where 0x02/],
      'an outer length one too long': [Uint8Array.of(0x30, lowDer[1]! + 1, ...lowDer.subarray(2)), /length beyond the data/],
      'an outer length one too short': [Uint8Array.of(0x30, lowDer[1]! - 1, ...lowDer.subarray(2)), /bytes after its end/],
      'an outer length in long form': [Uint8Array.of(0x30, 0x81, 8, ...tlv(0x02, a), ...tlv(0x02, b)), /shortest form/],
      'an indefinite length': [Uint8Array.of(0x30, 0x80, ...tlv(0x02, a), ...tlv(0x02, b), 0, 0), /indefinite length/],
      'an integer length beyond the sequence': [tlv(0x30, Uint8Array.of(0x02, a.length + 5, ...a, ...tlv(0x02, b))), /length beyond the data/],
      'a non-minimal integer (a needless 0x00)': [derOf(Uint8Array.of(0, 0x12, 0x34), b), /r has a needless leading zero/],
      'a non-minimal s (0x00 before a byte below 0x80)': [derOf(a, Uint8Array.of(0, 0x7f)), /s has a needless leading zero/],
      'an integer of 34 bytes': [derOf(Uint8Array.of(0, ...rc), sc), /r (is too long|has a needless leading zero)/],
      'a negative integer': [derOf(Uint8Array.of(0x80 | 0x12, 0x34), b), /r is negative/],
      'an r without the zero its high bit needs (negative)': [derOf(hexToBytes('ff'.repeat(32)), sc), /r is negative/],
      'a zero r': [derOf(Uint8Array.of(0), b), /r is not in \[1, n\)/],
      'an empty integer': [derOf(new Uint8Array(0), b), /r is empty/],
      'an r equal to the order': [derOf(integerContent(N), sc), /r is not in \[1, n\)/],
      'an s above the order': [derOf(rc, integerContent(N + 5n)), /s is not in \[1, n\)/],
      'trailing bytes after the sequence': [Uint8Array.of(...derOf(a, b), 0x00), /bytes after its end/],
      'trailing bytes inside the sequence': [tlv(0x30, Uint8Array.of(...tlv(0x02, a), ...tlv(0x02, b), 0x05, 0x00)), /bytes after its end/],
      'a third integer': [tlv(0x30, Uint8Array.of(...tlv(0x02, a), ...tlv(0x02, b), ...tlv(0x02, b))), /bytes after its end/],
      'one integer': [tlv(0x30, tlv(0x02, a)), /truncated/],
      'a truncated signature': [lowDer.subarray(0, lowDer.length - 1), /length beyond the data/],
      nothing: [new Uint8Array(0), /truncated/],
      'a 64-byte compact signature': [low.toBytes('compact'), /./],
      'more than 72 bytes': [Uint8Array.of(0x30, 0x47, ...tlv(0x02, Uint8Array.of(0, ...rc.subarray(-32))), ...tlv(0x02, Uint8Array.of(0, 0, ...sc.subarray(-32)))), /longer than 72 bytes/],
    };
    it('(the small integers are well formed)', () => {
      expect(parseDerSignature(derOf(a, b))).toEqual({ r: 0x1234n, s: 0x5678n });
    });
    for (const [name, [der, reason]] of Object.entries(cases)) {
      it(name, () => {
        expect(() => parseDerSignature(der)).toThrow(SignerFault);
        expect(() => parseDerSignature(der)).toThrow(reason);
      });
    }
  });
});

describe('findRecoveryId', () => {
  it('finds the recovery id noble computed when signing', () => {
    for (let i = 0; i < 32; i++) {
      const { publicKey, digest, low } = signed();
      expect(findRecoveryId({ r: low.r, s: low.s }, digest, publicKey)).toBe(low.recovery);
      // Any SEC1 encoding of the key.
      expect(findRecoveryId({ r: low.r, s: low.s }, digest, secp256k1.Point.fromBytes(publicKey).toBytes(false))).toBe(low.recovery);
    }
  });

  it('refuses a signature by another key', () => {
    const { digest, low } = signed();
    const other = secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true);
    expect(() => findRecoveryId(low, digest, other)).toThrow(SignerFault);
  });

  it('refuses a signature over another digest', () => {
    const { publicKey, low } = signed();
    expect(() => findRecoveryId(low, randomDigest(), publicKey)).toThrow(SignerFault);
  });

  it('refuses a digest that is not 32 bytes', () => {
    const { publicKey, digest, low } = signed();
    expect(() => findRecoveryId(low, digest.subarray(1), publicKey)).toThrow(TypeError);
  });
});

describe('parseSecp256k1Spki', () => {
  const spkiOf = (key: KeyObject): Uint8Array => new Uint8Array(key.export({ type: 'spki', format: 'der' }));

  it("gives the compressed key of OpenSSL's SubjectPublicKeyInfo", () => {
    for (let i = 0; i < 8; i++) {
      const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'secp256k1' });
      const { x, y } = publicKey.export({ format: 'jwk' });
      const yLast = Buffer.from(y!, 'base64url').at(-1)!;
      const expected = Uint8Array.of(yLast & 1 ? 0x03 : 0x02, ...Buffer.from(x!, 'base64url'));
      expect(parseSecp256k1Spki(spkiOf(publicKey))).toEqual(expected);
    }
  });

  const spki = spkiOf(generateKeyPairSync('ec', { namedCurve: 'secp256k1' }).publicKey);
  const point = spki.subarray(-65);
  const header = spki.subarray(0, spki.length - 65 - 3);
  /** The same key info with another subjectPublicKey BIT STRING content. */
  const withBits = (bits: Uint8Array): Uint8Array => tlv(0x30, Uint8Array.of(...header.subarray(2), ...tlv(0x03, bits)));

  it('reads its own rebuilding of a valid key (the helpers below are sound)', () => {
    expect(withBits(Uint8Array.of(0, ...point))).toEqual(spki);
  });

  const offCurve = Uint8Array.of(...point);
  offCurve[64] = offCurve[64]! ^ 0x01;
  const cases: Record<string, [() => Uint8Array, RegExp]> = {
    'a P-256 key': [() => spkiOf(generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).publicKey), /not on the curve secp256k1/],
    'an Ed25519 key': [() => spkiOf(generateKeyPairSync('ed25519').publicKey), /truncated/],
    'an RSA key': [() => spkiOf(generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey), /tag 0x05 where 0x06/],
    'a point off the curve': [() => withBits(Uint8Array.of(0, ...offCurve)), /not on secp256k1/],
    'a compressed point': [() => withBits(Uint8Array.of(0, ...secp256k1.Point.fromBytes(point).toBytes(true))), /not an uncompressed point/],
    'a bit string with unused bits': [() => withBits(Uint8Array.of(1, ...point)), /unused bits/],
    'an empty bit string': [() => withBits(new Uint8Array(0)), /empty/],
    'trailing bytes': [() => Uint8Array.of(...spki, 0), /bytes after its end/],
    'a truncated key': [() => spki.subarray(0, spki.length - 1), /length beyond the data/],
    'a DER signature': [() => signed().lowDer, /tag 0x02 where 0x30/],
  };
  for (const [name, [make, reason]] of Object.entries(cases)) {
    it(`refuses ${name}`, () => {
      const der = make();
      expect(() => parseSecp256k1Spki(der)).toThrow(SignerFault);
      expect(() => parseSecp256k1Spki(der)).toThrow(reason);
    });
  }
});
