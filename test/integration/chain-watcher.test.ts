/**
 * The chain watcher of docs/merchant-guide.md#how-payments-are-counted and #on-chain-deposits against a real EVM node: a Hardhat node on loopback
 * with two 6-decimal test tokens, read through a proxy that can be made to fail. Every run goes
 * through the watch-chain function, configured as a deployment would be, over the test run's tables,
 * held to the DynamoDB actions its route-table entry allows.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { createPublicClient, http, serializeTransaction, type Address, type Hash, type Hex, type PublicClient } from 'viem';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { WatchResult } from '../../functions/watch-chain.js';
import type { RunSummary } from '../../shared/domain/payments/chain-watcher.js';
import type { LocalChain } from '../../infra/chain/local-chain.js';
import { invoker, lambdaContext } from '../../infra/local/functions.js';
import { config } from '../../shared/config.js';
import { localStageConfiguration } from '../support/stage-configuration.js';
import { callbackBody, webhookId } from '../../shared/domain/transactions/transaction-callbacks.js';
import { type Transaction, transactionHash } from '../../shared/domain/transactions/transactions.js';
import { logger } from '../../shared/observability/logger.js';
import { CHAIN_RUN_ALLOWANCE_SECONDS } from '../../shared/platform.js';
import { FUNCTIONS } from '../../shared/routes.js';
import { documentClient } from '../../shared/store/dynamo.js';
import { DynamoOutboxStore } from '../../shared/store/outbox.js';
import { DynamoTransactionStore } from '../../shared/store/transactions.js';
import { invoke, loadFunction } from '../support/invoke.js';
import { testMerchantCli, type TestCli } from '../support/merchant-cli.js';
import { seedMerchant, testChainStore, type SeededMerchant } from '../support/merchants.js';
import { RpcProxy, type RpcFault } from '../support/rpc-proxy.js';
import { eventually } from '../support/wait.js';
import { ownChainTable, startChainWithTestToken } from '../support/test-chain.js';

/** Few, so that tests mine little; the production defaults are in docs/merchant-guide.md#on-chain-deposits. */
const CONFIRMATIONS = 3;
/** How often an invocation that polls reads the chain: short, so that tests wait little. */
const POLL_SECONDS = 1;

type RpcMode = 'pass' | 'error-500' | 'not-json' | 'bad-hashes' | 'refused' | 'silent';

let chain: LocalChain;
let client: PublicClient;
let usdt: Address;
let usdc: Address;
let proxy: RpcProxy;
let rpcMode: RpcMode = 'pass';
let merchant: SeededMerchant;
let testCli: TestCli;

/** What the node answers in each mode but `pass`, instead of what it would. */
const FAULTS: Partial<Record<RpcMode, RpcFault>> = {
  refused: 'refuse',
  silent: 'silent',
  'error-500': { status: 500, contentType: 'text/plain', body: 'upstream unavailable' },
  'not-json': { status: 200, contentType: 'text/html', body: '<html>maintenance</html>' },
};

beforeAll(async () => {
  await ownChainTable();
  chain = await startChainWithTestToken();
  client = createPublicClient({ transport: http(chain.rpcUrl) });
  usdt = await chain.deployToken({ symbol: 'USDT', decimals: 6, supply: '1000000' });
  usdc = await chain.deployToken({ symbol: 'USDC', decimals: 6, supply: '1000000' });
  proxy = await RpcProxy.start(chain.rpcUrl);
  // The node as the watcher sees it, made to fail on demand.
  proxy.fault = () => FAULTS[rpcMode];
  // Well-formed JSON-RPC whose block and transaction hashes are not hashes.
  proxy.rewrite = (text) => (rpcMode === 'bad-hashes' ? text.replace(/"0x[0-9a-f]{64}"/g, '"0x1234"') : text);

  process.env.GATEWAY_RPC_ETHEREUM = proxy.url;
  process.env.GATEWAY_TOKENS_ETHEREUM = JSON.stringify({ USDT: usdt, USDC: usdc });
  process.env.GATEWAY_CONFIRMATIONS_ETHEREUM = String(CONFIRMATIONS);
  process.env.GATEWAY_CHAIN_POLL_S = String(POLL_SECONDS);
  expect(localStageConfiguration().chains.ethereum).toMatchObject({ rpcUrl: process.env.GATEWAY_RPC_ETHEREUM, confirmations: CONFIRMATIONS });
  expect(config().chainPollSeconds).toBe(POLL_SECONDS);

  [merchant, testCli] = await Promise.all([seedMerchant(), testMerchantCli()]);
});

