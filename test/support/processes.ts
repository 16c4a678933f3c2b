/** Whether processes still run, in tests that check nothing is left behind. */
import { execFileSync } from 'node:child_process';

/**
 * Whether `pid` runs, from `ps`. A process that exited but that nobody reaped yet (a zombie,
 * e.g. an orphan whose new parent is slow to reap it) does not count: it runs nothing.
 */
export function isRunning(pid: number): boolean {
  try {
    const state = execFileSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    return state !== '' && !state.startsWith('Z');
  } catch {
    // ps exits with 1 when no such process exists.
    return false;
  }
}

/** Ids of the Hardhat nodes running on `port`, from `ps`. */
export function hardhatNodesOnPort(port: number): number[] {
  return execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes('hardhat') && line.includes(` node `) && line.includes(`--port ${port} `))
    .map((line) => Number.parseInt(line.trim(), 10));
}
