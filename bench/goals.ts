/**
 * The gateway against its goals, side by side in one run, each figure as a ratio to its floor or
 * baseline, written to bench/results.json as well:
 * - DynamoDB capacity units per operation (DynamoDB Local's ReturnConsumedCapacity on every call
 *   the route's function makes) against the floor: each item the operation must touch, touched
 *   once (a consistent read, a write; twice the write where the items must change together);
 * - throughput and p50/p95/p99 of the local runtime at concurrency 1, 10 and 50 against a bare
 *   `node:http` server making the same DynamoDB calls on the same DynamoDB Local;
 * - callback latency from a simulated deposit to the merchant's receiver;
 * - the expiry sweep's items read against the invoices due, with ten times more open invoices
 *   not due;
 * - create latency and capacity with 1,000 and with 20,000 invoices in the table.
 * Goals: capacity <= 1.25x floor, throughput >= 0.6x baseline, callback p95 <= 300 ms (no batching
 * window holds a merchant's callback: shared/queue/queues.ts), sweep reads
 * <= 1.1x due, no growth with table size. Nothing is asserted: the figures are printed.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, GetCommand, PutCommand, ScanCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ApiGateway } from '../infra/local/api-gateway.js';
import { demoProviderConfig, demoProviderSecret } from '../infra/local/demo-provider-process.js';
import { CapacityMeter, eventuallyConsistentRcu, itemSize } from './capacity-meter.js';
import { load, percentile, round, startBareServer, type LoadFigures } from './load.js';
import { positiveOption } from './options.js';
import { ensureTables, startDynamoDbLocal } from '../infra/local/dynamodb.js';
import { DEFAULT_FUNCTION_SETTINGS, handlerEnvironment, localCredentials, LOCAL_STAGE, localTableNames } from '../infra/local/environment.js';
import { invoker, loadHandler, type LambdaHandler } from '../infra/local/functions.js';
import { startLocalSqs } from '../infra/local/sqs.js';
import { TokenBucketThrottle } from '../infra/local/throttle.js';
import { functionsForStage, type AuthorizerFunction, type HttpRoute } from '../shared/routes.js';
import type { TableKey } from '../shared/store/tables.js';
import { startCallbackReceiver, type CallbackReceiver } from '../test/support/callback-receiver.js';
import { startGatewayProcess, type GatewayProcess } from '../test/support/gateway-process.js';

export const DESCRIPTION = 'capacity per operation vs its floor, runtime vs a bare node:http server, callback p95, expiry sweep reads vs due, create at 1k vs 20k invoices (bench/results.json)';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const RESULTS_FILE = join(ROOT, 'bench', 'results.json');
const GOALS = { capacity: 1.25, throughput: 0.6, callbackP95Ms: 300, sweepReads: 1.1, tableGrowth: 1.25 } as const;

interface Options {
  seconds: number;
  deposits: number;
  due: number;
  samples: number;
}

function parseOptions(args: string[]): Options {
  const { values } = parseArgs({
    args,
    strict: true,
    options: {
      seconds: { type: 'string', default: '4' },
      deposits: { type: 'string', default: '60' },
      due: { type: 'string', default: '100' },
      samples: { type: 'string', default: '100' },
    },
  });
  return {
    seconds: positiveOption('seconds', values.seconds),
    deposits: positiveOption('deposits', values.deposits, true),
    due: positiveOption('due', values.due, true),
    samples: positiveOption('samples', values.samples, true),
  };
}

const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
const median = (values: number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A touch the operation cannot do without: a consistent read of an item, or a write of it (atomic:
 * within a transaction), or a page of items read together (eventually consistent, sizes summed).
 */
type Touch = { table: TableKey; id: string; as: 'read' | 'write' | 'atomicWrite' } | { table: TableKey; ids: string[]; as: 'page' };

/**
 * What the touches cost, as DynamoDB Local bills them, at the sizes the items had when the
 * operation ended: every item is read at once (before the callback's delivery grows the outbox
 * entry), and a write is priced by putting that copy into `pricingTable`, which has no indexes, so
 * nothing of the operation's tables is written over.
 */