afterAll(async () => {
  await proxy?.stop();
  await Promise.all([chain?.stop(), testCli?.remove()]);
});

const ledger = () => new DynamoTransactionStore(documentClient, config().tables);
const outbox = () => new DynamoOutboxStore(documentClient, config().tables.outbox);

/** A scheduled run, through the local runtime's invoker: its DynamoDB calls are held to its route-table entry. */
const runWatcher = invoker(loadFunction);
const watchChain = FUNCTIONS.find((fn) => fn.name === 'watch-chain')!;

async function watchOnce(): Promise<WatchResult> {
  return (await runWatcher(watchChain, { network: 'ethereum' })) as WatchResult;
}

/** Runs the watcher until it has scanned to the head; what each run reported. */
async function catchUp(): Promise<RunSummary[]> {
  const runs: RunSummary[] = [];
  for (let run = 0; run < 20; run++) {
    const result = await watchOnce();
    if ('runFailed' in result) throw new Error('A watcher run failed against a healthy node');
    runs.push(result);
    if (result.cursor === result.head) return runs;
  }
  throw new Error(`The watcher did not reach the head in 20 runs; the last: ${JSON.stringify(runs.at(-1))}`);
}

const total = (runs: RunSummary[], field: 'recorded' | 'held' | 'confirmed' | 'failed' | 'credited') => runs.reduce((sum, run) => sum + run[field], 0);

async function createInvoice(fields: Record<string, unknown>, owner: SeededMerchant = merchant) {
  const response = await invoke('create-invoice', { apiKey: owner.apiKey, body: { orderId: randomUUID(), customerId: `c-${randomUUID()}`, ...fields } });
  expect(response.status).toBe(200);
  return response.body.data;
}

const getInvoice = async (id: string, owner: SeededMerchant = merchant) => (await invoke('get-invoice', { apiKey: owner.apiKey, pathParameters: { invoiceId: id } })).body.data;

const getTransaction = async (id: string, owner: SeededMerchant = merchant) => (await invoke('get-transaction', { apiKey: owner.apiKey, pathParameters: { transactionId: id } })).body.data;

/** What a deposit credited the merchant's balance: its entries as the merchant lists them. */
const creditsOf = async (transactionId: string) =>
  (await invoke('list-balance-entries', { apiKey: merchant.apiKey, query: { transactionId } })).body.data.items.map(({ type, amount, currency }: Record<string, string>) => ({ type, amount, currency }));

const depositsOf = async (invoiceId: string): Promise<Transaction[]> => (await ledger().listByInvoice(invoiceId)).sort((a, b) => a.createdAt.localeCompare(b.createdAt));

/** The callback owed for a transaction in a state, as the sender would send it. */
async function callbackFor(transactionId: string, status: Transaction['status'], owner: SeededMerchant = merchant) {
  const entry = await outbox().get(webhookId(transactionId, status));
  return entry && JSON.parse(callbackBody(entry, owner.callbackSecret));
}

/** Mines empty blocks until a transfer mined in `blockNumber` has its confirmations. */
async function confirm(blockNumber: bigint) {
  const missing = Number(blockNumber) + CONFIRMATIONS - 1 - Number(await chain.headNumber());
  if (missing > 0) await chain.mine(missing);
}

