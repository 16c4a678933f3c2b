import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { summarizeProfile } from '../../bench/cpu-profile.js';

const ROOT = '/srv/gateway/';

/** A profile of 1 ms samples: `before` ms of start-up in `load`, then the window's samples, then 5 ms of shutdown. */
async function profileFile(window: Array<'idle' | 'sdk' | 'handler'>, before: number): Promise<string> {
  const nodes = [
    { id: 1, callFrame: { functionName: '(root)', url: '', lineNumber: -1 } },
    { id: 2, callFrame: { functionName: '(idle)', url: '', lineNumber: -1 } },
    { id: 3, callFrame: { functionName: 'send', url: `file://${ROOT}node_modules/@smithy/core/dist-cjs/index.js`, lineNumber: 9 } },
    { id: 4, callFrame: { functionName: 'handler', url: `file://${ROOT}functions/get-invoice.ts`, lineNumber: 0 } },
    { id: 5, callFrame: { functionName: 'load', url: 'node:internal/modules/esm/loader', lineNumber: 3 } },
  ];
  const ids = { idle: 2, sdk: 3, handler: 4 } as const;
  const samples = [...Array<number>(before).fill(5), ...window.map((kind) => ids[kind]), ...Array<number>(5).fill(5)];
  const file = join(await mkdtemp(join(tmpdir(), 'cpu-profile-')), 'CPU.cpuprofile');
  await writeFile(file, JSON.stringify({ nodes, startTime: 0, endTime: samples.length * 1000, samples, timeDeltas: samples.map(() => 1000) }));
  return file;
}

describe('summarizeProfile', () => {
  it("keeps to the window that ended before the exit, and names each sample's package or file", async () => {
    const window = [...Array<'sdk'>(6).fill('sdk'), ...Array<'handler'>(3).fill('handler'), 'idle' as const];
    const summary = await summarizeProfile(await profileFile(window, 40), ROOT, { windowSeconds: 0.01, endedBeforeExitMs: 5, top: 10 });
    expect(summary.sampledMs).toBe(10);
    expect(summary.idleMs).toBe(1);
    expect(summary.byPackage).toEqual([
      { name: '@smithy/core', ms: 6, percent: 60 },
      { name: 'functions/get-invoice.ts', ms: 3, percent: 30 },
      { name: '(V8 and native)', ms: 1, percent: 10 },
    ]);
    expect(summary.byFunction[0]).toEqual({ name: 'send @smithy/core:10', ms: 6, percent: 60 });
    expect(summary.byFunction.map((share) => share.name)).not.toContain('load node:internal/modules/esm/loader:4');
  });

  it('lists only the top entries', async () => {
    const summary = await summarizeProfile(await profileFile(['sdk', 'handler', 'idle'], 0), ROOT, { windowSeconds: 1, endedBeforeExitMs: 0, top: 1 });
    expect(summary.byPackage).toHaveLength(1);
  });
});
