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
import { DEFAULT_FUNCTION_SETTINGS, handlerEnvironment, localCredentials, localTableNames } from '../infra/local/environment.js';
import { startLocalSqs } from '../infra/local/sqs.js';
import { compileTestToken, startLocalChain, type TokenTransfer } from '../infra/chain/local-chain.js';
import { CapacityMeter, type MeteredCall } from './capacity-meter.js';
import { catchUp } from './watcher-runs.js';

export const DESCRIPTION = 'chain watcher: blocks scanned per second, DynamoDB capacity per detected deposit against its floor';

/** The transaction's conditional write and the invoice's: what recording a deposit cannot do without. */
const FLOOR_WRITES_PER_DEPOSIT = 2;
const BATCH = 20;

export async function chainWatcherBenchmark(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, strict: true, options: { deposits: { type: 'string', default: '100' }, 'empty-blocks': { type: 'string', default: '400' } } });
  const deposits = Number(values.deposits);
  const emptyBlocks = Number(values['empty-blocks']);
  if (!Number.isInteger(deposits) || deposits < 1 || !Number.isInteger(emptyBlocks) || emptyBlocks < 1) throw new Error('--deposits and --empty-blocks must be positive integers');

  const dataDir = await mkdtemp(join(tmpdir(), 'bench-chain-'));
  const credentials = await localCredentials(dataDir);
  const [dynamo, sqs, chain, compiled] = await Promise.all([startDynamoDbLocal({ dataDir, credentials }), startLocalSqs(), startLocalChain(), compileTestToken()]);
  try {
    void compiled;
    const tables = localTableNames();
    const admin = localDynamoClient(dynamo.endpoint, credentials);
    await ensureTables(admin, tables);
    admin.destroy();
    const usdt = await chain.deployToken({ symbol: 'USDT', decimals: 6, supply: '1000000000' });
    Object.assign(
      process.env,
      handlerEnvironment(
        { publicBaseUrl: 'http://localhost:3999', dynamodbEndpoint: dynamo.endpoint, dynamodbCredentials: credentials, sqsEndpoint: sqs.endpoint, queueEnvironment: sqs.queueEnvironment, dataDir, tables },
        DEFAULT_FUNCTION_SETTINGS,
      ),
      // Confirmed at once: each deposit is written in full in the run that finds it.
      { GATEWAY_RPC_ETHEREUM: chain.rpcUrl, GATEWAY_TOKENS_ETHEREUM: JSON.stringify({ USDT: usdt }), GATEWAY_CONFIRMATIONS_ETHEREUM: '1', POWERTOOLS_LOG_LEVEL: 'WARN' },
    );
    // Loaded once the environment is set: the functions read it at load.
    const [{ dynamoClient }, { invoke, loadFunction }, { seedMerchant }] = await Promise.all([
      import('../shared/store/dynamo.js'),
      import('../test/support/invoke.js'),
      import('../test/support/merchants.js'),
    ]);
    const watch = (await loadFunction('watch-chain'))!;
    const watchOnce = () => watch({ network: 'ethereum' } as never, {} as never);
    const meter = new CapacityMeter();
    meter.instrument(dynamoClient);
    await catchUp(watchOnce);

    const { apiKey } = await seedMerchant();
    const addresses: `0x${string}`[] = [];
    for (let i = 0; i < deposits; i++) {
      const response = await invoke('create-invoice', { apiKey, body: { orderId: `bench-${i}`, customerId: `bench-customer-${i}`, baseCurrency: 'USDT', amount: 25 } });
      if (response.status !== 200) throw new Error(`create-invoice answered ${response.status}: ${JSON.stringify(response.body)}`);
      addresses.push(response.body.data.wallet.address);
    }

    await chain.mine(emptyBlocks);
    let start = performance.now();
    const empty = await meter.measure(() => catchUp(watchOnce));
    const emptySeconds = (performance.now() - start) / 1000;

    for (let i = 0; i < deposits; i += BATCH) {
      await chain.sendMany(addresses.slice(i, i + BATCH).map((to): TokenTransfer => ({ to, amount: '25', token: usdt })));
    }
    start = performance.now();
    const busy = await meter.measure(() => catchUp(watchOnce));
    const busySeconds = (performance.now() - start) / 1000;
    const units = (calls: MeteredCall[]) => calls.reduce((sum, call) => sum + call.capacity, 0);
    const perDeposit = units(busy.calls) / deposits;
    const byTable: Record<string, number> = {};
    for (const call of busy.calls) for (const [name, used] of Object.entries(call.byTable)) byTable[name] = (byTable[name] ?? 0) + used;

    console.log(
      `empty blocks:         ${empty.result.scanned} in ${empty.result.runs} runs, ${(empty.result.scanned / emptySeconds).toFixed(0)} blocks/s, ${units(empty.calls)} capacity units (${empty.calls.length} calls)`,
    );
    console.log(
      `blocks with deposits: ${busy.result.scanned} blocks, ${deposits} deposits in ${busySeconds.toFixed(2)} s: ${(busy.result.scanned / busySeconds).toFixed(1)} blocks/s, ${(deposits / busySeconds).toFixed(1)} deposits/s`,
    );
    console.log(
      `capacity per deposit: ${perDeposit.toFixed(2)} units (${(busy.calls.length / deposits).toFixed(1)} calls); floor ${FLOOR_WRITES_PER_DEPOSIT} (transaction + invoice writes): ${(perDeposit / FLOOR_WRITES_PER_DEPOSIT).toFixed(2)}x`,
    );
    const tablesNamed = Object.entries(byTable).sort((a, b) => b[1] - a[1]);
    console.log(`  by table and index: ${tablesNamed.map(([name, used]) => `${name.replace(/^.*?-/, '')} ${(used / deposits).toFixed(2)}`).join(', ')}`);
    // The floor counts writes of the two items at one unit each; what is above it is item size
    // (an invoice carries its wallet and checkout data), indexes, the outbox entry that makes the
    // callback durable, the claim that makes the deposit unique, and the reads that choose the invoice.
    console.log("  (as DynamoDB Local reports it: it counts a transactional write once where AWS charges it twice, and index writes at the item's size)");
  } finally {
    await Promise.allSettled([chain.stop(), sqs.stop(), dynamo.stop()]);
    await rm(dataDir, { recursive: true, force: true });
  }
}
