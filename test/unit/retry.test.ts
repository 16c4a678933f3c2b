/** The optimistic write retry policy (shared/domain/kernel/retry.ts), on a clock the test moves. */
import { describe, expect, it } from 'vitest';
import { BALANCE_RETRY, OPTIMISTIC_RETRY, optimisticAttempts, type RetryPolicy } from '../../shared/domain/kernel/retry.js';

function timing(random = 1, sleepAlso = 0) {
  let now = 0;
  const pauses: number[] = [];
  return {
    pauses,
    advance: (ms: number) => (now += ms),
    timing: {
      now: () => now,
      sleep: async (ms: number) => {
        pauses.push(ms);
        now += ms + sleepAlso;
      },
      random: () => random,
    },
  };
}

async function tries(policy: RetryPolicy, clock: ReturnType<typeof timing>, eachTakesMs = 0): Promise<number[]> {
  const seen: number[] = [];
  for await (const attempt of optimisticAttempts(policy, clock.timing)) {
    seen.push(attempt);
    clock.advance(eachTakesMs);
  }
  return seen;
}

describe('optimistic attempts', () => {
  it('tries at most 10 times, pausing before each retry for a random time below 40 ms times the try number plus one', async () => {
    const clock = timing(0.5);
    expect(await tries(OPTIMISTIC_RETRY, clock)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(clock.pauses).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => 0.5 * 40 * (n + 1)));
  });

  it('starts no retry once 4 seconds have gone since the first try', async () => {
    const clock = timing(0);
    // Each try takes 1.5 s: the third starts at 3 s, the fourth would start at 4.5 s.
    expect(await tries(OPTIMISTIC_RETRY, clock, 1_500)).toEqual([0, 1, 2]);
  });

  it('counts the pauses in the budget too', async () => {
    const clock = timing(1, 1_000);
    expect(await tries({ attempts: 10, budgetMs: 2_500, pauseStepMs: 40 }, clock)).toEqual([0, 1, 2]);
  });

  it('for writers queueing on one balance, pauses at most 60 ms however often it lost, and starts no retry after 8 seconds', async () => {
    const clock = timing(1);
    const seen = await tries(BALANCE_RETRY, clock);
    expect(clock.pauses.slice(0, 13)).toEqual([10, 15, 20, 25, 30, 35, 40, 45, 50, 55, 60, 60, 60]);
    // 385 ms of pauses to the 11th retry, then 60 ms each: the 137th starts at 7,945 ms, a 138th would at 8,005.
    expect(seen).toHaveLength(138);
  });

  it('stops as soon as the caller leaves the loop: one write that succeeds is one try', async () => {
    const clock = timing();
    let count = 0;
    for await (const _attempt of optimisticAttempts(OPTIMISTIC_RETRY, clock.timing)) {
      count++;
      break;
    }
    expect(count).toBe(1);
    expect(clock.pauses).toEqual([]);
  });
});
