/**
 * `npm run chain -- <command>`: a local EVM chain to pay invoices on by hand (docs/operations.md#watching-chains).
 * `node` runs one with USDT and USDC test tokens and says how to point `npm start` at it; `send`
 * pays an address from a funded test account; `mine` adds empty blocks for confirmations.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { BaseError, getAddress, isAddress, type Address } from 'viem';
import * as z from 'zod';
import { parseDecimalText } from '../../shared/domain/money.js';
import type { CliIo } from '../cli/merchant-cli.js';
import { DEFAULT_DATA_DIR } from '../local/environment.js';
import { readJsonFile } from '../local/json-file.js';
import { isProcessAlive } from '../local/runtime-info.js';
import { ChainTools, compileTestToken, startLocalChain, type LocalChain } from './local-chain.js';

export const DEFAULT_PORT = 8545;
export const TEST_TOKENS = ['USDT', 'USDC'] as const;
type TestToken = (typeof TEST_TOKENS)[number];
/** As the real USDT and USDC on Ethereum. */
export const TEST_TOKEN_DECIMALS = 6;
const TEST_TOKEN_SUPPLY = '1000000000';
const ETH_DECIMALS = 18;
const MAX_BLOCKS = 1_000_000;

export const USAGE = `Usage: npm run chain -- <command> [options]

Commands:
  node [--port ${DEFAULT_PORT}]
      Runs a local EVM chain (Hardhat, chain id 11155111 as Sepolia) in the foreground until
      Ctrl-C, deploys USDT and USDC test tokens (${TEST_TOKEN_DECIMALS} decimals, the supply to the first funded
      account), and prints the variables that point npm start at it. --port 0 picks a free port.
  send --to ADDRESS --amount AMOUNT [--token ${TEST_TOKENS.join('|')}] [--rpc URL] [--json]
      Sends AMOUNT ETH, or AMOUNT of the token, from the first funded account to ADDRESS.
  mine [--blocks N] [--rpc URL] [--json]
      Mines N empty blocks (default 1), e.g. to give a deposit its confirmations.

Where:
  default      the chain that node runs from $GATEWAY_DATA_DIR (${DEFAULT_DATA_DIR}), found through its chain.json
  --rpc URL    the Hardhat node at URL (token addresses still come from chain.json)
`;

const OPTIONS = {
  port: { type: 'string' },
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
  node: ['port'],
  send: ['to', 'amount', 'token', 'rpc', 'json'],
  mine: ['blocks', 'rpc', 'json'],
} as const satisfies Record<string, readonly OptionName[]>;

type CommandName = keyof typeof COMMAND_OPTIONS;

type Command =
  | { name: 'node'; port: number }
  | { name: 'send'; to: Address; amount: string; token?: TestToken; rpc?: string; json: boolean }
  | { name: 'mine'; blocks: number; rpc?: string; json: boolean };

class UsageError extends Error {}

/** The chain `node` runs: written once it serves, removed when it stops. */
const chainFileSchema = z.object({
  rpcUrl: z.string(),
  chainId: z.number().int(),
  /** The `node` command's process. */
  pid: z.number().int(),
  tokens: z.record(z.enum(TEST_TOKENS), z.custom<Address>((value) => typeof value === 'string' && isAddress(value))),
});
type ChainFile = z.infer<typeof chainFileSchema>;

export const chainFile = (dataDir: string): string => join(dataDir, 'chain.json');
const readChainFile = (dataDir: string): Promise<ChainFile | undefined> =>
  readJsonFile(chainFile(dataDir), chainFileSchema, 'is not a local chain description; remove it');

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

