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
  /** The pause before try n (from 1) is random, below `pauseStepMs * (n + 1)`, and below `pauseCapMs` when given. */
  pauseStepMs: number;
  pauseCapMs?: number;
}

/**
 * `stale`: a condition failed (the invoice or transaction moved on); re-read and decide again.
 * `contended`: another transaction was writing the same items at that moment and nothing was found
 * changed: the same write may succeed a moment later, or be decided again as a stale one.
 */
export type CommitResult = 'committed' | 'stale' | 'contended';

export const OPTIMISTIC_RETRY: RetryPolicy = { attempts: 10, budgetMs: 4_000, pauseStepMs: 40 };

/**
 * For a posting that lost only because its balance moved, or was being written, in another
 * process: each round of a race on one balance lets one writer through, so the loser posts again
 * on the new balance after a short pause, which spreads the writers out but stops growing at 60 ms
 * (one that kept growing would let newer writers overtake an old one for ever), for as long as
 * such a queue takes to drain rather than give up. The decision around the posting is not made
 * again meanwhile, so the request still ends inside its 10 s timeout.
 */
export const BALANCE_RETRY: RetryPolicy = { attempts: 1_000, budgetMs: 8_000, pauseStepMs: 5, pauseCapMs: 60 };

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
      await timing.sleep(timing.random() * Math.min(policy.pauseStepMs * (attempt + 1), policy.pauseCapMs ?? Infinity));
      if (timing.now() >= deadline) return;
    }
    yield attempt;
  }
}