async function floorOf(documents: DynamoDBDocumentClient, tables: Record<TableKey, string>, pricingTable: string, touches: Touch[]): Promise<{ floor: number; parts: string }> {
  const read = (table: TableKey, id: string, ConsistentRead: boolean) => documents.send(new GetCommand({ TableName: tables[table], Key: { id }, ConsistentRead, ReturnConsumedCapacity: 'TOTAL' }));
  const snapshots = await Promise.all(touches.map(async (touch) => (touch.as === 'page' ? Promise.all(touch.ids.map((id) => read(touch.table, id, false))) : [await read(touch.table, touch.id, true)])));
  let floor = 0;
  const parts: string[] = [];
  for (const [i, touch] of touches.entries()) {
    const items = snapshots[i]!.map(({ Item }) => Item);
    if (items.some((item) => item === undefined)) throw new Error(`A ${touch.table} item the operation touched is missing`);
    let units: number;
    if (touch.as === 'page') {
      units = eventuallyConsistentRcu(items.reduce((total, item) => total + itemSize(item!), 0));
      parts.push(`${touch.ids.length} ${touch.table} on a page ${units}`);
    } else if (touch.as === 'read') {
      units = snapshots[i]![0]!.ConsumedCapacity?.CapacityUnits ?? 0;
      parts.push(`${touch.table} read ${units}`);
    } else {
      const { ConsumedCapacity } = await documents.send(new PutCommand({ TableName: pricingTable, Item: items[0]!, ReturnConsumedCapacity: 'TOTAL' }));
      units = (ConsumedCapacity?.CapacityUnits ?? 0) * (touch.as === 'atomicWrite' ? 2 : 1);
      parts.push(`${touch.table} ${touch.as} ${units}`);
    }
    floor += units;
  }
  return { floor, parts: parts.join(', ') };
}

function print(rows: Array<[string, string]>): void {
  for (const [label, value] of rows) console.log(`  ${label.padEnd(34)} ${value}`);
}

const verdict = (met: boolean) => (met ? 'goal met' : 'GOAL MISSED');

