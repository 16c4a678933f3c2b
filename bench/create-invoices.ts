/**
 * Invoice creation over real HTTP against the local runtime (`npm start` in a temporary data
 * directory): throughput, latency percentiles, statuses, and the DynamoDB items each invoice
 * writes. Load is spread over several merchants' keys and paced under the per-key throttle, so
 * the figures measure the gateway, not the 429s.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ScanCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { runMerchantCli } from '../infra/cli/merchant-cli.js';
import { localDynamoClient } from '../infra/local/dynamodb.js';
import { localCredentials } from '../infra/local/environment.js';
import { readRunningStack, type RuntimeInfo } from '../infra/local/runtime-info.js';
import { PER_KEY_THROTTLE } from '../shared/platform.js';
import { startGatewayProcess, type GatewayProcess } from '../test/support/gateway-process.js';

export const DESCRIPTION = 'POST /api/v2/invoices over HTTP: crypto (new and returning customers) and fiat';

/** Tables an invoice creation writes to (no Idempotency-Key is sent, so not the idempotency table). */
const COUNTED_TABLES = ['invoices', 'uniques', 'wallets'] as const;

interface Options {
  count: number;
  concurrency: number;
  keys: number;
  ratePerKey: number;
  warmup: number;
}

function parseOptions(args: string[]): Options {
  const { values } = parseArgs({
    args,
    strict: true,
    options: {
      count: { type: 'string', default: '500' },
      concurrency: { type: 'string', default: '10' },
      keys: { type: 'string', default: '4' },
      'rate-per-key': { type: 'string', default: String(PER_KEY_THROTTLE.ratePerSecond * 0.8) },
      warmup: { type: 'string', default: '20' },
    },
  });
  const integer = (name: string, text: string, min: number): number => {
    const value = Number(text);
    if (!Number.isInteger(value) || value < min) throw new Error(`--${name} must be an integer of at least ${min}`);
    return value;
  };
  const ratePerKey = Number(values['rate-per-key']);
  if (!(ratePerKey > 0 && ratePerKey <= PER_KEY_THROTTLE.ratePerSecond)) {
    throw new Error(`--rate-per-key must be above 0 and at most the throttle's ${PER_KEY_THROTTLE.ratePerSecond} requests/s`);
  }
  return {
    count: integer('count', values.count, 1),
    concurrency: integer('concurrency', values.concurrency, 1),
    keys: integer('keys', values.keys, 1),
    ratePerKey,
    warmup: integer('warmup', values.warmup, 0),
  };
}

/** A merchant key and the customers that already have an invoice under it. */
interface Client {
  apiKey: string;
  customers: string[];
}

type Kind = 'crypto-new' | 'crypto-returning' | 'fiat';

/** Of every 10 requests: 4 crypto invoices for a new customer, 3 for a returning one, 3 fiat. */
const MIX: readonly Kind[] = [...Array<Kind>(4).fill('crypto-new'), ...Array<Kind>(3).fill('crypto-returning'), ...Array<Kind>(3).fill('fiat')];
const kindOf = (index: number): Kind => MIX[index % MIX.length]!;

const CRYPTO = [
  { baseCurrency: 'USDT', amount: 25 },
  { baseCurrency: 'ETH', amount: 0.01 },
  { baseCurrency: 'BTC', amount: 0.001 },
  { baseCurrency: 'USDC', amount: 40 },
] as const;

const FIAT = [
  { baseCurrency: 'TRY', amount: 1000 },
  { baseCurrency: 'INR', amount: 1000 },
  { baseCurrency: 'PKR', amount: 2000 },
  { baseCurrency: 'AZN', amount: 100 },
] as const;

