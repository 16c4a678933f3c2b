import { describe, expect, it } from 'vitest';
import { PER_KEY_THROTTLE } from '../../shared/platform.js';
import { TokenBucketThrottle } from '../../infra/local/throttle.js';

function throttleAt(startMs = 0) {
  const clock = { nowMs: startMs };
  return { clock, throttle: new TokenBucketThrottle(PER_KEY_THROTTLE, () => clock.nowMs) };
}

const takeMany = (throttle: TokenBucketThrottle, key: string, count: number): number => Array.from({ length: count }, () => throttle.tryTake(key)).filter(Boolean).length;

describe('TokenBucketThrottle', () => {
  it('uses the limits of docs/merchant-guide.md#limits-and-throttling: 50 per second, bursts of 100', () => {
    expect(PER_KEY_THROTTLE).toEqual({ ratePerSecond: 50, burst: 100 });
  });

  it('starts with a full bucket of 100 and refuses the 101st request', () => {
    const { throttle } = throttleAt();
    expect(takeMany(throttle, 'key', 100)).toBe(100);
    expect(throttle.tryTake('key')).toBe(false);
  });

  it('refills at 50 tokens per second, fractions included', () => {
    const { clock, throttle } = throttleAt(1_000);
    takeMany(throttle, 'key', 100);
    clock.nowMs += 10; // half a token
    expect(throttle.tryTake('key')).toBe(false);
    clock.nowMs += 10;
    expect(throttle.tryTake('key')).toBe(true);
    clock.nowMs += 1_000;
    expect(takeMany(throttle, 'key', 60)).toBe(50);
  });

  it('never holds more than the burst, however long a key was idle', () => {
    const { clock, throttle } = throttleAt();
    throttle.tryTake('key');
    clock.nowMs += 60_000;
    expect(takeMany(throttle, 'key', 150)).toBe(100);
  });

  it('keeps one bucket per key', () => {
    const { throttle } = throttleAt();
    takeMany(throttle, 'a', 100);
    expect(throttle.tryTake('a')).toBe(false);
    expect(throttle.tryTake('b')).toBe(true);
  });
});
