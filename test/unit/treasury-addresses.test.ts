import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { hexToBytes } from '@noble/hashes/utils.js';
import { HDKey } from '@scure/bip32';
import { bech32, createBase58check } from '@scure/base';
import { mnemonicToSeedSync } from '@scure/bip39';
import { privateKeyToAddress } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { BITCOIN_ADDRESS_PREFIX } from '../../shared/domain/chains/networks.js';
import { treasuryAddress, treasuryAddresses, type TreasuryFamily } from '../../shared/domain/payouts/index.js';

/** The secp256k1 private key 1: its public key is the generator G. */
const KEY_ONE = `0x${'00'.repeat(31)}01` as const;
const G = hexToBytes('0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798');

const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const root = HDKey.fromMasterSeed(mnemonicToSeedSync(MNEMONIC));
const publicKeyAt = (path: string): Uint8Array => root.derive(path).publicKey!;

describe('treasuryAddress', () => {
  it('gives the EVM address of a key, EIP-55 checksummed', () => {
    expect(secp256k1.getPublicKey(hexToBytes(KEY_ONE.slice(2)), true)).toEqual(G);
    expect(treasuryAddress('evm', G, 'prod')).toBe(privateKeyToAddress(KEY_ONE));
    expect(treasuryAddress('evm', G, 'prod')).toBe('0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf');
    // The test mnemonic's first account (m/44'/60'/0'/0/0), as every wallet shows it.
    expect(treasuryAddress('evm', publicKeyAt("m/44'/60'/0'/0/0"), 'demo')).toBe('0x9858EfFD232B4033E47d90003D41EC34EcaEda94');
  });

  it('gives the Tron address: base58check of 0x41 and the EVM account id', () => {
    const base58check = createBase58check(sha256);
    const expected = base58check.encode(Uint8Array.of(0x41, ...hexToBytes(privateKeyToAddress(KEY_ONE).slice(2))));
    expect(treasuryAddress('tron', G, 'prod')).toBe(expected);
    expect(expected).toMatch(/^T/);
    // The test mnemonic's first Tron account (m/44'/195'/0'/0/0).
    expect(treasuryAddress('tron', publicKeyAt("m/44'/195'/0'/0/0"), 'prod')).toBe('TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH');
  });

  it("gives the Bitcoin P2WPKH address with the stage's prefix: the published vectors", () => {
    // BIP-173's examples: the P2WPKH of G on mainnet and testnet.
    expect(treasuryAddress('bitcoin', G, 'prod')).toBe('bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4');
    expect(treasuryAddress('bitcoin', G, 'demo')).toBe('tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx');
    // BIP-84's first receiving address of the test mnemonic.
    const bip84 = hexToBytes('0330d54fd0dd420a6e5f8d3624f5f3482cae350f79d5f0753bf5beef9c2d91af3c');
    expect(publicKeyAt("m/84'/0'/0'/0/0")).toEqual(bip84);
    expect(treasuryAddress('bitcoin', bip84, 'prod')).toBe('bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu');
    // The same witness program on the demo stage's network.
    const demo = treasuryAddress('bitcoin', bip84, 'demo');
    expect(demo.startsWith(`${BITCOIN_ADDRESS_PREFIX.demo}1q`)).toBe(true);
    const program = (address: string) => bech32.fromWords(bech32.decode(address as `${string}1${string}`).words.slice(1));
    expect(program(demo)).toEqual(program('bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu'));
  });

  it('refuses anything but a compressed public key on the curve', () => {
    const uncompressed = secp256k1.Point.fromBytes(G).toBytes(false);
    const offCurve = Uint8Array.of(0x02, ...new Uint8Array(31), 5);
    for (const key of [uncompressed, G.subarray(1), Uint8Array.of(0x04, ...G.subarray(1)), offCurve]) {
      for (const family of ['evm', 'tron', 'bitcoin'] as const) {
        expect(() => treasuryAddress(family, key, 'prod')).toThrow(TypeError);
      }
    }
  });
});

describe('treasuryAddresses', () => {
  it("gives each family's address from that family's public key", async () => {
    const keys: Record<TreasuryFamily, Uint8Array> = {
      evm: publicKeyAt("m/44'/60'/0'/0/0"),
      tron: publicKeyAt("m/44'/195'/0'/0/0"),
      bitcoin: publicKeyAt("m/84'/0'/0'/0/0"),
    };
    const signer = { publicKey: async (family: TreasuryFamily) => keys[family] };
    expect(await treasuryAddresses(signer, 'prod')).toEqual({
      evm: '0x9858EfFD232B4033E47d90003D41EC34EcaEda94',
      tron: 'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH',
      bitcoin: 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu',
    });
  });
});
