/**
 * The chain watcher's port to an EVM node over JSON-RPC (shared/chain/json-rpc.ts; viem decodes
 * the token logs), and a range of blocks in a few JSON-RPC batches rather than a request a block. Every answer is checked before the watcher sees
 * it: an RPC that answers garbage, or blocks of another chain than the one configured, throws, like
 * one that fails or times out.
 */
import { decodeEventLog, encodeEventTopics, parseAbiItem, type Hex } from 'viem';
import * as z from 'zod';
import type { BlockRef, ChainReader, EvmBlock, TokenTransferLog } from '../domain/chains/index.js';
import { heights } from '../domain/kernel/index.js';
import { JsonRpcError, JsonRpcHttp, type JsonRpcCall } from './json-rpc.js';

const TRANSFER_EVENT = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');
const TRANSFER_TOPICS = encodeEventTopics({ abi: [TRANSFER_EVENT], eventName: 'Transfer' });

const hash = z.string().regex(/^0x[0-9a-fA-F]{64}$/);
const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/);
const height = z.bigint().nonnegative().transform(Number);

/** A JSON-RPC quantity: hex, as the node writes it. */
export const quantity = z
  .string()
  .regex(/^0x[0-9a-fA-F]+$/, 'must be a hex quantity')
  .transform((value) => BigInt(value));

/** A block number as the node writes it. */
const blockNumber = quantity.pipe(height);
const hexQuantity = (value: number): string => `0x${value.toString(16)}`;

/** `eth_getTransactionReceipt`: where the transaction was mined. */
const receiptSchema = z.object({ blockNumber, blockHash: hash });

/** `eth_getBlockByNumber` with its transactions, as the node writes it. */
const blockSchema = z.object({
  number: blockNumber,
  hash,
  parentHash: hash,
  transactions: z.array(
    z.object({
      hash,
      // Absent or null for a contract creation.
      to: address.nullish().transform((to) => to ?? null),
      value: quantity,
      // Absent, or 0 on some nodes, for a legacy transaction signed for any chain (before EIP-155).
      chainId: quantity.optional(),
    }),
  ),
});

/** A log of `eth_getLogs`, as the node writes it. */
const logSchema = z.object({
  address,
  topics: z.array(hash),
  data: z.string().regex(/^0x([0-9a-fA-F]{2})*$/),
  transactionHash: hash,
  logIndex: quantity.pipe(height),
  blockNumber,
  blockHash: hash,
});

/** How long one JSON-RPC request may take; a run that waits longer fails and leaves its cursor. */
const RPC_TIMEOUT_MS = 10_000;

/**
 * Blocks asked for in one request, and requests at a time: within what providers take in a batch
 * (some refuse more than 100 calls), and a few dozen megabytes of blocks with their transactions
 * in the function's memory at most.
 */
const BLOCKS_PER_REQUEST = 50;
const BLOCK_REQUESTS_AT_ONCE = 2;

/**
 * Blocks of token logs asked for in one `eth_getLogs`, and calls in one request: USDT's and USDC's
 * logs of 10 busy Ethereum or BSC blocks (a few thousand) stay within what providers answer
 * (commonly 10,000 logs, or a 2,000-block range). A range a node still refuses is asked in halves.
 */
const LOG_BLOCKS_PER_CALL = 10;
const LOG_CALLS_PER_REQUEST = 5;

/** The JSON-RPC client of an EVM node, as every reader of the node calls it. */
export const evmJsonRpc = (rpcUrl: string): JsonRpcHttp => new JsonRpcHttp(rpcUrl, { version: '2.0', timeoutMs: RPC_TIMEOUT_MS, parse: (text) => JSON.parse(text) });

/** A node of another chain than the one configured, or a block of another chain than its node's. */
export class WrongChainError extends Error {}

export class EvmRpcReader implements ChainReader {
  private readonly rpc: JsonRpcHttp;
  /** The node's chain id, asked for once and checked against `expectedChainId`. */
  private nodeChainId: Promise<bigint> | undefined;

  /** `expectedChainId`: the network's EIP-155 chain id; a node on another chain is refused. */
  constructor(
    rpcUrl: string,
    private readonly expectedChainId?: number,
  ) {
    this.rpc = evmJsonRpc(rpcUrl);
  }

  async headNumber(): Promise<number> {
    return blockNumber.parse(await this.rpc.call('eth_blockNumber', []));
  }