describe('native and token deposits', () => {
  it('credits ETH to the invoice exactly to 18 places: processing below the confirmations, confirmed with a callback at them', async () => {
    // 100 USD at 3,200 USD per ETH: 0.03125 ETH.
    const invoice = await createInvoice({ baseCurrency: 'USD', paymentCurrency: 'ETH', amount: 100 });
    expect(invoice.paymentAmount).toBe('0.031250000000000000');
    const address = invoice.wallet.address as Address;

    const first = await chain.sendNative({ to: address, amount: '0.012345678901234567' });
    const seen = await catchUp();
    expect(total(seen, 'recorded')).toBe(1);
    const [pending] = await depositsOf(invoice.id);
    expect(pending).toMatchObject({ status: 'processing', amount: '0.012345678901234567', currency: 'ETH', network: 'ethereum', transactionHash: first.hash });
    expect(await callbackFor(pending!.id, 'processing')).toBeUndefined();
    expect(await getInvoice(invoice.id)).toMatchObject({ status: 'created', paidAmount: '0.000000000000000000', paymentStatus: 'unpaid' });
    expect(await creditsOf(pending!.id)).toEqual([]);

    await confirm(first.blockNumber);
    expect(total(await catchUp(), 'confirmed')).toBe(1);
    const confirmed = await getTransaction(pending!.id);
    expect(confirmed).toMatchObject({ status: 'confirmed', amount: '0.012345678901234567', transactionHash: first.hash });
    expect(confirmed.hash).toBe(transactionHash(confirmed, merchant.callbackSecret));
    expect(await callbackFor(pending!.id, 'confirmed')).toMatchObject({ id: pending!.id, status: 'confirmed', amount: '0.012345678901234567', hash: confirmed.hash });
    expect(await getInvoice(invoice.id)).toMatchObject({ status: 'created', paidAmount: '0.012345678901234567', paymentStatus: 'partial' });
    expect(await creditsOf(pending!.id)).toEqual([{ type: 'deposit', amount: '0.012345678901234567', currency: 'ETH' }]);

    // The rest, to the wei: 0.03125 - 0.012345678901234567.
    const rest = await chain.sendNative({ to: address, amount: '0.018904321098765433' });
    await confirm(rest.blockNumber);
    await catchUp();
    const deposits = await depositsOf(invoice.id);
    expect(deposits.map((d) => [d.transactionHash, d.status, d.amount])).toEqual([
      [first.hash, 'confirmed', '0.012345678901234567'],
      [rest.hash, 'confirmed', '0.018904321098765433'],
    ]);
    expect(await getInvoice(invoice.id)).toMatchObject({
      status: 'completed',
      paidAmount: '0.031250000000000000',
      paymentStatus: 'paid',
      transactionIds: deposits.map((d) => d.id),
      completedAt: expect.any(String),
    });
    expect(await callbackFor(deposits[1]!.id, 'confirmed')).toMatchObject({ status: 'confirmed', transactionHash: rest.hash });
  });

  it('completes a USDT invoice only once its partial payments add up, with a transaction and callback each', async () => {
    const invoice = await createInvoice({ baseCurrency: 'USD', paymentCurrency: 'USDT', amount: 25 });
    const address = invoice.wallet.address as Address;
    const part = await chain.sendToken({ to: address, amount: '10', token: usdt });
    await confirm(part.blockNumber);
    await catchUp();
    expect(await getInvoice(invoice.id)).toMatchObject({ status: 'created', paidAmount: '10.000000', paymentStatus: 'partial' });

    const rest = await chain.sendToken({ to: address, amount: '15', token: usdt });
    await confirm(rest.blockNumber);
    await catchUp();
    const deposits = await depositsOf(invoice.id);
    expect(deposits.map((d) => [d.transactionHash, d.status, d.amount, d.currency])).toEqual([
      [part.hash, 'confirmed', '10.000000', 'USDT'],
      [rest.hash, 'confirmed', '15.000000', 'USDT'],
    ]);
    for (const deposit of deposits) expect(await callbackFor(deposit.id, 'confirmed')).toMatchObject({ id: deposit.id, status: 'confirmed' });
    expect(await getInvoice(invoice.id)).toMatchObject({ status: 'completed', paidAmount: '25.000000', paymentStatus: 'paid' });
  });

  it('marks an invoice paid past its amount overpaid, and ignores transfers of tokens it does not watch', async () => {
    const invoice = await createInvoice({ baseCurrency: 'USD', paymentCurrency: 'USDC', amount: 10 });
    const address = invoice.wallet.address as Address;
    const stranger = await chain.deployToken({ symbol: 'FAKE', decimals: 6, supply: '1000' });
    await chain.sendToken({ to: address, amount: '500', token: stranger });
    const paid = await chain.sendToken({ to: address, amount: '12.5', token: usdc });
    await confirm(paid.blockNumber);
    await catchUp();
    const deposits = await depositsOf(invoice.id);
    expect(deposits.map((d) => [d.transactionHash, d.amount, d.currency])).toEqual([[paid.hash, '12.500000', 'USDC']]);
    expect(await getInvoice(invoice.id)).toMatchObject({ status: 'completed', paidAmount: '12.500000', paymentStatus: 'overpaid' });
  });

  it('completes an expired invoice paid late with paidLate', async () => {
    const invoice = await createInvoice({ baseCurrency: 'USD', paymentCurrency: 'USDT', amount: 20 });
    await documentClient.send(
      new UpdateCommand({
        TableName: config().tables.invoices,
        Key: { id: invoice.id },
        UpdateExpression: 'SET expiresAt = :past',
        ExpressionAttributeValues: { ':past': new Date(Date.now() - 1000).toISOString() },
      }),
    );
    await (await loadFunction('expire-invoices'))!({} as never, {} as never);
    expect(await getInvoice(invoice.id)).toMatchObject({ status: 'canceled' });

    const late = await chain.sendToken({ to: invoice.wallet.address, amount: '20', token: usdt });
    await confirm(late.blockNumber);
    await catchUp();
    expect(await getInvoice(invoice.id)).toMatchObject({ status: 'completed', paidLate: true, paymentStatus: 'paid', paidAmount: '20.000000' });
    const [deposit] = await depositsOf(invoice.id);
    expect(await callbackFor(deposit!.id, 'confirmed')).toMatchObject({ status: 'confirmed', transactionHash: late.hash });
  });

  it('records an asset the customer has no invoice in on their latest crypto invoice, without completing it', async () => {
    const invoice = await createInvoice({ baseCurrency: 'USD', paymentCurrency: 'USDT', amount: 30 });
    const eth = await chain.sendNative({ to: invoice.wallet.address, amount: '0.01' });
    await confirm(eth.blockNumber);
    await catchUp();
    const [deposit] = await depositsOf(invoice.id);
    expect(deposit).toMatchObject({ status: 'confirmed', currency: 'ETH', amount: '0.010000000000000000', transactionHash: eth.hash });
    expect(await getInvoice(invoice.id)).toMatchObject({ status: 'created', paymentStatus: 'unpaid', transactionIds: [deposit!.id] });
  });

  it('credits 20 token transfers mined in one block, each once by its log index', async () => {
    const invoices = await Promise.all(Array.from({ length: 20 }, () => createInvoice({ baseCurrency: 'USD', paymentCurrency: 'USDC', amount: 5 })));
    const batch = await chain.sendMany(invoices.map((invoice) => ({ to: invoice.wallet.address as Address, amount: '5', token: usdc })));
    expect(new Set(batch.sent.map((sent) => sent.blockNumber))).toEqual(new Set([batch.blockNumber]));
    await confirm(batch.blockNumber);
    const runs = await catchUp();
    expect(total(runs, 'recorded')).toBe(20);
    for (const [index, invoice] of invoices.entries()) {
      const deposits = await depositsOf(invoice.id);
      expect(deposits).toHaveLength(1);
      expect(deposits[0]).toMatchObject({ status: 'confirmed', transactionHash: batch.sent[index]!.hash, chain: { blockNumber: Number(batch.blockNumber), logIndex: index } });
      expect(await getInvoice(invoice.id)).toMatchObject({ status: 'completed', paymentStatus: 'paid' });
    }
  });
});

