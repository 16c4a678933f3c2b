import { describe, expect, it } from 'vitest';
import { pollUntilDeadline, sumRuns } from '../../shared/domain/payments/chain-polling.js';
import type { RunSummary } from '../../shared/domain/payments/chain-watcher.js';

const summary = (fields: Partial<RunSummary> = {}): RunSummary => ({
  network: 'ethereum',
  head: 100,
  scanned: 1,
  cursor: 100,
  recorded: 0,
  held: 0,
  confirmed: 0,
  failed: 0,
  credited: 0,
  ...fields,
});

/**
 * An invocation on a clock of its own: each run takes `runMs` and answers what `answer` says for
 * its index; sleeping moves the clock. Answers when each run started, relative to the start.
 */
async function poll({ pollMs, watchForMs, runMs = 300, answer = () => summary() }: { pollMs: number; watchForMs: number; runMs?: number; answer?: (index: number) => RunSummary | Error }) {
  let now = 1_000_000;
  const startedAt = now;
  const starts: number[] = [];
  const outcome = await pollUntilDeadline({
    run: async () => {
      starts.push(now - startedAt);
      const result = answer(starts.length - 1);
      now += runMs;
      if (result instanceof Error) throw result;
      return result;
    },
    pollMs,
    deadline: startedAt + watchForMs,
    now: () => now,
    sleep: async (ms) => {
      now += ms;
    },
  });
  return { ...outcome, starts, endedAt: now - startedAt };
}

describe('an invocation polling the chain', () => {
  it('runs once when it has no time to poll', async () => {
    const { runs, starts } = await poll({ pollMs: 5_000, watchForMs: 0 });
    expect(runs).toHaveLength(1);
    expect(starts).toEqual([0]);
  });

  it('starts a run every poll interval, the last at its deadline, and ends before the next invocation', async () => {
    const { runs, starts, endedAt } = await poll({ pollMs: 5_000, watchForMs: 50_000 });
    expect(starts).toEqual([0, 5_000, 10_000, 15_000, 20_000, 25_000, 30_000, 35_000, 40_000, 45_000, 50_000]);
    expect(runs).toHaveLength(11);
    expect(endedAt).toBe(50_300);
  });

  it('moves its last run up to the deadline when the interval does not divide it', async () => {
    const { starts } = await poll({ pollMs: 7_000, watchForMs: 50_000 });
    expect(starts).toEqual([0, 7_000, 14_000, 21_000, 28_000, 35_000, 42_000, 49_000, 50_000]);
  });

  it('follows a run that took longer than the interval at once, and starts none after the deadline', async () => {
    const { starts, endedAt } = await poll({ pollMs: 1_000, watchForMs: 5_000, runMs: 2_500 });
    expect(starts).toEqual([0, 2_500]);
    expect(endedAt).toBe(5_000);
  });

  it('runs again at once while behind the head, catching up', async () => {
    const { starts } = await poll({ pollMs: 5_000, watchForMs: 12_000, answer: (index) => summary(index < 2 ? { cursor: 50 } : {}) });
    expect(starts).toEqual([0, 300, 600, 5_600, 10_600, 12_000]);
  });

  it('ends at the first failed run with what the runs before it did', async () => {
    const failure = new Error('node down');
    const { runs, error, starts } = await poll({ pollMs: 5_000, watchForMs: 50_000, answer: (index) => (index === 2 ? failure : summary({ recorded: index })) });
    expect(starts).toEqual([0, 5_000, 10_000]);
    expect(runs.map((run) => run.recorded)).toEqual([0, 1]);
    expect(error).toBe(failure);
  });

  it('sums its runs into one summary: the counts added, the head and cursor of the last', () => {
    expect(
      sumRuns([
        summary({ head: 10, cursor: 8, scanned: 8, recorded: 1, reorg: { from: 7, to: 5 } }),
        summary({ head: 12, cursor: 12, scanned: 4, confirmed: 1, held: 2 }),
        summary({ head: 13, cursor: 13, scanned: 1, failed: 1, credited: 3, reorg: { from: 13, to: 11 } }),
      ]),
    ).toEqual({ network: 'ethereum', runs: 3, head: 13, cursor: 13, scanned: 13, recorded: 1, held: 2, confirmed: 1, failed: 1, credited: 3, reorg: { from: 13, to: 5 } });
    expect(sumRuns([summary()])).not.toHaveProperty('reorg');
  });
});
