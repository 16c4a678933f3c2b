/**
 * The treasury's Bitcoin encoding against BIP-143's own example (native P2WPKH): the unsigned
 * transaction byte for byte, the digest of its P2WPKH input, and the DER signature in its witness
 * as the BIP's (RFC 6979's nonce, low S); and the output script of each kind of address.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { describe, expect, it } from 'vitest';
import {
  type BitcoinTransaction,
  hash160,
  outputScript,
  p2wpkhSignatureDigest,
  p2wpkhSpendVirtualSize,
  p2wpkhWitness,
  serializeWithoutWitness,
  serializeWithWitnesses,
} from '../../shared/chain/bitcoin-transaction.js';

// bip-0143.mediawiki, "Native P2WPKH".
const UNSIGNED =
  '0100000002fff7f7881a8099afa6940d42d1e7f6362bec38171ea3edf433541db4e4ad969f0000000000eeffffffef51e1b804cc89d182d279655c3aa89e815b1b309fe287d9b2b55d57b90ec68a0100000000ffffffff02202cb206000000001976a9148280b37df378db99f66f85c95a783a76ac7a6d5988ac9093510d000000001976a9143bde42dbee7e4dbe6a21b2d50ce2f0167faa815988ac11000000';
const SECRET_KEY = '619c335025c7f4012e556c2a58b2506e30b8511b53ade95ea316fd8c3286feb9';
const PUBLIC_KEY = '025476c2e83188368da1ff3e292e7acafcdb3566bb0ad253f62fc70f07aeee6357';
const DIGEST = 'c37af31116d1b27caf68aae9e3ac82f1477929014d5b917657d0eb49478cb670';
const SIGNATURE = '304402203609e17b84f6a7d30c80bfa610b5b4542f32a8a0d5447a12fb1366d7f01cc44a0220573a954c4518331561406f90300e8f3358f51928d43c212a8caed02de67eebee01';

const example: BitcoinTransaction = {
  version: 1,
  inputs: [
    { txid: '9f96ade4b41d5433f4eda31e1738ec2b36f6e7d1420d94a6af99801a88f7f7ff', index: 0, sequence: 0xffffffee },
    { txid: '8ac60eb9575db5b2d987e29f301b5b819ea83a5c6579d282d189cc04b8e151ef', index: 1, sequence: 0xffffffff },
  ],
  outputs: [
    { script: hexToBytes('76a9148280b37df378db99f66f85c95a783a76ac7a6d5988ac'), satoshis: 112_340_000n },
    { script: hexToBytes('76a9143bde42dbee7e4dbe6a21b2d50ce2f0167faa815988ac'), satoshis: 223_450_000n },
  ],
  locktime: 17,
};

describe('the treasury’s Bitcoin transactions', () => {
  it('serialize, and sign a P2WPKH input, as BIP-143’s example', () => {
    expect(bytesToHex(serializeWithoutWitness(example))).toBe(UNSIGNED);
    const publicKey = hexToBytes(PUBLIC_KEY);
    const digest = p2wpkhSignatureDigest(example, 1, hash160(publicKey), 600_000_000n);
    expect(bytesToHex(digest)).toBe(DIGEST);

    const signature = secp256k1.Signature.fromBytes(secp256k1.sign(digest, hexToBytes(SECRET_KEY), { prehash: false, lowS: true, format: 'recovered' }), 'recovered');
    const [der, key] = p2wpkhWitness({ r: signature.r, s: signature.s, recovery: signature.recovery as 0 | 1 }, publicKey);
    expect(bytesToHex(der!)).toBe(SIGNATURE);
    expect(bytesToHex(key!)).toBe(PUBLIC_KEY);
  });

  it('put the witnesses between the outputs and the locktime, behind the segwit marker, and count the virtual size with the longest signature', () => {
    const witnesses = [[Uint8Array.of(0xaa)], [Uint8Array.of(0xbb, 0xcc), Uint8Array.of()]];
    const serialized = serializeWithWitnesses(example, witnesses);
    expect(serialized).toBe(`01000000${'0001'}${UNSIGNED.slice(8, -8)}${'0101aa'}${'0202bbcc00'}11000000`);
    // Two P2WPKH inputs: 4 × 160 bytes, the marker and flag, and 108 bytes of witness each.
    expect(p2wpkhSpendVirtualSize(example)).toBe(Math.ceil((4 * 160 + 2 + 2 * 108) / 4));
  });

  it('pay the script of any address a payout may go to, whatever its network', () => {
    expect(bytesToHex(outputScript('tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx'))).toBe('0014751e76e8199196d454941c45d1b3a323f1433bd6');
    expect(bytesToHex(outputScript('BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4'))).toBe('0014751e76e8199196d454941c45d1b3a323f1433bd6');
    // BIP-350's P2TR and P2WSH examples.
    expect(bytesToHex(outputScript('bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0'))).toBe('512079be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798');
    expect(bytesToHex(outputScript('tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7'))).toBe('00201863143c14c5166804bd19203356da136c985678cd4d27a1b8c6329604903262');
    // Base58: P2PKH and P2SH, mainnet and testnet.
    expect(bytesToHex(outputScript('1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2'))).toBe('76a91477bff20c60e522dfaa3350c39b030a5d004e839a88ac');
    expect(bytesToHex(outputScript('3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy'))).toBe('a914b472a266d0bd89c13706a4132ccfb16f7c3b9fcb87');
    expect(bytesToHex(outputScript('mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn'))).toBe('76a914243f1394f44554f4ce3fd68649c19adc483ce92488ac');
    expect(() => outputScript('TJRabPrwbZy45sbavfcjinPJC18kjpRTv8')).toThrow(RangeError);
  });
});
