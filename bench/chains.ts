/**
 * Each chain family's reader and watcher, side by side. Readers: the blocks and transfers a
 * second `NetworkReader.blocks` reads, as the watcher reads them (shared/chain/network-readers.ts),
 * from a Bitcoin regtest node, a Tron fixture server and a Hardhat node, each filled with blocks
 * that hold transfers to strangers, beside the rate its chain makes blocks. Watchers: the DynamoDB
 * capacity each detected deposit costs, measured as the chain-watcher benchmark measures
 * Ethereum's (the watch-chain function over DynamoDB Local, every call's ReturnConsumedCapacity),
 * and what the owner look-ups of transfers to no customer cost.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { bech32 } from '@scure/base';
import { getAddress, type Address } from 'viem';
import { BitcoinNode, nodeAddressFor } from '../infra/chain/bitcoin-node.js';
import { compileTestToken, startLocalChain, type LocalChain, type Transfer } from '../infra/chain/local-chain.js';
import { networkReaderOf } from '../shared/chain/network-readers.js';
import { CHAIN_BLOCKS_PER_RUN } from '../shared/domain/payments/chain-watcher.js';
import type { NetworkReader } from '../shared/domain/chains/chain.js';
import { TRON_TOKEN_CONTRACTS } from '../shared/domain/chains/networks.js';
import { startBenchStores, type BenchStores } from './bench-stores.js';
import { CapacityMeter, type MeteredCall } from './capacity-meter.js';
import { median } from './cold-imports.js';
import { positiveOption } from './options.js';
import { catchUp } from './watcher-runs.js';
import { busyBlockTransactions, fixtureTxId, randomTronAddress, tokenPayment, TronFixtureNode } from './tron-fixture-node.js';

export const DESCRIPTION = "chain readers and watchers per family: blocks and transfers read a second against each chain's block time, capacity per detected deposit";

type BenchNetwork = 'bitcoin' | 'tron' | 'ethereum';
const NETWORKS: readonly BenchNetwork[] = ['bitcoin', 'tron', 'ethereum'];

/** Seconds between blocks on each mainnet. */
export const BLOCK_SECONDS: Record<BenchNetwork, number> = { bitcoin: 600, tron: 3, ethereum: 12 };

/**
 * A reader keeps up with margin when it reads at least this many times as fast as its chain makes
 * blocks: a watcher an hour behind (an outage of its node) is back at the head within 7 minutes.
 */
const HEAD_ROOM_GOAL = 10;

/**
 * Roughly what a busy mainnet block holds, in the transfers the reader yields, when the blocks read
 * here are smaller: a full Bitcoin block is some 3,500 transactions of about 3 outputs; an Ethereum
 * block some 200 transactions. The reading rate is scaled to them, assuming a reader's time grows
 * with the transfers it reads. Tron's blocks here are already mainnet-sized.
 */
const MAINNET_TRANSFERS_PER_BLOCK: Partial<Record<BenchNetwork, number>> = { bitcoin: 10_000, ethereum: 200 };

/** Bitcoin blocks of tens of outputs: several transactions, each paying several strangers and its change. */
const BITCOIN_TRANSACTIONS_PER_BLOCK = 6;
const BITCOIN_OUTPUTS_PER_TRANSACTION = 8;
const EVM_TRANSFERS_PER_BLOCK = 20;
/** About Tron mainnet's height: cosmetic, but it keeps the watcher's first look back above block 0. */
const TRON_START_HEIGHT = 70_000_000;
/** Deposits a block, as the chain-watcher benchmark sends them. */
const DEPOSITS_PER_BLOCK = 20;

interface Options {
  blocks: number;
  evmBlocks: number;
  tronTransactions: number;
  deposits: number;
  runs: number;
}

function parseOptions(args: string[]): Options {
  const { values } = parseArgs({
    args,
    strict: true,
    options: {
      blocks: { type: 'string', default: '300' },
      'evm-blocks': { type: 'string', default: '50' },
      'tron-transactions': { type: 'string', default: '300' },
      deposits: { type: 'string', default: '100' },
      runs: { type: 'string', default: '3' },
    },
  });
  return {
    blocks: positiveOption('blocks', values.blocks, true),
    evmBlocks: positiveOption('evm-blocks', values['evm-blocks'], true),
    tronTransactions: positiveOption('tron-transactions', values['tron-transactions'], true),
    deposits: positiveOption('deposits', values.deposits, true),
    runs: positiveOption('runs', values.runs, true),
  };
}

