/**
 * A real EVM chain on loopback: Hardhat's node (hardhat.config.cjs beside this file, chain id
 * 11155111) run as a child process, and helpers over viem clients bound to it, for the chain
 * watcher's tests, `npm run chain` and benchmarks. Transactions are sent from the node's funded
 * accounts, which it signs for itself. Amounts are decimal strings, converted exactly.
 *
 * Reorgs: `snapshot()` marks a point; blocks mined after it can later be replaced with
 * `reorg({ snapshot, onNewBranch })`, which reverts to the point (`evm_revert`: the blocks after it
 * and their transactions are gone), runs `onNewBranch` to put new transactions on it, and mines
 * until the new branch is longer than the old one. Every height after the point then holds a
 * block with a new hash, and a reverted transaction has no receipt.
 */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import {
  createPublicClient,
  createTestClient,
  createWalletClient,
  defineChain,
  erc20Abi,
  getAddress,
  isAddressEqual,
  parseEventLogs,
  parseUnits,
  http,
  type Abi,
  type Address,
  type Hash,
  type Hex,
  type PublicClient,
  type TestClient,
  type TransactionReceipt,
  type WalletClient,
} from 'viem';
import { parseDecimalText } from '../../shared/domain/kernel/index.js';

const HARDHAT_CLI = createRequire(import.meta.url).resolve('hardhat/internal/cli/bootstrap.js');
const HARDHAT_CONFIG = fileURLToPath(new URL('./hardhat.config.cjs', import.meta.url));
const EXIT_WITH_PARENT = fileURLToPath(new URL('./exit-with-parent.cjs', import.meta.url));
const TOKEN_SOURCE = fileURLToPath(new URL('./test-token.sol', import.meta.url));

/** What `hardhat node` prints once its JSON-RPC server listens. */
const READY_LINE = /^Started HTTP and WebSocket JSON-RPC server at (http:\/\/\S+?)\/?$/;
const START_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 5_000;
/** Enough of the node's output to explain a failed start. */
const OUTPUT_TAIL_LINES = 40;
const NATIVE_DECIMALS = 18;

/** An amount that is not a plain decimal string, or is finer than its asset's smallest unit. */
export class AmountError extends Error {}

/** `amount` (a plain decimal string such as `0.5`) in the smallest unit of an asset with `decimals` places. */
export function toSmallestUnits(amount: string, decimals: number): bigint {
  const parsed = parseDecimalText(amount, 'decimal');
  if (!('value' in parsed)) throw new AmountError(`${JSON.stringify(amount)} is not a decimal amount such as 0.5`);
  if (parsed.value.decimalPlaces() > decimals) throw new AmountError(`${amount} has more than ${decimals} decimal places`);
  // Exact here: viem rounds only digits beyond `decimals`, and there are none but trailing zeros.
  return parseUnits(amount, decimals);
}

export interface CompiledContract {
  abi: Abi;
  bytecode: Hex;
}

let compiledToken: Promise<CompiledContract> | undefined;

