/**
 * What a cold start pays before the first request: each function bundled as the stack bundles it
 * (FUNCTION_BUNDLING: one minified ES module, the SDK inside) and imported in a fresh Node process,
 * several times, beside a reference bundle that holds only the DynamoDB document client, the
 * least a function of this gateway loads. Prints the bundle size and the import time (median and
 * fastest), each also as a multiple of the reference's; the reference is imported alternately with
 * each function, so that both see the same machine (a busy machine slows both alike). The environment is a Lambda's as far as
 * loading goes (tracing and metrics on, as in AWS) and points at loopback ports nobody listens on:
 * loading a function opens no connection.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build, type BuildOptions } from 'esbuild';
import { FUNCTION_BUNDLING } from '../infra/aws/gateway-function.js';
import { DEFAULT_FUNCTION_SETTINGS, handlerEnvironment, localTableNames, LOCAL_STAGE, randomLocalCredentials } from '../infra/local/environment.js';
import { functionFile } from '../infra/local/functions.js';
import { localQueueEnvironment } from '../infra/local/sqs.js';
import { functionsForStage } from '../shared/routes.js';

export const DESCRIPTION = 'cold import of each function bundle, as deployed, in a fresh Node process, beside a DynamoDB-client-only bundle';

const PROJECT_ROOT = fileURLToPath(new URL('../', import.meta.url));

/** The floor: a function that does nothing but hold the DynamoDB document client. */
const REFERENCE_NAME = '(dynamodb document client only)';
const REFERENCE_SOURCE = `
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));
export const handler = async (event) => client.send(new GetCommand({ TableName: event.table, Key: { id: event.id } }));
`;

/** What every bundle is measured against. */
const GOAL_RATIO = 1.5;

/** Prints how long importing the bundle took, in milliseconds. */
const IMPORT_SCRIPT = 'const t = performance.now(); await import(process.argv[1]); console.log(performance.now() - t);';

/** The stack's options, for the Node that runs here rather than Lambda's. */
const BUNDLE_OPTIONS: BuildOptions = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: `node${process.versions.node.split('.')[0]}`,
  mainFields: [...FUNCTION_BUNDLING.mainFields],
  banner: { js: FUNCTION_BUNDLING.banner },
  minify: FUNCTION_BUNDLING.minify,
  logLevel: 'error',
};

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

interface Measured {
  kib: number;
  medianMs: number;
  fastestMs: number;
}

const summary = async (bundle: string, times: number[]): Promise<Measured> => ({
  kib: (await stat(bundle)).size / 1024,
  medianMs: median(times),
  fastestMs: Math.min(...times),
});

/** The bundle's import times and the reference's, taken turn about; the reference's are also added to `allReferenceTimes`. */
async function measureBeside(bundle: string, reference: string, runs: number, env: NodeJS.ProcessEnv, allReferenceTimes: number[]): Promise<{ measured: Measured; beside: Measured }> {
  const times: number[] = [];
  const referenceTimes: number[] = [];
  for (let run = 0; run < runs; run++) {
    referenceTimes.push(await importOnce(reference, env));
    times.push(await importOnce(bundle, env));
  }
  allReferenceTimes.push(...referenceTimes);
  return { measured: await summary(bundle, times), beside: await summary(reference, referenceTimes) };
}

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
  // Loading as in Lambda: the X-Ray SDK in automatic mode, the tracer patching HTTP and wrapping the clients, metrics on.
  const { AWS_XRAY_MANUAL_MODE: _manualMode, ...localEnvironment } = handlerEnvironment(
    {
      publicBaseUrl: loopback,
      dynamodbEndpoint: loopback,
      dynamodbCredentials: randomLocalCredentials(),
      sqsEndpoint: loopback,
      queueEnvironment: localQueueEnvironment(loopback),
      dataDir: directory,
      tables: localTableNames(),
    },
    DEFAULT_FUNCTION_SETTINGS,
  );
  const env = {
    ...process.env,
    ...localEnvironment,
    AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
    POWERTOOLS_TRACE_ENABLED: 'true',
    POWERTOOLS_METRICS_DISABLED: 'false',
  };
  const row = (name: string, { kib, medianMs, fastestMs }: Measured, reference: Measured) =>
    `${name.padEnd(34)}${kib.toFixed(0).padStart(8)}${`${(kib / reference.kib).toFixed(2)}x`.padStart(8)}` +
    `${medianMs.toFixed(1).padStart(11)}${`${(medianMs / reference.medianMs).toFixed(2)}x`.padStart(8)}${fastestMs.toFixed(1).padStart(12)}`;
  try {
    const referenceBundle = join(directory, 'reference.mjs');
    await build({ ...BUNDLE_OPTIONS, stdin: { contents: REFERENCE_SOURCE, resolveDir: PROJECT_ROOT, loader: 'js' }, outfile: referenceBundle });
    console.log('function                          bundle KiB    size  median ms  import  fastest ms   (size and import: x the reference beside it)');
    const referenceTimes: number[] = [];
    const overGoal: string[] = [];
    for (const name of names) {
      const bundle = join(directory, `${name}.mjs`);
      await build({ ...BUNDLE_OPTIONS, entryPoints: [functionFile(name)], outfile: bundle });
      const { measured, beside } = await measureBeside(bundle, referenceBundle, runs, env, referenceTimes);
      console.log(row(name, measured, beside));
      if (measured.kib > GOAL_RATIO * beside.kib || measured.medianMs > GOAL_RATIO * beside.medianMs) overGoal.push(name);
    }
    const reference = await summary(referenceBundle, referenceTimes);
    console.log(row(REFERENCE_NAME, reference, reference));
    console.log(`Goal: at most ${GOAL_RATIO}x the reference in size and import time; over it: ${overGoal.length === 0 ? 'none' : overGoal.join(', ')}`);
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}