/** What runs the benchmark: the three chains and the stores. */
interface Chains {
  bitcoin: BitcoinNode;
  tron: TronFixtureNode;
  evm: LocalChain;
  stores: BenchStores;
  /** Stops everything, the Bitcoin node's data removed. */
  stop(): Promise<void>;
}

/** A network's chain with blocks of transfers to strangers: the range to read, and how to pay customers. */
interface FilledNetwork {
  network: BenchNetwork;
  reader: NetworkReader;
  first: number;
  last: number;
  /** What its blocks hold and where they come from, for the figures. */
  content: string;
  /** The invoice a customer pays on it. */
  invoice: { baseCurrency: 'BTC' | 'USDT'; amount: number };
  /** Pays each address its invoice's amount, in one new block. */
  pay(addresses: readonly string[]): Promise<void>;
}

/** A random P2WPKH address in the node wallet's own format: an output to no one the gateway knows. */
const randomBitcoinAddress = (): string => nodeAddressFor(bech32.encode('tb', [0, ...bech32.toWords(randomBytes(20))]));
const randomEvmAddress = (): Address => getAddress(`0x${randomBytes(20).toString('hex')}`);

const SATOSHIS_PER_COIN = 100_000_000n;
const coinsText = (satoshis: bigint): string => `${satoshis / SATOSHIS_PER_COIN}.${(satoshis % SATOSHIS_PER_COIN).toString().padStart(8, '0')}`;
const satoshisOf = (coins: string): bigint => {
  const [whole, fraction = ''] = coins.split('.');
  return BigInt(whole!) * SATOSHIS_PER_COIN + BigInt(fraction.padEnd(8, '0'));
};

/**
 * Pays from one coin of the node wallet along a chain of its own change, each transaction built
 * here (createrawtransaction) and signed by the wallet: the wallet's sendmany looks through every
 * transaction it ever sent, and grows to over 100 ms a call within a few hundred.
 */
class BitcoinPayer {
  private constructor(
    private readonly node: BitcoinNode,
    private readonly changeAddress: string,
    private coin: { txid: string; vout: number; satoshis: bigint },
  ) {}

  /** Mines until a coin of the node wallet can be spent, and spends from it. */
  static async of(node: BitcoinNode): Promise<BitcoinPayer> {
    await node.fund();
    const coins = (await node.rpc('listunspent')) as Array<{ txid: string; vout: unknown; amount: unknown }>;
    const [coin] = coins.map((each) => ({ txid: each.txid, vout: Number(String(each.vout)), satoshis: satoshisOf(String(each.amount)) })).sort((a, b) => Number(b.satoshis - a.satoshis));
    if (!coin) throw new Error('The node wallet has no coin to spend');
    return new BitcoinPayer(node, await node.rpc('getnewaddress', ['', 'bech32']), coin);
  }

  /** One transaction paying each address (the node wallet's format) its satoshis, its change last; into the mempool. */
  async pay(outputs: ReadonlyArray<readonly [address: string, satoshis: bigint]>): Promise<void> {
    const fee = 10_000n + 2_000n * BigInt(outputs.length);
    const change = this.coin.satoshis - outputs.reduce((sum, [, satoshis]) => sum + satoshis, 0n) - fee;
    if (change <= 0n) throw new Error('The coin paying the benchmark ran out');
    const raw = await this.node.rpc('createrawtransaction', [
      [{ txid: this.coin.txid, vout: this.coin.vout }],
      [...outputs.map(([address, satoshis]) => ({ [address]: coinsText(satoshis) })), { [this.changeAddress]: coinsText(change) }],
    ]);
    const signed = (await this.node.rpc('signrawtransactionwithwallet', [raw])) as { hex: string; complete: boolean };
    if (!signed.complete) throw new Error('The node wallet did not sign the benchmark transaction');
    this.coin = { txid: await this.node.rpc('sendrawtransaction', [signed.hex]), vout: outputs.length, satoshis: change };
  }
}

const BITCOIN_OUTPUT_SATOSHIS = 100_000n;

