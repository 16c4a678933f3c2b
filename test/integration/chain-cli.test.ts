/**
 * `npm run chain`: `node` as a person runs it (a child process, stopped by a signal), with the
 * EVM chain and the Bitcoin regtest node beside it; `send` and `mine` in process against it, and
 * on bitcoin also as child processes, as a person runs them from another terminal; the local
 * treasuries it funds, and leaves as they are when it starts again; and what each says when
 * something is wrong, litecoind missing included.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, erc20Abi, http, isAddress, parseEther, type Address, type PublicClient } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { BitcoinRpc, parseSegwitAddress } from '../../infra/chain/bitcoin-node.js';
import { BitcoinTreasuryReader } from '../../shared/chain/treasury-balances.js';
import { treasuryAddresses } from '../../shared/domain/payouts/index.js';
import { KeyFileTreasurySigner, treasuryKeyDirectory } from '../../shared/signers/key-file-signer.js';
import { runChainCli } from '../../infra/chain/chain-cli.js';
import { isRunning } from '../support/processes.js';
import { eventually } from '../support/wait.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const READY_LINE = 'Press Ctrl+C to stop.';

async function cli(args: string[], dataDir: string, options: { env?: Record<string, string>; untilStopped?: () => Promise<string> } = {}) {
  let out = '';
  let err = '';
  const code = await runChainCli(args, {
    env: { GATEWAY_DATA_DIR: dataDir, ...options.env },
    out: (text) => (out += text),
    err: (text) => (err += text),
    untilStopped: options.untilStopped ?? (() => new Promise(() => undefined)),
  });
  return { code, out, err };
}

/** `npm run chain -- <args>` as its own process, as a person runs it from another terminal. */
async function cliProcess(args: string[], dataDir: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'infra/chain/chain.ts', ...args], { cwd: ROOT, env: { ...process.env, GATEWAY_DATA_DIR: dataDir } });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  const [code] = await once(child, 'close');
  return { code: code as number | null, out, err };
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((resolveClose) => server.close(resolveClose));
  return port;
}

const freshAddress = (): Address => privateKeyToAccount(generatePrivateKey()).address;

/** Testnet and mainnet P2WPKH addresses of one key hash, as the gateway shows a customer's. */
const TESTNET_ADDRESS = 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx';
const MAINNET_ADDRESS = 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4';
/** The output script both pay: OP_0, a push of the 20-byte key hash. */
const scriptOf = (address: string): string => `0014${Buffer.from(parseSegwitAddress(address)!.program).toString('hex')}`;

let emptyDir: string;
let noBitcoinDir: string;
/**
 * `node` with litecoind missing: it starts an EVM chain of its own, so it runs from the start,
 * beside the other tests, and its test reads what it said.
 */
let withoutLitecoind: ReturnType<typeof cli>;

beforeAll(async () => {
  emptyDir = await mkdtemp(join(tmpdir(), 'chain-cli-empty-'));
  noBitcoinDir = await mkdtemp(join(tmpdir(), 'chain-cli-no-bitcoin-'));
  withoutLitecoind = cli(['node', '--port', '0', '--bitcoin-port', '0'], noBitcoinDir, {
    env: { GATEWAY_BITCOIN_NODE: '/nonexistent/litecoind' },
    untilStopped: async () => 'SIGTERM',
  });
});

afterAll(async () => {
  await withoutLitecoind?.catch(() => undefined);
  await rm(emptyDir, { recursive: true, force: true });
  await rm(noBitcoinDir, { recursive: true, force: true });
});

