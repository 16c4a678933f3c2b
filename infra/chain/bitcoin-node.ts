/**
 * A real Bitcoin-family node on loopback for the chain watcher's tests, `npm run chain` and the
 * benchmarks: Debian's `litecoind` (Litecoin Core 0.21, a Bitcoin Core 0.21 fork) in regtest, whose
 * JSON-RPC is Bitcoin Core's (`getblock` verbosity 2, `invalidateblock`, `generatetoaddress`) and
 * whose outputs pay the same scripts; only its addresses are written with other prefixes, which is
 * why the gateway matches outputs on their scripts. Run as a child that stops with its owner; its
 * data lives in a temporary directory unless one is given. Amounts are decimal strings of at most 8
 * places.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bech32 } from '@scure/base';
import { parse } from 'lossless-json';

/** The daemon `.ci/run` installs (Debian package `litecoind`). */
export const BITCOIN_NODE_PROGRAM = process.env.GATEWAY_BITCOIN_NODE ?? 'litecoind';
const CHILD_WITH_PARENT = fileURLToPath(new URL('./child-with-parent.cjs', import.meta.url));
const START_TIMEOUT_MS = 30_000;
/** Coinbase outputs can be spent 100 blocks after they were mined. */
const COINBASE_MATURITY = 100;
/** The regtest address prefix of the node's own wallet (Litecoin's), for sending to a script. */
const NODE_REGTEST_HRP = 'rltc';

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

/** A P2WPKH or other segwit address of any network, as the node's own regtest address for the same script. */
export function nodeAddressFor(address: string): string {
  const { words } = bech32.decode(address as `${string}1${string}`);
  return bech32.encode(NODE_REGTEST_HRP, words);
}

export class BitcoinNode {
  private constructor(
    private readonly child: ChildProcess,
    private readonly exited: Promise<void>,
    /** The node's JSON-RPC URL, credentials included: what `GATEWAY_RPC_BITCOIN` takes. */
    readonly rpcUrl: string,
    private readonly dataDir: string,
    private readonly ownsDataDir: boolean,
  ) {}

  static async start(options: { dataDir?: string } = {}): Promise<BitcoinNode> {
    const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'gateway-bitcoin-')));
    const port = await freePort();
    const password = randomBytes(16).toString('hex');
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
      '-printtoconsole=0',
    ];
    const child = spawn(process.execPath, [CHILD_WITH_PARENT, BITCOIN_NODE_PROGRAM, ...args], { stdio: ['pipe', 'ignore', 'pipe'] });
    let errors = '';
    child.stderr?.on('data', (chunk: Buffer) => (errors = (errors + chunk.toString('utf8')).slice(-4000)));
    const exited = new Promise<void>((resolveExit) => child.once('exit', () => resolveExit()));
    const node = new BitcoinNode(child, exited, `http://gateway:${password}@127.0.0.1:${port}`, dataDir, options.dataDir === undefined);
    const deadline = Date.now() + START_TIMEOUT_MS;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${BITCOIN_NODE_PROGRAM} exited during start: ${errors || `code ${child.exitCode}`}`);
      try {
        await node.rpc('getblockcount');
        break;
      } catch (error) {
        if (Date.now() > deadline) {
          await node.stop();
          throw new Error(`${BITCOIN_NODE_PROGRAM} did not answer within ${START_TIMEOUT_MS} ms: ${String(error)}`);
        }
        await new Promise((resolveWait) => setTimeout(resolveWait, 100));
      }
    }
    await node.rpc('createwallet', ['gateway']).catch(() => node.rpc('loadwallet', ['gateway']).catch(() => undefined));
    return node;
  }

  /** A JSON-RPC call; numbers come back as text, exactly as the node wrote them. */
  async rpc(method: string, params: unknown[] = []): Promise<any> {
    const url = new URL(this.rpcUrl);
    const response = await fetch(`http://${url.host}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Basic ${Buffer.from(`${url.username}:${url.password}`).toString('base64')}` },
      body: JSON.stringify({ jsonrpc: '1.0', id: method, method, params }),
    });
    const answer = parse(await response.text(), undefined, (value) => value) as { result: unknown; error: { message: string } | null };
    if (answer.error) throw new Error(`${method}: ${answer.error.message}`);
    return answer.result;
  }

  /** Mines `blocks` blocks to the node's own wallet; resolves to their hashes. */
  async mine(blocks = 1): Promise<string[]> {
    const address = await this.rpc('getnewaddress', ['', 'bech32']);
    return this.rpc('generatetoaddress', [blocks, address]);
  }

  /** Enough mined to spend from: the first coinbase matured. */
  async fund(): Promise<void> {
    const height = Number(String(await this.rpc('getblockcount')));
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
    const head = Number(String(await this.rpc('getblockcount')));
    await this.rpc('invalidateblock', [await this.rpc('getblockhash', [height])]);
    await this.mine(head - height + 2);
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