describe('reruns, restarts and bounded runs', () => {
  it('never doubles a deposit when the cursor goes back, or when two runs race', async () => {
    const invoice = await createInvoice({ baseCurrency: 'USD', paymentCurrency: 'USDT', amount: 40 });
    const before = await testChainStore().cursor('ethereum');
    const sent = [await chain.sendToken({ to: invoice.wallet.address, amount: '15', token: usdt }), await chain.sendNative({ to: invoice.wallet.address, amount: '0.001' })];
    await confirm(sent[1]!.blockNumber);
    await Promise.all([watchOnce(), watchOnce()]);
    await catchUp();
    const after = await testChainStore().cursor('ethereum');

    // A run that wrote and then died before moving the cursor: the next one scans the same blocks.
    expect(await testChainStore().moveCursor('ethereum', before!, after, new Date())).toBe(true);
    const rescan = await catchUp();
    expect(rescan[0]!.scanned).toBeGreaterThan(0);
    const deposits = await depositsOf(invoice.id);
    expect(deposits.map((d) => d.transactionHash).sort()).toEqual(sent.map((s) => s.hash).sort());
    expect(await getInvoice(invoice.id)).toMatchObject({ paidAmount: '15.000000', paymentStatus: 'partial', transactionIds: deposits.map((d) => d.id) });
  });

  it('scans at most a bounded range of blocks per run and resumes where it stopped', async () => {
    const invoice = await createInvoice({ baseCurrency: 'USD', paymentCurrency: 'USDC', amount: 5 });
    const start = Number(await chain.headNumber());
    await chain.mine(250);
    const sent = await chain.sendToken({ to: invoice.wallet.address, amount: '5', token: usdc });
    await confirm(sent.blockNumber);
    const runs = await catchUp();
    expect(runs.length).toBeGreaterThanOrEqual(2);
    expect(runs[0]).toMatchObject({ scanned: 200, cursor: start + 200, recorded: 0 });
    expect(total(runs, 'recorded')).toBe(1);
    expect(await getInvoice(invoice.id)).toMatchObject({ status: 'completed' });
  });

  it.each<RpcMode>(['error-500', 'not-json', 'bad-hashes', 'refused', 'silent'])('leaves the cursor and credits nothing when the node answers %s, then carries on', async (mode) => {
    const invoice = await createInvoice({ baseCurrency: 'USD', paymentCurrency: 'USDT', amount: 9 });
    await catchUp();
    const sent = await chain.sendToken({ to: invoice.wallet.address, amount: '9', token: usdt });
    await confirm(sent.blockNumber);
    const cursor = await testChainStore().cursor('ethereum');
    rpcMode = mode;
    try {
      expect(await watchOnce()).toEqual({ network: 'ethereum', runFailed: true });
    } finally {
      rpcMode = 'pass';
    }
    expect(await testChainStore().cursor('ethereum')).toEqual(cursor);
    expect(await depositsOf(invoice.id)).toEqual([]);
    await catchUp();
    expect(await depositsOf(invoice.id)).toHaveLength(1);
    expect(await getInvoice(invoice.id)).toMatchObject({ status: 'completed' });
  });
});

