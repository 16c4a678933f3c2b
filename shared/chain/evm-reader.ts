/**
 * The chain watcher's port to an EVM node over JSON-RPC, with viem. Every answer is checked before
 * the watcher sees it: an RPC that answers garbage throws, like one that fails or times out.
 */
import { createClient, http, parseAbiItem, TransactionReceiptNotFoundError, type Client, type HttpTransport } from 'viem';
// The actions one by one, not the public client that carries every action: bundles keep only these.
import { getBlock, getBlockNumber, getLogs, getTransactionReceipt } from 'viem/actions';
import * as z from 'zod';
import type { BlockRef, ChainReader, EvmBlock, TokenTransferLog } from '../domain/chain.js';

const TRANSFER_EVENT = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');

const hash = z.string().regex(/^0x[0-9a-fA-F]{64}$/);
const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/);
const height = z.bigint().nonnegative().transform(Number);

const blockSchema = z.object({
  number: height,
  hash,
  parentHash: hash,
  transactions: z.array(z.object({ hash, to: address.nullable(), value: z.bigint().nonnegative() })),
});

const logSchema = z.object({
  address,
  args: z.object({ to: address, value: z.bigint().nonnegative() }),
  transactionHash: hash,
  logIndex: z.number().int().nonnegative(),
  blockNumber: height,
  blockHash: hash,
});

/** How long one JSON-RPC call may take; a run that waits longer fails and leaves its cursor. */
const RPC_TIMEOUT_MS = 10_000;

export class EvmRpcReader implements ChainReader {
  private readonly client: Client<HttpTransport>;

  constructor(rpcUrl: string) {
    this.client = createClient({ transport: http(rpcUrl, { timeout: RPC_TIMEOUT_MS, retryCount: 1 }) });
  }

  async headNumber(): Promise<number> {
    return height.parse(await getBlockNumber(this.client, { cacheTime: 0 }));
  }

  async block(number: number): Promise<EvmBlock> {
    return blockSchema.parse(await getBlock(this.client, { blockNumber: BigInt(number), includeTransactions: true }));
  }

  async blockHash(number: number): Promise<string> {
    return hash.parse((await getBlock(this.client, { blockNumber: BigInt(number) })).hash);
  }

  async tokenTransfers(fromBlock: number, toBlock: number, tokens: readonly string[]): Promise<TokenTransferLog[]> {
    const logs = await getLogs(this.client, {
      address: tokens as `0x${string}`[],
      event: TRANSFER_EVENT,
      fromBlock: BigInt(fromBlock),
      toBlock: BigInt(toBlock),
      strict: true,
    });
    return logs.map((log) => {
      const checked = logSchema.parse(log);
      return {
        token: checked.address,
        to: checked.args.to,
        value: checked.args.value,
        transactionHash: checked.transactionHash,
        logIndex: checked.logIndex,
        blockNumber: checked.blockNumber,
        blockHash: checked.blockHash,
      };
    });
  }

  async minedAt(transactionHash: string): Promise<BlockRef | undefined> {
    try {
      const receipt = await getTransactionReceipt(this.client, { hash: transactionHash as `0x${string}` });
      return { number: height.parse(receipt.blockNumber), hash: hash.parse(receipt.blockHash) };
    } catch (error) {
      if (error instanceof TransactionReceiptNotFoundError) return undefined;
      throw error;
    }
  }
}
