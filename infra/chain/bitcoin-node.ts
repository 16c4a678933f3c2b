/**
 * A real Bitcoin-family node on loopback for the chain watcher's tests, `npm run chain` and the
 * benchmarks: Debian's `litecoind` (Litecoin Core 0.21, a Bitcoin Core 0.21 fork) in regtest, whose
 * JSON-RPC is Bitcoin Core's (`getblock` verbosity 2, `invalidateblock`, `generatetoaddress`) and
 * whose outputs pay the same scripts; only its addresses are written with other prefixes, which is
 * why the gateway matches outputs on their scripts. Run as a child that stops with its owner; its
 * data lives in a temporary directory unless one is given. `BitcoinRpc.connect` reaches a node
 * another process runs (or any Bitcoin Core-compatible one) with the same helpers. Amounts are
 * decimal strings of at most 8 places.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bech32, bech32m } from '@scure/base';
import { parse } from 'lossless-json';

/** The daemon `.ci/run` installs (Debian package `litecoind`). */
export const BITCOIN_NODE_PROGRAM = process.env.GATEWAY_BITCOIN_NODE ?? 'litecoind';
const CHILD_WITH_PARENT = fileURLToPath(new URL('./child-with-parent.cjs', import.meta.url));
const START_TIMEOUT_MS = 30_000;
/** Coinbase outputs can be spent 100 blocks after they were mined. */
const COINBASE_MATURITY = 100;
/** The regtest address prefix of the node's own wallet (Litecoin's), for sending to a script. */
const NODE_REGTEST_HRP = 'rltc';
/** child-with-parent.cjs's exit code when the program could not be spawned. */
const PROGRAM_NOT_RUN = 127;

async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolvePort(port));
    });
  });
}

export interface SegwitAddress {
  /** The human-readable part before the `1`: `bc`, `tb`, `bcrt`, the node's own `rltc`. */
  prefix: string;
  version: number;
  program: Uint8Array;
}

/**
 * A segwit address of any network, checked as BIP-173 and BIP-350 say (bech32 for version 0 with a
 * 20- or 32-byte program, bech32m for versions 1 to 16); undefined when it is not one.
 */
export function parseSegwitAddress(address: string): SegwitAddress | undefined {
  const text = address as `${string}1${string}`;
  const asBech32 = bech32.decodeUnsafe(text);
  const decoded = asBech32 ?? bech32m.decodeUnsafe(text);
  if (!decoded || decoded.words.length === 0) return undefined;
  const [version, ...data] = decoded.words as [number, ...number[]];
  // A checksum of the wrong kind for the version is how BIP-350 catches a mistyped version.
  if (version > 16 || (version === 0) !== (asBech32 !== undefined)) return undefined;
  const program = bech32.fromWordsUnsafe(data);
  if (!program) return undefined;
  const fits = version === 0 ? program.length === 20 || program.length === 32 : program.length >= 2 && program.length <= 40;
  return fits ? { prefix: decoded.prefix, version, program } : undefined;
}

/** A segwit address of any network, as the node's own regtest address for the same script. */
export function nodeAddressFor(address: string): string {
  const parsed = parseSegwitAddress(address);
  if (!parsed) throw new RangeError(`${address} is not a segwit address`);
  const words = [parsed.version, ...bech32.toWords(parsed.program)];
  return (parsed.version === 0 ? bech32 : bech32m).encode(NODE_REGTEST_HRP, words);
}

/**
 * One POST on a connection of its own (the URL's credentials as Basic auth, its path such as
 * /wallet/<name> kept): the node's shutdown waits for every open connection, and a kept-alive one
 * would hold it until the client drops it, seconds later.
 */
