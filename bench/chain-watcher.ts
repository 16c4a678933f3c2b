/**
 * The chain watcher against a real node and DynamoDB Local, in this process: blocks scanned per
 * second (empty and with deposits), and the DynamoDB capacity each detected deposit costs, beside
 * its floor: one conditional write of the transaction and one of the invoice it pays.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ensureTables, localDynamoClient, startDynamoDbLocal } from '../infra/local/dynamodb.js';
import { handlerEnvironment, localTableNames } from '../infra/local/environment.js';
import { startLocalSqs } from '../infra/local/sqs.js';
import { compileTestToken, startLocalChain, type TokenTransfer } from '../infra/chain/local-chain.js';

export const DESCRIPTION = 'chain watcher: blocks scanned per second, DynamoDB capacity per detected deposit against its floor';

/** The transaction's conditional write and the invoice's: what recording a deposit cannot do without. */
const FLOOR_WRITES_PER_DEPOSIT = 2;
const BATCH = 20;

interface Capacity {
  units: number;
  calls: number;
  /** Units by table and index, `table` or `table/index`. */
  by: Record<string, number>;
}

const emptyCapacity = (): Capacity => ({ units: 0, calls: 0, by: {} });

/** Asks DynamoDB for the capacity of every call the functions' client makes, and adds it up. */
function countCapacity(client: { middlewareStack: { add: (...args: any[]) => void } }): Capacity {
  const total = emptyCapacity();
  const add = (name: string, units: number | undefined) => (total.by[name] = (total.by[name] ?? 0) + (units ?? 0));
  client.middlewareStack.add(
    (next: (args: any) => Promise<any>) => async (args: any) => {
      args.input.ReturnConsumedCapacity ??= 'INDEXES';
      const result = await next(args);
      const consumed = result.output?.ConsumedCapacity;
      for (const entry of Array.isArray(consumed) ? consumed : consumed ? [consumed] : []) {
        total.units += entry.CapacityUnits ?? 0;
        const table = String(entry.TableName).replace(/^.*?-/, '');
        add(table, entry.Table?.CapacityUnits);
        for (const [index, used] of Object.entries<{ CapacityUnits?: number }>(entry.GlobalSecondaryIndexes ?? {})) add(`${table}/${index}`, used.CapacityUnits);
      }
      total.calls++;
      return result;
    },
    { step: 'initialize', name: 'benchConsumedCapacity' },
  );
  return total;
}

