import { describe, expect, it } from 'vitest';
import {
  FIRST_PAUSE_SECONDS,
  LONGEST_PAUSE_SECONDS,
  PAUSE_AFTER_TIMEOUTS,
  PAUSE_SPREAD_SHARE,
  PROBE_HOLD_SECONDS,
  pauseAfterTimeout,
  pauseDecision,
  pausedRetrySeconds,
  pausedUntil,
  pauseSeconds,
} from '../../shared/domain/callbacks/callback-pause.js';
import type { CallbackPause } from '../../shared/domain/merchants/merchants.js';

const URL_A = 'https://shop.example/callbacks';
const now = new Date('2025-06-01T10:00:00.000Z');
const at = (seconds: number) => new Date(now.getTime() + seconds * 1000).toISOString();

describe('a pause of callback deliveries', () => {
  it('lasts 5 minutes at first, twice as long each time after, at most the longest retry delay (3 h), scaled like the retries', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8].map((pauses) => pauseSeconds(pauses))).toEqual([300, 600, 1200, 2400, 4800, 9600, 10_800, 10_800]);
    expect(LONGEST_PAUSE_SECONDS).toBe(3 * 3600);
    expect(pauseSeconds(1, 0.001)).toBeCloseTo(FIRST_PAUSE_SECONDS * 0.001);
  });

  it(`opens on the ${PAUSE_AFTER_TIMEOUTS}rd timeout in a row, and not while one is on`, () => {
    const counted = (timeouts: number, more: Partial<CallbackPause> = {}): CallbackPause => ({ url: URL_A, timeouts, pauses: 0, ...more });
    expect(pauseAfterTimeout(counted(PAUSE_AFTER_TIMEOUTS - 1), now, undefined)).toBeUndefined();
    expect(pauseAfterTimeout(counted(PAUSE_AFTER_TIMEOUTS), now, undefined)).toEqual({ from: undefined, until: at(FIRST_PAUSE_SECONDS), pauses: 1 });
    // Another attempt's timeout while the pause is on changes nothing; one after it ended opens the next.
    expect(pauseAfterTimeout(counted(5, { pauses: 1, pausedUntil: at(10) }), now, undefined)).toBeUndefined();
    expect(pauseAfterTimeout(counted(5, { pauses: 1, pausedUntil: at(-10) }), now, undefined)).toEqual({ from: at(-10), until: at(600), pauses: 2 });
  });

  it("lets the probe's own timeout open the next pause over its hold", () => {
    const hold = { from: at(-1), until: at(PROBE_HOLD_SECONDS), pauses: 2 };
    const state: CallbackPause = { url: URL_A, timeouts: 7, pauses: 2, pausedUntil: hold.until };
    expect(pauseAfterTimeout(state, now, hold, 0.5)).toEqual({ from: hold.until, until: at(1200 * 0.5), pauses: 3 });
    // Another attempt that times out during the probe leaves it alone.
    expect(pauseAfterTimeout(state, now, undefined)).toBeUndefined();
  });

  it('makes an attempt wait while it is on, and lets one probe once it is over', () => {
    const paused: CallbackPause = { url: URL_A, timeouts: 3, pauses: 1, pausedUntil: at(60) };
    expect(pauseDecision(undefined, URL_A, now)).toEqual({ action: 'deliver' });
    expect(pauseDecision({ url: URL_A, timeouts: 2, pauses: 0 }, URL_A, now)).toEqual({ action: 'deliver' });
    expect(pauseDecision(paused, URL_A, now)).toEqual({ action: 'wait', until: new Date(at(60)), pauses: 1 });
    expect(pauseDecision(paused, URL_A, new Date(at(61)))).toEqual({
      action: 'probe',
      hold: { from: at(60), until: new Date(Date.parse(at(61)) + PROBE_HOLD_SECONDS * 1000).toISOString(), pauses: 1 },
    });
    // A pause of the URL the merchant has replaced holds nothing back.
    expect(pauseDecision(paused, 'https://shop.example/new', now)).toEqual({ action: 'deliver' });
  });

  it("shows in the log until when it lasts, only while it is on and about the merchant's URL", () => {
    const callbackPause: CallbackPause = { url: URL_A, timeouts: 3, pauses: 1, pausedUntil: at(60) };
    expect(pausedUntil({ callbackUrl: URL_A, callbackPause }, now)).toBe(at(60));
    expect(pausedUntil({ callbackUrl: URL_A, callbackPause }, new Date(at(60)))).toBeNull();
    expect(pausedUntil({ callbackUrl: 'https://shop.example/new', callbackPause }, now)).toBeNull();
    expect(pausedUntil({ callbackUrl: null, callbackPause }, now)).toBeNull();
    expect(pausedUntil({ callbackUrl: URL_A }, now)).toBeNull();
  });

  it('brings the waiting callbacks back after it ends, spread over a tenth of it', () => {
    const until = new Date(at(100));
    // Received often enough before, a callback waits for the pause to end.
    const receives = 10;
    expect(pausedRetrySeconds(until, 1, receives, now, 1, () => 0)).toBe(100);
    expect(pausedRetrySeconds(until, 1, receives, now, 1, () => 0.999)).toBeCloseTo(100 + 0.999 * PAUSE_SPREAD_SHARE * FIRST_PAUSE_SECONDS);
    expect(pausedRetrySeconds(until, 7, receives, now, 1, () => 1)).toBe(100 + PAUSE_SPREAD_SHARE * LONGEST_PAUSE_SECONDS);
    // A pause already over (a probe's hold that ran out) brings it back within the spread.
    expect(pausedRetrySeconds(new Date(at(-5)), 1, receives, now, 1, () => 0)).toBe(0);
  });

  it('brings a callback back no later than the retry schedule would after as many receives', () => {
    const longPause = new Date(at(LONGEST_PAUSE_SECONDS));
    expect([1, 2, 3, 4, 5].map((receives) => pausedRetrySeconds(longPause, 7, receives, now, 1, () => 0))).toEqual([60, 300, 900, 3600, LONGEST_PAUSE_SECONDS]);
    expect(pausedRetrySeconds(longPause, 7, 1, now, 0.5, () => 0)).toBe(30);
  });
});
