/** The watch-chain function as the benchmarks drive it: runs until one ends at the head. */
import type { WatchResult } from '../functions/watch-chain.js';

export interface CaughtUp {
  runs: number;
  scanned: number;
  recorded: number;
}

/** Runs `runOnce` (one invocation of the watcher, one run) until a run reaches the head; what the runs did together. A failed run fails the benchmark. */
export async function catchUp(runOnce: () => Promise<unknown>): Promise<CaughtUp> {
  const total: CaughtUp = { runs: 0, scanned: 0, recorded: 0 };
  for (;;) {
    const result = (await runOnce()) as WatchResult;
    if ('runFailed' in result) throw new Error(`A ${result.network} watcher run failed`);
    total.runs++;
    total.scanned += result.scanned;
    total.recorded += result.recorded;
    if (result.cursor === result.head) return total;
  }
}
