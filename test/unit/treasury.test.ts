/**
 * The treasury's pure rules: a chain's smallest units written in the asset's units (rounded down
 * to its decimals), what queued payouts need per network and asset, the family each network's
 * payouts are paid from, and the report the admin CLI prints, over in-memory readers.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { describe, expect, it } from 'vitest';
import { CRYPTO_NETWORKS } from '../../shared/domain/kernel/index.js';
import {
  neededByQueuedPayouts,
  type QueuedPayout,
  treasuryAddress,
  treasuryAmount,
  treasuryFamilyOf,
  treasuryReport,
  type TreasuryBalanceReader,
  type TreasuryFamily,
} from '../../shared/domain/payouts/index.js';

describe('treasuryAmount', () => {
  it.each([
    [0n, 18, 'ETH', '0.000000000000000000'],
    [1n, 18, 'ETH', '0.000000000000000001'],
    [1_500_000_000_000_000_000n, 18, 'ETH', '1.500000000000000000'],
    [12_345_678n, 6, 'TRX', '12.345678'],
    [50_012_345n, 8, 'BTC', '0.50012345'],
    [25_500_001n, 6, 'USDT', '25.500001'],
    // A token of 18 decimals counted in its asset's 6 (BSC's USDT): rounded down, never up.
    [2_123_456_999_999_999_999n, 18, 'USDT', '2.123456'],
    [999_999_999_999n, 18, 'USDT', '0.000000'],
    // A token of fewer decimals than its asset's: exact, padded.
    [7n, 2, 'USDC', '0.070000'],
    [10n ** 30n, 6, 'USDT', '1000000000000000000000000.000000'],
  ] as const)('%s units of %s decimals are %s %s', (units, decimals, asset, amount) => {
    expect(treasuryAmount(units, decimals, asset)).toBe(amount);
  });
});

describe('neededByQueuedPayouts', () => {
  it('is nothing when nothing is queued', () => {
    expect(neededByQueuedPayouts([])).toEqual([]);
  });

  it('sums the amounts per network and asset, exactly, in the order of the networks', () => {
    const payouts: QueuedPayout[] = [
      { network: 'tron', currency: 'USDT', amount: '10.5' },
      { network: 'ethereum', currency: 'USDT', amount: '0.000001' },
      { network: 'bitcoin', currency: 'BTC', amount: '0.00012345' },
      { network: 'ethereum', currency: 'USDT', amount: '99.999999' },
      { network: 'tron', currency: 'USDT', amount: '0.1' },
      { network: 'ethereum', currency: 'ETH', amount: '0.1' },
      { network: 'ethereum', currency: 'ETH', amount: '0.2' },
      { network: 'bsc', currency: 'USDT', amount: '5' },
    ];
    expect(neededByQueuedPayouts(payouts)).toEqual([
      { network: 'bitcoin', asset: 'BTC', amount: '0.00012345' },
      { network: 'ethereum', asset: 'ETH', amount: '0.300000000000000000' },
      { network: 'ethereum', asset: 'USDT', amount: '100.000000' },
      { network: 'bsc', asset: 'USDT', amount: '5.000000' },
      { network: 'tron', asset: 'USDT', amount: '10.600000' },
    ]);
  });
});

describe('treasuryFamilyOf', () => {
  it('pays every EVM network from the one EVM treasury, Tron and Bitcoin from their own', () => {
    expect(Object.fromEntries(CRYPTO_NETWORKS.map((network) => [network, treasuryFamilyOf(network)]))).toEqual({
      bitcoin: 'bitcoin',
      ethereum: 'evm',
      bsc: 'evm',
      polygon: 'evm',
      tron: 'tron',
      bahamut: 'evm',
    });
  });
});

describe('treasuryReport', () => {
  const keys = Object.fromEntries((['evm', 'tron', 'bitcoin'] as const).map((family) => [family, secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true)])) as Record<TreasuryFamily, Uint8Array>;
  const signer = { publicKey: async (family: TreasuryFamily) => keys[family] };
  /** A reader that holds `amount` of `asset` for whichever address it is asked about, and remembers the addresses. */
  const holding = (network: QueuedPayout['network'], asset: QueuedPayout['currency'], amount: string, asked: string[]): TreasuryBalanceReader => ({
    balances: async (address) => {
      asked.push(address);
      return [{ network, asset, amount }];
    },
  });

  it('gives each family its address, what it holds on each network read and what queued payouts need of it; a family without a node holds nothing listed', async () => {
    const asked: string[] = [];
    const report = await treasuryReport({
      stage: 'demo',
      signer,
      readers: { polygon: holding('polygon', 'USDC', '3.000000', asked), ethereum: holding('ethereum', 'ETH', '1.000000000000000000', asked), bitcoin: holding('bitcoin', 'BTC', '0.50000000', asked) },
      payouts: { queued: async () => [{ network: 'polygon', currency: 'USDC', amount: '2' }] },
    });
    const evm = treasuryAddress('evm', keys.evm, 'demo');
    const bitcoin = treasuryAddress('bitcoin', keys.bitcoin, 'demo');
    expect(report).toEqual({
      families: [
        {
          family: 'evm',
          address: evm,
          balances: [
            { network: 'ethereum', asset: 'ETH', amount: '1.000000000000000000' },
            { network: 'polygon', asset: 'USDC', amount: '3.000000' },
          ],
          needed: [{ network: 'polygon', asset: 'USDC', amount: '2.000000' }],
        },
        { family: 'tron', address: treasuryAddress('tron', keys.tron, 'demo'), balances: [], needed: [] },
        { family: 'bitcoin', address: bitcoin, balances: [{ network: 'bitcoin', asset: 'BTC', amount: '0.50000000' }], needed: [] },
      ],
    });
    expect(bitcoin).toMatch(/^tb1q/);
    expect(asked.sort()).toEqual([bitcoin, evm, evm].sort());
  });
});