async function compileToken(source: string): Promise<CompiledContract> {
  // Loaded here, not with this module: it takes half a second, and most users never compile.
  const { default: solc } = await import('solc');
  const input = {
    language: 'Solidity',
    sources: { 'test-token.sol': { content: source } },
    settings: { optimizer: { enabled: true, runs: 200 }, outputSelection: { '*': { TestToken: ['abi', 'evm.bytecode.object'] } } },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input)));
  const problems: Array<{ severity: string; formattedMessage: string }> = (output.errors ?? []).filter((e: { severity: string }) => e.severity !== 'info');
  // The source is ours and fixed: a warning is a defect too.
  if (problems.length > 0) throw new Error(`test-token.sol does not compile cleanly:\n${problems.map((p) => p.formattedMessage).join('\n')}`);
  const contract = output.contracts['test-token.sol'].TestToken;
  return { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` };
}

/**
 * test-token.sol's ABI and creation code, compiled with solc-js once per process (one to two
 * seconds, blocking: start it beside the node, which starts in a process of its own).
 */
export function compileTestToken(): Promise<CompiledContract> {
  compiledToken ??= readFile(TOKEN_SOURCE, 'utf8').then(compileToken);
  return compiledToken;
}

export interface TokenDefinition {
  symbol: string;
  /** Defaults to `Test <symbol>`. */
  name?: string;
  decimals: number;
  /** The whole supply, minted to the deployer (the first funded account), in token units. */
  supply: string;
}

export interface NativeTransfer {
  to: Address;
  /** In ETH, a decimal string. */
  amount: string;
  /** One of the node's funded accounts; the first by default. */
  from?: Address;
}

export interface TokenTransfer extends NativeTransfer {
  token: Address;
  /** In token units (by the contract's decimals), a decimal string. */
  amount: string;
}

export type Transfer = NativeTransfer | TokenTransfer;

export interface SentTransaction {
  hash: Hash;
  from: Address;
  blockNumber: bigint;
  blockHash: Hash;
  transactionIndex: number;
}

export interface SentTokenTransfer extends SentTransaction {
  /** The position of its `Transfer` log in the block. */
  logIndex: number;
}

export interface Batch {
  blockNumber: bigint;
  blockHash: Hash;
  /** In the order given; token transfers carry their log index. */
  sent: Array<SentTransaction | SentTokenTransfer>;
}

export interface ReorgOptions {
  /** From `snapshot()`, taken before the blocks to replace were mined; it is used up. */
  snapshot: Hex;
  /** Puts the new branch's transactions on the chain (sends, `sendMany`, `mine`). */
  onNewBranch?: () => Promise<void>;
  /** Blocks of the new branch, at least; by default one more than it replaces, as a real fork choice wants. */
  length?: number;
}

export interface Reorg {
  /** The last block both branches share. */
  forkBlockNumber: bigint;
  /** How many blocks were replaced: heights forkBlockNumber + 1 to oldHead. */
  depth: number;
  oldHead: bigint;
  newHead: bigint;
}

const isTokenTransfer = (transfer: Transfer): transfer is TokenTransfer => 'token' in transfer;

function positiveInteger(value: number, what: string): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`${what} must be a positive whole number, not ${value}`);
  return value;
}

/** The clients of one node, and what they learnt from it on connecting. */
interface Connection {
  rpcUrl: string;
  chainId: number;
  accounts: readonly Address[];
  reader: PublicClient;
  wallet: WalletClient;
  test: TestClient<'hardhat'>;
}

async function connect(rpcUrl: string): Promise<Connection> {
  // A local node either answers or is not there: no retries to wait through.
  const transport = http(rpcUrl, { retryCount: 0 });
  const chainId = await createPublicClient({ transport }).getChainId();
  const chain = defineChain({
    id: chainId,
    name: 'Local chain',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: NATIVE_DECIMALS },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
  // Blocks appear the moment something is sent: no reason to wait between polls.
  const common = { chain, transport, pollingInterval: 50 };
  const wallet = createWalletClient(common);
  const accounts = await wallet.getAddresses();
  if (accounts.length === 0) throw new Error(`The node at ${rpcUrl} has no funded accounts to send from`);
  return { rpcUrl, chainId, accounts, reader: createPublicClient(common), wallet, test: createTestClient({ ...common, mode: 'hardhat' }) };
}

/** A running Hardhat node's helpers, bound to its JSON-RPC URL. */
export class ChainTools {
  readonly rpcUrl: string;
  readonly chainId: number;
  /** The node's funded accounts; the first deploys tokens and sends by default. */
  readonly accounts: readonly Address[];
  private readonly reader: PublicClient;
  private readonly wallet: WalletClient;
  private readonly test: TestClient<'hardhat'>;
  private readonly tokenDecimals = new Map<Address, number>();

  protected constructor(connection: Connection) {
    ({ rpcUrl: this.rpcUrl, chainId: this.chainId, accounts: this.accounts, reader: this.reader, wallet: this.wallet, test: this.test } = connection);
  }

  /** Binds the helpers to the node at `rpcUrl`; rejects when nothing answers there. */
  static async connect(rpcUrl: string): Promise<ChainTools> {
    return new ChainTools(await connect(rpcUrl));
  }

  /** Deploys test-token.sol; resolves to the token's address. */
  async deployToken(token: TokenDefinition): Promise<Address> {
    if (!Number.isInteger(token.decimals) || token.decimals < 0 || token.decimals > 255) throw new RangeError(`decimals must be 0 to 255, not ${token.decimals}`);
    const { abi, bytecode } = await compileTestToken();
    const supply = toSmallestUnits(token.supply, token.decimals);
    const hash = await this.wallet.deployContract({
      abi,
      bytecode,
      args: [token.name ?? `Test ${token.symbol}`, token.symbol, token.decimals, supply],
      account: this.accounts[0]!,
      chain: this.wallet.chain,
    });
    const { contractAddress } = await this.receipt(hash);
    if (!contractAddress) throw new Error(`Deploying ${token.symbol} created no contract (transaction ${hash})`);
    const address = getAddress(contractAddress);
    this.tokenDecimals.set(address, token.decimals);
    return address;
  }

  /** Sends ETH; the node mines it at once, in a block of its own. */
  async sendNative(transfer: NativeTransfer): Promise<SentTransaction> {
    return this.landed(await this.submit(transfer), transfer);
  }

  /** Calls the token's `transfer`; the node mines it at once, in a block of its own. */
  async sendToken(transfer: TokenTransfer): Promise<SentTokenTransfer> {
    return this.landed(await this.submit(transfer), transfer);
  }

  /**
   * Puts every transfer in one new block: automine off, send them all, mine one block, automine
   * on again. Nothing else should send meanwhile: it would land in that block too.
   */
  async sendMany(transfers: readonly Transfer[]): Promise<Batch> {
    if (transfers.length === 0) throw new RangeError('sendMany needs at least one transfer');
    // Converting every amount first: a bad one fails before anything is sent.
    for (const transfer of transfers) toSmallestUnits(transfer.amount, isTokenTransfer(transfer) ? await this.decimalsOf(transfer.token) : NATIVE_DECIMALS);
    await this.test.setAutomine(false);
    let hashes: Hash[];
    try {
      hashes = [];
      // One at a time: the node gives each the next nonce of its sender as it arrives.
      for (const transfer of transfers) hashes.push(await this.submit(transfer));
      await this.test.mine({ blocks: 1 });
    } finally {
      await this.test.setAutomine(true);
    }
    const sent = await Promise.all(hashes.map((hash, i) => this.landed(hash, transfers[i]!)));
    const [first] = sent;
    const strays = sent.filter((s) => s.blockNumber !== first!.blockNumber).length;
    if (strays > 0) throw new Error(`${strays} of ${sent.length} transfers did not fit in block ${first!.blockNumber}`);
    return { blockNumber: first!.blockNumber, blockHash: first!.blockHash, sent };
  }

  /**
   * Mines `blocks` empty blocks one by one, one second apart; resolves to the new head's number.
   * (`hardhat_mine` reserves all but its first blocks, and those report a zero `parentHash`: a
   * chain that a watcher following parent hashes could not walk.)
   */
  async mine(blocks = 1): Promise<bigint> {
    const count = BigInt(positiveInteger(blocks, 'blocks'));
    const { timestamp } = await this.reader.getBlock({ blockTag: 'latest' });
    for (let mined = 1n; mined <= count; mined++) {
      await this.test.setNextBlockTimestamp({ timestamp: timestamp + mined });
      await this.test.mine({ blocks: 1 });
    }
    return this.headNumber();
  }

  /** Marks the chain as it is now; `revert` or `reorg` return to it (once). */
  snapshot(): Promise<Hex> {
    return this.test.snapshot();
  }

  /** Back to `snapshot`: the blocks mined since, and their transactions, are gone. */
  async revert(snapshot: Hex): Promise<void> {
    // Hardhat answers whether the snapshot existed (viem types the answer void).
    const reverted: unknown = await this.test.request({ method: 'evm_revert', params: [snapshot] });
    if (reverted !== true) throw new Error(`No snapshot ${snapshot} (each can be reverted to once)`);
  }

  /** Replaces every block mined since `snapshot` with a new branch; see the top of this file. */
  async reorg({ snapshot, onNewBranch, length }: ReorgOptions): Promise<Reorg> {
    const oldHead = await this.reader.getBlock({ blockTag: 'latest' });
    await this.revert(snapshot);
    const forkBlockNumber = await this.headNumber();
    const depth = Number(oldHead.number - forkBlockNumber);
    if (depth === 0) throw new Error('Nothing was mined since the snapshot: there is no block to replace');
    // An empty block on the same parent in the same second would be the very block it replaced:
    // the new branch starts after the old one ended.
    await this.test.setNextBlockTimestamp({ timestamp: oldHead.timestamp + 1n });
    await onNewBranch?.();
    const wanted = forkBlockNumber + BigInt(length === undefined ? depth + 1 : positiveInteger(length, 'length'));
    const head = await this.headNumber();
    if (head < wanted) await this.mine(Number(wanted - head));
    return { forkBlockNumber, depth, oldHead: oldHead.number, newHead: await this.headNumber() };
  }

  async headNumber(): Promise<bigint> {
    return this.reader.getBlockNumber({ cacheTime: 0 });
  }

  /** Sets an account's ETH balance, in wei. */
  async setBalance(address: Address, wei: bigint): Promise<void> {
    await this.test.setBalance({ address, value: wei });
  }

  /** The token's decimals, from the contract (remembered per token). */
  async decimalsOf(token: Address): Promise<number> {
    const key = getAddress(token);
    let decimals = this.tokenDecimals.get(key);
    if (decimals === undefined) {
      decimals = await this.reader.readContract({ address: key, abi: erc20Abi, functionName: 'decimals' });
      this.tokenDecimals.set(key, decimals);
    }
    return decimals;
  }

  private sender(from: Address | undefined): Address {
    if (from === undefined) return this.accounts[0]!;
    if (!this.accounts.some((account) => isAddressEqual(account, from))) throw new Error(`${from} is not one of the node's funded accounts`);
    return from;
  }

  /** Hands the transfer to the node; resolves to its hash (mined already when automine is on). */
  private async submit(transfer: Transfer): Promise<Hash> {
    const account = this.sender(transfer.from);
    const chain = this.wallet.chain;
    if (!isTokenTransfer(transfer)) {
      return this.wallet.sendTransaction({ account, chain, to: transfer.to, value: toSmallestUnits(transfer.amount, NATIVE_DECIMALS) });
    }
    const units = toSmallestUnits(transfer.amount, await this.decimalsOf(transfer.token));
    return this.wallet.writeContract({ account, chain, address: transfer.token, abi: erc20Abi, functionName: 'transfer', args: [transfer.to, units] });
  }

  private async receipt(hash: Hash): Promise<TransactionReceipt> {
    const receipt = await this.reader.getTransactionReceipt({ hash });
    if (receipt.status !== 'success') throw new Error(`Transaction ${hash} reverted`);
    return receipt;
  }

  private async landed(hash: Hash, transfer: TokenTransfer): Promise<SentTokenTransfer>;
  private async landed(hash: Hash, transfer: NativeTransfer): Promise<SentTransaction>;
  private async landed(hash: Hash, transfer: Transfer): Promise<SentTransaction | SentTokenTransfer>;
  private async landed(hash: Hash, transfer: Transfer): Promise<SentTransaction | SentTokenTransfer> {
    const receipt = await this.receipt(hash);
    const sent: SentTransaction = {
      hash,
      from: receipt.from,
      blockNumber: receipt.blockNumber,
      blockHash: receipt.blockHash,
      transactionIndex: receipt.transactionIndex,
    };
    if (!isTokenTransfer(transfer)) return sent;
    const [log] = parseEventLogs({ abi: erc20Abi, eventName: 'Transfer', logs: receipt.logs.filter((l) => isAddressEqual(l.address, transfer.token)) });
    if (log?.logIndex == null) throw new Error(`Transaction ${hash} logged no Transfer of ${transfer.token}`);
    return { ...sent, logIndex: log.logIndex };
  }
}

