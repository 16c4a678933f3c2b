/**
 * Crypto payouts through the functions as the runtime runs them, on local nodes, over DynamoDB
 * Local and the local SQS: `POST /api/v2/payouts` through the API Gateway emulation, the payouts
 * FIFO queue handed to `send-payout` one message at a time (the network is its message group: one
 * sender a network), `watch-chain` settling. Ethereum on a Hardhat node (ETH and the test USDT),
 * Tron on the tests' fixture node (test/support/tron-node.ts, which builds, takes and mines
 * transactions; bench/tron-fixture-node.ts only serves blocks to read), Bitcoin on litecoind in
 * regtest. For each network:
 *
 * - payouts a second through its one sender, and the latency from the request's answer to
 *   send-payout's return, the transaction broadcast;
 * - the DynamoDB capacity of one payout from its request to its settlement, and the treasury
 *   signer's calls it made (the port wrapped and its calls counted: KMS requests in AWS);
 * - the time from broadcast to `confirmed` with a block mined at an interval, beside the network's
 *   confirmation depth.
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import type { Address } from 'viem';
import type { WatchResult } from '../functions/watch-chain.js';
import { BitcoinNode } from '../infra/chain/bitcoin-node.js';
import { LOCAL_STAGE } from '../infra/local/environment.js';
import { invoker } from '../infra/local/functions.js';
import { DEFAULT_CONFIRMATIONS, TRON_TOKEN_CONTRACTS } from '../shared/domain/chains/networks.js';
import { treasuryAddress, type TreasurySigner } from '../shared/domain/payouts/index.js';
import { FUNCTIONS } from '../shared/routes.js';
import { KeyFileTreasurySigner, treasuryKeyDirectory } from '../shared/signers/key-file-signer.js';
import { startChainWithTestToken, withoutAutomine } from '../test/support/test-chain.js';
import { TronNode } from '../test/support/tron-node.js';
import { startBenchStores, type BenchStores } from './bench-stores.js';
import { CapacityMeter, type MeteredCall, type ReadWriteUnits, readWriteUnits } from './capacity-meter.js';
import { BLOCK_SECONDS } from './chains.js';
import { percentile } from './load.js';
import { positiveOption } from './options.js';
import { catchUp } from './watcher-runs.js';

export const DESCRIPTION =
  'crypto payouts per network: payouts a second through the sender and request-to-broadcast latency, capacity units and KMS calls of one payout, broadcast-to-confirmed time beside the confirmation depth';

const NETWORKS = ['ethereum', 'tron', 'bitcoin'] as const;
type PayoutNetwork = (typeof NETWORKS)[number];

/** A payout's asset on a network, the amount each payout sends. */
interface Asset {
  currency: string;
  amount: string;
}

/** What each network pays out, in turn; the last is the one whose single payout is metered. */
const ASSETS: Record<PayoutNetwork, readonly Asset[]> = {
  ethereum: [
    { currency: 'ETH', amount: '0.01' },
    { currency: 'USDT', amount: '10' },
  ],
  tron: [
    { currency: 'TRX', amount: '30' },
    { currency: 'USDT', amount: '10' },
  ],
  bitcoin: [{ currency: 'BTC', amount: '0.001' }],
};

/** The merchant's balances, enough for every payout the options could ask for at these amounts. */
const MERCHANT_FUNDS: Record<string, string> = { ETH: '1000', USDT: '100000000', TRX: '100000000', BTC: '1000' };

/** The merchant's payout address on each network: active at once, as the operator adds it. */
const RECIPIENTS: Record<PayoutNetwork, string> = {
  ethereum: '0x00000000000000000000000000000000BEef0101',
  tron: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8',
  bitcoin: 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx',
};

/** How often a chain watcher runs in AWS (GATEWAY_CHAIN_POLL_S's default). */
const AWS_POLL_SECONDS = 5;
/** KMS's price per request, US dollars (docs/operations.md#what-a-stage-costs). */
const KMS_REQUEST_USD = 0.03 / 10_000;
/** The cost estimate's confirmed deposit with its callback entry, balance entries and balance (docs/operations.md#what-a-stage-costs): a payout's mirror. */
const DEPOSIT_UNITS = { read: 2.5, write: 64 };
/** What an accepted withdrawal's reserve adds there, as the books benchmark measured it. */
const WITHDRAWAL_RESERVE = { read: 1, write: 12 };
/** Each send-payout, and each network's whole run, is given up on after these. */
const SEND_TIMEOUT_MS = 120_000;
const SEND_RETRIES = 10;