export async function goalsBenchmark(args: string[]): Promise<void> {
  const options = parseOptions(args);
  const dataDir = await mkdtemp(join(tmpdir(), 'gateway-goals-'));
  const stops: Array<() => Promise<unknown> | unknown> = [];
  try {
    // One DynamoDB Local and one queue server for the runtime, the functions run here and the baseline,
    // with the runtime's credentials (those of its data directory).
    const credentials = await localCredentials(dataDir);
    const dynamo = await startDynamoDbLocal({ dataDir: join(dataDir, 'dynamodb'), credentials });
    stops.push(() => dynamo.stop());
    const sqs = await startLocalSqs();
    stops.push(() => sqs.stop());
    const receiver: CallbackReceiver = await startCallbackReceiver();
    stops.push(() => receiver.close());
    console.log(`Starting the local runtime in ${dataDir} ...`);
    const runtime: GatewayProcess = await startGatewayProcess({
      dataDir,
      timeoutMs: 120_000,
      // The sweep is run here, by hand, on invoices made due on purpose.
      env: { AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint, AWS_ENDPOINT_URL_SQS: sqs.endpoint, GATEWAY_EXPIRY_SWEEP_S: '86400' },
    });
    stops.push(() => runtime.stop());

    // The functions in this process, on the runtime's stores, vault key and demo provider.
    const tables = localTableNames();
    if (!runtime.demoProviderUrl) throw new Error('The runtime started no demo provider: unset GATEWAY_PROVIDERS');
    const providers = demoProviderConfig(runtime.demoProviderUrl, await demoProviderSecret(dataDir));
    Object.assign(
      process.env,
      handlerEnvironment(
        {
          publicBaseUrl: runtime.baseUrl,
          dynamodbEndpoint: dynamo.endpoint,
          dynamodbCredentials: credentials,
          sqsEndpoint: sqs.endpoint,
          queueEnvironment: sqs.queueEnvironment,
          dataDir,
          tables,
          providers,
        },
        DEFAULT_FUNCTION_SETTINGS,
      ),
    );
    const { dynamoClient, documentClient } = await import('../shared/store/dynamo.js');
    await ensureTables(dynamoClient, tables);
    const pricingTable = 'bench-pricing';
    await dynamoClient.send(
      new CreateTableCommand({
        TableName: pricingTable,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      }),
    );
    const meter = new CapacityMeter();
    meter.instrument(dynamoClient);
    const { seedMerchant } = await import('../test/support/merchants.js');
    const { newApiKey } = await import('../shared/domain/merchants/merchants.js');
    const { DynamoMerchantStore } = await import('../shared/store/merchants.js');
    const merchant = await seedMerchant({ callbackUrl: receiver.url });

    const functions = functionsForStage(LOCAL_STAGE);
    const handlers = new Map<string, Promise<LambdaHandler | undefined>>();
    const run = invoker((name) => handlers.get(name) ?? handlers.set(name, loadHandler(name)).get(name)!);
    const gateway = new ApiGateway({
      stage: LOCAL_STAGE,
      routes: functions.filter((fn): fn is HttpRoute => fn.kind === 'http'),
      authorizer: functions.find((fn): fn is AuthorizerFunction => fn.kind === 'authorizer')!,
      invoke: (fn, event) => (fn.kind === 'authorizer' ? meter.outside(() => run(fn, event)) : run(fn, event)),
      throttle: new TokenBucketThrottle({ ratePerSecond: 1_000_000, burst: 1_000_000 }),
      log: { info: () => undefined, warn: console.warn, error: console.error },
    });
    const call = async (method: string, target: string, body?: unknown): Promise<any> => {
      const answer = await gateway.handle({
        method,
        target,
        headers: [['x-api-key', merchant.apiKey], ...(body === undefined ? [] : [['content-type', 'application/json'] as [string, string]])],
        body: Buffer.from(body === undefined ? '' : JSON.stringify(body)),
        sourceIp: '127.0.0.1',
      });
      const parsed = JSON.parse(answer.body.toString('utf8'));
      if (answer.statusCode !== 200) throw new Error(`${method} ${target}: ${answer.statusCode} ${answer.body.toString('utf8')}`);
      return parsed.data;
    };
    const createCrypto = (customerId: string) => call('POST', '/api/v2/invoices', { orderId: randomUUID(), customerId, baseCurrency: 'USDT', invoiceStrategy: 'fixed', amount: 25 });
    const m = merchant.merchant.id;

    // --- Capacity per operation.
    console.log('Metering DynamoDB capacity per operation ...');
    const customer = `goals-${randomUUID()}`;
    await createCrypto(customer);
    const capacity: Record<
      string,
      { measured: number; floor: number; ratio: number; indexUpkeep: number; ratioWithoutIndexes: number; calls: string; floorItems: string; byTableAndIndex: Record<string, number> }
    > = {};
    // Table names back to their keys, so the profile reads `invoices/byMerchant`.
    const keyOfTable = new Map(Object.entries(tables).map(([key, name]) => [name, key]));
    const meterOperation = async (name: string, operation: () => Promise<{ touches: Touch[] }>) => {
      const runs: Array<{ measured: number; floor: number; indexUpkeep: number; calls: string; floorItems: string; byTableAndIndex: Record<string, number> }> = [];
      for (let i = 0; i < 5; i++) {
        const { result, calls: made } = await meter.measure(operation);
        const priced = await floorOf(documentClient, tables, pricingTable, result.touches);
        // Where the units went: each table, and each index kept up by the writes.
        const byTableAndIndex: Record<string, number> = {};
        for (const [where, units] of made.flatMap((c) => Object.entries(c.byTable))) {
          const [table, index] = where.split('/');
          const label = `${keyOfTable.get(table!) ?? table}${index ? `/${index}` : ''}`;
          byTableAndIndex[label] = (byTableAndIndex[label] ?? 0) + units;
        }
        runs.push({
          measured: sum(made.map((c) => c.capacity)),
          floor: priced.floor,
          indexUpkeep: sum(
            Object.entries(byTableAndIndex)
              .filter(([label]) => label.includes('/'))
              .map(([, units]) => units),
          ),
          calls: made.map((c) => `${c.command.replace(/Command$/, '')} ${c.capacity}`).join(', '),
          floorItems: priced.parts,
          byTableAndIndex,
        });
      }
      const typical = [...runs].sort((a, b) => a.measured - b.measured)[Math.floor(runs.length / 2)]!;
      capacity[name] = {
        ...typical,
        ratio: round(typical.measured / typical.floor),
        ratioWithoutIndexes: round((typical.measured - typical.indexUpkeep) / typical.floor),
      };
    };
    const walletId = (customerId: string) => `customer#${JSON.stringify([m, customerId])}`;
    await meterOperation('create invoice (returning customer)', async () => {
      const orderId = randomUUID();
      const invoice = await call('POST', '/api/v2/invoices', { orderId, customerId: customer, baseCurrency: 'USDT', invoiceStrategy: 'fixed', amount: 25 });
      return {
        touches: [
          { table: 'wallets', id: walletId(customer), as: 'read' },
          { table: 'invoices', id: invoice.id, as: 'atomicWrite' },
          { table: 'uniques', id: `order#${JSON.stringify([m, orderId])}`, as: 'atomicWrite' },
        ],
      };
    });
    const invoice = await createCrypto(customer);
    await meterOperation('get invoice', async () => {
      await call('GET', `/api/v2/invoices/${invoice.id}`);
      return { touches: [{ table: 'invoices', id: invoice.id, as: 'read' }] };
    });
    const deposits: any[] = [];
    await meterOperation('simulated deposit with its outbox', async () => {
      const target = await meter.outside(() => createCrypto(customer));
      const deposit = await call('POST', '/api/v2/simulate/deposit', { invoiceId: target.id });
      deposits.push(deposit);
      const callbackId = `${deposit.id}:confirmed`;
      return {
        touches: [
          { table: 'invoices', id: target.id, as: 'read' },
          { table: 'merchants', id: m, as: 'read' },
          { table: 'transactions', id: deposit.id, as: 'atomicWrite' },
          { table: 'invoices', id: target.id, as: 'atomicWrite' },
          { table: 'outbox', id: callbackId, as: 'atomicWrite' },
          // Handed to the queue: marked once.
          { table: 'outbox', id: callbackId, as: 'write' },
        ],
      };
    });
    await meterOperation('get transaction', async () => {
      await call('GET', `/api/v2/transaction/${deposits[0].id}`);
      // The record, and the merchant's callback secret for its hash.
      return {
        touches: [
          { table: 'transactions', id: deposits[0].id, as: 'read' },
          { table: 'merchants', id: m, as: 'read' },
        ],
      };
    });
    await meterOperation('UTR confirmation', async () => {
      const inr = await meter.outside(() => call('POST', '/api/v2/invoices', { orderId: randomUUID(), customerId: 'goals-inr', baseCurrency: 'INR', amount: 1000 }));
      const utr = randomUUID().replace(/-/g, '').slice(0, 16).toUpperCase();
      await call('POST', '/api/v2/gateway9/deposit/confirm', { invoiceId: inr.id, utr });
      const { Items } = await meter.outside(() =>
        documentClient.send(new ScanCommand({ TableName: tables.transactions, FilterExpression: 'invoiceId = :i', ExpressionAttributeValues: { ':i': inr.id } })),
      );
      return {
        touches: [
          { table: 'invoices', id: inr.id, as: 'read' },
          { table: 'transactions', id: Items![0]!.id as string, as: 'atomicWrite' },
          { table: 'uniques', id: `utr#${utr}`, as: 'atomicWrite' },
          // One UTR under review per invoice (docs/merchant-guide.md#confirming-a-deposit-by-utr).
          { table: 'uniques', id: `invoice-utr#${inr.id}`, as: 'atomicWrite' },
        ],
      };
    });

    // A page of 20 of each listing, newest first: at least 21 of each in the table first.
    await meter.outside(async () => {
      for (let paid = deposits.length; paid < 21; paid++) await call('POST', '/api/v2/simulate/deposit', { invoiceId: (await createCrypto(customer)).id });
    });
    for (const [listing, table] of [
      ['invoices', 'invoices'],
      ['transactions', 'transactions'],
    ] as const) {
      await meterOperation(`list page of 20 ${listing}`, async () => {
        const page = await call('GET', `/api/v2/${listing}?limit=20`);
        // The items on the page; the key lookup (outside) and, for transactions, the merchant (for each `hash`) are the request's.
        const touches: Touch[] = [{ table, ids: page.items.map((item: { id: string }) => item.id), as: 'page' }];
        if (listing === 'transactions') touches.push({ table: 'merchants', id: m, as: 'read' });
        return { touches };
      });
    }

    // --- Throughput: the runtime against a bare server, the same two reads per request.
    console.log('Loading the runtime and the bare server ...');
    const keys = await Promise.all(
      Array.from({ length: 40 }, async () => {
        const { text, record } = newApiKey(m, LOCAL_STAGE, new Date());
        await new DynamoMerchantStore(documentClient, tables).addKey(record);
        return text;
      }),
    );
    const bare = await startBareServer({ dynamodbEndpoint: dynamo.endpoint, credentials, apiKeys: tables.apiKeys, invoices: tables.invoices });
    stops.push(() => bare.process.kill('SIGTERM'));
    const getFrom = (baseUrl: string) => async (i: number) => {
      const response = await fetch(`${baseUrl}/api/v2/invoices/${invoice.id}`, { headers: { 'x-api-key': keys[i % keys.length]! } });
      await response.arrayBuffer();
      return response.status === 200;
    };
    const throughput: Record<string, { runtime: LoadFigures; baseline: LoadFigures; ratio: number }> = {};
    for (const concurrency of [1, 10, 50]) {
      const runtimeFigures = await load(options.seconds, concurrency, getFrom(runtime.baseUrl));
      const baseline = await load(options.seconds, concurrency, getFrom(bare.url));
      throughput[String(concurrency)] = { runtime: runtimeFigures, baseline, ratio: round(runtimeFigures.rps / baseline.rps) };
    }

    // --- Callback latency: a deposit through the runtime, to its arrival at the receiver.
    console.log('Timing callbacks ...');
    const latencies: number[] = [];
    for (let i = 0; i < options.deposits; i++) {
      const target = await createCrypto(customer);
      const sent = Date.now();
      const response = await fetch(`${runtime.baseUrl}/api/v2/simulate/deposit`, {
        method: 'POST',
        headers: { 'x-api-key': merchant.apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ invoiceId: target.id }),
      });
      const { data } = (await response.json()) as { data: { id: string } };
      const delivered = await receiver.waitForDelivery((callback) => callback.webhookId === `${data.id}:confirmed`, 30_000);
      latencies.push(delivered.at - sent);
    }
    latencies.sort((a, b) => a - b);
    const callbacks = { deposits: latencies.length, p50: round(percentile(latencies, 50)), p95: round(percentile(latencies, 95)), max: round(latencies.at(-1)!) };

    // --- The expiry sweep: `due` invoices made due, ten times as many open and not due.
    console.log('Sweeping expired invoices ...');
    const past = new Date(Date.now() - 60_000).toISOString();
    for (let i = 0; i < options.due * 10; i += 25) await Promise.all(Array.from({ length: Math.min(25, options.due * 10 - i) }, () => createCrypto(customer)));
    for (let i = 0; i < options.due; i += 25) {
      await Promise.all(
        Array.from({ length: Math.min(25, options.due - i) }, async () => {
          const due = await createCrypto(customer);
          await documentClient.send(new UpdateCommand({ TableName: tables.invoices, Key: { id: due.id }, UpdateExpression: 'SET expiresAt = :past', ExpressionAttributeValues: { ':past': past } }));
        }),
      );
    }
    const expire = (await loadHandler('expire-invoices'))!;
    const swept = await meter.measure(async () => (await expire(undefined as never, {} as never)) as { due: number; expired: number });
    const sweepRead = sum(swept.calls.map((c) => c.itemsRead));
    const sweep = { due: swept.result.due, expired: swept.result.expired, itemsRead: sweepRead, ratio: round(sweepRead / Math.max(1, options.due)) };

    // --- Create latency and capacity with 1,000 and with 20,000 invoices in the table.
    console.log('Creating invoices at 1,000 and at 20,000 in the table ...');
    const countInvoices = async () => {
      let count = 0;
      let ExclusiveStartKey: Record<string, unknown> | undefined;
      do {
        const page = await documentClient.send(new ScanCommand({ TableName: tables.invoices, Select: 'COUNT', ExclusiveStartKey }));
        count += page.Count ?? 0;
        ExclusiveStartKey = page.LastEvaluatedKey;
      } while (ExclusiveStartKey);
      return count;
    };
    const template = (await documentClient.send(new GetCommand({ TableName: tables.invoices, Key: { id: invoice.id } }))).Item!;
    const fillTo = async (target: number) => {
      const missing = target - (await countInvoices());
      for (let start = 0; start < missing; start += 25 * 8) {
        await Promise.all(
          Array.from({ length: Math.min(8, Math.ceil((missing - start) / 25)) }, (_, batch) => {
            const size = Math.min(25, missing - start - batch * 25);
            const items = Array.from({ length: Math.max(0, size) }, () => {
              const id = randomUUID();
              return { PutRequest: { Item: { ...template, id, orderId: randomUUID(), customerKey: JSON.stringify([m, `filler-${id.slice(0, 6)}`]) } } };
            });
            return items.length > 0 ? documentClient.send(new BatchWriteCommand({ RequestItems: { [tables.invoices]: items } })) : undefined;
          }),
        );
      }
    };
    const createAtSize = async (size: number) => {
      await fillTo(size);
      const samples: number[] = [];
      const capacities: number[] = [];
      for (let i = 0; i < options.samples; i++) {
        const started = performance.now();
        const { calls } = await meter.measure(() => createCrypto(customer));
        samples.push(performance.now() - started);
        capacities.push(sum(calls.map((c) => c.capacity)));
      }
      samples.sort((a, b) => a - b);
      return { invoices: await countInvoices(), p50: round(percentile(samples, 50)), p95: round(percentile(samples, 95)), capacity: median(capacities) };
    };
    const small = await createAtSize(1_000);
    const large = await createAtSize(20_000);
    const tableSize = { small, large, p50Ratio: round(large.p50 / small.p50), capacityRatio: round(large.capacity / small.capacity) };

    // --- Report.
    const goals = {
      capacity: Object.values(capacity).every((entry) => entry.ratio <= GOALS.capacity),
      throughput: Object.values(throughput).every((entry) => entry.ratio >= GOALS.throughput),
      callbackP95: callbacks.p95 <= GOALS.callbackP95Ms,
      sweepReads: sweep.ratio <= GOALS.sweepReads,
      noGrowth: tableSize.p50Ratio <= GOALS.tableGrowth && tableSize.capacityRatio === 1,
    };
    console.log('DynamoDB capacity units per operation (median of 5), floor, ratio (goal <= 1.25):');
    print(
      Object.entries(capacity).flatMap(
        ([name, e]): Array<[string, string]> => [
          [name, `${e.measured} / ${e.floor} = ${e.ratio}x  ${verdict(e.ratio <= GOALS.capacity)}`],
          ['  calls made', e.calls],
          ['  floor', e.floorItems],
          [
            '  where the units went',
            Object.entries(e.byTableAndIndex)
              .map(([label, units]) => `${label} ${units}`)
              .join(', '),
          ],
          ['  without index upkeep', `${round(e.measured - e.indexUpkeep)} / ${e.floor} = ${e.ratioWithoutIndexes}x (the indexes: ${e.indexUpkeep})`],
        ],
      ),
    );
    console.log('GET /api/v2/invoices/{id}: runtime vs bare node:http server (goal >= 0.6x):');
    print(
      Object.entries(throughput).map(([concurrency, e]) => [
        `concurrency ${concurrency}`,
        `${e.runtime.rps} vs ${e.baseline.rps} req/s = ${e.ratio}x  ${verdict(e.ratio >= GOALS.throughput)}; p50/p95/p99 ${e.runtime.p50}/${e.runtime.p95}/${e.runtime.p99} ms vs ${e.baseline.p50}/${e.baseline.p95}/${e.baseline.p99} ms; failures ${e.runtime.failures}/${e.baseline.failures}`,
      ]),
    );
    print([
      ['Callback, deposit to receiver', `p50 ${callbacks.p50} ms, p95 ${callbacks.p95} ms = ${round(callbacks.p95 / GOALS.callbackP95Ms)}x of ${GOALS.callbackP95Ms} ms  ${verdict(goals.callbackP95)}`],
      ['Expiry sweep', `${sweep.itemsRead} items read for ${sweep.due} due (${options.due * 10}+ open, not due) = ${sweep.ratio}x  ${verdict(goals.sweepReads)}`],
      ['Create at 1k vs 20k invoices', `p50 ${small.p50} -> ${large.p50} ms = ${tableSize.p50Ratio}x, capacity ${small.capacity} -> ${large.capacity}  ${verdict(goals.noGrowth)}`],
    ]);
    const results = { measuredAt: new Date().toISOString(), goals: GOALS, met: goals, capacity, throughput, callbacks, sweep, tableSize };
    await writeFile(RESULTS_FILE, `${JSON.stringify(results, null, 2)}\n`);
    console.log(`Figures written to ${RESULTS_FILE}`);
  } finally {
    for (const stop of stops.reverse()) await Promise.resolve(stop()).catch(() => undefined);
    await sleep(100);
    await rm(dataDir, { recursive: true, force: true });
  }
}