async function fillBitcoin(node: BitcoinNode, blocks: number): Promise<FilledNetwork> {
  const payer = await BitcoinPayer.of(node);
  const first = Number(String(await node.rpc('getblockcount'))) + 1;
  for (let block = 0; block < blocks; block++) {
    for (let transaction = 0; transaction < BITCOIN_TRANSACTIONS_PER_BLOCK; transaction++) {
      await payer.pay(Array.from({ length: BITCOIN_OUTPUTS_PER_TRANSACTION }, () => [randomBitcoinAddress(), BITCOIN_OUTPUT_SATOSHIS] as const));
    }
    await node.mine(1);
  }
  return {
    network: 'bitcoin',
    reader: networkReaderOf('bitcoin', { tokens: {}, confirmations: 1, watched: true, rpcUrl: node.rpcUrl }),
    first,
    last: first + blocks - 1,
    content: `${BITCOIN_TRANSACTIONS_PER_BLOCK} transactions of ${BITCOIN_OUTPUTS_PER_TRANSACTION} outputs and change a block; regtest node`,
    invoice: { baseCurrency: 'BTC', amount: Number(coinsText(BITCOIN_OUTPUT_SATOSHIS)) },
    pay: async (addresses) => {
      await payer.pay(addresses.map((address) => [nodeAddressFor(address), BITCOIN_OUTPUT_SATOSHIS] as const));
      await node.mine(1);
    },
  };
}

function fillTron(node: TronFixtureNode, blocks: number, transactionsPerBlock: number): FilledNetwork {
  const usdt = TRON_TOKEN_CONTRACTS.demo.USDT!.address;
  const tokens = { usdt, other: randomTronAddress() };
  const first = node.head + 1;
  for (let block = 0; block < blocks; block++) node.add(busyBlockTransactions(node.head + 1, transactionsPerBlock, tokens));
  return {
    network: 'tron',
    reader: networkReaderOf('tron', { tokens: TRON_TOKEN_CONTRACTS.demo, confirmations: 1, watched: true, rpcUrl: node.url }),
    first,
    last: node.head,
    content: `${transactionsPerBlock} transactions a block, 6 in 10 USDT, 3 TRX, 1 another token; fixture server`,
    invoice: { baseCurrency: 'USDT', amount: 25 },
    pay: async (addresses) => {
      const number = node.head + 1;
      node.add(addresses.map((to, index) => tokenPayment(fixtureTxId(number, index), number, usdt, to, 25_000_000n)));
    },
  };
}

async function fillEvm(chain: LocalChain, usdt: Address, blocks: number): Promise<FilledNetwork> {
  const first = Number(await chain.headNumber()) + 1;
  for (let block = 0; block < blocks; block++) {
    await chain.sendMany(
      Array.from({ length: EVM_TRANSFERS_PER_BLOCK }, (_, i): Transfer => (i % 2 === 0 ? { to: randomEvmAddress(), amount: '0.001' } : { to: randomEvmAddress(), amount: '1.5', token: usdt })),
    );
  }
  return {
    network: 'ethereum',
    reader: networkReaderOf('ethereum', { tokens: { USDT: { address: usdt, decimals: 6 } }, confirmations: 1, watched: true, rpcUrl: chain.rpcUrl }),
    first,
    last: first + blocks - 1,
    content: `${EVM_TRANSFERS_PER_BLOCK} transfers a block, half ETH, half USDT; Hardhat node`,
    invoice: { baseCurrency: 'USDT', amount: 25 },
    pay: async (addresses) => {
      await chain.sendMany(addresses.map((to): Transfer => ({ to: to as Address, amount: '25', token: usdt })));
    },
  };
}

/** The median time of `runs` reads of the whole range, and the transfers it yields. */
async function timeReader(filled: FilledNetwork, runs: number): Promise<{ blocks: number; transfers: number; seconds: number }> {
  const times: number[] = [];
  let transfers = 0;
  for (let run = 0; run < runs; run++) {
    const start = performance.now();
    const blocks = await filled.reader.blocks(filled.first, filled.last);
    times.push((performance.now() - start) / 1000);
    transfers = blocks.reduce((sum, block) => sum + block.transfers.length, 0);
  }
  return { blocks: filled.last - filled.first + 1, transfers, seconds: median(times) };
}

const grouped = (value: number, digits = 0): string => value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const units = (calls: readonly MeteredCall[]): number => calls.reduce((sum, call) => sum + call.capacity, 0);

