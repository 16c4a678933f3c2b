/**
 * The one policy for writes that lose optimistic races (a conditional write whose condition a
 * concurrent writer broke, a DynamoDB transaction conflict): decide again on the new state, after
 * a random pause that grows with each loss, so that writers converging on one item (a burst of
 * deposits to one invoice) spread out instead of colliding again.
 */
export interface RetryPolicy {
  /** Tries in all, the first included. */
  attempts: number;
  /** No retry starts after this long: a write that keeps losing answers a clean conflict well inside a request's timeout. */
  budgetMs: number;
  /** The pause before try n (from 1) is random, below `pauseStepMs * (n + 1)`. */
  pauseStepMs: number;
}

export const OPTIMISTIC_RETRY: RetryPolicy = { attempts: 10, budgetMs: 4_000, pauseStepMs: 40 };

export interface RetryTiming {
  now(): number;
  sleep(ms: number): Promise<void>;
  random(): number;
}

const realTiming: RetryTiming = {
  now: () => performance.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  random: Math.random,
};

/**
 * The tries of one optimistic write, numbered from 0: the caller tries once per number and leaves
 * the loop when the write is done; when the numbers run out, the write lost every race.
 */
export async function* optimisticAttempts(policy: RetryPolicy = OPTIMISTIC_RETRY, timing: RetryTiming = realTiming): AsyncGenerator<number> {
  const deadline = timing.now() + policy.budgetMs;
  for (let attempt = 0; attempt < policy.attempts; attempt++) {
    if (attempt > 0) {
      if (timing.now() >= deadline) return;
      await timing.sleep(timing.random() * policy.pauseStepMs * (attempt + 1));
      if (timing.now() >= deadline) return;
    }
    yield attempt;
  }
}