export interface LocalChainOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  /** The chain id, when the node stands in for another demo network than ethereum's Sepolia. */
  chainId?: number;
  /** Each line the node prints: its RPC calls and the transactions it mines. */
  log?: (line: string) => void;
}

/** A Hardhat node this process started, with its helpers. */
export class LocalChain extends ChainTools {
  constructor(
    connection: Connection,
    /** The node's process id; it leads a process group of its own. */
    readonly pid: number,
    /** Stops the node and resolves once it has exited. */
    readonly stop: () => Promise<void>,
    /** Resolves once the node has exited, stopped or not. */
    readonly exited: Promise<void>,
  ) {
    super(connection);
  }
}

/** Starts `hardhat node` on 127.0.0.1; resolves once it answers JSON-RPC. */
export async function startLocalChain(options: LocalChainOptions = {}): Promise<LocalChain> {
  const port = options.port ?? 0;
  const node = spawn(process.execPath, ['--require', EXIT_WITH_PARENT, HARDHAT_CLI, 'node', '--hostname', '127.0.0.1', '--port', String(port), '--config', HARDHAT_CONFIG], {
    // A group of its own: a Ctrl-C meant for this process reaches this process alone, which
    // stops the node in order, and stopping signals the whole group.
    detached: true,
    // Standard input stays open for exit-with-parent.cjs; the output is read line by line.
    stdio: ['pipe', 'pipe', 'pipe'],
    // No prompts, no colour codes in the lines read here.
    env: {
      ...process.env,
      HARDHAT_DISABLE_TELEMETRY_PROMPT: 'true',
      NO_COLOR: '1',
      ...(options.chainId === undefined ? {} : { GATEWAY_HARDHAT_CHAIN_ID: String(options.chainId) }),
    },
  });
  const tail: string[] = [];
  let announce: (rpcUrl: string) => void = () => undefined;
  const announced = new Promise<string>((resolve) => (announce = resolve));
  for (const stream of [node.stdout, node.stderr]) {
    createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => {
      tail.push(line);
      if (tail.length > OUTPUT_TAIL_LINES) tail.shift();
      options.log?.(line);
      const rpcUrl = READY_LINE.exec(line)?.[1];
      if (rpcUrl !== undefined) announce(rpcUrl);
    });
  }
  const exited = new Promise<void>((resolve) => node.once('exit', () => resolve()));
  const failedToSpawn = new Promise<never>((_, reject) => node.once('error', (error) => reject(new Error(`Could not run the Hardhat node: ${error.message}`))));
  failedToSpawn.catch(() => undefined);

  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(-node.pid!, name);
    } catch {
      // The group is gone already.
    }
  };
  const stop = async () => {
    if (node.pid === undefined) return;
    if (node.exitCode === null && node.signalCode === null) {
      signal('SIGTERM');
      const timer = setTimeout(() => signal('SIGKILL'), STOP_GRACE_MS);
      await exited;
      clearTimeout(timer);
    }
  };

  let timer: NodeJS.Timeout | undefined;
  try {
    const rpcUrl = await Promise.race([
      announced,
      failedToSpawn,
      exited.then(() => {
        const inUse = tail.some((line) => line.includes('EADDRINUSE'));
        throw new Error(inUse ? `Port ${port} on 127.0.0.1 is in use already` : `The Hardhat node exited during start:\n${tail.join('\n')}`);
      }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`The Hardhat node did not start within ${START_TIMEOUT_MS / 1000} s:\n${tail.join('\n')}`)), START_TIMEOUT_MS);
      }),
    ]);
    return new LocalChain(await connect(rpcUrl), node.pid!, stop, exited);
  } catch (error) {
    await stop();
    throw error;
  } finally {
    clearTimeout(timer);
  }
}
