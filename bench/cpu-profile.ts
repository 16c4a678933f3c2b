/**
 * Reads a V8 CPU profile (`node --cpu-prof`) and says where a window of it went: self time by
 * package or project file, and the functions with the most self time.
 */
import { readFile } from 'node:fs/promises';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface TimeShare {
  name: string;
  ms: number;
  percent: number;
}

export interface ProfileSummary {
  sampledMs: number;
  /** Time the thread waited for work. */
  idleMs: number;
  byPackage: TimeShare[];
  byFunction: TimeShare[];
}

/** `node_modules/@smithy/core/...` -> `@smithy/core`, `file:///…/infra/local/x.ts` -> `infra/local/x.ts`, `node:net` as is. */
function ownerOf(url: string, root: string): string {
  if (!url) return '(V8 and native)';
  const dependency = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1];
  if (dependency) return dependency;
  return url.replace(`file://${root}`, '');
}

const shares = (totals: Map<string, number>, sampled: number, top: number): TimeShare[] =>
  [...totals]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, us]) => ({ name, ms: Math.round(us / 1000), percent: Math.round((1000 * us) / sampled) / 10 }));

/**
 * Summarizes the samples taken in the `windowSeconds` that ended `endedBeforeExitMs` before the
 * profile ended (the process's exit), so start-up and shutdown stay out.
 */
export async function summarizeProfile(file: string, root: string, options: { windowSeconds: number; endedBeforeExitMs: number; top: number }): Promise<ProfileSummary> {
  const profile = JSON.parse(await readFile(file, 'utf8')) as CpuProfile;
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const windowEnd = profile.endTime - options.endedBeforeExitMs * 1000;
  const windowStart = windowEnd - options.windowSeconds * 1_000_000;
  const byPackage = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let sampled = 0;
  let idle = 0;
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (at <= windowStart || at > windowEnd) return;
    const { functionName, url, lineNumber } = nodes.get(id)!.callFrame;
    sampled += delta;
    if (functionName === '(idle)') idle += delta;
    const owner = ownerOf(url, root);
    byPackage.set(owner, (byPackage.get(owner) ?? 0) + delta);
    const name = `${functionName || '(anonymous)'} ${owner}${url ? `:${lineNumber + 1}` : ''}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + delta);
  });
  return { sampledMs: Math.round(sampled / 1000), idleMs: Math.round(idle / 1000), byPackage: shares(byPackage, sampled, options.top), byFunction: shares(byFunction, sampled, options.top) };
}