function post(url: URL, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolvePost, reject) => {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const request = send(url, { method: 'POST', agent: false, headers: { 'content-type': 'application/json' } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolvePost({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(body);
  });
}

/** `program` could not be run at all: it is not installed, or not where it was said to be. */
export class BitcoinNodeNotInstalledError extends Error {
  constructor(
    readonly program: string,
    reason: string,
  ) {
    super(`${program} is not installed, or cannot be run (${reason.replace(/^Could not run [^\n]*?: /, '').trim()})`);
  }
}

/**
 * Bitcoin Core's JSON-RPC at a URL with its credentials, and the wallet helpers the tests and
 * `npm run chain` pay and mine with (the node's default wallet).
 */
export class BitcoinRpc {
  protected constructor(
    /** The node's JSON-RPC URL, credentials included: what `GATEWAY_RPC_BITCOIN` takes. */
    readonly rpcUrl: string,
  ) {}

  /** Binds the helpers to the node at `rpcUrl`; rejects when no node answers there. */
  static async connect(rpcUrl: string): Promise<BitcoinRpc> {
    const client = new BitcoinRpc(rpcUrl);
    await client.height();
    return client;
  }

  /** A JSON-RPC call; numbers come back as text, exactly as the node wrote them. */
  // biome-ignore lint/suspicious/noExplicitAny: an answer's shape is the method's; each caller reads the fields of the method it called
  async rpc(method: string, params: unknown[] = []): Promise<any> {
    const { status, text } = await post(new URL(this.rpcUrl), JSON.stringify({ jsonrpc: '1.0', id: method, method, params }));
    // Core answers a refused login with an empty 401, and an RPC error as JSON under a 4xx or 5xx.
    if (status === 401) throw new Error(`${method}: the node refused the user name and password in the URL (HTTP 401)`);
    if (text.trim() === '') throw new Error(`${method}: the node answered HTTP ${status} with no body`);
    const answer = parse(text, undefined, (value) => value) as { result: unknown; error: { message: string } | null };
    if (answer.error) throw new Error(`${method}: ${answer.error.message}`);
    return answer.result;
  }

  /** The number of the newest block. */
  async height(): Promise<number> {
    return Number(String(await this.rpc('getblockcount')));
  }

  /** Mines `blocks` blocks to the node's own wallet; resolves to their hashes. */
  async mine(blocks = 1): Promise<string[]> {
    const address = await this.rpc('getnewaddress', ['', 'bech32']);
    return this.rpc('generatetoaddress', [blocks, address]);
  }

  /** Enough mined to spend from: the first coinbase matured. */
  async fund(): Promise<void> {
    const height = await this.height();
    if (height <= COINBASE_MATURITY) await this.mine(COINBASE_MATURITY + 1 - height);
  }

  /** Pays `amount` (coins, at most 8 places) to a segwit address of any network (`tb1…`, `bc1…`); resolves to the txid, in the mempool until mined. */
  async send(address: string, amount: string): Promise<string> {
    if (!/^\d+(\.\d{1,8})?$/.test(amount)) throw new RangeError(`amount must be a decimal of at most 8 places, not ${amount}`);
    return this.rpc('sendtoaddress', [nodeAddressFor(address), amount]);
  }

  /**
   * Replaces the chain from `height` up with a new branch one block longer: every block from there
   * gets another hash. The replaced blocks' transactions return to the mempool and are mined again
   * in the new branch, as after a real reorganisation.
   */
  async reorg(height: number): Promise<void> {
    const head = await this.height();
    await this.rpc('invalidateblock', [await this.rpc('getblockhash', [height])]);
    await this.mine(head - height + 2);
  }
}

export interface BitcoinNodeOptions {
  /** Kept after `stop()`, and used again by the next start on it; a temporary one by default. */
  dataDir?: string;
  /** The JSON-RPC port on 127.0.0.1; 0 (the default) picks a free one. */
  port?: number;
  /** The JSON-RPC password (user `gateway`); a random one by default. */
  rpcPassword?: string;
  /** The daemon to run; `BITCOIN_NODE_PROGRAM` by default. */
  program?: string;
}

async function isPortFree(port: number): Promise<boolean> {
  return new Promise((resolveFree) => {
    const server = createServer();
    server.once('error', () => resolveFree(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolveFree(true)));
  });
}

/** A node this process started, stopped with it at the latest. */
export class BitcoinNode extends BitcoinRpc {
  private constructor(
    private readonly child: ChildProcess,
    /** Resolves once the node has exited, stopped or not. */
    readonly exited: Promise<void>,
    rpcUrl: string,
    private readonly dataDir: string,
    private readonly ownsDataDir: boolean,
  ) {
    super(rpcUrl);
  }

  /** Starts the node on 127.0.0.1 with a wallet loaded; resolves once it answers JSON-RPC. */
  static async start(options: BitcoinNodeOptions = {}): Promise<BitcoinNode> {
    const program = options.program ?? BITCOIN_NODE_PROGRAM;
    if (options.port && !(await isPortFree(options.port))) throw new Error(`Port ${options.port} on 127.0.0.1 is in use already`);
    const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'gateway-bitcoin-')));
    const port = options.port || (await freePort());
    const password = options.rpcPassword ?? randomBytes(16).toString('hex');
    const args = [
      '-regtest',
      `-datadir=${dataDir}`,
      '-server',
      '-listen=0',
      '-rpcbind=127.0.0.1',
      '-rpcallowip=127.0.0.1',
      `-rpcport=${port}`,
      '-rpcuser=gateway',
      `-rpcpassword=${password}`,
      '-fallbackfee=0.0001',
      // Every transaction found by its txid, as the payout sender follows its own (shared/chain/bitcoin-payouts.ts).
      '-txindex',
      // Litecoin Core refuses BIP-125 replacements unless told to take them, as Bitcoin Core does by default.
      '-mempoolreplacement=1',
      '-printtoconsole=0',
      // Keys as the wallet needs them, rather than 2,000 derived up front: seconds of every start.
      '-keypool=1',
    ];
    const child = spawn(process.execPath, [CHILD_WITH_PARENT, program, ...args], { stdio: ['pipe', 'ignore', 'pipe'] });
    let errors = '';
    child.stderr?.on('data', (chunk: Buffer) => (errors = (errors + chunk.toString('utf8')).slice(-4000)));
    const exited = new Promise<void>((resolveExit) => child.once('exit', () => resolveExit()));
    const node = new BitcoinNode(child, exited, `http://gateway:${password}@127.0.0.1:${port}`, dataDir, options.dataDir === undefined);
    const deadline = Date.now() + START_TIMEOUT_MS;
    for (;;) {
      if (child.exitCode !== null) {
        if (node.ownsDataDir) await rm(dataDir, { recursive: true, force: true });
        // child-with-parent.cjs exits 127 when the program cannot be spawned at all.
        if (child.exitCode === PROGRAM_NOT_RUN) throw new BitcoinNodeNotInstalledError(program, errors);
        throw new Error(`${program} exited during start: ${errors || `code ${child.exitCode}`}`);
      }
      try {
        await node.height();
        break;
      } catch (error) {
        if (Date.now() > deadline) {
          await node.stop();
          throw new Error(`${program} did not answer within ${START_TIMEOUT_MS} ms: ${String(error)}`);
        }
        await new Promise((resolveWait) => setTimeout(resolveWait, 100));
      }
    }
    await node.rpc('createwallet', ['gateway']).catch(() => node.rpc('loadwallet', ['gateway']).catch(() => undefined));
    return node;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null) {
      await this.rpc('stop').catch(() => undefined);
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
      await this.exited;
      clearTimeout(timer);
    }
    if (this.ownsDataDir) await rm(this.dataDir, { recursive: true, force: true });
  }
}