export async function chainWatcherBenchmark(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, strict: true, options: { deposits: { type: 'string', default: '100' }, 'empty-blocks': { type: 'string', default: '400' } } });
  const deposits = Number(values.deposits);
  const emptyBlocks = Number(values['empty-blocks']);
  if (!Number.isInteger(deposits) || deposits < 1 || !Number.isInteger(emptyBlocks) || emptyBlocks < 1) throw new Error('--deposits and --empty-blocks must be positive integers');

  const dataDir = await mkdtemp(join(tmpdir(), 'bench-chain-'));
  const [dynamo, sqs, chain, compiled] = await Promise.all([startDynamoDbLocal({ dataDir }), startLocalSqs(), startLocalChain(), compileTestToken()]);
  try {
    void compiled;
    const tables = localTableNames();
    const admin = localDynamoClient(dynamo.endpoint);
    await ensureTables(admin, tables);
    admin.destroy();
    const usdt = await chain.deployToken({ symbol: 'USDT', decimals: 6, supply: '1000000000' });
    Object.assign(
      process.env,
      handlerEnvironment(
        { publicBaseUrl: 'http://localhost:3999', dynamodbEndpoint: dynamo.endpoint, sqsEndpoint: sqs.endpoint, queueEnvironment: sqs.queueEnvironment, dataDir, tables },
        { invoiceLifetimeSeconds: 900, providerDelaySeconds: 0.2, retryScale: 1, secretOverlapSeconds: 86_400 },
      ),
      // Confirmed at once: each deposit is written in full in the run that finds it.
      { GATEWAY_RPC_ETHEREUM: chain.rpcUrl, GATEWAY_TOKENS_ETHEREUM: JSON.stringify({ USDT: usdt }), GATEWAY_CONFIRMATIONS_ETHEREUM: '1', POWERTOOLS_LOG_LEVEL: 'WARN' },
    );
    // Loaded once the environment is set: the functions read it at load.
    const [{ documentClient }, { invoke, loadFunction }, { seedMerchant }] = await Promise.all([
      import('../shared/store/dynamo.js'),
      import('../test/support/invoke.js'),
      import('../test/support/merchants.js'),
    ]);
    const watch = (await loadFunction('watch-chain'))!;
    const catchUp = async () => {
      let runs = 0;
      let scanned = 0;
      for (;;) {
        const summary = (await watch({ network: 'ethereum' } as never, {} as never)) as { head: number; cursor: number; scanned: number; runFailed?: true };
        if (summary.runFailed) throw new Error('A watcher run failed');
        runs++;
        scanned += summary.scanned;
        if (summary.cursor === summary.head) return { runs, scanned };
      }
    };
    const capacity = countCapacity(documentClient);
    await catchUp();

    const { apiKey } = await seedMerchant();
    const addresses: `0x${string}`[] = [];
    for (let i = 0; i < deposits; i++) {
      const response = await invoke('create-invoice', { apiKey, body: { orderId: `bench-${i}`, customerId: `bench-customer-${i}`, baseCurrency: 'USDT', amount: 25 } });
      if (response.status !== 200) throw new Error(`create-invoice answered ${response.status}: ${JSON.stringify(response.body)}`);
      addresses.push(response.body.data.wallet.address);
    }

    await chain.mine(emptyBlocks);
    Object.assign(capacity, emptyCapacity());
    let start = performance.now();
    const empty = await catchUp();
    const emptySeconds = (performance.now() - start) / 1000;
    const emptyRun = { ...capacity };

    for (let i = 0; i < deposits; i += BATCH) {
      await chain.sendMany(addresses.slice(i, i + BATCH).map((to): TokenTransfer => ({ to, amount: '25', token: usdt })));
    }
    Object.assign(capacity, emptyCapacity());
    start = performance.now();
    const busy = await catchUp();
    const busySeconds = (performance.now() - start) / 1000;
    const perDeposit = capacity.units / deposits;

    console.log(`empty blocks:        ${empty.scanned} in ${empty.runs} runs, ${(empty.scanned / emptySeconds).toFixed(0)} blocks/s, ${emptyRun.units} capacity units (${emptyRun.calls} calls)`);
    console.log(`blocks with deposits: ${busy.scanned} blocks, ${deposits} deposits in ${busySeconds.toFixed(2)} s: ${(busy.scanned / busySeconds).toFixed(1)} blocks/s, ${(deposits / busySeconds).toFixed(1)} deposits/s`);
    console.log(`capacity per deposit: ${perDeposit.toFixed(2)} units (${(capacity.calls / deposits).toFixed(1)} calls); floor ${FLOOR_WRITES_PER_DEPOSIT} (transaction + invoice writes): ${(perDeposit / FLOOR_WRITES_PER_DEPOSIT).toFixed(2)}x`);
    console.log(`  by table and index: ${Object.entries(capacity.by).sort((a, b) => b[1] - a[1]).map(([name, units]) => `${name} ${(units / deposits).toFixed(2)}`).join(', ')}`);
    // The floor counts writes of the two items at one unit each; what is above it is item size
    // (an invoice carries its wallet and checkout data), indexes, the outbox entry that makes the
    // callback durable, the claim that makes the deposit unique, and the reads that choose the invoice.
    console.log('  (as DynamoDB Local reports it: it counts a transactional write once where AWS charges it twice, and index writes at the item\'s size)');
  } finally {
    await Promise.allSettled([chain.stop(), sqs.stop(), dynamo.stop()]);
    await rm(dataDir, { recursive: true, force: true });
  }
}
