/**
 * `npm run fuzz -- --runs N [--seed S --path P --route NAME --batch B]`: the route fuzzing of the
 * test suite, run by vitest with its global setup (DynamoDB Local, the local SQS), N generated
 * requests per route instead of the suite's 1,000; or one failure replayed from its seed and path.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    runs: { type: 'string' },
    seed: { type: 'string' },
    path: { type: 'string' },
    route: { type: 'string' },
    batch: { type: 'string' },
  },
});

const settings: Record<string, string | undefined> = {
  FUZZ_RUNS: values.runs,
  FUZZ_SEED: values.seed,
  FUZZ_PATH: values.path,
  FUZZ_ROUTE: values.route,
  FUZZ_BATCH: values.batch,
};
for (const [name, value] of Object.entries(settings)) {
  if (value !== undefined && name !== 'FUZZ_PATH' && name !== 'FUZZ_ROUTE' && !/^-?\d+$/.test(value)) {
    console.error(`--${name.slice(5).toLowerCase()} must be an integer`);
    process.exit(2);
  }
}

const root = fileURLToPath(new URL('../../../', import.meta.url));
const vitest = fileURLToPath(new URL('../../../node_modules/vitest/vitest.mjs', import.meta.url));
const env = { ...process.env, ...Object.fromEntries(Object.entries(settings).filter(([, value]) => value !== undefined)) };
// Unlike `npm test`, which keeps what tests log in a file, a fuzzing run prints each route's counts as it goes.
const reporting = ['--reporter=default', '--silent=false'];
const result = spawnSync(process.execPath, [vitest, 'run', ...reporting, 'test/integration/route-fuzz.test.ts'], { cwd: root, env, stdio: 'inherit' });
process.exit(result.status ?? 1);
