/**
 * Where the local runtime's time goes: GET /api/v2/invoices/{id} under load on the runtime and on
 * the bare `node:http` baseline, each run under `node --cpu-prof`, then the profiled window of each
 * summarized side by side (CPU per request, self time by package and by function). The profiles
 * stay on disk to open in Chrome DevTools.
 */
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startDynamoDbLocal } from '../infra/local/dynamodb.js';
import { localCredentials, localTableNames, LOCAL_REGION, LOCAL_STAGE } from '../infra/local/environment.js';
import { startLocalSqs } from '../infra/local/sqs.js';
import { summarizeProfile, type ProfileSummary, type TimeShare } from './cpu-profile.js';
import { startGatewayProcess } from '../test/support/gateway-process.js';
import { load, round, startBareServer, type LoadFigures } from './load.js';
import { positiveOption } from './options.js';

export const DESCRIPTION = 'CPU profiles of the local runtime and of the bare node:http baseline serving GET /api/v2/invoices/{id} under load';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
/** Keys to spread the load over, so the per-key throttle (50 a second) never answers 429. */
const KEYS = 40;
const WARM_UP_REQUESTS = 200;

interface Options {
  concurrency: number;
  seconds: number;
  top: number;
}

function parseOptions(args: string[]): Options {
  const { values } = parseArgs({
    args,
    strict: true,
    options: { concurrency: { type: 'string', default: '10' }, seconds: { type: 'string', default: '10' }, top: { type: 'string', default: '12' } },
  });
  return {
    concurrency: positiveOption('concurrency', values.concurrency, true),
    seconds: positiveOption('seconds', values.seconds),
    top: positiveOption('top', values.top, true),
  };
}

/** SIGTERM, resolving once the process has exited: V8 writes the profile on exit. */
async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolveExit) => child.once('exit', resolveExit));
  child.kill('SIGTERM');
  await exited;
}

/** The main thread's profile: the largest file V8 wrote to `directory`. */
async function mainThreadProfile(directory: string): Promise<string> {
  const files = await Promise.all((await readdir(directory)).map(async (name) => ({ path: join(directory, name), size: (await stat(join(directory, name))).size })));
  const largest = files.sort((a, b) => b.size - a.size)[0];
  if (!largest) throw new Error(`No CPU profile was written to ${directory}`);
  return largest.path;
}

function printSideBySide(title: string, left: TimeShare[], right: TimeShare[]): void {
  console.log(`  ${title.padEnd(58)} | bare server`);
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    const cell = (share?: TimeShare) => (share ? `${String(share.ms).padStart(6)} ms ${String(share.percent).padStart(5)}%  ${share.name}` : '');
    console.log(`  ${cell(left[i]).slice(0, 58).padEnd(58)} | ${cell(right[i])}`);
  }
}