/** The body of request `index`, and the customer it makes known when it succeeds. */
function invoiceBody(index: number, client: Client): { body: Record<string, unknown>; kind: Kind; newCustomer?: string } {
  const orderId = `bench-${randomUUID()}`;
  const kind = kindOf(index);
  if (kind === 'fiat') {
    return { kind, body: { orderId, customerId: `fiat-${randomUUID()}`, ...FIAT[index % FIAT.length]!, invoiceStrategy: 'fixed' } };
  }
  const asset = CRYPTO[index % CRYPTO.length]!;
  // A returning customer needs one whose first invoice has already succeeded; until then, a new one.
  if (kind === 'crypto-returning' && client.customers.length > 0) {
    const customerId = client.customers[index % client.customers.length]!;
    return { kind, body: { orderId, customerId, ...asset, invoiceStrategy: 'fixed' } };
  }
  const customerId = `crypto-${randomUUID()}`;
  return { kind: 'crypto-new', body: { orderId, customerId, ...asset, invoiceStrategy: 'fixed' }, newCustomer: customerId };
}

interface Sample {
  status: number | 'network error';
  kind: Kind;
  ms: number;
}

async function createInvoice(baseUrl: string, client: Client, index: number): Promise<Sample> {
  const { body, kind, newCustomer } = invoiceBody(index, client);
  const started = performance.now();
  let status: Sample['status'];
  try {
    const response = await fetch(`${baseUrl}/api/v2/invoices`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': client.apiKey },
      body: JSON.stringify(body),
    });
    await response.arrayBuffer();
    status = response.status;
  } catch {
    status = 'network error';
  }
  const ms = performance.now() - started;
  if (status === 200 && newCustomer) client.customers.push(newCustomer);
  return { status, kind, ms };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Sends `count` requests from `concurrency` workers. Request i goes out no earlier than its slot
 * (i / total rate) and under key i mod keys, so each key sees at most its rate, evenly spaced.
 */
async function runLoad(baseUrl: string, clients: Client[], options: Options, count: number, firstIndex = 0): Promise<{ samples: Sample[]; ms: number }> {
  const intervalMs = 1000 / (options.ratePerKey * clients.length);
  const samples: Sample[] = [];
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    for (let i = next++; i < count; i = next++) {
      const wait = started + i * intervalMs - performance.now();
      if (wait > 0) await sleep(wait);
      samples.push(await createInvoice(baseUrl, clients[i % clients.length]!, firstIndex + i));
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.concurrency, count) }, worker));
  return { samples, ms: performance.now() - started };
}

async function countItems(client: DynamoDBClient, table: string): Promise<number> {
  let count = 0;
  let ExclusiveStartKey: Record<string, never> | undefined;
  do {
    const page = await client.send(new ScanCommand({ TableName: table, Select: 'COUNT', ConsistentRead: true, ExclusiveStartKey }));
    count += page.Count ?? 0;
    ExclusiveStartKey = page.LastEvaluatedKey as Record<string, never> | undefined;
  } while (ExclusiveStartKey);
  return count;
}

async function countAll(client: DynamoDBClient, stack: RuntimeInfo): Promise<Record<(typeof COUNTED_TABLES)[number], number>> {
  const counts = await Promise.all(COUNTED_TABLES.map((key) => countItems(client, stack.tables[key])));
  return Object.fromEntries(COUNTED_TABLES.map((key, i) => [key, counts[i]!])) as Record<(typeof COUNTED_TABLES)[number], number>;
}

/** A merchant made the way an operator makes one: `npm run merchant -- create --json` against the running stack. */
async function createMerchant(dataDir: string, name: string): Promise<string> {
  let out = '';
  let err = '';
  const code = await runMerchantCli(['create', '--name', name, '--json'], {
    env: { ...process.env, GATEWAY_DATA_DIR: dataDir },
    out: (text) => (out += text),
    err: (text) => (err += text),
  });
  if (code !== 0) throw new Error(`npm run merchant -- create failed (${code}): ${err}`);
  return (JSON.parse(out) as { apiKey: string }).apiKey;
}

/** Nearest-rank percentile of sorted values. */
const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;

const fixed = (value: number, digits = 1) => value.toFixed(digits);

