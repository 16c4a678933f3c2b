/**
 * What a benchmark runs the functions on, in its own process: DynamoDB Local in memory with the
 * gateway's tables, the local SQS, and on request the demo provider as its own process (deciding
 * nothing by itself: the benchmark decides). The functions' environment is set for them; they read
 * it when first loaded, so a benchmark imports them after this.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalDemoProvider } from '../infra/local/demo-provider-process.js';
import { ensureTable, localDynamoClient, startDynamoDbLocal } from '../infra/local/dynamodb.js';
import { DEFAULT_FUNCTION_SETTINGS, handlerEnvironment, localTableNames, randomLocalCredentials, type LocalCredentials } from '../infra/local/environment.js';
import { startLocalSqs } from '../infra/local/sqs.js';
import { TABLE_KEYS, TABLES, type TableDefinition, type TableKey } from '../shared/store/tables.js';

export interface BenchStores {
  dataDir: string;
  credentials: LocalCredentials;
  dynamodbEndpoint: string;
  tables: Record<TableKey, string>;
  /** Stops what was started, last first, and removes the data directory. */
  stop(): Promise<void>;
}

/**
 * `name` names the temporary data directory; `demoProvider` starts the demo provider, its decisions
 * an hour away; `tables` gives tables other definitions (fewer indexes: what a bench reads and no
 * more, which loads many items faster).
 */
export async function startBenchStores(name: string, options: { demoProvider?: boolean; tables?: Partial<Record<TableKey, TableDefinition>> } = {}): Promise<BenchStores> {
  const dataDir = await mkdtemp(join(tmpdir(), `gateway-${name}-`));
  const credentials = randomLocalCredentials();
  const stops: Array<() => Promise<unknown>> = [];
  const stop = async () => {
    await Promise.allSettled(stops.reverse().map((each) => each()));
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    const [dynamo, sqs] = await Promise.all([startDynamoDbLocal({ credentials }), startLocalSqs()]);
    stops.push(
      () => dynamo.stop(),
      () => sqs.stop(),
    );
    const demo = options.demoProvider ? await startLocalDemoProvider({ dataDir, dynamodbEndpoint: dynamo.endpoint, delaySeconds: 3600, limits: {} }) : undefined;
    if (demo) stops.push(() => demo.process.stop());
    const tables = localTableNames();
    const admin = localDynamoClient(dynamo.endpoint, credentials);
    for (const key of TABLE_KEYS) await ensureTable(admin, tables[key], options.tables?.[key] ?? TABLES[key]);
    admin.destroy();
    Object.assign(
      process.env,
      handlerEnvironment(
        {
          publicBaseUrl: 'http://localhost:3000',
          dynamodbEndpoint: dynamo.endpoint,
          dynamodbCredentials: credentials,
          sqsEndpoint: sqs.endpoint,
          queueEnvironment: sqs.queueEnvironment,
          dataDir,
          tables,
          ...(demo ? { providers: demo.providers } : {}),
        },
        DEFAULT_FUNCTION_SETTINGS,
      ),
    );
    return { dataDir, credentials, dynamodbEndpoint: dynamo.endpoint, tables, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
