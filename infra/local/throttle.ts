/**
 * Per-key request throttling as an API Gateway usage plan applies it: a token bucket per key
 * that refills at a steady rate up to a burst size.
 */

import { PER_KEY_THROTTLE } from '../../shared/platform.js';

interface Bucket {
  tokens: number;
  refilledAt: number;
}

export class TokenBucketThrottle {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly limits: { ratePerSecond: number; burst: number } = PER_KEY_THROTTLE,
    /** Milliseconds from a monotonic clock. */
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Takes one token from the key's bucket; false when it is empty (the request is throttled). */
  tryTake(key: string): boolean {
    const now = this.now();
    const bucket = this.buckets.get(key) ?? { tokens: this.limits.burst, refilledAt: now };
    const refill = ((now - bucket.refilledAt) / 1000) * this.limits.ratePerSecond;
    bucket.tokens = Math.min(this.limits.burst, bucket.tokens + refill);
    bucket.refilledAt = now;
    this.buckets.set(key, bucket);
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }
}