function printReader(filled: FilledNetwork, read: { blocks: number; transfers: number; seconds: number }): void {
  const blockSeconds = BLOCK_SECONDS[filled.network];
  const blocksPerSecond = read.blocks / read.seconds;
  const transfersPerSecond = read.transfers / read.seconds;
  console.log(
    `${filled.network.padEnd(9)} ${read.blocks} blocks of ${grouped(read.transfers / read.blocks)} transfers [${filled.content}]: ${grouped(blocksPerSecond, 1)} blocks/s, ${grouped(transfersPerSecond)} transfers/s`,
  );
  const mainnet = MAINNET_TRANSFERS_PER_BLOCK[filled.network];
  const atMainnet =
    mainnet === undefined
      ? ''
      : `; at a busy mainnet block's ~${grouped(mainnet)} transfers ~${grouped(transfersPerSecond / mainnet, 2)} blocks/s, head-room ~${grouped((transfersPerSecond / mainnet) * blockSeconds)}x`;
  console.log(
    `          1 block / ${blockSeconds} s: head-room ${grouped(blocksPerSecond * blockSeconds)}x; a watcher run's ${CHAIN_BLOCKS_PER_RUN} blocks in ${grouped(CHAIN_BLOCKS_PER_RUN / blocksPerSecond, 1)} s${atMainnet}`,
  );
}

async function startChains(): Promise<Chains> {
  // The node wallet syncs each transaction it sends to disk: on tmpfs the chain fills several times
  // faster, and it reads the same.
  const bitcoinDataDir = await mkdtemp(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'gateway-bitcoin-bench-'));
  const started = await Promise.allSettled([
    BitcoinNode.start({ dataDir: bitcoinDataDir }),
    TronFixtureNode.start(TRON_START_HEIGHT),
    // Compiled while the node starts, rather than by the first deployToken after it.
    Promise.all([startLocalChain(), compileTestToken()]).then(([chain]) => chain),
    startBenchStores('chains'),
  ] as const);
  const stop = async () => {
    await Promise.allSettled(started.map((each) => (each.status === 'fulfilled' ? each.value.stop() : undefined)));
    await rm(bitcoinDataDir, { recursive: true, force: true });
  };
  const [bitcoin, tron, evm, stores] = started;
  if (bitcoin.status === 'rejected' || tron.status === 'rejected' || evm.status === 'rejected' || stores.status === 'rejected') {
    await stop();
    throw (started.find((each) => each.status === 'rejected') as PromiseRejectedResult).reason;
  }
  return { bitcoin: bitcoin.value, tron: tron.value, evm: evm.value, stores: stores.value, stop };
}

export async function chainsBenchmark(args: string[]): Promise<void> {
  const options = parseOptions(args);
  const chains = await startChains();
  try {
    const usdt = await chains.evm.deployToken({ symbol: 'USDT', decimals: 6, supply: '1000000000' });
    const filled: Record<BenchNetwork, FilledNetwork> = {
      bitcoin: await fillBitcoin(chains.bitcoin, options.blocks),
      tron: fillTron(chains.tron, options.blocks, options.tronTransactions),
      ethereum: await fillEvm(chains.evm, usdt, options.evmBlocks),
    };

    console.log(`readers: NetworkReader.blocks over the filled blocks, median of ${options.runs} reads; goal: head-room (blocks read a second over blocks made) at least ${HEAD_ROOM_GOAL}x`);
    const transfersPerBlock = {} as Record<BenchNetwork, number>;
    for (const network of NETWORKS) {
      const read = await timeReader(filled[network], options.runs);
      printReader(filled[network], read);
      transfersPerBlock[network] = read.transfers / read.blocks;
    }

    await watcherCapacity(chains, usdt, filled, transfersPerBlock, options.deposits);
  } finally {
    await chains.stop();
  }
}

