/**
 * `npm run chain -- <command>`: local chains to pay invoices on by hand (docs/operations.md#a-local-chain).
 * `node` runs an EVM chain with USDT and USDC test tokens and, beside it, a Bitcoin regtest node
 * (bitcoin-node.ts) with a funded wallet, funds the local treasuries on both (local-treasuries.ts),
 * and says how to point `npm start` at both; `send` pays an
 * address from a funded test account or the Bitcoin wallet; `mine` adds blocks for confirmations.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { BaseError, getAddress, isAddress, type Address } from 'viem';
import * as z from 'zod';
import { Decimal, parseDecimalText } from '../../shared/domain/kernel/index.js';
import type { CliIo } from '../cli/merchant-cli.js';
import { DEFAULT_DATA_DIR } from '../local/environment.js';
import { readJsonFile } from '../local/json-file.js';
import { isProcessAlive } from '../local/runtime-info.js';
import { BITCOIN_NODE_PROGRAM, BitcoinNode, BitcoinNodeNotInstalledError, BitcoinRpc, parseSegwitAddress } from './bitcoin-node.js';
import { ChainTools, compileTestToken, startLocalChain, type LocalChain, type SentTransaction } from './local-chain.js';
import { fundLocalTreasuries, type LocalTreasury } from './local-treasuries.js';

export const DEFAULT_PORT = 8545;
/** Bitcoin Core's regtest JSON-RPC port, where Bitcoin tools look first. */
export const DEFAULT_BITCOIN_PORT = 18443;
export const NETWORKS = ['ethereum', 'bitcoin'] as const;
type Network = (typeof NETWORKS)[number];
export const TEST_TOKENS = ['USDT', 'USDC'] as const;
type TestToken = (typeof TEST_TOKENS)[number];
/** As the real USDT and USDC on Ethereum. */
export const TEST_TOKEN_DECIMALS = 6;
const TEST_TOKEN_SUPPLY = '1000000000';
const ETH_DECIMALS = 18;
const BTC_DECIMALS = 8;
const MAX_BLOCKS = 1_000_000;
/** The Bitcoin node mines them in one call, which must finish in seconds. */
const MAX_BITCOIN_BLOCKS = 1_000;
/** The segwit prefixes the gateway writes Bitcoin addresses with: mainnet, testnet, regtest. */
const BITCOIN_PREFIXES = ['bc', 'tb', 'bcrt'];

export const USAGE = `Usage: npm run chain -- <command> [options]

Commands:
  node [--port ${DEFAULT_PORT}] [--bitcoin-port ${DEFAULT_BITCOIN_PORT}]
      Runs a local EVM chain (Hardhat, chain id 11155111 as Sepolia) in the foreground until
      Ctrl-C, deploys USDT and USDC test tokens (${TEST_TOKEN_DECIMALS} decimals, the supply to the first funded
      account), and prints the variables that point npm start at it. Beside it, a Bitcoin regtest
      node (litecoind, whose regtest speaks Bitcoin Core's RPC) with a funded wallet, its data kept
      in the data directory; without litecoind the EVM chain runs alone. Tops the treasuries of
      the data directory's keys up (made there if missing): ETH and USDT on the EVM chain, BTC on
      the Bitcoin node; a treasury funded already is left as it is. Port 0 picks a free port.
  send --to ADDRESS --amount AMOUNT [--token ${TEST_TOKENS.join('|')}] [--rpc URL] [--json]
      Sends AMOUNT ETH, or AMOUNT of the token, from the first funded account to ADDRESS.
  send --network bitcoin --to ADDRESS --amount AMOUNT [--rpc URL] [--json]
      Sends AMOUNT BTC (at most ${BTC_DECIMALS} decimal places) from the Bitcoin node's wallet to a segwit
      ADDRESS as the gateway shows it (bc1…, tb1… or bcrt1…: the same output script is paid);
      prints the txid. It stays in the mempool until mined.
  mine [--blocks N] [--network ethereum|bitcoin] [--rpc URL] [--json]
      Mines N blocks (default 1), e.g. to give a deposit its confirmations: empty ones on
      ethereum (at most ${MAX_BLOCKS}), on bitcoin with what the mempool holds (at most ${MAX_BITCOIN_BLOCKS}).

Where:
  default        the chains that node runs from $GATEWAY_DATA_DIR (${DEFAULT_DATA_DIR}), found through its chain.json
  --network      ethereum (the default) or bitcoin
  --rpc URL      the Hardhat node at URL (token addresses still come from chain.json), or with
                 --network bitcoin a Bitcoin Core-compatible node (http://user:password@host:port)
  $GATEWAY_BITCOIN_NODE  the Bitcoin daemon that node runs, if not litecoind
`;

