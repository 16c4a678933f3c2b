/** Addresses money may be sent to, per network and stage: BIP-173 and BIP-350's vectors, EIP-55's, Tron's base58check. */
import { describe, expect, it } from 'vitest';
import { destinationAddress } from '../../shared/domain/payouts/destination-addresses.js';

describe('a destination address', () => {
  it.each([
    ['ethereum', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'],
    ['bsc', '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'],
    ['polygon', '0x5AAEB6053F3E94C9B9A09F33669435E7EF1BEAED', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'],
    ['tron', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t'],
    ['bitcoin', 'BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4'],
    ['bitcoin', 'bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv3', 'bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv3'],
    ['bitcoin', 'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0', 'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0'],
    ['bitcoin', '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2', '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2'],
    ['bitcoin', '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy', '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy'],
  ] as const)('takes %s %s in production, as %s', (network, address, canonical) => {
    expect(destinationAddress(network, ` ${address} `, 'prod')).toEqual({ address: canonical });
  });

  it.each([
    ['bitcoin', 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx'],
    ['bitcoin', 'bcrt1q6rhpng9evdsfnn833a4f4vej0asu6dk5srld6x'],
    ['bitcoin', 'mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn'],
  ] as const)('takes %s %s in the demo, as regtest and testnet write them', (network, address) => {
    expect(destinationAddress(network, address, 'demo')).toEqual({ address });
  });

  it.each([
    ['ethereum', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD', 'prod', 'fails its EIP-55 checksum'],
    ['ethereum', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeA', 'prod', 'must be 0x and 40 hexadecimal digits'],
    ['bahamut', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', 'prod', 'must be 0x and 40 hexadecimal digits'],
    ['tron', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u', 'prod', 'must be a Tron base58check address (T…)'],
    ['tron', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', 'prod', 'must be a Tron base58check address (T…)'],
    // Another network's: a testnet address in production, a mainnet one in the demo.
    ['bitcoin', 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx', 'prod', 'must be a Bitcoin address'],
    ['bitcoin', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', 'demo', 'must be a Bitcoin address'],
    ['bitcoin', '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2', 'demo', 'must be a Bitcoin address'],
    // A wrong checksum, mixed case, v0 under bech32m's checksum, v1 under bech32's, a v1 program that is not 32 bytes.
    ['bitcoin', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5', 'prod', 'must be a Bitcoin address'],
    ['bitcoin', 'bc1qW508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', 'prod', 'must be a Bitcoin address'],
    ['bitcoin', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kemeawh', 'prod', 'must be a Bitcoin address'],
    ['bitcoin', 'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqh2y7hd', 'prod', 'must be a Bitcoin address'],
    ['bitcoin', 'bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7kt5nd6y', 'prod', 'must be a Bitcoin address'],
    ['bitcoin', '', 'prod', 'must be an address'],
  ] as const)('refuses %s %j on %s: %s', (network, address, stage, problem) => {
    const check = destinationAddress(network, address, stage);
    expect('problem' in check && check.problem).toContain(problem);
  });
});