describe('reorganisations', () => {
  /** The signed transaction as the node holds it, to broadcast again on another branch. */
  async function rawTransaction(hash: Hash): Promise<Hex> {
    const tx = await client.getTransaction({ hash });
    if (tx.type !== 'eip1559') throw new Error(`Expected an EIP-1559 transaction, got ${tx.type}`);
    return serializeTransaction(
      {
        type: 'eip1559',
        chainId: chain.chainId,
        nonce: tx.nonce,
        to: tx.to,
        value: tx.value,
        gas: tx.gas,
        maxFeePerGas: tx.maxFeePerGas,
        maxPriorityFeePerGas: tx.maxPriorityFeePerGas,
        data: tx.input,
        accessList: tx.accessList,
      },
      { r: tx.r, s: tx.s, yParity: tx.yParity },
    );
  }

  it('fails a deposit whose block leaves the chain before its confirmations, without a callback', async () => {
    const invoice = await createInvoice({ baseCurrency: 'USD', paymentCurrency: 'USDT', amount: 5 });
    await catchUp();
    const snapshot = await chain.snapshot();
    await chain.sendToken({ to: invoice.wallet.address, amount: '5', token: usdt });
    await catchUp();
    const [pending] = await depositsOf(invoice.id);
    expect(pending).toMatchObject({ status: 'processing' });

    const reorg = await chain.reorg({ snapshot });
    const runs = await catchUp();
    expect(runs[0]!.reorg).toEqual({ from: Number(reorg.oldHead), to: Number(reorg.forkBlockNumber) });
    expect(total(runs, 'failed')).toBe(1);
    expect(await getTransaction(pending!.id)).toMatchObject({ status: 'failed' });
    expect(await callbackFor(pending!.id, 'failed')).toBeUndefined();
    expect(await getInvoice(invoice.id)).toMatchObject({ status: 'created', paymentStatus: 'unpaid', paidAmount: '0.000000' });
    expect(await creditsOf(pending!.id)).toEqual([]);
  });

  it('records a transfer mined again on the new branch anew, and credits it once', async () => {
    const invoice = await createInvoice({ baseCurrency: 'USD', paymentCurrency: 'USDC', amount: 8 });
    await catchUp();
    const snapshot = await chain.snapshot();
    const sent = await chain.sendToken({ to: invoice.wallet.address, amount: '8', token: usdc });
    const raw = await rawTransaction(sent.hash);
    await catchUp();

    await chain.reorg({ snapshot, onNewBranch: async () => void (await client.request({ method: 'eth_sendRawTransaction', params: [raw] })) });
    const receipt = await client.getTransactionReceipt({ hash: sent.hash });
    expect(receipt.blockHash).not.toBe(sent.blockHash);
    await confirm(receipt.blockNumber);
    await catchUp();

    const deposits = await depositsOf(invoice.id);
    expect(deposits.map((d) => [d.transactionHash, d.status, d.chain?.blockHash])).toEqual([
      [sent.hash, 'failed', sent.blockHash],
      [sent.hash, 'confirmed', receipt.blockHash],
    ]);
    // Both are the invoice's transactions; only the confirmed one counts.
    expect(await getInvoice(invoice.id)).toMatchObject({ status: 'completed', paidAmount: '8.000000', transactionIds: deposits.map((d) => d.id) });
  });
});

