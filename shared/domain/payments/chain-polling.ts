/**
 * A chain watcher's invocation as a loop of runs (docs/operations.md#watching-chains): EventBridge
 * invokes it once a minute, and it reads the chain every poll interval until its deadline, so that
 * a deposit is seen within the interval rather than within the minute. Runs start on the interval's
 * beat (a run that took long is followed at once); a run that ended behind the head, with more
 * blocks than one run reads, is followed at once too. The last run starts at the deadline at the
 * latest, and the loop ends at the first failed run: the next invocation tries again.
 */
import type { RunSummary } from './chain-watcher.js';

export interface PollingDeps {
  run: () => Promise<RunSummary>;
  pollMs: number;
  /** Epoch milliseconds after which no run starts; at or before the start, the invocation runs once. */
  deadline: number;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
}

export interface PollingOutcome {
  /** The runs that completed, in order. */
  runs: RunSummary[];
  /** What failed the run that ended the loop; absent when none did. */
  error?: unknown;
}

export async function pollUntilDeadline({ run, pollMs, deadline, now, sleep }: PollingDeps): Promise<PollingOutcome> {
  const runs: RunSummary[] = [];
  for (;;) {
    const startedAt = now();
    let summary: RunSummary;
    try {
      summary = await run();
    } catch (error) {
      return { runs, error };
    }
    runs.push(summary);
    if (startedAt >= deadline || now() >= deadline) return { runs };
    const behind = summary.cursor < summary.head;
    // Clamped to the deadline: the last run comes as close to the next invocation as it may.
    const next = Math.min(behind ? now() : startedAt + pollMs, deadline);
    const wait = next - now();
    if (wait > 0) await sleep(wait);
  }
}

/** What an invocation's runs did together: the counts summed, the head and cursor of the last run. */
export interface InvocationSummary extends RunSummary {
  runs: number;
}

export function sumRuns(runs: readonly RunSummary[]): InvocationSummary {
  const last = runs.at(-1);
  if (!last) throw new Error('An invocation with no completed run has nothing to sum');
  const sum = (field: 'scanned' | 'recorded' | 'held' | 'confirmed' | 'failed' | 'credited') => runs.reduce((total, run) => total + run[field], 0);
  const reorgs = runs.flatMap((run) => (run.reorg ? [run.reorg] : []));
  return {
    network: last.network,
    runs: runs.length,
    head: last.head,
    scanned: sum('scanned'),
    cursor: last.cursor,
    recorded: sum('recorded'),
    held: sum('held'),
    confirmed: sum('confirmed'),
    failed: sum('failed'),
    credited: sum('credited'),
    // Several reorganisations in one invocation: the span they rewound over.
    ...(reorgs.length > 0 ? { reorg: { from: Math.max(...reorgs.map((r) => r.from)), to: Math.min(...reorgs.map((r) => r.to)) } } : {}),
  };
}