describe('usage', () => {
  const to = freshAddress();
  it.each([
    [[], 'a command is required'],
    [['deploy'], 'unknown command deploy'],
    [['send', '--amount', '1'], '--to is required'],
    [['send', '--to', to], '--amount is required'],
    [['send', '--to', '0x1234', '--amount', '1'], '--to must be an EVM address'],
    // The checksum of a mixed-case address catches a mistyped letter.
    [['send', '--to', to.replace(/[a-f]/, (c) => c.toUpperCase()), '--amount', '1'], '--to must be an EVM address'],
    [['send', '--to', to, '--amount', '0'], '--amount must be a positive decimal number of ETH with at most 18 decimal places'],
    [['send', '--to', to, '--amount=-1'], '--amount must be a positive decimal number'],
    [['send', '--to', to, '--amount', '1e3'], '--amount must be a positive decimal number'],
    [['send', '--to', to, '--amount', '1.0000001', '--token', 'USDT'], '--amount must be a positive decimal number of USDT with at most 6 decimal places'],
    [['send', '--to', to, '--amount', '1', '--token', 'DAI'], '--token must be USDT or USDC'],
    [['send', '--to', to, '--amount', '1', '--rpc', 'localhost:8545'], '--rpc must be an http or https URL'],
    [['send', '--to', to, '--amount', '1', '--blocks', '2'], '--blocks is not an option of send'],
    [['mine', '--blocks', '0'], '--blocks must be a whole number from 1 to 1000000'],
    [['mine', '--blocks', '1.5'], '--blocks must be a whole number from 1 to 1000000'],
    [['node', '--port', '70000'], '--port must be a whole number from 0 to 65535'],
    [['node', '--rpc', 'http://127.0.0.1:8545'], '--rpc is not an option of node'],
    [['mine', 'now'], 'unexpected argument now'],
    [['mine', '--block', '2'], "Unknown option '--block'"],
    [['node', '--bitcoin-port', '70000'], '--bitcoin-port must be a whole number from 0 to 65535'],
    [['send', '--network', 'dogecoin', '--to', to, '--amount', '1'], '--network must be ethereum or bitcoin'],
    [['send', '--network', 'bitcoin', '--to', to, '--amount', '0.001'], '--to must be a Bitcoin segwit address as the gateway shows it: bc1…, tb1… or bcrt1…, with a valid checksum'],
    // One character off: the bech32 checksum fails.
    [['send', '--network', 'bitcoin', '--to', TESTNET_ADDRESS.replace(/x$/, 'y'), '--amount', '0.001'], '--to must be a Bitcoin segwit address'],
    // A valid bech32 address of another chain (Litecoin's mainnet).
    [['send', '--network', 'bitcoin', '--to', 'ltc1qw508d6qejxtdg4y5r3zarvary0c5xw7kgmn4n9', '--amount', '0.001'], '--to must be a Bitcoin segwit address'],
    [['send', '--network', 'bitcoin', '--to', TESTNET_ADDRESS, '--amount', '0.000000001'], '--amount must be a positive decimal number of BTC with at most 8 decimal places, e.g. 0.001'],
    [['send', '--network', 'bitcoin', '--to', TESTNET_ADDRESS, '--amount', '1e-3'], '--amount must be a positive decimal number of BTC'],
    [['send', '--network', 'bitcoin', '--to', TESTNET_ADDRESS, '--amount', '0.001', '--token', 'USDT'], '--token is for ethereum: bitcoin sends BTC'],
    [['mine', '--network', 'bitcoin', '--blocks', '1001'], '--blocks must be a whole number from 1 to 1000'],
  ])('%j is a usage error (exit 2): %s', async (args, message) => {
    const { code, out, err } = await cli(args, emptyDir);
    expect(code).toBe(2);
    expect(out).toBe('');
    expect(err).toContain(`chain: ${message}`);
    expect(err).toContain('Usage: npm run chain -- <command> [options]');
  });

  it('prints the usage on --help', async () => {
    const { code, out } = await cli(['--help'], emptyDir);
    expect(code).toBe(0);
    expect(out).toContain('send --to ADDRESS --amount AMOUNT [--token USDT|USDC] [--rpc URL] [--json]');
    expect(out).toContain('send --network bitcoin --to ADDRESS --amount AMOUNT [--rpc URL] [--json]');
    expect(out).toContain('mine [--blocks N] [--network ethereum|bitcoin] [--rpc URL] [--json]');
  });

  it('says clearly when no chain is running or answering (exit 1)', async () => {
    expect(await cli(['mine'], emptyDir)).toEqual({
      code: 1,
      out: '',
      err: `chain: No local chain is running from ${emptyDir}; start one with npm run chain -- node (or pass --rpc URL)\n`,
    });
    const closed = await cli(['send', '--to', to, '--amount', '1', '--rpc', 'http://127.0.0.1:9'], emptyDir);
    expect(closed.code).toBe(1);
    expect(closed.err).toMatch(/^chain: No chain answers at http:\/\/127\.0\.0\.1:9: /);
  });

  it('says clearly when no Bitcoin node is running or answering (exit 1), without the password', async () => {
    expect(await cli(['mine', '--network', 'bitcoin'], emptyDir)).toEqual({
      code: 1,
      out: '',
      err: `chain: No local Bitcoin node is running from ${emptyDir}; start one with npm run chain -- node (or pass --rpc URL)\n`,
    });
    const port = await closedPort();
    const closed = await cli(['send', '--network', 'bitcoin', '--to', TESTNET_ADDRESS, '--amount', '0.001', '--rpc', `http://user:secret@127.0.0.1:${port}`], emptyDir);
    expect(closed.code).toBe(1);
    expect(closed.err).toBe(`chain: No Bitcoin node answers at http://127.0.0.1:${port}: connect ECONNREFUSED 127.0.0.1:${port}\n`);
    expect(closed.err).not.toContain('secret');
  });
});