describe('merchants that do not take on-chain deposits', () => {
  it('holds their transfers, lists them in the admin CLI, and credits them once turned on', async () => {
    const offline = await seedMerchant({ onchainDeposits: false });
    const invoice = await createInvoice({ baseCurrency: 'USD', paymentCurrency: 'USDT', amount: 12 }, offline);
    const sent = await chain.sendToken({ to: invoice.wallet.address, amount: '7', token: usdt });
    await confirm(sent.blockNumber);
    expect(total(await catchUp(), 'held')).toBe(1);
    expect(await depositsOf(invoice.id)).toEqual([]);
    expect(await getInvoice(invoice.id, offline)).toMatchObject({ status: 'created', paymentStatus: 'unpaid' });

    const listed = await testCli.run(['held-deposits', '--merchant', offline.merchant.id, '--json']);
    expect(listed).toMatchObject({ code: 0, err: '' });
    expect(JSON.parse(listed.out)).toEqual([
      expect.objectContaining({
        network: 'ethereum',
        transactionHash: sent.hash,
        asset: 'USDT',
        amount: '7.000000',
        merchantId: offline.merchant.id,
        customerId: invoice.customerId,
        reason: 'onchain-deposits-off',
      }),
    ]);
    // Rerunning over the same blocks holds it once.
    await catchUp();
    expect(JSON.parse((await testCli.run(['held-deposits', '--merchant', offline.merchant.id, '--json'])).out)).toHaveLength(1);

    expect((await testCli.run(['onchain-deposits', '--merchant', offline.merchant.id, '--on'])).code).toBe(0);
    expect(total(await catchUp(), 'credited')).toBe(1);
    const [deposit] = await depositsOf(invoice.id);
    expect(deposit).toMatchObject({ status: 'confirmed', amount: '7.000000', transactionHash: sent.hash });
    expect(await callbackFor(deposit!.id, 'confirmed', offline)).toMatchObject({ status: 'confirmed' });
    expect(await getInvoice(invoice.id, offline)).toMatchObject({ paidAmount: '7.000000', paymentStatus: 'partial' });
    expect(JSON.parse((await testCli.run(['held-deposits', '--merchant', offline.merchant.id, '--json'])).out)).toEqual([]);
  });
});

