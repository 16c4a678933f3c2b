/**
 * What a cold start pays before the first request: each function bundled as the stack bundles it
 * (one minified ES module, the SDK inside) and imported in a fresh Node process, several times.
 * Prints the bundle size and the import time (median and fastest). Nothing is contacted: the
 * environment points at loopback ports nobody listens on, and loading a function opens no connection.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { ESM_REQUIRE_BANNER } from '../infra/aws/gateway-function.js';
import { handlerEnvironment, localTableNames, LOCAL_STAGE } from '../infra/local/environment.js';
import { functionFile } from '../infra/local/functions.js';
import { localQueueEnvironment } from '../infra/local/sqs.js';
import { functionsForStage } from '../shared/routes.js';

export const DESCRIPTION = 'cold import of each function bundle, as deployed, in a fresh Node process';

/** Prints how long importing the bundle took, in milliseconds. */
const IMPORT_SCRIPT = 'const t = performance.now(); await import(process.argv[1]); console.log(performance.now() - t);';

function importOnce(bundle: string, env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolveRun, rejectRun) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', IMPORT_SCRIPT, bundle], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let errors = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    child.on('error', rejectRun);
    child.on('close', (code) => (code === 0 ? resolveRun(Number(output.trim())) : rejectRun(new Error(`Importing ${bundle} failed: ${errors.trim()}`))));
  });
}

export const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

export async function coldImportsBenchmark(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, strict: true, options: { runs: { type: 'string', default: '7' }, only: { type: 'string' } } });
  const runs = Number(values.runs);
  if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs must be an integer of at least 1');
  const names = functionsForStage(LOCAL_STAGE)
    .map((fn) => fn.name)
    .filter((name) => values.only === undefined || values.only.split(',').includes(name));
  if (names.length === 0) throw new Error(`--only names no function of the ${LOCAL_STAGE} stage`);

  const directory = await mkdtemp(join(tmpdir(), 'gateway-cold-imports-'));
  const loopback = 'http://127.0.0.1:9';
  const env = {
    ...process.env,
    ...handlerEnvironment(
      { publicBaseUrl: loopback, dynamodbEndpoint: loopback, sqsEndpoint: loopback, queueEnvironment: localQueueEnvironment(loopback), dataDir: directory, tables: localTableNames() },
      { invoiceLifetimeSeconds: 900, providerDelaySeconds: 2, retryScale: 1 },
    ),
  };
  try {
    console.log('function                      bundle KiB   median ms   fastest ms');
    for (const name of names) {
      const bundle = join(directory, `${name}.mjs`);
      // As the stack bundles it (infra/aws/gateway-function.ts), for the Node that runs here.
      await build({ entryPoints: [functionFile(name)], outfile: bundle, bundle: true, platform: 'node', format: 'esm', target: `node${process.versions.node.split('.')[0]}`, mainFields: ['module', 'main'], banner: { js: ESM_REQUIRE_BANNER }, minify: true, logLevel: 'error' });
      const times: number[] = [];
      for (let run = 0; run < runs; run++) times.push(await importOnce(bundle, env));
      const kib = (await stat(bundle)).size / 1024;
      console.log(`${name.padEnd(30)}${kib.toFixed(0).padStart(10)}${median(times).toFixed(1).padStart(12)}${Math.min(...times).toFixed(1).padStart(13)}`);
    }
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}