export async function runtimeProfileBenchmark(args: string[]): Promise<void> {
  const options = parseOptions(args);
  const workDir = await mkdtemp(join(tmpdir(), 'gateway-profile-'));
  const profilesDir = join(workDir, 'profiles');
  const stops: Array<() => Promise<unknown>> = [];
  try {
    // The store with the runtime's credentials (those of its data directory).
    const runtimeDataDir = join(workDir, 'runtime');
    const credentials = await localCredentials(runtimeDataDir);
    const dynamo = await startDynamoDbLocal({ dataDir: join(workDir, 'dynamodb'), credentials });
    stops.push(() => dynamo.stop());
    const sqs = await startLocalSqs();
    stops.push(() => sqs.stop());
    const runtime = await startGatewayProcess({
      dataDir: runtimeDataDir,
      env: { AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint, AWS_ENDPOINT_URL_SQS: sqs.endpoint },
      nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${join(profilesDir, 'runtime')}`],
      timeoutMs: 120_000,
    });
    stops.push(() => runtime.stop());

    // The keys, on the tables the runtime made, and one invoice to read.
    Object.assign(process.env, {
      AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
      AWS_REGION: LOCAL_REGION,
      AWS_ACCESS_KEY_ID: credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    });
    const { documentClient } = await import('../shared/store/dynamo.js');
    const { DynamoMerchantStore } = await import('../shared/store/merchants.js');
    const { digestApiKey, newApiKey } = await import('../shared/domain/merchants/merchants.js');
    const tables = localTableNames();
    const merchants = new DynamoMerchantStore(documentClient, tables);
    const demoKey = await merchants.findKeyByDigest(digestApiKey(runtime.apiKey));
    if (!demoKey) throw new Error('The demo API key is not in the keys table');
    const keys = await Promise.all(
      Array.from({ length: KEYS }, async () => {
        const { text, record } = newApiKey(demoKey.merchantId, LOCAL_STAGE, new Date());
        await merchants.addKey(record);
        return text;
      }),
    );
    const created = await fetch(`${runtime.baseUrl}/api/v2/invoices`, {
      method: 'POST',
      headers: { 'x-api-key': runtime.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ orderId: randomUUID(), customerId: 'profiled', baseCurrency: 'USDT', invoiceStrategy: 'fixed', amount: 25 }),
    });
    if (created.status !== 200) throw new Error(`Creating the invoice answered ${created.status}: ${await created.text()}`);
    const invoiceId = ((await created.json()) as { data: { id: string } }).data.id;
    const getFrom = (baseUrl: string) => async (i: number) => {
      const response = await fetch(`${baseUrl}/api/v2/invoices/${invoiceId}`, { headers: { 'x-api-key': keys[i % keys.length]! } });
      await response.arrayBuffer();
      return response.status === 200;
    };

    /** Warm-up, the profiled load, then the process's exit: what the profile's window is. */
    const profiled = async (name: 'runtime' | 'bare', baseUrl: string, stopServer: () => Promise<unknown>): Promise<{ figures: LoadFigures; summary: ProfileSummary }> => {
      console.log(`Loading the ${name === 'bare' ? 'bare server' : name} at concurrency ${options.concurrency} for ${options.seconds} s ...`);
      for (let i = 0; i < WARM_UP_REQUESTS; i++) await getFrom(baseUrl)(i);
      const figures = await load(options.seconds, options.concurrency, getFrom(baseUrl));
      const loadEnded = performance.now();
      await stopServer();
      // The profile ends at the exit; the load ended this long before it.
      const endedBeforeExitMs = performance.now() - loadEnded;
      const file = await mainThreadProfile(join(profilesDir, name));
      const summary = await summarizeProfile(file, ROOT, { windowSeconds: options.seconds, endedBeforeExitMs, top: options.top });
      return { figures, summary };
    };
    const onRuntime = await profiled('runtime', runtime.baseUrl, runtime.stop);
    const bare = await startBareServer({ dynamodbEndpoint: dynamo.endpoint, credentials, apiKeys: tables.apiKeys, invoices: tables.invoices }, [
      '--cpu-prof',
      `--cpu-prof-dir=${join(profilesDir, 'bare')}`,
    ]);
    stops.push(() => stop(bare.process));
    const onBare = await profiled('bare', bare.url, () => stop(bare.process));

    const cpuPerRequest = ({ figures, summary }: { figures: LoadFigures; summary: ProfileSummary }) => round((summary.sampledMs - summary.idleMs) / Math.max(1, figures.requests));
    console.log('');
    console.log(`GET /api/v2/invoices/{id} at concurrency ${options.concurrency}, ${options.seconds} s each, both under --cpu-prof:`);
    console.log(`  runtime ${onRuntime.figures.rps} req/s vs bare ${onBare.figures.rps} req/s = ${round(onRuntime.figures.rps / onBare.figures.rps)}x`);
    console.log(
      `  CPU per request (sampled minus idle): runtime ${cpuPerRequest(onRuntime)} ms, bare ${cpuPerRequest(onBare)} ms; idle ${onRuntime.summary.idleMs} of ${onRuntime.summary.sampledMs} ms vs ${onBare.summary.idleMs} of ${onBare.summary.sampledMs} ms`,
    );
    console.log('');
    printSideBySide('Self time by package or file: runtime', onRuntime.summary.byPackage, onBare.summary.byPackage);
    console.log('');
    printSideBySide('Self time by function: runtime', onRuntime.summary.byFunction, onBare.summary.byFunction);
    console.log('');
    console.log(`Profiles (open in Chrome DevTools, Performance): ${profilesDir}`);
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    await rm(join(workDir, 'dynamodb'), { recursive: true, force: true });
    await rm(join(workDir, 'runtime'), { recursive: true, force: true });
  }
}