describe('an invocation that polls, as the schedule invokes it in AWS', () => {
  /** What EventBridge sends, with a deadline of seconds instead of most of a minute. */
  const watchFor = async (watchForSeconds: number): Promise<WatchResult> => (await runWatcher(watchChain, { network: 'ethereum', watchForSeconds })) as WatchResult;
  const summaryLines = (spy: { mock: { calls: unknown[][] } }) => spy.mock.calls.filter(([message]) => message === 'Chain watcher run');

  afterEach(() => vi.restoreAllMocks());

  it('credits a deposit confirmed part way through, its callback written within the poll interval and 2 s, logs one summary, and ends by its deadline', async () => {
    const invoice = await createInvoice({ baseCurrency: 'USD', paymentCurrency: 'USDT', amount: 6 });
    await catchUp();
    const info = vi.spyOn(logger, 'info');
    const watchForSeconds = 6;
    const startedAt = Date.now();
    const invocation = watchFor(watchForSeconds);

    await sleep(1_500);
    const sent = await chain.sendToken({ to: invoice.wallet.address, amount: '6', token: usdt });
    await confirm(sent.blockNumber);
    const confirmedAt = Date.now();
    const [deposit] = await eventually(
      async () => {
        const deposits = await depositsOf(invoice.id);
        return deposits.length > 0 && deposits;
      },
      { timeoutMs: (POLL_SECONDS + 2) * 1000, intervalMs: 50, what: 'the deposit' },
    );
    const callback = await eventually(() => callbackFor(deposit!.id, 'confirmed'), { timeoutMs: (POLL_SECONDS + 2) * 1000, intervalMs: 50, what: 'the confirmed callback' });
    expect(Date.now() - confirmedAt).toBeLessThanOrEqual((POLL_SECONDS + 2) * 1000);
    expect(callback).toMatchObject({ id: deposit!.id, status: 'confirmed', transactionHash: sent.hash });
    expect(await getInvoice(invoice.id)).toMatchObject({ status: 'completed', paymentStatus: 'paid' });

    const result = await invocation;
    const took = Date.now() - startedAt;
    // Its last run started at the deadline at the latest and ended soon after; it did not stop before.
    expect(took).toBeGreaterThanOrEqual(watchForSeconds * 1000);
    expect(took).toBeLessThan((watchForSeconds + POLL_SECONDS) * 1000);
    expect(result).toMatchObject({ network: 'ethereum', recorded: 1, cursor: expect.any(Number) });
    expect((result as { runs: number }).runs).toBeGreaterThanOrEqual(watchForSeconds / POLL_SECONDS - 1);
    expect(summaryLines(info)).toEqual([['Chain watcher run', expect.objectContaining({ network: 'ethereum', recorded: 1, runs: (result as { runs: number }).runs })]]);
  });

  it('never records a transfer twice nor moves the cursor back when two invocations of the network overlap', async () => {
    const invoices = await Promise.all([1, 2, 3].map(() => createInvoice({ baseCurrency: 'USD', paymentCurrency: 'USDC', amount: 5 })));
    await catchUp();
    // The run that loses the cursor to the other ends its invocation with one error.
    const errors = vi.spyOn(logger, 'error').mockImplementation(() => undefined);
    const cursors: number[] = [];
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        cursors.push((await testChainStore().cursor('ethereum'))!.number);
        await sleep(25);
      }
    })();

    const invocations = [watchFor(4), sleep(300).then(() => watchFor(4))];
    const sent = [];
    for (const invoice of invoices) {
      sent.push(await chain.sendToken({ to: invoice.wallet.address, amount: '5', token: usdc }));
      await sleep(600);
    }
    await confirm(sent.at(-1)!.blockNumber);
    const results = await Promise.all(invocations);
    sampling = false;
    await sampler;
    await catchUp();

    expect(results.map((result) => result.network)).toEqual(['ethereum', 'ethereum']);
    for (const [message, details] of errors.mock.calls) {
      expect(message).toMatch(/^Chain watcher run failed/);
      expect(details).toEqual({ network: 'ethereum', reason: expect.stringMatching(/cursor was moved by another run/) });
    }
    expect(errors).toHaveBeenCalledTimes(results.filter((result) => 'runFailed' in result).length);
    expect(cursors.length).toBeGreaterThan(10);
    expect(cursors).toEqual([...cursors].sort((a, b) => a - b));
    for (const [index, invoice] of invoices.entries()) {
      const deposits = await depositsOf(invoice.id);
      expect(deposits.map((d) => [d.transactionHash, d.status])).toEqual([[sent[index]!.hash, 'confirmed']]);
      expect(await creditsOf(deposits[0]!.id)).toEqual([{ type: 'deposit', amount: '5.000000', currency: 'USDC' }]);
      expect(await getInvoice(invoice.id)).toMatchObject({ status: 'completed', paidAmount: '5.000000' });
    }
  });

  it('ends at its first failed run, long before its deadline, with one error and what the runs before it did', async () => {
    await catchUp();
    const errors = vi.spyOn(logger, 'error').mockImplementation(() => undefined);
    const startedAt = Date.now();
    const invocation = watchFor(30);
    await sleep(1_500);
    rpcMode = 'error-500';
    let result: WatchResult;
    try {
      result = await invocation;
    } finally {
      rpcMode = 'pass';
    }
    expect(Date.now() - startedAt).toBeLessThan(10_000);
    expect(result).toMatchObject({ network: 'ethereum', runFailed: true, completed: { network: 'ethereum', runs: expect.any(Number) } });
    expect(errors).toHaveBeenCalledTimes(1);
    expect(errors.mock.calls[0]![0]).toMatch(/^Chain watcher run failed/);
  });

  it('starts no run within its run allowance of the timeout, however long it was asked to watch', async () => {
    await catchUp();
    const handler = (await loadFunction('watch-chain'))!;
    const timeoutMs = CHAIN_RUN_ALLOWANCE_SECONDS * 1000 + 2_000;
    const startedAt = Date.now();
    const context = { ...lambdaContext(watchChain, startedAt), getRemainingTimeInMillis: () => timeoutMs - (Date.now() - startedAt) };
    const result = (await handler({ network: 'ethereum', watchForSeconds: 55 } as never, context)) as WatchResult;
    const took = Date.now() - startedAt;
    // Its last run started 2 s in, the timeout less the allowance, and ended well within the timeout.
    expect(took).toBeGreaterThanOrEqual(2_000);
    expect(took).toBeLessThan(timeoutMs);
    expect(result).toMatchObject({ network: 'ethereum', runs: expect.any(Number) });
    expect((result as { runs: number }).runs).toBeGreaterThanOrEqual(2);
  });

  it('refuses a watchForSeconds that is not a number of seconds', async () => {
    await expect(runWatcher(watchChain, { network: 'ethereum', watchForSeconds: '50' })).rejects.toThrow(/watchForSeconds must be a number of seconds/);
    await expect(runWatcher(watchChain, { network: 'ethereum', watchForSeconds: -1 })).rejects.toThrow(/watchForSeconds/);
  });
});