const OPTIONS = {
  port: { type: 'string' },
  'bitcoin-port': { type: 'string' },
  network: { type: 'string' },
  to: { type: 'string' },
  amount: { type: 'string' },
  token: { type: 'string' },
  rpc: { type: 'string' },
  blocks: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

type OptionName = keyof typeof OPTIONS;
type Values = { [K in OptionName]?: (typeof OPTIONS)[K]['type'] extends 'boolean' ? boolean : string };

const COMMAND_OPTIONS = {
  node: ['port', 'bitcoin-port'],
  send: ['network', 'to', 'amount', 'token', 'rpc', 'json'],
  mine: ['network', 'blocks', 'rpc', 'json'],
} as const satisfies Record<string, readonly OptionName[]>;

type CommandName = keyof typeof COMMAND_OPTIONS;

type Command =
  | { name: 'node'; port: number; bitcoinPort: number }
  | { name: 'send'; network: 'ethereum'; to: Address; amount: string; token?: TestToken; rpc?: string; json: boolean }
  | { name: 'send'; network: 'bitcoin'; to: string; amount: string; rpc?: string; json: boolean }
  | { name: 'mine'; network: Network; blocks: number; rpc?: string; json: boolean };

class UsageError extends Error {}

/** The chain `node` runs: written once it serves, removed when it stops. */
const chainFileSchema = z.object({
  rpcUrl: z.string(),
  chainId: z.number().int(),
  /** The `node` command's process. */
  pid: z.number().int(),
  tokens: z.record(
    z.enum(TEST_TOKENS),
    z.custom<Address>((value) => typeof value === 'string' && isAddress(value)),
  ),
  /** Absent when the Bitcoin node did not start (litecoind not installed, say). */
  bitcoin: z.object({ rpcUrl: z.string() }).optional(),
});
type ChainFile = z.infer<typeof chainFileSchema>;

export const chainFile = (dataDir: string): string => join(dataDir, 'chain.json');
const readChainFile = (dataDir: string): Promise<ChainFile | undefined> => readJsonFile(chainFile(dataDir), chainFileSchema, 'is not a local chain description; remove it');

function required(values: Values, option: 'to' | 'amount'): string {
  const value = values[option]?.trim();
  if (!value) throw new UsageError(`--${option} is required`);
  return value;
}

function address(values: Values): Address {
  const value = required(values, 'to');
  // Mixed case is an EIP-55 checksum and must be right: a typo then cannot pass.
  if (!isAddress(value)) throw new UsageError('--to must be an EVM address: 0x and 40 hex digits (with a valid checksum if in mixed case)');
  return getAddress(value);
}

function bitcoinAddress(values: Values): string {
  const value = required(values, 'to');
  // The bech32 checksum catches a mistyped character; the prefix only names the network.
  const parsed = parseSegwitAddress(value);
  if (!parsed || !BITCOIN_PREFIXES.includes(parsed.prefix)) {
    throw new UsageError('--to must be a Bitcoin segwit address as the gateway shows it: bc1…, tb1… or bcrt1…, with a valid checksum');
  }
  return value;
}

/**
 * The amount as written, and as plain digits without trailing zeros (what the Bitcoin node is
 * given), when it fits `decimals` places; else a usage error naming the asset.
 */
function amount(values: Values, asset: string, decimals: number, example: string): { written: string; plain: string } {
  const value = required(values, 'amount');
  const parsed = parseDecimalText(value, 'decimal');
  if (!('value' in parsed) || parsed.value.isZero() || parsed.value.decimalPlaces() > decimals) {
    throw new UsageError(`--amount must be a positive decimal number of ${asset} with at most ${decimals} decimal places, e.g. ${example}`);
  }
  return { written: value, plain: parsed.value.toFixed() };
}

function network(values: Values): Network {
  const value = values.network ?? 'ethereum';
  if (!(NETWORKS as readonly string[]).includes(value)) throw new UsageError(`--network must be ${NETWORKS.join(' or ')}`);
  return value as Network;
}

function token(values: Values): TestToken | undefined {
  const value = values.token;
  if (value === undefined) return undefined;
  if (!(TEST_TOKENS as readonly string[]).includes(value)) throw new UsageError(`--token must be ${TEST_TOKENS.join(' or ')}`);
  return value as TestToken;
}

function rpc(values: Values): string | undefined {
  const value = values.rpc;
  if (value === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new UsageError('--rpc must be an http URL, e.g. http://127.0.0.1:8545');
  }
  if (!['http:', 'https:'].includes(parsed.protocol)) throw new UsageError('--rpc must be an http or https URL');
  return value;
}

function wholeNumber(value: string | undefined, option: 'port' | 'bitcoin-port' | 'blocks', fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  const number = /^\d{1,7}$/.test(value) ? Number(value) : NaN;
  if (!(number >= min && number <= max)) throw new UsageError(`--${option} must be a whole number from ${min} to ${max}`);
  return number;
}

function parseCommand(name: CommandName, values: Values): Command {
  switch (name) {
    case 'node':
      return {
        name,
        port: wholeNumber(values.port, 'port', DEFAULT_PORT, 0, 65535),
        bitcoinPort: wholeNumber(values['bitcoin-port'], 'bitcoin-port', DEFAULT_BITCOIN_PORT, 0, 65535),
      };
    case 'send': {
      const json = values.json ?? false;
      if (network(values) === 'bitcoin') {
        if (values.token !== undefined) throw new UsageError('--token is for ethereum: bitcoin sends BTC');
        return { name, network: 'bitcoin', to: bitcoinAddress(values), amount: amount(values, 'BTC', BTC_DECIMALS, '0.001').plain, rpc: rpc(values), json };
      }
      const asset = token(values);
      const decimals = asset ? TEST_TOKEN_DECIMALS : ETH_DECIMALS;
      return { name, network: 'ethereum', to: address(values), amount: amount(values, asset ?? 'ETH', decimals, '0.5').written, token: asset, rpc: rpc(values), json };
    }
    case 'mine': {
      const chain = network(values);
      const maxBlocks = chain === 'bitcoin' ? MAX_BITCOIN_BLOCKS : MAX_BLOCKS;
      return { name, network: chain, blocks: wholeNumber(values.blocks, 'blocks', 1, 1, maxBlocks), rpc: rpc(values), json: values.json ?? false };
    }
  }
}

type Invocation = { help: true } | { help: false; command: Command };

function parseInvocation(argv: string[]): Invocation {
  let parsed: { values: Values; positionals: string[] };
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const { values, positionals } = parsed;
  if (values.help) return { help: true };
  const [name, ...extra] = positionals;
  if (name === undefined) throw new UsageError('a command is required');
  if (!Object.hasOwn(COMMAND_OPTIONS, name)) throw new UsageError(`unknown command ${name}`);
  if (extra.length > 0) throw new UsageError(`unexpected argument ${extra[0]}`);
  const commandName = name as CommandName;
  const allowed: readonly OptionName[] = [...COMMAND_OPTIONS[commandName], 'help'];
  const stray = (Object.keys(values) as OptionName[]).find((option) => !allowed.includes(option));
  if (stray) throw new UsageError(`--${stray} is not an option of ${commandName}`);
  return { help: false, command: parseCommand(commandName, values) };
}

const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;

/** The Bitcoin node `node` runs beside the EVM chain, as the banner describes it. */
interface RunningBitcoin {
  node: BitcoinNode;
  program: string;
  dataDir: string;
  height: number;
  /** What the wallet can send, in BTC as the node wrote it. */
  balance: string;
}

/** What `node` prints once the chains serve, for a person to copy from. */
function banner(chain: LocalChain, tokens: Record<TestToken, Address>, file: string, bitcoin: RunningBitcoin | undefined, treasuries: readonly LocalTreasury[], dataDir: string): string {
  const tokensJson = JSON.stringify(tokens);
  const bitcoinVariable = bitcoin ? [`GATEWAY_RPC_BITCOIN=${bitcoin.node.rpcUrl}`] : [];
  return [
    `Local chain running (Hardhat, pid ${chain.pid})`,
    `  RPC URL          ${chain.rpcUrl}`,
    `  Chain id         ${chain.chainId}`,
    ...TEST_TOKENS.map((symbol) => `  ${symbol.padEnd(16)} ${tokens[symbol]} (${TEST_TOKEN_DECIMALS} decimals)`),
    `  Funded account   ${chain.accounts[0]} (sends, and holds the token supply)`,
    `  Chain file       ${file}`,
    ...(bitcoin
      ? [
          '',
          `Local Bitcoin node running (${bitcoin.program} -regtest)`,
          `  RPC URL          ${bitcoin.node.rpcUrl}`,
          `  Height           ${bitcoin.height}`,
          `  Wallet           ${bitcoin.balance} BTC to send`,
          `  Data directory   ${bitcoin.dataDir}`,
        ]
      : []),
    '',
    `Local treasuries (keys in ${join(dataDir, 'treasury')}; npm run merchant -- treasury reads them)`,
    ...treasuries.map(({ family, address, balances }) => `  ${family.padEnd(16)} ${address} holds ${balances.map(({ asset, amount }) => `${new Decimal(amount).toFixed()} ${asset}`).join(', ')}`),
    '',
    'Environment for npm start:',
    `  GATEWAY_RPC_ETHEREUM=${chain.rpcUrl}`,
    `  GATEWAY_TOKENS_ETHEREUM=${tokensJson}`,
    ...bitcoinVariable.map((variable) => `  ${variable}`),
    'In a shell:',
    `  ${[`GATEWAY_RPC_ETHEREUM=${chain.rpcUrl}`, `GATEWAY_TOKENS_ETHEREUM='${tokensJson}'`, ...bitcoinVariable, 'npm start'].join(' ')}`,
    '',
    `Pay an address:   npm run chain -- send --to <address> --amount 25 --token USDT`,
    ...(bitcoin ? ['                  npm run chain -- send --network bitcoin --to <bc1… or tb1… address> --amount 0.001'] : []),
    `Add blocks:       npm run chain -- mine --blocks 12`,
    ...(bitcoin ? ['                  npm run chain -- mine --network bitcoin --blocks 2'] : []),
    'Press Ctrl+C to stop.',
    '',
  ].join('\n');
}

/** Why `node` runs no Bitcoin node, and what to do about it; the EVM chain runs regardless. */
function bitcoinUnavailable(error: unknown): string {
  if (error instanceof BitcoinNodeNotInstalledError) {
    return [
      `No Bitcoin node: ${error.message}.`,
      "  Install it with apt-get install litecoind (Debian's Litecoin Core 0.21, whose regtest speaks Bitcoin Core's RPC),",
      '  or point GATEWAY_RPC_BITCOIN at any Bitcoin Core-compatible node. The EVM chain runs without it.',
      '',
    ].join('\n');
  }
  return `No Bitcoin node: it did not start (${describe(error)}). The EVM chain runs without it.\n`;
}

export interface ChainCliIo extends CliIo {
  /** Resolves to the signal's name once the person asks a running `node` to stop (Ctrl-C, SIGTERM). */
  untilStopped(): Promise<string>;
}

/** The Bitcoin node's data, kept across starts like the gateway's own data beside it. */
export const bitcoinDataDir = (dataDir: string): string => join(dataDir, 'bitcoin');

/** Made once and kept with the node's data, so that GATEWAY_RPC_BITCOIN is the same on every start. */
async function keptRpcPassword(bitcoinDir: string): Promise<string> {
  const file = join(bitcoinDir, 'rpc-password');
  try {
    const kept = (await readFile(file, 'utf8')).trim();
    if (/^[0-9a-f]{32}$/.test(kept)) return kept;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const password = randomBytes(16).toString('hex');
  await writeFile(file, `${password}\n`, { mode: 0o600 });
  return password;
}

/** Starts the Bitcoin node on the data directory and matures a coinbase, so that its wallet can pay. */
async function startBitcoin(dataDir: string, port: number, program: string): Promise<RunningBitcoin> {
  const bitcoinDir = bitcoinDataDir(dataDir);
  await mkdir(bitcoinDir, { recursive: true, mode: 0o700 });
  const node = await BitcoinNode.start({ dataDir: bitcoinDir, port, rpcPassword: await keptRpcPassword(bitcoinDir), program });
  try {
    await node.fund();
    return { node, program, dataDir: bitcoinDir, height: await node.height(), balance: String(await node.rpc('getbalance')) };
  } catch (error) {
    await node.stop();
    throw error;
  }
}

interface NodeOptions {
  port: number;
  bitcoinPort: number;
  bitcoinProgram: string;
  dataDir: string;
}

async function runNode({ port, bitcoinPort, bitcoinProgram, dataDir }: NodeOptions, io: ChainCliIo): Promise<void> {
  const file = chainFile(dataDir);
  const running = await readChainFile(dataDir);
  if (running && isProcessAlive(running.pid)) {
    throw new Error(`A local chain is running from ${dataDir} already, at ${running.rpcUrl} (pid ${running.pid}); stop it, or set GATEWAY_DATA_DIR`);
  }
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  // The node's own log (each call, each transaction mined) follows once the banner is out;
  // before it, it lists the well-known test accounts' keys, which the banner replaces.
  let printing = false;
  // Compiling blocks this process for a second or two; the nodes start in their own meanwhile.
  const [started, compiled, bitcoinStarted] = await Promise.allSettled([
    startLocalChain({ port, log: (line) => printing && io.out(`${line}\n`) }),
    compileTestToken(),
    startBitcoin(dataDir, bitcoinPort, bitcoinProgram),
  ]);
  const bitcoin = bitcoinStarted.status === 'fulfilled' ? bitcoinStarted.value : undefined;
  if (started.status === 'rejected') {
    await bitcoin?.node.stop();
    throw started.reason;
  }
  const chain = started.value;
  try {
    if (compiled.status === 'rejected') throw compiled.reason;
    const tokens = {} as Record<TestToken, Address>;
    // One after the other: the deployer's nonces, and so the addresses, are the same on every start.
    for (const symbol of TEST_TOKENS) tokens[symbol] = await chain.deployToken({ symbol, decimals: TEST_TOKEN_DECIMALS, supply: TEST_TOKEN_SUPPLY });
    const treasuries = await fundLocalTreasuries(dataDir, { chain, usdt: tokens.USDT, usdtDecimals: TEST_TOKEN_DECIMALS }, bitcoin?.node);
    const description: ChainFile = { rpcUrl: chain.rpcUrl, chainId: chain.chainId, pid: process.pid, tokens, ...(bitcoin && { bitcoin: { rpcUrl: bitcoin.node.rpcUrl } }) };
    await writeFile(file, `${JSON.stringify(description, null, 2)}\n`, { mode: 0o600 });
    if (bitcoinStarted.status === 'rejected') io.err(bitcoinUnavailable(bitcoinStarted.reason));
    io.out(banner(chain, tokens, file, bitcoin, treasuries, dataDir));
    printing = true;
    const outcome = await Promise.race([
      io.untilStopped().then((signal) => ({ signal })),
      chain.exited.then(() => ({ exited: 'The Hardhat node' })),
      ...(bitcoin ? [bitcoin.node.exited.then(() => ({ exited: 'The Bitcoin node' }))] : []),
    ]);
    if ('exited' in outcome) throw new Error(`${outcome.exited} exited by itself`);
    io.out(`${outcome.signal}: stopping\n`);
  } finally {
    await Promise.all([chain.stop(), bitcoin?.node.stop()]);
    await rm(file, { force: true });
  }
  io.out('Stopped\n');
}

/** The chain file of the `node` command running from `dataDir`, if one is. */
async function runningChain(dataDir: string): Promise<{ recorded?: ChainFile; running?: ChainFile }> {
  const recorded = await readChainFile(dataDir);
  return { recorded, running: recorded && isProcessAlive(recorded.pid) ? recorded : undefined };
}

/** The chain `send` and `mine` work on, with the test tokens `node` recorded (if any). */
async function connectTo(rpcOption: string | undefined, dataDir: string): Promise<{ chain: ChainTools; tokens?: Record<TestToken, Address> }> {
  const { recorded, running } = await runningChain(dataDir);
  const rpcUrl = rpcOption ?? running?.rpcUrl;
  if (rpcUrl === undefined) throw new Error(`No local chain is running from ${dataDir}; start one with npm run chain -- node (or pass --rpc URL)`);
  try {
    return { chain: await ChainTools.connect(rpcUrl), tokens: recorded?.tokens };
  } catch (error) {
    throw new Error(`No chain answers at ${rpcUrl}: ${describe(error)}`);
  }
}

/** The URL without its credentials, to name a node in a message. */
function withoutCredentials(rpcUrl: string): string {
  const url = new URL(rpcUrl);
  return `${url.protocol}//${url.host}${url.pathname === '/' ? '' : url.pathname}`;
}

/** The Bitcoin node `send --network bitcoin` and `mine --network bitcoin` work on. */
async function connectToBitcoin(rpcOption: string | undefined, dataDir: string): Promise<BitcoinRpc> {
  const { running } = await runningChain(dataDir);
  const rpcUrl = rpcOption ?? running?.bitcoin?.rpcUrl;
  if (rpcUrl === undefined) {
    throw new Error(
      running
        ? `The local chain running from ${dataDir} has no Bitcoin node (npm run chain -- node said why when it started; without litecoind: apt-get install litecoind, then start it again), or pass --rpc URL`
        : `No local Bitcoin node is running from ${dataDir}; start one with npm run chain -- node (or pass --rpc URL)`,
    );
  }
  try {
    return await BitcoinRpc.connect(rpcUrl);
  } catch (error) {
    throw new Error(`No Bitcoin node answers at ${withoutCredentials(rpcUrl)}: ${describe(error)}`);
  }
}

type ChainCommand = Exclude<Command, { name: 'node' }>;
type BitcoinCommand = Extract<ChainCommand, { network: 'bitcoin' }> | Extract<ChainCommand, { name: 'mine' }>;

async function runOnBitcoin(command: BitcoinCommand, dataDir: string): Promise<string> {
  const node = await connectToBitcoin(command.rpc, dataDir);
  switch (command.name) {
    case 'send': {
      const { to, amount } = command;
      const txid = await node.send(to, amount);
      if (command.json) return json({ txid, to, amount, asset: 'BTC' });
      return `Sent ${amount} BTC to ${to}\n  Transaction  ${txid}\n  Unconfirmed until a block is mined: npm run chain -- mine --network bitcoin\n`;
    }
    case 'mine': {
      await node.mine(command.blocks);
      const head = await node.height();
      if (command.json) return json({ mined: command.blocks, head });
      return `Mined ${command.blocks} block${command.blocks === 1 ? '' : 's'} on bitcoin; the head is block ${head}.\n`;
    }
  }
}

async function run(command: ChainCommand, dataDir: string): Promise<string> {
  if (command.network === 'bitcoin') return runOnBitcoin(command, dataDir);
  const { chain, tokens } = await connectTo(command.rpc, dataDir);
  switch (command.name) {
    case 'send': {
      const { to, amount } = command;
      let sent: SentTransaction;
      if (command.token) {
        const token = tokens?.[command.token];
        if (!token) throw new Error(`The ${command.token} address is unknown: npm run chain -- node records it in ${chainFile(dataDir)}`);
        if ((await chain.decimalsOf(token).catch(() => undefined)) === undefined) throw new Error(`No ${command.token} token at ${token} on ${chain.rpcUrl}`);
        sent = await chain.sendToken({ token, to, amount });
      } else {
        sent = await chain.sendNative({ to, amount });
      }
      const asset = command.token ?? 'ETH';
      const logIndex = 'logIndex' in sent ? sent.logIndex : undefined;
      if (command.json) return json({ hash: sent.hash, blockNumber: Number(sent.blockNumber), logIndex: logIndex ?? null, from: sent.from, to, amount, asset });
      const block = `${sent.blockNumber}${logIndex === undefined ? '' : ` (log index ${logIndex})`}`;
      return `Sent ${amount} ${asset} to ${to}\n  Transaction  ${sent.hash}\n  Block        ${block}\n`;
    }
    case 'mine': {
      const head = await chain.mine(command.blocks);
      if (command.json) return json({ mined: command.blocks, head: Number(head) });
      return `Mined ${command.blocks} block${command.blocks === 1 ? '' : 's'}; the head is block ${head}.\n`;
    }
  }
}

/**
 * viem's full messages add request arguments and a version footer; what the node said (its
 * `details`), else viem's one-line summary, is what a person needs.
 */
function describe(error: unknown): string {
  if (error instanceof BaseError) return error.details || error.shortMessage;
  return error instanceof Error ? error.message : String(error);
}

/** Runs one command; resolves to the exit code (0 done, 1 failed, 2 usage error). */
export async function runChainCli(argv: string[], io: ChainCliIo): Promise<number> {
  let invocation: Invocation;
  try {
    invocation = parseInvocation(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.err(`chain: ${error.message}\n\n${USAGE}`);
    return 2;
  }
  if (invocation.help) {
    io.out(USAGE);
    return 0;
  }
  const { command } = invocation;
  const dataDir = io.env.GATEWAY_DATA_DIR || DEFAULT_DATA_DIR;
  try {
    if (command.name === 'node') {
      const bitcoinProgram = io.env.GATEWAY_BITCOIN_NODE || BITCOIN_NODE_PROGRAM;
      await runNode({ port: command.port, bitcoinPort: command.bitcoinPort, bitcoinProgram, dataDir }, io);
    } else io.out(await run(command, dataDir));
    return 0;
  } catch (error) {
    io.err(`chain: ${describe(error)}\n`);
    return 1;
  }
}