describe('a chain run with npm run chain -- node', () => {
  let dataDir: string;
  let node: ChildProcessWithoutNullStreams;
  let exited: Promise<number | null>;
  let output = '';
  let rpcUrl: string;
  let tokens: { USDT: Address; USDC: Address };
  let client: PublicClient;
  let bitcoinRpcUrl: string;
  let bitcoin: BitcoinRpc;

  const printed = (label: string): string => {
    const value = new RegExp(`^ {2}${label}=(\\S+)$`, 'm').exec(output)?.[1];
    if (value === undefined) throw new Error(`node did not print ${label}:\n${output}`);
    return value;
  };

  /** `npm run chain -- node` on the data directory, as a person starts it; resolves once it serves. */
  async function startNode(): Promise<void> {
    output = '';
    node = spawn(process.execPath, ['--import', 'tsx', 'infra/chain/chain.ts', 'node', '--port', '0', '--bitcoin-port', '0'], {
      cwd: ROOT,
      env: { ...process.env, GATEWAY_DATA_DIR: dataDir },
    });
    node.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    node.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    exited = once(node, 'exit').then(([code]) => code as number | null);
    await eventually(() => output.includes(READY_LINE) || node.exitCode !== null, { timeoutMs: 60_000, what: 'the chain to start' });
    if (!output.includes(READY_LINE)) throw new Error(`node exited:\n${output}`);
  }

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'chain-cli-'));
    await startNode();
    rpcUrl = printed('GATEWAY_RPC_ETHEREUM');
    tokens = JSON.parse(printed('GATEWAY_TOKENS_ETHEREUM'));
    client = createPublicClient({ transport: http(rpcUrl) });
    bitcoinRpcUrl = printed('GATEWAY_RPC_BITCOIN');
    bitcoin = await BitcoinRpc.connect(bitcoinRpcUrl);
  });

  afterAll(async () => {
    if (node && node.exitCode === null && node.signalCode === null) {
      node.kill('SIGTERM');
      await exited;
    }
    await rm(dataDir, { recursive: true, force: true });
  });

  it('prints the RPC URL, the chain id, the tokens and the variables for npm start, and records them', async () => {
    expect(rpcUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(output).toContain(`  RPC URL          ${rpcUrl}\n  Chain id         11155111\n`);
    expect(Object.keys(tokens)).toEqual(['USDT', 'USDC']);
    for (const [symbol, address] of Object.entries(tokens)) {
      expect(isAddress(address)).toBe(true);
      expect(output).toContain(`  ${symbol}             ${address} (6 decimals)\n`);
      expect(await client.readContract({ address, abi: erc20Abi, functionName: 'symbol' })).toBe(symbol);
      expect(await client.readContract({ address, abi: erc20Abi, functionName: 'decimals' })).toBe(6);
    }
    expect(output).toContain(`  GATEWAY_RPC_ETHEREUM=${rpcUrl} GATEWAY_TOKENS_ETHEREUM='${JSON.stringify(tokens)}' GATEWAY_RPC_BITCOIN=${bitcoinRpcUrl} npm start\n`);
    // The node's log of each call follows the banner; the list of test keys before it does not.
    expect(output).not.toContain('Private Key');

    const file = join(dataDir, 'chain.json');
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ rpcUrl, chainId: 11155111, pid: node.pid, tokens, bitcoin: { rpcUrl: bitcoinRpcUrl } });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it("funds the treasuries of the data directory's keys: ETH and USDT on the EVM chain, BTC on the Bitcoin node, to the smallest unit", async () => {
    const addresses = await treasuryAddresses(new KeyFileTreasurySigner(treasuryKeyDirectory(dataDir)), 'demo');
    expect(output).toContain(`Local treasuries (keys in ${join(dataDir, 'treasury')}; npm run merchant -- treasury reads them)\n`);
    expect(output).toContain(`  evm              ${addresses.evm} holds 100 ETH, 100000 USDT\n`);
    expect(output).toContain(`  bitcoin          ${addresses.bitcoin} holds 10 BTC\n`);
    expect(await client.getBalance({ address: addresses.evm as Address })).toBe(100n * 10n ** 18n);
    expect(await client.readContract({ address: tokens.USDT, abi: erc20Abi, functionName: 'balanceOf', args: [addresses.evm as Address] })).toBe(100_000_000_000n);
    expect(await client.readContract({ address: tokens.USDC, abi: erc20Abi, functionName: 'balanceOf', args: [addresses.evm as Address] })).toBe(0n);
    const scan = await bitcoin.rpc('scantxoutset', ['start', [`raw(${scriptOf(addresses.bitcoin)})`]]);
    expect(scan.unspents.map((output: { amount: unknown }) => String(output.amount))).toEqual(['10.00000000']);
    expect(addresses.bitcoin).toMatch(/^tb1q/);
  });

  it('send pays USDT from the funded account: one Transfer log where it says', async () => {
    const to = freshAddress();
    const { code, out, err } = await cli(['send', '--to', to, '--amount', '25', '--token', 'USDT', '--json'], dataDir);
    expect(err).toBe('');
    expect(code).toBe(0);
    const sent = JSON.parse(out);
    expect(sent).toEqual({ hash: expect.stringMatching(/^0x[0-9a-f]{64}$/), blockNumber: expect.any(Number), logIndex: 0, from: expect.any(String), to, amount: '25', asset: 'USDT' });

    const logs = await client.getContractEvents({ address: tokens.USDT, abi: erc20Abi, eventName: 'Transfer', args: { to }, fromBlock: 0n });
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({ transactionHash: sent.hash, blockNumber: BigInt(sent.blockNumber), logIndex: 0, args: { value: 25_000_000n } });
  });

  it('send pays ETH, and says so to a person', async () => {
    const to = freshAddress();
    const { code, out } = await cli(['send', '--to', to, '--amount', '0.5'], dataDir);
    expect(code).toBe(0);
    expect(out).toMatch(new RegExp(`^Sent 0\\.5 ETH to ${to}\\n {2}Transaction {2}0x[0-9a-f]{64}\\n {2}Block {8}\\d+\\n$`));
    expect(await client.getBalance({ address: to })).toBe(parseEther('0.5'));
  });

  it('send --rpc reaches the node named; tokens need the addresses node recorded', async () => {
    const to = freshAddress();
    expect((await cli(['send', '--to', to, '--amount', '1', '--rpc', rpcUrl], emptyDir)).code).toBe(0);
    expect(await client.getBalance({ address: to })).toBe(parseEther('1'));
    expect(await cli(['send', '--to', to, '--amount', '1', '--token', 'USDC', '--rpc', rpcUrl], emptyDir)).toEqual({
      code: 1,
      out: '',
      err: `chain: The USDC address is unknown: npm run chain -- node records it in ${join(emptyDir, 'chain.json')}\n`,
    });
  });

  it('send reports what the node refused (exit 1)', async () => {
    const { code, err } = await cli(['send', '--to', freshAddress(), '--amount', '100000'], dataDir);
    expect(code).toBe(1);
    expect(err).toMatch(/^chain: Sender doesn't have enough funds to send tx\./);
  });

  it('mine adds empty blocks', async () => {
    const head = await client.getBlockNumber({ cacheTime: 0 });
    expect(await cli(['mine', '--blocks', '12', '--json'], dataDir)).toEqual({ code: 0, out: `${JSON.stringify({ mined: 12, head: Number(head) + 12 }, null, 2)}\n`, err: '' });
    expect((await client.getBlock({ blockNumber: head + 12n })).transactions).toEqual([]);
    expect((await cli(['mine'], dataDir)).out).toBe(`Mined 1 block; the head is block ${head + 13n}.\n`);
  });

  it('runs the Bitcoin node on loopback with a wallet that can pay: a matured coinbase, its data in the data directory', async () => {
    expect(bitcoinRpcUrl).toMatch(/^http:\/\/gateway:[0-9a-f]{32}@127\.0\.0\.1:\d+$/);
    expect(output).toContain(`Local Bitcoin node running (litecoind -regtest)\n  RPC URL          ${bitcoinRpcUrl}\n`);
    expect(await bitcoin.height()).toBeGreaterThanOrEqual(101);
    expect(Number(await bitcoin.rpc('getbalance'))).toBeGreaterThan(0);
    expect(await readdir(join(dataDir, 'bitcoin'))).toEqual(expect.arrayContaining(['regtest', 'rpc-password']));
  });

  it('send --network bitcoin pays a tb1 address from another process: the txid the node knows, the exact amount to its script', async () => {
    const { code, out, err } = await cliProcess(['send', '--network', 'bitcoin', '--to', TESTNET_ADDRESS, '--amount', '0.001'], dataDir);
    expect(err).toBe('');
    expect(code).toBe(0);
    const txid = /^ {2}Transaction {2}([0-9a-f]{64})$/m.exec(out)?.[1];
    expect(out).toBe(`Sent 0.001 BTC to ${TESTNET_ADDRESS}\n  Transaction  ${txid}\n  Unconfirmed until a block is mined: npm run chain -- mine --network bitcoin\n`);
    const transaction = await bitcoin.rpc('getrawtransaction', [txid, true]);
    const paid = transaction.vout.filter((output: any) => output.scriptPubKey.hex === scriptOf(TESTNET_ADDRESS));
    expect(paid.map((output: any) => output.value)).toEqual(['0.00100000']);
  });

  it('send --network bitcoin pays a bc1 address the same script, to the satoshi, and mine confirms it', async () => {
    const { code, out } = await cli(['send', '--network', 'bitcoin', '--to', MAINNET_ADDRESS, '--amount', '0.12345678', '--json'], dataDir);
    expect(code).toBe(0);
    const sent = JSON.parse(out);
    expect(sent).toEqual({ txid: expect.stringMatching(/^[0-9a-f]{64}$/), to: MAINNET_ADDRESS, amount: '0.12345678', asset: 'BTC' });
    expect(scriptOf(MAINNET_ADDRESS)).toBe(scriptOf(TESTNET_ADDRESS));
    const transaction = await bitcoin.rpc('getrawtransaction', [sent.txid, true]);
    expect(transaction.vout.filter((output: any) => output.scriptPubKey.hex === scriptOf(MAINNET_ADDRESS)).map((output: any) => output.value)).toEqual(['0.12345678']);

    const head = await bitcoin.height();
    expect(await cli(['mine', '--network', 'bitcoin', '--blocks', '2', '--json'], dataDir)).toEqual({ code: 0, out: `${JSON.stringify({ mined: 2, head: head + 2 }, null, 2)}\n`, err: '' });
    expect((await bitcoin.rpc('gettransaction', [sent.txid])).confirmations).toBe('2');
  });

  it('mine --network bitcoin from another process advances the height; the EVM chain stays where it was', async () => {
    const [height, evmHead] = [await bitcoin.height(), await client.getBlockNumber({ cacheTime: 0 })];
    const { code, out, err } = await cliProcess(['mine', '--network', 'bitcoin', '--blocks', '3'], dataDir);
    expect({ code, out, err }).toEqual({ code: 0, out: `Mined 3 blocks on bitcoin; the head is block ${height + 3}.\n`, err: '' });
    expect(await bitcoin.height()).toBe(height + 3);
    expect(await client.getBlockNumber({ cacheTime: 0 })).toBe(evmHead);
  });

  it('send --network bitcoin refuses a bad amount or address from another process, with a message (exit 2)', async () => {
    const [tooPrecise, badAddress] = await Promise.all([
      cliProcess(['send', '--network', 'bitcoin', '--to', TESTNET_ADDRESS, '--amount', '0.123456789'], dataDir),
      cliProcess(['send', '--network', 'bitcoin', '--to', `0x${'1'.repeat(40)}`, '--amount', '0.001'], dataDir),
    ]);
    expect(tooPrecise.code).toBe(2);
    expect(tooPrecise.err).toContain('chain: --amount must be a positive decimal number of BTC with at most 8 decimal places');
    expect(badAddress.code).toBe(2);
    expect(badAddress.err).toContain('chain: --to must be a Bitcoin segwit address as the gateway shows it');
  });

  it('send --network bitcoin reports what the node refused (exit 1)', async () => {
    const { code, err } = await cli(['send', '--network', 'bitcoin', '--to', TESTNET_ADDRESS, '--amount', '20000000'], dataDir);
    expect(code).toBe(1);
    expect(err).toMatch(/^chain: sendtoaddress: /);
  });

  it('a second node on the same data directory is refused', async () => {
    const { code, err } = await cli(['node', '--port', '0'], dataDir);
    expect(code).toBe(1);
    expect(err).toBe(`chain: A local chain is running from ${dataDir} already, at ${rpcUrl} (pid ${node.pid}); stop it, or set GATEWAY_DATA_DIR\n`);
  });

  it('stops on SIGTERM: no Hardhat process and no chain.json are left', async () => {
    const hardhatPid = Number(/^Local chain running \(Hardhat, pid (\d+)\)$/m.exec(output)?.[1]);
    expect(isRunning(hardhatPid)).toBe(true);
    node.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(output).toMatch(/SIGTERM: stopping\nStopped\n$/);
    expect(isRunning(hardhatPid)).toBe(false);
    await expect(stat(join(dataDir, 'chain.json'))).rejects.toThrow(/ENOENT/);
    expect((await cli(['mine'], dataDir)).err).toContain(`No local chain is running from ${dataDir}`);
    // The Bitcoin node stopped too; its chain stays in the data directory for the next start.
    await expect(bitcoin.height()).rejects.toThrow();
    expect(await readdir(join(dataDir, 'bitcoin', 'regtest'))).toContain('blocks');
  });

  it('started again, funds the new EVM chain and leaves the Bitcoin treasury, funded already, as it is', async () => {
    const addresses = await treasuryAddresses(new KeyFileTreasurySigner(treasuryKeyDirectory(dataDir)), 'demo');
    await startNode();
    try {
      expect(output).toContain(`  evm              ${addresses.evm} holds 100 ETH, 100000 USDT\n`);
      expect(output).toContain(`  bitcoin          ${addresses.bitcoin} holds 10 BTC\n`);
      const restarted = await BitcoinRpc.connect(printed('GATEWAY_RPC_BITCOIN'));
      const outputs = await new BitcoinTreasuryReader(restarted.rpcUrl).unspentOutputs(addresses.bitcoin);
      // The one output of the first start: nothing was sent again.
      expect(outputs).toEqual([expect.objectContaining({ amount: '10.00000000' })]);
      expect(outputs[0]!.height).toBeLessThan((await restarted.height()) - 3);
    } finally {
      node.kill('SIGTERM');
      expect(await exited).toBe(0);
    }
  });
});

describe('npm run chain -- node without litecoind', () => {
  it('says how to install it and runs the EVM chain alone', async () => {
    const { code, out, err } = await withoutLitecoind;
    expect(code).toBe(0);
    expect(err).toContain('No Bitcoin node: /nonexistent/litecoind is not installed, or cannot be run (spawn /nonexistent/litecoind ENOENT).\n');
    expect(err).toContain('  Install it with apt-get install litecoind');
    expect(err).toContain('or point GATEWAY_RPC_BITCOIN at any Bitcoin Core-compatible node. The EVM chain runs without it.\n');
    expect(out).toMatch(/^Local chain running \(Hardhat, pid \d+\)$/m);
    expect(out).toMatch(/^ {2}GATEWAY_RPC_ETHEREUM=http:\/\/127\.0\.0\.1:\d+$/m);
    expect(out).not.toContain('GATEWAY_RPC_BITCOIN');
    expect(out).toMatch(/SIGTERM: stopping\nStopped\n$/);
  });
});
