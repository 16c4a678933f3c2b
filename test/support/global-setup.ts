/**
 * One DynamoDB Local and one local SQS (every queue of the local stage) for the whole test run,
 * with the tables made by the same code as the local runtime's. Test files get the functions'
 * environment through `provide`; the setup file `handler-env.ts` copies it into each worker's
 * process.env before any test imports a handler module (which reads its configuration at load).
 *
 * Each vitest project that names this file (vitest.config.ts: integration and e2e) runs it; the
 * first starts the services and the others share them, and the last teardown stops them. A run of
 * the unit tier alone starts nothing.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { ensureTables, localDynamoClient, startDynamoDbLocal } from '../../infra/local/dynamodb.js';
import { handlerEnvironment, localTableNames, randomLocalCredentials, type FunctionSettings } from '../../infra/local/environment.js';
import { startLocalDemoProvider } from '../../infra/local/demo-provider-process.js';
import { startLocalSqs } from '../../infra/local/sqs.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The variables a function of the local stack sees, pointed at the test stores. */
    gatewayEnv: Record<string, string>;
  }
}

/** The origin invoice links carry in tests (PUBLIC_BASE_URL); nothing listens there. */
const TEST_PUBLIC_BASE_URL = 'http://localhost:3999';

/** docs/operations.md#local-configuration's knobs, turned down so that retries and a callback secret's rotation do not slow tests. */
const TEST_FUNCTION_SETTINGS: FunctionSettings = { invoiceLifetimeSeconds: 900, retryScale: 0.001, secretOverlapSeconds: 2 };

/** How long the run's demo provider takes to decide a UTR. */
const TEST_PROVIDER_DELAY_SECONDS = 0.2;

interface RunServices {
  /** The functions' environment, pointed at the services. */
  gatewayEnv: Record<string, string>;
  stop(): Promise<void>;
}

/** The run's services and how many projects use them; on globalThis, which every project's setup shares (each loads this module anew). */
const SHARED = Symbol.for('payment-gateway.test-services');
type Shared = { services: Promise<RunServices>; users: number };

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const scope = globalThis as { [SHARED]?: Shared };
  const shared = (scope[SHARED] ??= { services: startServices(), users: 0 });
  shared.users++;
  const services = await shared.services;
  project.provide('gatewayEnv', services.gatewayEnv);
  return async () => {
    if (--shared.users > 0) return;
    delete scope[SHARED];
    await services.stop();
  };
}

async function startServices(): Promise<RunServices> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const dataDir = await mkdtemp(join(tmpdir(), 'gateway-test-'));
  // An access key id of the run's own: no one else reaching the store's port sees its tables.
  const credentials = randomLocalCredentials();
  // The store in memory: nothing reads it after the run, and DynamoDB Local spends less there (2,000
  // writes and 2,000 reads took it 2.6 CPU-s in memory, 3.6 in files). The run's files and the e2e
  // runtimes send it far more requests than a person would: a heavy load (about 90 CPU-s of Java).
  const [dynamo, sqs] = await Promise.allSettled([startDynamoDbLocal({ credentials, load: 'heavy' }), startLocalSqs()]);
  let demoProvider: Awaited<ReturnType<typeof startLocalDemoProvider>> | undefined;
  const teardown = async () => {
    await demoProvider?.process.stop();
    if (sqs.status === 'fulfilled') await sqs.value.stop();
    if (dynamo.status === 'fulfilled') await dynamo.value.stop();
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    if (dynamo.status === 'rejected') throw dynamo.reason;
    if (sqs.status === 'rejected') throw sqs.reason;
    const tables = localTableNames();
    const client = localDynamoClient(dynamo.value.endpoint, credentials);
    try {
      await ensureTables(client, tables);
    } finally {
      client.destroy();
    }
    // The run's payment provider, the demo provider's own process as `npm start` runs it; its events go to TEST_PUBLIC_BASE_URL, where nothing listens.
    demoProvider = await startLocalDemoProvider({ dataDir, dynamodbEndpoint: dynamo.value.endpoint, delaySeconds: TEST_PROVIDER_DELAY_SECONDS, limits: {} });
    const services = {
      publicBaseUrl: TEST_PUBLIC_BASE_URL,
      dynamodbEndpoint: dynamo.value.endpoint,
      dynamodbCredentials: credentials,
      sqsEndpoint: sqs.value.endpoint,
      queueEnvironment: sqs.value.queueEnvironment,
      // The vault's key file and the receipts, under the run's temporary directory.
      dataDir,
      tables,
      providers: demoProvider.providers,
    };
    // The reconciliation asks the providers at once, rather than after 10 minutes (settleProviderDecisions).
    return { gatewayEnv: { ...handlerEnvironment(services, TEST_FUNCTION_SETTINGS), GATEWAY_RECONCILE_AFTER_S: '0.001' }, stop: teardown };
  } catch (error) {
    await teardown();
    throw error;
  }
}