function report(options: Options, keys: number, load: { samples: Sample[]; ms: number }, itemsWritten: Record<string, number>): void {
  const { samples, ms } = load;
  const latencies = samples.map((s) => s.ms).sort((a, b) => a - b);
  const statuses = new Map<string, number>();
  for (const sample of samples) statuses.set(String(sample.status), (statuses.get(String(sample.status)) ?? 0) + 1);
  const kinds = new Map<Kind, number>();
  for (const sample of samples) kinds.set(sample.kind, (kinds.get(sample.kind) ?? 0) + 1);
  const created = statuses.get('200') ?? 0;
  const throughput = samples.length / (ms / 1000);
  const paceLimit = options.ratePerKey * keys;

  const rows: Array<[string, string]> = [
    ['Requests', `${samples.length} (${[...kinds].map(([kind, n]) => `${n} ${kind}`).join(', ')})`],
    ['Concurrency', String(options.concurrency)],
    ['Keys', `${keys}, each paced at ${options.ratePerKey} req/s (throttle ${PER_KEY_THROTTLE.ratePerSecond}/s, burst ${PER_KEY_THROTTLE.burst})`],
    ['Total time', `${fixed(ms / 1000, 2)} s`],
    ['Throughput', `${fixed(throughput)} req/s${throughput > paceLimit * 0.95 ? ` (at the pacing limit of ${paceLimit} req/s: add --keys)` : ''}`],
    ['Latency p50', `${fixed(percentile(latencies, 50))} ms`],
    ['Latency p95', `${fixed(percentile(latencies, 95))} ms`],
    ['Latency p99', `${fixed(percentile(latencies, 99))} ms`],
    ['Latency max', `${fixed(latencies.at(-1)!)} ms`],
    [
      'Statuses',
      [...statuses]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([status, n]) => `${status}: ${n}`)
        .join(', '),
    ],
  ];
  for (const table of COUNTED_TABLES) {
    const written = itemsWritten[table]!;
    rows.push([`Items/${table}`, `${written} new, ${created > 0 ? fixed(written / created, 2) : '-'} per created invoice`]);
  }
  const total = COUNTED_TABLES.reduce((sum, table) => sum + itemsWritten[table]!, 0);
  rows.push(['Items in all', `${total} new, ${created > 0 ? fixed(total / created, 2) : '-'} per created invoice`]);
  for (const [label, value] of rows) console.log(`  ${label.padEnd(16)} ${value}`);
}

export async function createInvoicesBenchmark(args: string[]): Promise<void> {
  const options = parseOptions(args);
  const dataDir = await mkdtemp(join(tmpdir(), 'gateway-bench-'));
  let gateway: GatewayProcess | undefined;
  let dynamo: DynamoDBClient | undefined;
  try {
    console.log(`Starting the local runtime in ${dataDir} ...`);
    gateway = await startGatewayProcess({ dataDir, timeoutMs: 120_000 });
    const stack = await readRunningStack(dataDir);
    if (!stack) throw new Error(`The runtime wrote no runtime.json in ${dataDir}`);
    dynamo = localDynamoClient(stack.dynamodbEndpoint, await localCredentials(dataDir));

    const extraKeys = await Promise.all(Array.from({ length: options.keys - 1 }, (_, i) => createMerchant(dataDir, `Bench merchant ${i + 1}`)));
    const clients: Client[] = [gateway.apiKey, ...extraKeys].map((apiKey) => ({ apiKey, customers: [] }));

    if (options.warmup > 0) {
      const warm = await runLoad(gateway.baseUrl, clients, options, options.warmup);
      const failed = warm.samples.filter((s) => s.status !== 200);
      if (failed.length > 0) throw new Error(`Warm-up requests failed: ${failed.map((s) => s.status).join(', ')}`);
    }

    const before = await countAll(dynamo, stack);
    const load = await runLoad(gateway.baseUrl, clients, options, options.count, options.warmup);
    const after = await countAll(dynamo, stack);
    const written = Object.fromEntries(COUNTED_TABLES.map((table) => [table, after[table] - before[table]]));
    report(options, clients.length, load, written);
  } finally {
    dynamo?.destroy();
    if (gateway) {
      const code = await gateway.stop();
      console.log(`Runtime stopped (exit code ${code}).`);
    }
    await rm(dataDir, { recursive: true, force: true });
  }
}
