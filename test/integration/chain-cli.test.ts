/**
 * `npm run chain`: `node` as a person runs it (a child process, stopped by a signal), `send` and
 * `mine` in process against it, and what each says when something is wrong.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, erc20Abi, http, isAddress, parseEther, type Address, type PublicClient } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { runChainCli } from '../../infra/chain/chain-cli.js';
import { isRunning } from '../support/processes.js';
import { eventually } from '../support/wait.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const READY_LINE = 'Press Ctrl+C to stop.';

async function cli(args: string[], dataDir: string) {
  let out = '';
  let err = '';
  const code = await runChainCli(args, {
    env: { GATEWAY_DATA_DIR: dataDir },
    out: (text) => (out += text),
    err: (text) => (err += text),
    untilStopped: () => new Promise(() => undefined),
  });
  return { code, out, err };
}

const freshAddress = (): Address => privateKeyToAccount(generatePrivateKey()).address;

let emptyDir: string;

beforeAll(async () => {
  emptyDir = await mkdtemp(join(tmpdir(), 'chain-cli-empty-'));
});

afterAll(async () => {
  await rm(emptyDir, { recursive: true, force: true });
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
});

describe('a chain run with npm run chain -- node', () => {
  let dataDir: string;
  let node: ChildProcessWithoutNullStreams;
  let exited: Promise<number | null>;
  let output = '';
  let rpcUrl: string;
  let tokens: { USDT: Address; USDC: Address };
  let client: PublicClient;

  const printed = (label: string): string => {
    const value = new RegExp(`^ {2}${label}=(\\S+)$`, 'm').exec(output)?.[1];
    if (value === undefined) throw new Error(`node did not print ${label}:\n${output}`);
    return value;
  };

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'chain-cli-'));
    node = spawn(process.execPath, ['--import', 'tsx', 'infra/chain/chain.ts', 'node', '--port', '0'], {
      cwd: ROOT,
      env: { ...process.env, GATEWAY_DATA_DIR: dataDir },
    });
    node.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    node.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    exited = once(node, 'exit').then(([code]) => code as number | null);
    await eventually(() => output.includes(READY_LINE) || node.exitCode !== null, { timeoutMs: 60_000, what: 'the chain to start' });
    if (!output.includes(READY_LINE)) throw new Error(`node exited:\n${output}`);
    rpcUrl = printed('GATEWAY_RPC_ETHEREUM');
    tokens = JSON.parse(printed('GATEWAY_TOKENS_ETHEREUM'));
    client = createPublicClient({ transport: http(rpcUrl) });
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
    expect(output).toContain(`  GATEWAY_RPC_ETHEREUM=${rpcUrl} GATEWAY_TOKENS_ETHEREUM='${JSON.stringify(tokens)}' npm start\n`);
    // The node's log of each call follows the banner; the list of test keys before it does not.
    expect(output).not.toContain('Private Key');

    const file = join(dataDir, 'chain.json');
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ rpcUrl, chainId: 11155111, pid: node.pid, tokens });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
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
  });
});