function amount(values: Values, token: TestToken | undefined): string {
  const value = required(values, 'amount');
  const decimals = token ? TEST_TOKEN_DECIMALS : ETH_DECIMALS;
  const parsed = parseDecimalText(value, 'decimal');
  if (!('value' in parsed) || parsed.value.isZero() || parsed.value.decimalPlaces() > decimals) {
    throw new UsageError(`--amount must be a positive decimal number of ${token ?? 'ETH'} with at most ${decimals} decimal places, e.g. 0.5`);
  }
  return value;
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

function wholeNumber(value: string | undefined, option: 'port' | 'blocks', fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  const number = /^\d{1,7}$/.test(value) ? Number(value) : NaN;
  if (!(number >= min && number <= max)) throw new UsageError(`--${option} must be a whole number from ${min} to ${max}`);
  return number;
}

function parseCommand(name: CommandName, values: Values): Command {
  switch (name) {
    case 'node':
      return { name, port: wholeNumber(values.port, 'port', DEFAULT_PORT, 0, 65535) };
    case 'send': {
      const asset = token(values);
      return { name, to: address(values), amount: amount(values, asset), token: asset, rpc: rpc(values), json: values.json ?? false };
    }
    case 'mine':
      return { name, blocks: wholeNumber(values.blocks, 'blocks', 1, 1, MAX_BLOCKS), rpc: rpc(values), json: values.json ?? false };
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

/** What `node` prints once the chain serves, for a person to copy from. */
function banner(chain: LocalChain, tokens: Record<TestToken, Address>, file: string): string {
  const tokensJson = JSON.stringify(tokens);
  return [
    `Local chain running (Hardhat, pid ${chain.pid})`,
    `  RPC URL          ${chain.rpcUrl}`,
    `  Chain id         ${chain.chainId}`,
    ...TEST_TOKENS.map((symbol) => `  ${symbol.padEnd(16)} ${tokens[symbol]} (${TEST_TOKEN_DECIMALS} decimals)`),
    `  Funded account   ${chain.accounts[0]} (sends, and holds the token supply)`,
    `  Chain file       ${file}`,
    '',
    'Environment for npm start:',
    `  GATEWAY_RPC_ETHEREUM=${chain.rpcUrl}`,
    `  GATEWAY_TOKENS_ETHEREUM=${tokensJson}`,
    'In a shell:',
    `  GATEWAY_RPC_ETHEREUM=${chain.rpcUrl} GATEWAY_TOKENS_ETHEREUM='${tokensJson}' npm start`,
    '',
    `Pay an address:   npm run chain -- send --to <address> --amount 25 --token USDT`,
    `Add blocks:       npm run chain -- mine --blocks 12`,
    'Press Ctrl+C to stop.',
    '',
  ].join('\n');
}

export interface ChainCliIo extends CliIo {
  /** Resolves to the signal's name once the person asks a running `node` to stop (Ctrl-C, SIGTERM). */
  untilStopped(): Promise<string>;
}

async function runNode(port: number, dataDir: string, io: ChainCliIo): Promise<void> {
  const file = chainFile(dataDir);
  const running = await readChainFile(dataDir);
  if (running && isProcessAlive(running.pid)) {
    throw new Error(`A local chain is running from ${dataDir} already, at ${running.rpcUrl} (pid ${running.pid}); stop it, or set GATEWAY_DATA_DIR`);
  }
  // The node's own log (each call, each transaction mined) follows once the banner is out;
  // before it, it lists the well-known test accounts' keys, which the banner replaces.
  let printing = false;
  // Compiling blocks this process for a second or two; the node starts in its own meanwhile.
  const [started, compiled] = await Promise.allSettled([startLocalChain({ port, log: (line) => printing && io.out(`${line}\n`) }), compileTestToken()]);
  if (started.status === 'rejected') throw started.reason;
  const chain = started.value;
  try {
    if (compiled.status === 'rejected') throw compiled.reason;
    const tokens = {} as Record<TestToken, Address>;
    // One after the other: the deployer's nonces, and so the addresses, are the same on every start.
    for (const symbol of TEST_TOKENS) tokens[symbol] = await chain.deployToken({ symbol, decimals: TEST_TOKEN_DECIMALS, supply: TEST_TOKEN_SUPPLY });
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    const description: ChainFile = { rpcUrl: chain.rpcUrl, chainId: chain.chainId, pid: process.pid, tokens };
    await writeFile(file, `${JSON.stringify(description, null, 2)}\n`, { mode: 0o600 });
    io.out(banner(chain, tokens, file));
    printing = true;
    const outcome = await Promise.race([io.untilStopped(), chain.exited.then(() => undefined)]);
    if (outcome === undefined) throw new Error('The Hardhat node exited by itself');
    io.out(`${outcome}: stopping\n`);
  } finally {
    await chain.stop();
    await rm(file, { force: true });
  }
  io.out('Stopped\n');
}

/** The chain `send` and `mine` work on, with the test tokens `node` recorded (if any). */
async function connectTo(rpcOption: string | undefined, dataDir: string): Promise<{ chain: ChainTools; tokens?: Record<TestToken, Address> }> {
  const recorded = await readChainFile(dataDir);
  const running = recorded && isProcessAlive(recorded.pid) ? recorded : undefined;
  const rpcUrl = rpcOption ?? running?.rpcUrl;
  if (rpcUrl === undefined) throw new Error(`No local chain is running from ${dataDir}; start one with npm run chain -- node (or pass --rpc URL)`);
  try {
    return { chain: await ChainTools.connect(rpcUrl), tokens: recorded?.tokens };
  } catch (error) {
    throw new Error(`No chain answers at ${rpcUrl}: ${describe(error)}`);
  }
}

async function run(command: Exclude<Command, { name: 'node' }>, dataDir: string): Promise<string> {
  const { chain, tokens } = await connectTo(command.rpc, dataDir);
  switch (command.name) {
    case 'send': {
      const { to, amount } = command;
      let sent;
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
    if (command.name === 'node') await runNode(command.port, dataDir, io);
    else io.out(await run(command, dataDir));
    return 0;
  } catch (error) {
    io.err(`chain: ${describe(error)}\n`);
    return 1;
  }
}
