/**
 * Load against an HTTP server and the figures it gives, shared by the benchmarks that compare the
 * local runtime with the bare `node:http` baseline (`bench/bare-server.ts`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LocalCredentials } from '../infra/local/environment.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

export const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;
export const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;

export interface LoadFigures {
  requests: number;
  rps: number;
  p50: number;
  p95: number;
  p99: number;
  failures: number;
}

/** `concurrency` workers sending `request` for `seconds`. */
export function load(seconds: number, concurrency: number, request: (i: number) => Promise<boolean>): Promise<LoadFigures> {
  const until = performance.now() + seconds * 1000;
  return measure(concurrency, () => performance.now() < until, request);
}

/** `concurrency` workers sending `request` `count` times in all, each `i` once. */
export function loadEach(count: number, concurrency: number, request: (i: number) => Promise<boolean>): Promise<LoadFigures> {
  let sent = 0;
  return measure(concurrency, () => sent++ < count, request);
}

async function measure(concurrency: number, more: () => boolean, request: (i: number) => Promise<boolean>): Promise<LoadFigures> {
  const latencies: number[] = [];
  let failures = 0;
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (more()) {
        const sent = performance.now();
        const ok = await request(next++).catch(() => false);
        latencies.push(performance.now() - sent);
        if (!ok) failures++;
      }
    }),
  );
  return figures(latencies, failures, (performance.now() - started) / 1000);
}

/** Latencies (ms) of `requests` made in `elapsed` seconds, as load figures. */
export function figures(latencies: number[], failures: number, elapsed: number): LoadFigures {
  const sorted = [...latencies].sort((a, b) => a - b);
  return { requests: sorted.length, rps: round(sorted.length / elapsed, 1), p50: round(percentile(sorted, 50)), p95: round(percentile(sorted, 95)), p99: round(percentile(sorted, 99)), failures };
}

export interface BareServerTables {
  dynamodbEndpoint: string;
  credentials: LocalCredentials;
  apiKeys: string;
  invoices: string;
}

/** Starts the bare server (under `nodeArgs`, e.g. `--cpu-prof`); resolves with its URL once it listens. */
export async function startBareServer(tables: BareServerTables, nodeArgs: string[] = []): Promise<{ url: string; process: ChildProcess }> {
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', join(ROOT, 'bench', 'bare-server.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      BARE_DYNAMODB_ENDPOINT: tables.dynamodbEndpoint,
      BARE_API_KEYS_TABLE: tables.apiKeys,
      BARE_INVOICES_TABLE: tables.invoices,
      // The SDK's own variables: the server's client reads them as the functions' clients do.
      AWS_ACCESS_KEY_ID: tables.credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: tables.credentials.secretAccessKey,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<string>((resolvePort, rejectPort) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const found = /listening (\d+)/.exec(output)?.[1];
      if (found) resolvePort(found);
    });
    child.once('exit', (code) => rejectPort(new Error(`The bare server exited with ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}`, process: child };
}
