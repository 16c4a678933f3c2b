/** The merchant admin CLI against the test run's stores, as it finds them beside a running runtime. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { localCredentials } from '../../infra/local/environment.js';
import { type RuntimeInfo, writeRuntimeInfo } from '../../infra/local/runtime-info.js';
import { runMerchantCli } from '../../infra/cli/merchant-cli.js';
import { config } from '../../shared/config.js';

export interface CliResult {
  code: number;
  out: string;
  err: string;
}

export interface TestCli {
  /** The data directory holding the stack description the CLI reads. */
  dataDir: string;
  run(args: string[], env?: NodeJS.ProcessEnv): Promise<CliResult>;
  remove(): Promise<void>;
}

/** A data directory with a stack description pointing at the test run's stores, and at the nodes of `chains`. */
export async function testMerchantCli(chains: RuntimeInfo['chains'] = {}): Promise<TestCli> {
  const dataDir = await mkdtemp(join(tmpdir(), 'gateway-cli-'));
  // The CLI reaches the store with the data directory's access key id: the test run's.
  await localCredentials(dataDir, process.env.AWS_ACCESS_KEY_ID);
  await writeRuntimeInfo(dataDir, {
    stage: 'demo',
    baseUrl: 'http://localhost:3999',
    region: 'us-east-1',
    dynamodbEndpoint: process.env.AWS_ENDPOINT_URL_DYNAMODB!,
    sqsEndpoint: process.env.AWS_ENDPOINT_URL_SQS!,
    // The tables the functions of this test file see: a file may have tables of its own.
    tables: { ...config().tables },
    chains,
    vaultKeyFile: process.env.GATEWAY_KEY_FILE!,
    pid: process.pid,
  });
  return {
    dataDir,
    async run(args, env = { GATEWAY_DATA_DIR: dataDir }) {
      let out = '';
      let err = '';
      const code = await runMerchantCli(args, { env, out: (text) => (out += text), err: (text) => (err += text) });
      return { code, out, err };
    },
    remove: () => rm(dataDir, { recursive: true, force: true }),
  };
}

/** The CLI for the tests of the file that calls this: its data directory made before them and removed after. */
export function merchantCliForTheseTests(): (args: string[], env?: NodeJS.ProcessEnv) => Promise<CliResult> {
  let testCli: TestCli;
  beforeAll(async () => {
    testCli = await testMerchantCli();
  });
  afterAll(async () => {
    await testCli.remove();
  });
  return (args, env) => testCli.run(args, env);
}
