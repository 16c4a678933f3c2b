import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { HDKey } from '@scure/bip32';
import { createBase58check } from '@scure/base';
import { mnemonicToSeedSync } from '@scure/bip39';
import { describe, expect, it } from 'vitest';
import { TEST_WALLET_XPUBS } from '../../shared/domain/chains/test-wallet-keys.js';
import { addressForNetwork, deriveCustomerAddresses, parseWalletXpubs, toChecksumAddress } from '../../shared/domain/chains/wallets.js';

const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const root = HDKey.fromMasterSeed(mnemonicToSeedSync(MNEMONIC));
/** BIP-84 test vector: the same m/84'/0'/0' account key in `zpub` form. */
const BTC_ACCOUNT_ZPUB = 'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs';
const ACCOUNT_PATHS = { evm: "m/44'/60'/0'", btc: "m/84'/0'/0'", tron: "m/44'/195'/0'" } as const;

const keys = parseWalletXpubs(TEST_WALLET_XPUBS);

describe('test wallet keys', () => {
  it('are the account keys of the test mnemonic at the documented paths', () => {
    expect(TEST_WALLET_XPUBS.evm).toBe(root.derive(ACCOUNT_PATHS.evm).publicExtendedKey);
    expect(TEST_WALLET_XPUBS.btc).toBe(root.derive(ACCOUNT_PATHS.btc).publicExtendedKey);
    expect(TEST_WALLET_XPUBS.tron).toBe(root.derive(ACCOUNT_PATHS.tron).publicExtendedKey);
  });
});

describe('deriveCustomerAddresses', () => {
  it('matches the published vectors of the test mnemonic', () => {
    expect(deriveCustomerAddresses(keys, 0, 'prod')).toEqual({
      evm: '0x9858EfFD232B4033E47d90003D41EC34EcaEda94',
      btc: 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu',
      tron: 'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH',
    });
    const second = deriveCustomerAddresses(keys, 1, 'prod');
    expect(second.evm).toBe('0x6Fac4D18c912343BF86fa7049364Dd4E424Ab9C0');
    expect(second.btc).toBe('bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g');
  });

  it("gives the TRON address of the private key at m/44'/195'/0'/0/index", () => {
    // Computed here from the private key, independently of the public-key derivation under test.
    const base58check = createBase58check(sha256);
    for (const index of [0, 1, 7]) {
      const privateKey = root.derive(`${ACCOUNT_PATHS.tron}/0/${index}`).privateKey!;
      const uncompressed = secp256k1.getPublicKey(privateKey, false);
      const accountId = keccak_256(uncompressed.subarray(1)).subarray(-20);
      const expected = base58check.encode(Uint8Array.of(0x41, ...accountId));
      expect(deriveCustomerAddresses(keys, index, 'prod').tron).toBe(expected);
    }
  });

  it('is deterministic, and different indexes give different addresses', () => {
    expect(deriveCustomerAddresses(parseWalletXpubs(TEST_WALLET_XPUBS), 5, 'prod')).toEqual(deriveCustomerAddresses(keys, 5, 'prod'));
    const a = deriveCustomerAddresses(keys, 2, 'prod');
    const b = deriveCustomerAddresses(keys, 3, 'prod');
    expect(a.evm).not.toBe(b.evm);
    expect(a.btc).not.toBe(b.btc);
    expect(a.tron).not.toBe(b.tron);
  });

  it('accepts the largest non-hardened index', () => {
    expect(deriveCustomerAddresses(keys, 2 ** 31 - 1, 'prod').btc).toMatch(/^bc1q[02-9ac-hj-np-z]{38}$/);
  });

  it.each([-1, 1.5, 2 ** 31, Number.NaN, Number.POSITIVE_INFINITY])('rejects index %s', (index) => {
    expect(() => deriveCustomerAddresses(keys, index, 'prod')).toThrow(RangeError);
  });
});

describe('parseWalletXpubs', () => {
  it('accepts a BIP-84 zpub for BTC and derives the same addresses as the xpub', () => {
    const withZpub = parseWalletXpubs({ ...TEST_WALLET_XPUBS, btc: BTC_ACCOUNT_ZPUB });
    expect(deriveCustomerAddresses(withZpub, 0, 'prod').btc).toBe('bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu');
  });

  it('rejects a zpub for EVM', () => {
    expect(() => parseWalletXpubs({ ...TEST_WALLET_XPUBS, evm: BTC_ACCOUNT_ZPUB })).toThrow(/evm key: unsupported version/);
  });

  it('rejects an extended private key', () => {
    const xprv = root.derive(ACCOUNT_PATHS.evm).privateExtendedKey;
    expect(xprv.startsWith('xprv')).toBe(true);
    expect(() => parseWalletXpubs({ ...TEST_WALLET_XPUBS, evm: xprv })).toThrow(/evm key: is an extended PRIVATE key/);
  });

  it('rejects a key that is not at account level', () => {
    const rootXpub = root.publicExtendedKey;
    const receivingChainXpub = root.derive(`${ACCOUNT_PATHS.tron}/0`).publicExtendedKey;
    expect(() => parseWalletXpubs({ ...TEST_WALLET_XPUBS, tron: rootXpub })).toThrow(/tron key: expected an account-level key/);
    expect(() => parseWalletXpubs({ ...TEST_WALLET_XPUBS, tron: receivingChainXpub })).toThrow(/account-level/);
  });

  it('rejects text that is not an extended key', () => {
    const corrupted = TEST_WALLET_XPUBS.btc.slice(0, -1) + (TEST_WALLET_XPUBS.btc.endsWith('V') ? 'W' : 'V');
    expect(() => parseWalletXpubs({ ...TEST_WALLET_XPUBS, btc: corrupted })).toThrow(/btc key: not a base58check/);
    expect(() => parseWalletXpubs({ ...TEST_WALLET_XPUBS, btc: '' })).toThrow(/btc key/);
  });
});

describe('toChecksumAddress', () => {
  it('reproduces the EIP-55 casing from lower-case input', () => {
    for (const address of [
      '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
      '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
      '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
      '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
      deriveCustomerAddresses(keys, 0, 'prod').evm,
    ]) {
      expect(toChecksumAddress(address.toLowerCase())).toBe(address);
      expect(toChecksumAddress(address.toUpperCase().replace('0X', '0x'))).toBe(address);
    }
  });
});

describe('addressForNetwork', () => {
  it('gives every EVM network the one EVM address', () => {
    const addresses = deriveCustomerAddresses(keys, 0, 'prod');
    for (const network of ['ethereum', 'bsc', 'polygon', 'bahamut'] as const) {
      expect(addressForNetwork(addresses, network)).toBe(addresses.evm);
    }
    expect(addressForNetwork(addresses, 'bitcoin')).toBe(addresses.btc);
    expect(addressForNetwork(addresses, 'tron')).toBe(addresses.tron);
  });
});