/** The capacity the watch-chain function uses per deposit it detects on each network, and per transfer to no customer. */
async function watcherCapacity(chains: Chains, usdt: Address, filled: Record<BenchNetwork, FilledNetwork>, transfersPerBlock: Record<BenchNetwork, number>, deposits: number): Promise<void> {
  Object.assign(process.env, {
    GATEWAY_RPC_BITCOIN: chains.bitcoin.rpcUrl,
    GATEWAY_RPC_TRON: chains.tron.url,
    GATEWAY_RPC_ETHEREUM: chains.evm.rpcUrl,
    GATEWAY_TOKENS_ETHEREUM: JSON.stringify({ USDT: usdt }),
    // Confirmed at once, as in the chain-watcher benchmark: each deposit is written in full in the run that finds it.
    ...Object.fromEntries(NETWORKS.map((network) => [`GATEWAY_CONFIRMATIONS_${network.toUpperCase()}`, '1'])),
    POWERTOOLS_LOG_LEVEL: 'WARN',
  });
  // Loaded once the environment is set: the functions read it at load.
  const [{ dynamoClient }, { invoke, loadFunction }, { seedMerchant }] = await Promise.all([
    import('../shared/store/dynamo.js'),
    import('../test/support/invoke.js'),
    import('../test/support/merchants.js'),
  ]);
  const watch = (await loadFunction('watch-chain'))!;
  const watchOnce = (network: BenchNetwork) => () => watch({ network } as never, {} as never);
  const meter = new CapacityMeter();
  meter.instrument(dynamoClient);
  const { apiKey } = await seedMerchant();

  const perDeposit: Array<{ network: BenchNetwork; units: number; calls: number; invoiceUnits: number }> = [];
  const invoicesTable = chains.stores.tables.invoices;
  const strangers: Array<[BenchNetwork, MeteredCall[]]> = [];
  for (const network of NETWORKS) {
    const { invoice, pay } = filled[network];
    // The first run starts below the head and reads the filled blocks: every transfer in them is looked up, and none is a customer's.
    const first = await meter.measure(() => catchUp(watchOnce(network)));
    strangers.push([network, first.calls]);

    const addresses: string[] = [];
    for (let i = 0; i < deposits; i++) {
      const response = await invoke('create-invoice', { apiKey, body: { orderId: `bench-${network}-${i}`, customerId: `bench-${network}-${i}`, ...invoice } });
      if (response.status !== 200) throw new Error(`create-invoice answered ${response.status}: ${JSON.stringify(response.body)}`);
      const address = (response.body.data.wallet.addresses as Array<{ network: string; address: string }>).find((each) => each.network === network)?.address;
      if (!address) throw new Error(`An invoice in ${invoice.baseCurrency} has no ${network} address`);
      addresses.push(address);
    }
    for (let i = 0; i < deposits; i += DEPOSITS_PER_BLOCK) await pay(addresses.slice(i, i + DEPOSITS_PER_BLOCK));
    const busy = await meter.measure(() => catchUp(watchOnce(network)));
    if (busy.result.recorded !== deposits) throw new Error(`The ${network} watcher recorded ${busy.result.recorded} of ${deposits} deposits`);
    // The invoice's writes and their index copies go by the invoice's size, which depends on the
    // networks its asset is offered on (a USDT invoice carries an address on each), not on the chain.
    const invoiceUnits = busy.calls.reduce(
      (sum, call) => sum + Object.entries(call.byTable).reduce((part, [name, used]) => part + (name === invoicesTable || name.startsWith(`${invoicesTable}/`) ? used : 0), 0),
      0,
    );
    perDeposit.push({ network, units: units(busy.calls) / deposits, calls: busy.calls.length / deposits, invoiceUnits: invoiceUnits / deposits });
  }

  console.log(`watchers: DynamoDB capacity of the watch-chain function, ${deposits} deposits on each network, ${DEPOSITS_PER_BLOCK} a block, confirmed at once`);
  console.log("  (as DynamoDB Local reports it: it counts a transactional write once where AWS charges it twice, and index writes at the item's size)");
  for (const { network, units: used, calls, invoiceUnits } of perDeposit) {
    console.log(
      `${network.padEnd(9)} ${used.toFixed(2)} units per detected deposit (${calls.toFixed(1)} calls), of which the invoice and its indexes ${invoiceUnits.toFixed(2)}${network === 'ethereum' ? " (the chain-watcher benchmark's figure)" : ''}`,
    );
  }
  console.log('owner look-ups of transfers to no customer, in the first runs over the filled blocks');
  console.log('  (AWS charges 0.5 unit for each address asked, found or not; DynamoDB Local nothing for one it does not find)');
  for (const [network, calls] of strangers) {
    const asked = calls.reduce((sum, call) => sum + call.keysAsked, 0);
    // A day of mainnet blocks, each as busy as the estimate above or, for Tron, as the blocks read here,
    // every payee another address, asked for in the share these blocks' payees were.
    const { first, last } = filled[network];
    const askedShare = asked / (transfersPerBlock[network] * (last - first + 1));
    const perDay = 0.5 * askedShare * (MAINNET_TRANSFERS_PER_BLOCK[network] ?? transfersPerBlock[network]) * (86_400 / BLOCK_SECONDS[network]);
    console.log(
      `${network.padEnd(9)} ${grouped(asked)} addresses in ${calls.filter((call) => call.keysAsked > 0).length} BatchGetItem calls: ${grouped(asked * 0.5)} units on AWS (DynamoDB Local: ${grouped(units(calls), 1)} for the whole runs); busy mainnet blocks: ~${grouped(perDay / 1e6, 2)} million units a day`,
    );
  }
}