interface Options {
  payouts: number;
  concurrency: number;
  networks: PayoutNetwork[];
  blockMs: number;
  pollMs: number;
  confirmPayouts: number;
}

function parseOptions(args: string[]): Options {
  const { values } = parseArgs({
    args,
    strict: true,
    options: {
      payouts: { type: 'string', default: '20' },
      concurrency: { type: 'string', default: '4' },
      networks: { type: 'string', default: NETWORKS.join(',') },
      'block-ms': { type: 'string', default: '250' },
      'poll-ms': { type: 'string', default: '100' },
      'confirm-payouts': { type: 'string', default: '3' },
    },
  });
  const networks = values.networks
    .split(',')
    .map((network) => network.trim())
    .filter((network) => network !== '');
  if (networks.length === 0 || networks.some((network) => !(NETWORKS as readonly string[]).includes(network))) throw new Error(`--networks takes one or more of ${NETWORKS.join(',')}`);
  return {
    payouts: positiveOption('payouts', values.payouts, true),
    concurrency: positiveOption('concurrency', values.concurrency, true),
    networks: NETWORKS.filter((network) => networks.includes(network)),
    blockMs: positiveOption('block-ms', values['block-ms'], true),
    pollMs: positiveOption('poll-ms', values['poll-ms'], true),
    confirmPayouts: positiveOption('confirm-payouts', values['confirm-payouts'], true),
  };
}

/** A network's node as the benchmark drives it. */
interface PayoutNode {
  network: PayoutNetwork;
  /** What the node is, for the figures. */
  described: string;
  /** The functions' environment for it: its endpoint, its tokens. */
  environment: Record<string, string>;
  /** Gives the treasury what `payouts` payouts spend, and more. */
  fundTreasury(signer: TreasurySigner, payouts: number): Promise<void>;
  /** Puts what waits to be mined in a block of its own, where the node does not mine each transaction as it comes. */
  includePending(): Promise<void>;
  /** Mines `blocks` blocks, the first with what waits to be mined. */
  mine(blocks: number): Promise<void>;
  /** Runs `work` with the node mining only when told. */
  holdingBlocks<T>(work: () => Promise<T>): Promise<T>;
  stop(): Promise<void>;
}

async function ethereumNode(): Promise<PayoutNode> {
  const chain = await startChainWithTestToken();
  let usdt: Address;
  try {
    usdt = await chain.deployToken({ symbol: 'USDT', decimals: 6, supply: '1000000000' });
  } catch (error) {
    await chain.stop();
    throw error;
  }
  return {
    network: 'ethereum',
    described: 'Hardhat node, ETH and the test USDT, each transaction mined as it comes',
    environment: { GATEWAY_RPC_ETHEREUM: chain.rpcUrl, GATEWAY_TOKENS_ETHEREUM: JSON.stringify({ USDT: usdt }) },
    fundTreasury: async (signer) => {
      const treasury = treasuryAddress('evm', await signer.publicKey('evm'), LOCAL_STAGE) as Address;
      await chain.sendNative({ to: treasury, amount: '1000' });
      await chain.sendToken({ to: treasury, amount: '100000000', token: usdt });
    },
    includePending: async () => undefined,
    mine: async (blocks) => void (await chain.mine(blocks)),
    holdingBlocks: (work) => withoutAutomine(chain, work),
    stop: () => chain.stop(),
  };
}

async function tronNode(): Promise<PayoutNode> {
  const node = await TronNode.start();
  node.mineEmpty(10);
  const usdt = TRON_TOKEN_CONTRACTS[LOCAL_STAGE].USDT!.address;
  return {
    network: 'tron',
    described: "the tests' fixture Tron node (test/support/tron-node.ts), TRX and USDT",
    environment: { GATEWAY_RPC_TRON: node.url },
    fundTreasury: async (signer) => {
      const treasury = treasuryAddress('tron', await signer.publicKey('tron'), LOCAL_STAGE);
      node.wallet.fund(treasury, 10n ** 15n);
      node.wallet.fundToken(usdt, treasury, 10n ** 15n);
    },
    includePending: async () => void node.minePending(),
    mine: async (blocks) => {
      node.minePending();
      node.mineEmpty(blocks - 1);
    },
    holdingBlocks: (work) => work(),
    stop: async () => node.close(),
  };
}

/** A sendtoaddress spends the wallet's unconfirmed change: a block every so many keeps its chains of them under the mempool's limit of 25. */
const BITCOIN_SENDS_PER_BLOCK = 10;