  /** The canonical blocks `first` to `last`, in order, with their transactions: `eth_getBlockByNumber` in batches. */
  async blocks(first: number, last: number): Promise<EvmBlock[]> {
    const numbers = heights(first, last);
    if (numbers.length === 0) return [];
    const chainId = await this.chainId();
    const answers = await this.rpc.batches(
      numbers.map((number) => ({ method: 'eth_getBlockByNumber', params: [hexQuantity(number), true] })),
      BLOCKS_PER_REQUEST,
      BLOCK_REQUESTS_AT_ONCE,
    );
    return answers.map((answer, index) => {
      const number = numbers[index]!;
      if (answer === null) throw new Error(`eth_getBlockByNumber ${number}: the node has no such block`);
      const block = blockSchema.parse(answer);
      if (block.number !== number) throw new Error(`eth_getBlockByNumber ${number} answered block ${block.number}`);
      const stranger = block.transactions.find((tx) => tx.chainId !== undefined && tx.chainId !== 0n && tx.chainId !== chainId);
      if (stranger) throw new WrongChainError(`Block ${number} holds transaction ${stranger.hash} of chain ${stranger.chainId}, not the node's chain ${chainId}`);
      return { number: block.number, hash: block.hash, parentHash: block.parentHash, transactions: block.transactions.map(({ hash, to, value }) => ({ hash, to, value })) };
    });
  }

  async blockHash(number: number): Promise<string> {
    const block = await this.rpc.call('eth_getBlockByNumber', [hexQuantity(number), false]);
    if (block === null) throw new Error(`eth_getBlockByNumber ${number}: the node has no such block`);
    return z.object({ hash }).parse(block).hash;
  }

  /** The tokens' Transfer logs of blocks `fromBlock` to `toBlock`: `eth_getLogs` a few blocks a call, in batches. */
  async tokenTransfers(fromBlock: number, toBlock: number, tokens: readonly string[]): Promise<TokenTransferLog[]> {
    const ranges: Array<[number, number]> = [];
    for (let first = fromBlock; first <= toBlock; first += LOG_BLOCKS_PER_CALL) ranges.push([first, Math.min(toBlock, first + LOG_BLOCKS_PER_CALL - 1)]);
    let answers: unknown[];
    try {
      answers = await this.rpc.batches(
        ranges.map((range) => logsCall(range, tokens)),
        LOG_CALLS_PER_REQUEST,
        BLOCK_REQUESTS_AT_ONCE,
      );
    } catch (error) {
      // The node answered, and refused: too many logs for a call or for a request, as providers limit them.
      if (!(error instanceof JsonRpcError)) throw error;
      answers = [];
      for (const range of ranges) answers.push(...(await this.logsInHalves(range, tokens)));
    }
    return answers
      .flatMap((answer) => z.array(z.unknown()).parse(answer))
      .flatMap((raw) => {
        const log = logSchema.parse(raw);
        // As viem's strict decoding: a log named Transfer that is not ERC-20's (ERC-721's indexes its value) is none.
        const decoded = decodeTransfer(log.topics, log.data as Hex);
        if (!decoded) return [];
        return [{ token: log.address, to: decoded.to, value: decoded.value, transactionHash: log.transactionHash, logIndex: log.logIndex, blockNumber: log.blockNumber, blockHash: log.blockHash }];
      });
  }

  /** The logs of `range` in one call, or of its halves when the node refuses it, down to one block. */
  private async logsInHalves([first, last]: [number, number], tokens: readonly string[]): Promise<unknown[]> {
    const { method, params } = logsCall([first, last], tokens);
    try {
      return [await this.rpc.call(method, params)];
    } catch (error) {
      if (!(error instanceof JsonRpcError) || first === last) throw error;
      const middle = Math.floor((first + last) / 2);
      return [...(await this.logsInHalves([first, middle], tokens)), ...(await this.logsInHalves([middle + 1, last], tokens))];
    }
  }

  /** The node's chain id, the configured one's or the reader fails; asked once, again only after a failure. */
  private chainId(): Promise<bigint> {
    this.nodeChainId ??= (async () => {
      const chainId = quantity.parse(await this.rpc.call('eth_chainId', []));
      if (this.expectedChainId !== undefined && chainId !== BigInt(this.expectedChainId)) {
        throw new WrongChainError(`The node is on chain ${chainId}, not chain ${this.expectedChainId} as configured`);
      }
      return chainId;
    })();
    this.nodeChainId.catch(() => (this.nodeChainId = undefined));
    return this.nodeChainId;
  }

  /** Where the transaction was mined; undefined while the node knows no receipt of it (not mined, or mined on a branch it left). */
  async minedAt(transactionHash: string): Promise<BlockRef | undefined> {
    const receipt = await this.rpc.call('eth_getTransactionReceipt', [transactionHash]);
    if (receipt === null) return undefined;
    const { blockNumber: number, blockHash } = receiptSchema.parse(receipt);
    return { number, hash: blockHash };
  }
}

const logsCall = ([first, last]: [number, number], tokens: readonly string[]): JsonRpcCall => ({
  method: 'eth_getLogs',
  params: [{ address: tokens, topics: TRANSFER_TOPICS, fromBlock: hexQuantity(first), toBlock: hexQuantity(last) }],
});

/** An ERC-20 `Transfer` log's recipient and value, or undefined for any other log. */
export function decodeTransfer(topics: string[], data: Hex): { to: string; value: bigint } | undefined {
  try {
    const { args } = decodeEventLog({ abi: [TRANSFER_EVENT], topics: topics as [Hex, ...Hex[]], data, strict: true });
    return { to: args.to, value: args.value };
  } catch {
    return undefined;
  }
}
