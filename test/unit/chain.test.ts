/** The chain watcher's pure rules (docs/merchant-guide.md#on-chain-deposits): exact amounts, identities, depth, and tracing a reorg back. */
import { describe, expect, it } from 'vitest';
import { advance, assetAmount, depthOf, forkPoint, type ChainCursor } from '../../shared/domain/chains/chain.js';
import { transferClaimId } from '../../shared/domain/chains/claims.js';

const hashAt = (number: number, fork = '') => `0x${fork}${number.toString(16).padStart(64 - fork.length, '0')}`;

describe('amounts on chain', () => {
  it('are exact in the asset when the contract has no more decimals than the asset', () => {
    expect(assetAmount(123456789012345678901n, 18, 'ETH').toFixed()).toBe('123.456789012345678901');
    expect(assetAmount(25_000_001n, 6, 'USDT').toFixed()).toBe('25.000001');
    expect(assetAmount(1n, 18, 'ETH').toFixed()).toBe('0.000000000000000001');
  });

  it('drop dust finer than the asset, never rounding up what did not arrive', () => {
    // BSC's USDT has 18 decimals; the asset keeps 6.
    expect(assetAmount(25_000_000_999_999_999_999n, 18, 'USDT').toFixed()).toBe('25');
    expect(assetAmount(999_999_999_999n, 18, 'USDT').toFixed()).toBe('0');
  });
});

describe('a transfer', () => {
  it('is one per network, transaction hash and log index, native ones per transaction', () => {
    const tx = `0x${'AB'.repeat(32)}`;
    expect(transferClaimId({ network: 'ethereum', transactionHash: tx, logIndex: 3 })).toBe(`chain#ethereum#0x${'ab'.repeat(32)}#3`);
    expect(transferClaimId({ network: 'ethereum', transactionHash: tx, logIndex: null })).toBe(`chain#ethereum#0x${'ab'.repeat(32)}#native`);
    expect(transferClaimId({ network: 'bsc', transactionHash: tx, logIndex: 3 })).not.toBe(transferClaimId({ network: 'ethereum', transactionHash: tx, logIndex: 3 }));
  });

  it('counts its own block in its depth', () => {
    expect(depthOf(100, 100)).toBe(1);
    expect(depthOf(100, 111)).toBe(12);
  });
});

describe('the cursor', () => {
  const cursorAt = (last: number, memory: number): ChainCursor => {
    const recent = Array.from({ length: memory }, (_, i) => ({ number: last - memory + 1 + i, hash: hashAt(last - memory + 1 + i) }));
    return { ...recent.at(-1)!, recent };
  };

  it('moves to the last block scanned and remembers only so many', () => {
    const next = advance(
      cursorAt(10, 5),
      [11, 12, 13].map((n) => ({ number: n, hash: hashAt(n) })),
      4,
    );
    expect(next).toEqual({ number: 13, hash: hashAt(13), recent: [10, 11, 12, 13].map((n) => ({ number: n, hash: hashAt(n) })) });
  });

  it('stays where it is when nothing was scanned', () => {
    const cursor = cursorAt(10, 3);
    expect(advance(cursor, [], 4)).toBe(cursor);
  });

  it('traces a reorg back to the newest block still canonical', async () => {
    const cursor = cursorAt(20, 10);
    // Blocks from 17 on were replaced.
    const canonical = async (n: number) => (n >= 17 ? hashAt(n, 'f') : hashAt(n));
    expect(await forkPoint(cursor, canonical)).toEqual({ number: 16, hash: hashAt(16) });
    expect(await forkPoint(cursor, async (n) => hashAt(n, 'f'))).toBeUndefined();
  });
});