async function bitcoinNode(): Promise<PayoutNode> {
  // The node wallet syncs each transaction it sends to disk: on tmpfs it funds the treasury faster.
  const dataDir = await mkdtemp(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'gateway-bitcoin-payouts-'));
  let node: BitcoinNode;
  try {
    node = await BitcoinNode.start({ dataDir });
    await node.fund();
  } catch (error) {
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
  return {
    network: 'bitcoin',
    described: 'litecoind in regtest (infra/chain/bitcoin-node.ts), BTC',
    environment: { GATEWAY_RPC_BITCOIN: node.rpcUrl },
    // A payout spends the treasury's largest confirmed output that no transaction in the mempool spends: one output each, confirmed.
    fundTreasury: async (signer, payouts) => {
      const treasury = treasuryAddress('bitcoin', await signer.publicKey('bitcoin'), LOCAL_STAGE);
      for (let sent = 1; sent <= payouts; sent++) {
        await node.send(treasury, '0.01');
        if (sent % BITCOIN_SENDS_PER_BLOCK === 0) await node.mine(1);
      }
      await node.mine(1);
    },
    includePending: async () => void (await node.mine(1)),
    mine: async (blocks) => void (await node.mine(blocks)),
    holdingBlocks: (work) => work(),
    stop: async () => {
      await node.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

const NODES: Record<PayoutNetwork, () => Promise<PayoutNode>> = { ethereum: ethereumNode, tron: tronNode, bitcoin: bitcoinNode };

/** The treasury signer's calls, counted. */
interface SignerCalls {
  sign: number;
  publicKey: number;
}

/** Counts the calls made to `signer` through the port from now on; what it answers is unchanged. */
function countCalls(signer: TreasurySigner): SignerCalls {
  const calls: SignerCalls = { sign: 0, publicKey: 0 };
  const { sign, publicKey } = signer;
  signer.sign = (family, digest) => {
    calls.sign++;
    return sign.call(signer, family, digest);
  };
  signer.publicKey = (family) => {
    calls.publicKey++;
    return publicKey.call(signer, family);
  };
  return calls;
}

const callsSince = (calls: SignerCalls, before: SignerCalls): SignerCalls => ({ sign: calls.sign - before.sign, publicKey: calls.publicKey - before.publicKey });

/**
 * The gateway's functions as the benchmark drives them, loaded once the environment names the
 * nodes (the functions read it when first loaded): the merchant's requests, the sender, the
 * watcher, the ledger, and the signer's calls and the capacity used, counted.
 */
async function gatewayOver(stores: BenchStores, networks: readonly PayoutNetwork[]) {
  const [{ config }, { dynamoClient, documentClient }, { handNextQueued }, { DynamoTransactionStore }, { invoke, loadFunction }, { seedMerchant }, { payoutAddresses }, { fundBalance }, { treasury }] =
    await Promise.all([
      import('../shared/config.js'),
      import('../shared/store/dynamo.js'),
      import('../test/support/payout-flow.js'),
      import('../shared/store/transactions.js'),
      import('../test/support/invoke.js'),
      import('../test/support/merchants.js'),
      import('../test/support/payout-addresses.js'),
      import('../test/support/balances.js'),
      import('../functions/commons/payouts.js'),
    ]);
  const meter = new CapacityMeter();
  meter.instrument(dynamoClient);
  // The functions' signer, shared by create-payout, send-payout and watch-chain in this process.
  const signerCalls = countCalls(treasury);
  const run = invoker(loadFunction);
  const definition = (name: string) => FUNCTIONS.find((fn) => fn.name === name)!;
  const ledger = new DynamoTransactionStore(documentClient, config().tables);

  const merchant = await seedMerchant({ name: 'Payouts bench merchant' });
  for (const network of networks) await payoutAddresses().add(merchant.merchant.id, { network, address: RECIPIENTS[network] }, 'operator');
  const currencies = new Set(networks.flatMap((network) => ASSETS[network].map((asset) => asset.currency)));
  for (const currency of currencies) await fundBalance(merchant.merchant.id, currency, MERCHANT_FUNDS[currency]!);

  const tableKeys = new Map(Object.entries(stores.tables).map(([key, name]) => [name, key]));

  return {
    meter,
    signerCalls,
    /** The treasury keys of the functions, read apart from them: its calls are not counted. */
    keys: new KeyFileTreasurySigner(treasuryKeyDirectory(stores.dataDir)),
    /** `table/index` under the table's key rather than its local name. */
    tableName: (name: string) => name.replace(/^[^/]+/, (table) => tableKeys.get(table) ?? table),

    /** Asks for a payout as a merchant does; its id, once answered 200. */
    async pay(network: PayoutNetwork, asset: Asset): Promise<string> {
      const response = await invoke('create-payout', {
        apiKey: merchant.apiKey,
        headers: { 'idempotency-key': randomUUID() },
        body: { ...asset, network, address: RECIPIENTS[network], orderId: `bench-${randomUUID()}` },
      });
      if (response.status !== 200) throw new Error(`create-payout answered ${response.status}: ${JSON.stringify(response.body)}`);
      return response.body.data.id as string;
    },

    /** A request that only the authorizer's cached answer serves: what a payout asked for within 30 s of another finds. */
    async warmAuthorizer(): Promise<void> {
      await invoke('list-balances', { apiKey: merchant.apiKey });
    },

    /**
     * The payouts queue's messages handed to send-payout one at a time, as the FIFO queue's message
     * group hands them to one sender, until `count` were sent or `stop` says so: when send-payout
     * returned for each payout (in `sent`), how long each took, and how many failed and were
     * handed again at once (rather than after the queue's visibility timeout).
     */
    async sendQueued(count: number, sent: Map<string, number>, stop = () => false): Promise<{ durations: number[]; retries: number }> {
      const durations: number[] = [];
      let retries = 0;
      const deadline = Date.now() + SEND_TIMEOUT_MS;
      while (durations.length < count && !stop()) {
        if (Date.now() > deadline) throw new Error(`send-payout sent ${durations.length} of ${count} payouts within ${SEND_TIMEOUT_MS / 1000} s`);
        const handed = await handNextQueued();
        if (!handed) continue;
        if (handed.failed) {
          if (++retries > SEND_RETRIES) throw new Error(`send-payout failed ${retries} times (its warnings above say why)`);
          continue;
        }
        durations.push(handed.returned - handed.started);
        sent.set(handed.transactionId, handed.returned);
      }
      return { durations, retries };
    },

    /** One invocation of the network's watcher, one run; a failed run fails the benchmark. */
    async watchOnce(network: PayoutNetwork): Promise<WatchResult> {
      const result = (await run(definition('watch-chain'), { network })) as WatchResult;
      if ('runFailed' in result) throw new Error(`A ${network} watcher run failed (its error is logged above)`);
      return result;
    },

    async statusOf(id: string): Promise<string | undefined> {
      return (await ledger.get(id))?.status;
    },
  };
}

type Gateway = Awaited<ReturnType<typeof gatewayOver>>;

interface SendFigures {
  payouts: number;
  assets: string;
  /** Payouts a second of send-payout's own time: what its one sender keeps up back to back. */
  senderRate: number;
  meanSendMs: number;
  /** Payouts a second from the first request to the last broadcast. */
  endToEndRate: number;
  latency: { p50: number; p95: number };
  answerP50: number;
  retries: number;
  confirmed: number;
  signer: SignerCalls;
}

/** `options.payouts` payouts asked for `options.concurrency` at a time while the sender sends them; then mined deep enough and settled. */
async function sendRate(gateway: Gateway, node: PayoutNode, options: Options): Promise<SendFigures> {
  const assets = ASSETS[node.network];
  const answered = new Map<string, number>();
  const broadcast = new Map<string, number>();
  const answerMs: number[] = [];
  const calls = { ...gateway.signerCalls };
  let failure: unknown;
  let next = 0;
  const first = performance.now();
  const requests = Promise.all(
    Array.from({ length: options.concurrency }, async () => {
      while (next < options.payouts && failure === undefined) {
        const asset = assets[next++ % assets.length]!;
        const asked = performance.now();
        try {
          const id = await gateway.pay(node.network, asset);
          const at = performance.now();
          answered.set(id, at);
          answerMs.push(at - asked);
        } catch (error) {
          failure = error;
        }
      }
    }),
  );
  const [sending] = await Promise.allSettled([gateway.sendQueued(options.payouts, broadcast, () => failure !== undefined), requests]);
  if (failure !== undefined) throw failure;
  if (sending.status === 'rejected') throw sending.reason;
  const signer = callsSince(gateway.signerCalls, calls);

  await node.mine(DEFAULT_CONFIRMATIONS[node.network]);
  await catchUp(() => gateway.watchOnce(node.network));
  const statuses = await Promise.all([...answered.keys()].map((id) => gateway.statusOf(id)));

  const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
  const latencies = sorted([...answered].map(([id, at]) => broadcast.get(id)! - at));
  const busyMs = sending.value.durations.reduce((sum, ms) => sum + ms, 0);
  return {
    payouts: options.payouts,
    assets: assets.map((asset) => asset.currency).join(' and '),
    senderRate: (options.payouts / busyMs) * 1000,
    meanSendMs: busyMs / options.payouts,
    endToEndRate: (options.payouts / (Math.max(...broadcast.values()) - first)) * 1000,
    latency: { p50: percentile(latencies, 50), p95: percentile(latencies, 95) },
    answerP50: percentile(sorted(answerMs), 50),
    retries: sending.value.retries,
    confirmed: statuses.filter((status) => status === 'confirmed').length,
    signer,
  };
}

interface Step {
  units: ReadWriteUnits;
  signer: SignerCalls;
}

interface CapacityFigures {
  currency: string;
  create: Step;
  send: Step;
  /** The watcher's runs that saw the payout (one waiting at depth 1, the one that settled it) less idle runs over as many new blocks. */
  settle: Step;
  /** A watcher run while the payout waits for its depth, and one with nothing to follow, over one new block each. */
  waitingRun: ReadWriteUnits;
  idleRun: ReadWriteUnits;
}

/** Each table's and the totals' units of `units` less those of `less`. */
function minus(units: ReadWriteUnits, less: ReadWriteUnits): ReadWriteUnits {
  const byTable: ReadWriteUnits['byTable'] = {};
  for (const name of new Set([...Object.keys(units.byTable), ...Object.keys(less.byTable)])) {
    const [a, b] = [units.byTable[name] ?? { read: 0, write: 0 }, less.byTable[name] ?? { read: 0, write: 0 }];
    if (a.read !== b.read || a.write !== b.write) byTable[name] = { read: a.read - b.read, write: a.write - b.write };
  }
  return { read: units.read - less.read, write: units.write - less.write, transactional: units.transactional - less.transactional, byTable };
}

function plus(...all: ReadWriteUnits[]): ReadWriteUnits {
  const total: ReadWriteUnits = { read: 0, write: 0, transactional: 0, byTable: {} };
  for (const units of all) {
    total.read += units.read;
    total.write += units.write;
    total.transactional += units.transactional;
    for (const [name, { read, write }] of Object.entries(units.byTable)) {
      total.byTable[name] ??= { read: 0, write: 0 };
      total.byTable[name].read += read;
      total.byTable[name].write += write;
    }
  }
  return total;
}

/** One payout of the network's last asset, its DynamoDB calls and the signer's calls metered at each step, from request to settlement. */
async function onePayout(gateway: Gateway, node: PayoutNode): Promise<CapacityFigures> {
  const { network } = node;
  const depth = DEFAULT_CONFIRMATIONS[network];
  const asset = ASSETS[network].at(-1)!;
  const step = async <T>(work: () => Promise<T>): Promise<Step & { result: T; calls: MeteredCall[] }> => {
    const before = { ...gateway.signerCalls };
    const { result, calls } = await gateway.meter.measure(work);
    return { result, calls, units: readWriteUnits(calls), signer: callsSince(gateway.signerCalls, before) };
  };
  const watch = () => step(() => gateway.watchOnce(network));

  // The cursor remembers the hashes of the last 2 x depth + 16 blocks (NetworkWatcher's memory), and
  // its item grows until it does: full before the runs are compared, it costs each run the same.
  await node.mine(depth * 2 + 16);
  await catchUp(() => gateway.watchOnce(network));
  await gateway.warmAuthorizer();
  const create = await step(() => gateway.pay(network, asset));
  const id = create.result;
  const send = await step(() => gateway.sendQueued(1, new Map()));
  await node.includePending();
  const waiting = await watch();
  await node.mine(depth - 1);
  const settling = await watch();
  const status = await gateway.statusOf(id);
  if (status !== 'confirmed') throw new Error(`The metered ${network} payout is ${status} after its depth's blocks and a watcher run`);
  // The same runs with nothing to follow: what the watcher spends over as many new blocks, payouts or not.
  await node.mine(1);
  const idleShort = await watch();
  await node.mine(depth - 1);
  const idleDeep = await watch();
  return {
    currency: asset.currency,
    create,
    send,
    settle: {
      units: plus(minus(waiting.units, idleShort.units), minus(settling.units, idleDeep.units)),
      signer: { sign: waiting.signer.sign + settling.signer.sign, publicKey: waiting.signer.publicKey + settling.signer.publicKey },
    },
    waitingRun: waiting.units,
    idleRun: idleShort.units,
  };
}

interface ConfirmFigures {
  depth: number;
  /** Milliseconds from send-payout's return to the end of the watcher run that confirmed each payout. */
  times: number[];
}

/**
 * `options.confirmPayouts` payouts asked for together and sent, while the node mines a block every
 * `options.blockMs` and the watcher runs every `options.pollMs`: the time from each broadcast to
 * the watcher run that settled it confirmed.
 */
async function confirmationTimes(gateway: Gateway, node: PayoutNode, options: Options): Promise<ConfirmFigures> {
  const { network } = node;
  const depth = DEFAULT_CONFIRMATIONS[network];
  const assets = ASSETS[network];
  return node.holdingBlocks(async () => {
    const broadcast = new Map<string, number>();
    const confirmedAt = new Map<string, number>();
    let done = false;
    let failure: unknown;
    const everyInterval = async (ms: number, work: () => Promise<unknown>) => {
      while (!done) {
        const started = performance.now();
        try {
          await work();
        } catch (error) {
          failure ??= error;
          done = true;
        }
        await sleep(Math.max(0, ms - (performance.now() - started)));
      }
    };
    const mining = everyInterval(options.blockMs, () => node.mine(1));
    const watching = everyInterval(options.pollMs, async () => {
      await gateway.watchOnce(network);
      const ranUntil = performance.now();
      for (const id of broadcast.keys()) {
        if (!confirmedAt.has(id) && (await gateway.statusOf(id)) === 'confirmed') confirmedAt.set(id, ranUntil);
      }
      if (confirmedAt.size === options.confirmPayouts) done = true;
    });
    const deadline = Date.now() + depth * options.blockMs * 4 + SEND_TIMEOUT_MS;
    try {
      const ids = await Promise.all(Array.from({ length: options.confirmPayouts }, (_, i) => gateway.pay(network, assets[i % assets.length]!)));
      await gateway.sendQueued(ids.length, broadcast, () => done);
      while (!done && Date.now() < deadline) await sleep(options.pollMs);
      if (failure !== undefined) throw failure;
      if (confirmedAt.size < ids.length) throw new Error(`${confirmedAt.size} of ${ids.length} ${network} payouts were confirmed in time`);
      return { depth, times: ids.map((id) => confirmedAt.get(id)! - broadcast.get(id)!) };
    } finally {
      done = true;
      await Promise.all([mining, watching]);
    }
  });
}

interface NetworkFigures {
  node: PayoutNode;
  /** The signer's calls of the network's first payouts, one of each asset, asked for and sent before anything is timed. */
  first?: SignerCalls;
  send?: SendFigures;
  capacity?: CapacityFigures;
  confirm?: ConfirmFigures;
  /** Why the network's figures stop short, if they do. */
  error?: string;
}

const grouped = (value: number, digits = 0): string => value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const rw = (units: { read: number; write: number }): string => `${grouped(units.read, 1)} R / ${grouped(units.write, 1)} W`;
const signerText = (calls: SignerCalls): string => `sign ${calls.sign}, publicKey ${calls.publicKey}`;
const seconds = (ms: number): string => `${grouped(ms / 1000, 2)} s`;
const duration = (totalSeconds: number): string => (totalSeconds < 120 ? `${grouped(totalSeconds)} s` : `${grouped(totalSeconds / 60, 1)} min`);

function printSends(figures: readonly NetworkFigures[], options: Options): void {
  console.log(
    `sends: ${options.payouts} payouts a network after one of each asset, ${options.concurrency} requests at a time, one sender a network (the FIFO queue's message group); ` +
      `latency from create-payout's answer to send-payout's return, broadcast`,
  );
  for (const { node, send } of figures) {
    if (!send) continue;
    const perBlock = send.senderRate * BLOCK_SECONDS[node.network];
    console.log(
      `${node.network.padEnd(9)} ${send.payouts} payouts (${send.assets}): sender ${grouped(send.senderRate, 1)} payouts/s (${grouped(send.meanSendMs)} ms a send-payout), end to end ${grouped(send.endToEndRate, 1)}/s; ` +
        `request to broadcast p50 ${grouped(send.latency.p50)} ms, p95 ${grouped(send.latency.p95)} ms; create-payout answered p50 ${grouped(send.answerP50)} ms`,
    );
    console.log(
      `          reference: a mainnet block every ${BLOCK_SECONDS[node.network]} s, so one sender broadcasts up to ${grouped(perBlock)} payouts a block; ` +
        `${send.confirmed} of ${send.payouts} confirmed once mined deep enough${send.retries > 0 ? `; ${send.retries} send-payout failures handed again` : ''}`,
    );
  }
}

/** Each table's units, its indexes' writes beside its own: `transactions 2 R / 10 W + 60 W in 6 indexes`. */
function byTableText(units: ReadWriteUnits, tableName: (name: string) => string): string {
  const tables = new Map<string, { read: number; write: number; indexRead: number; indexWrite: number; indexes: number }>();
  for (const [name, used] of Object.entries(units.byTable)) {
    const [table, index] = tableName(name).split('/') as [string, string | undefined];
    const entry = tables.get(table) ?? { read: 0, write: 0, indexRead: 0, indexWrite: 0, indexes: 0 };
    if (index === undefined) Object.assign(entry, { read: entry.read + used.read, write: entry.write + used.write });
    else Object.assign(entry, { indexRead: entry.indexRead + used.read, indexWrite: entry.indexWrite + used.write, indexes: entry.indexes + 1 });
    tables.set(table, entry);
  }
  return [...tables]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([table, { read, write, indexRead, indexWrite, indexes }]) => {
      const inIndexes = indexes === 0 ? '' : ` + ${indexRead > 0 ? `${rw({ read: indexRead, write: indexWrite })}` : `${grouped(indexWrite, 1)} W`} in ${indexes} ${indexes === 1 ? 'index' : 'indexes'}`;
      return `${table} ${rw({ read, write })}${inIndexes}`;
    })
    .join(', ');
}

function printCapacity(figures: readonly NetworkFigures[], tableName: (name: string) => string): void {
  console.log(
    `capacity of one payout, request to settlement: read (R) and write (W) units as DynamoDB Local reports them; the authorizer's answer cached (30 s a key); ` +
      `settle: the watcher's runs that followed it less idle runs over as many blocks`,
  );
  console.log(
    `  (DynamoDB Local bills a TransactWriteItems once where AWS bills it twice: AWS's writes are given beside); reference: the cost estimate's confirmed deposit with its callback, ` +
      `entries and balance, ${rw(DEPOSIT_UNITS)}, of which an accepted withdrawal's reserve adds ${rw(WITHDRAWAL_RESERVE)} (docs/operations.md)`,
  );
  for (const { node, capacity } of figures) {
    if (!capacity) continue;
    const total = plus(capacity.create.units, capacity.send.units, capacity.settle.units);
    const aws = (units: ReadWriteUnits) => `, AWS ${grouped(units.write + units.transactional, 1)} W`;
    console.log(
      `${node.network.padEnd(9)} ${capacity.currency}: create ${rw(capacity.create.units)}${aws(capacity.create.units)}; send ${rw(capacity.send.units)}${aws(capacity.send.units)}; ` +
        `settle ${rw(capacity.settle.units)}${aws(capacity.settle.units)}; in all ${rw(total)}${aws(total)}`,
    );
    console.log(`          by table: ${byTableText(total, tableName)}`);
    const runs = Math.ceil((DEFAULT_CONFIRMATIONS[node.network] * BLOCK_SECONDS[node.network]) / AWS_POLL_SECONDS);
    const extra = minus(capacity.waitingRun, capacity.idleRun);
    console.log(
      `          a watcher run while it waits for its depth: ${rw(capacity.waitingRun)} (idle: ${rw(capacity.idleRun)}); at mainnet's ${DEFAULT_CONFIRMATIONS[node.network]} blocks of ${BLOCK_SECONDS[node.network]} s, ` +
        `a run every ${AWS_POLL_SECONDS} s: about ${grouped(runs)} runs, ${rw({ read: extra.read * runs, write: extra.write * runs })} more than idle ones`,
    );
  }
}

function printKms(figures: readonly NetworkFigures[]): void {
  console.log(
    'KMS requests of one payout: the treasury signer port wrapped and its calls counted. In AWS a sign call is one KMS Sign request, a publicKey call one GetPublicKey request ' +
      "unless the container read that key before (the KMS signer keeps it for the container's life; its first sign reads it too)",
  );
  for (const { node, capacity, send, first } of figures) {
    if (!capacity || !send || !first) continue;
    const { create, send: sent, settle } = capacity;
    const signs = create.signer.sign + sent.signer.sign + settle.signer.sign;
    console.log(
      `${node.network.padEnd(9)} ${capacity.currency}: create ${signerText(create.signer)}; send ${signerText(sent.signer)}; settle ${signerText(settle.signer)}: ` +
        `${signs} Sign request(s) a payout, $${(signs * KMS_REQUEST_USD).toFixed(6)} at $0.03 per 10,000`,
    );
    // Every function of this process shares one adapter a network, which reads the key once: in AWS each function's container has its own.
    console.log(
      `          the network's first ${ASSETS[node.network].length} payout(s), one of each asset: ${signerText(first)} (the adapter reads the key at its first use: in AWS once in each container ` +
        `of create-payout, send-payout and watch-chain); the ${send.payouts} after them: ${signerText(send.signer)}`,
    );
  }
}

function printConfirmations(figures: readonly NetworkFigures[], options: Options): void {
  console.log(
    `broadcast to confirmed: a block every ${options.blockMs} ms on the local node, a watcher run every ${options.pollMs} ms, ${options.confirmPayouts} payouts a network; ` +
      `from send-payout's return to the end of the watcher run that confirmed each`,
  );
  for (const { node, confirm } of figures) {
    if (!confirm) continue;
    const sorted = [...confirm.times].sort((a, b) => a - b);
    const mainnet = confirm.depth * BLOCK_SECONDS[node.network];
    console.log(
      `${node.network.padEnd(9)} depth ${confirm.depth}: p50 ${seconds(percentile(sorted, 50))}, max ${seconds(sorted.at(-1)!)}; depth x block interval ${seconds(confirm.depth * options.blockMs)}; ` +
        `on mainnet ${confirm.depth} x ${BLOCK_SECONDS[node.network]} s = ${duration(mainnet)}, and up to a watcher poll (${AWS_POLL_SECONDS} s) more`,
    );
  }
}

export async function payoutsBenchmark(args: string[]): Promise<void> {
  const options = parseOptions(args);
  const started = await Promise.allSettled([startBenchStores('payouts'), ...options.networks.map((network) => NODES[network]())] as const);
  const [stores, ...nodes] = started;
  const stop = () => Promise.allSettled(started.map((each) => (each.status === 'fulfilled' ? each.value.stop() : undefined)));
  if (stores.status === 'rejected') {
    await stop();
    throw stores.reason;
  }
  try {
    const running: PayoutNode[] = [];
    const skipped: Array<[PayoutNetwork, string]> = [];
    nodes.forEach((node, i) => {
      if (node.status === 'fulfilled') running.push(node.value as PayoutNode);
      else skipped.push([options.networks[i]!, node.reason instanceof Error ? node.reason.message : String(node.reason)]);
    });
    Object.assign(process.env, ...running.map((node) => node.environment), { POWERTOOLS_LOG_LEVEL: 'WARN' });
    const gateway = await gatewayOver(
      stores.value,
      running.map((node) => node.network),
    );
    // Each Bitcoin payout spends an output of its own: the first, the run's payouts, the metered one and the timed ones.
    for (const node of running) await node.fundTreasury(gateway.keys, options.payouts + options.confirmPayouts + 2);

    const figures: NetworkFigures[] = [];
    for (const node of running) {
      const network: NetworkFigures = { node };
      figures.push(network);
      try {
        // The watcher's cursor set and the blocks that funded the treasury read, and one payout of each
        // asset asked for and sent (the functions' modules loaded, the node's first answers), before anything is timed.
        await catchUp(() => gateway.watchOnce(node.network));
        const before = { ...gateway.signerCalls };
        for (const asset of ASSETS[node.network]) await gateway.pay(node.network, asset);
        await gateway.sendQueued(ASSETS[node.network].length, new Map());
        network.first = callsSince(gateway.signerCalls, before);
        network.send = await sendRate(gateway, node, options);
        network.capacity = await onePayout(gateway, node);
        network.confirm = await confirmationTimes(gateway, node, options);
      } catch (error) {
        network.error = error instanceof Error ? error.message : String(error);
      }
    }

    console.log(`networks: ${running.map((node) => `${node.network} (${node.described})`).join('; ') || 'none started'}`);
    for (const [network, reason] of skipped) console.log(`${network.padEnd(9)} not measured: its node did not start (${reason})`);
    if (figures.some((network) => network.send)) printSends(figures, options);
    if (figures.some((network) => network.capacity)) {
      printCapacity(figures, gateway.tableName);
      printKms(figures);
    }
    if (figures.some((network) => network.confirm)) printConfirmations(figures, options);
    for (const { node, error } of figures) if (error) console.log(`${node.network.padEnd(9)} stopped short: ${error}`);
  } finally {
    await stop();
  }
}
