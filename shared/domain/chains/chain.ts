/**
 * What a chain watcher sees of a network (docs/merchant-guide.md#on-chain-deposits), and the pure rules it applies: which
 * transfers pay a customer, what they are worth exactly, how deep they are, where a reorg forked.
 * Every chain family is read through one port, `NetworkReader`; an EVM node through `ChainReader`
 * beneath it (evm-transfers.ts).
 */
import { type CryptoAssetCode, type CryptoNetwork, Decimal, decimalsOf } from '../kernel/index.js';

/** A block as the watcher reads it: its place in the chain and its native-coin transfers. */
export interface EvmBlock {
  number: number;
  hash: string;
  parentHash: string;
  transactions: ReadonlyArray<{ hash: string; to: string | null; value: bigint }>;
}

/** An ERC-20 `Transfer` log. */
export interface TokenTransferLog {
  token: string;
  to: string;
  value: bigint;
  transactionHash: string;
  logIndex: number;
  blockNumber: number;
  blockHash: string;
}

/** A transfer of a watched asset in a block, before its owner is known. */
export interface SeenTransfer {
  transactionHash: string;
  /** Its place in its transaction: a token transfer's log index, a Bitcoin output's index; null for an account chain's native transfer. */
  logIndex: number | null;
  /** The address paid, as the wallet store keys its owner (`ownerKey`). */
  to: string;
  asset: CryptoAssetCode;
  /** In units of the asset, exact. */
  amount: Decimal;
}

/** A block with its transfers of watched assets. */
export interface ScannedBlock extends BlockRef {
  parentHash: string;
  transfers: SeenTransfer[];
}

/** What every node connector answers: its head, and the hash of the canonical block at a height. */
export interface NodeHead {
  headNumber(): Promise<number>;
  blockHash(number: number): Promise<string>;
}

/** The port to a network's node, whatever its family; every answer is checked by the adapter, so garbage throws. */
export interface NetworkReader extends NodeHead {
  /** The canonical blocks `first` to `last`, in order, each with its transfers of watched assets. */
  blocks(first: number, last: number): Promise<ScannedBlock[]>;
  /**
   * Where a transaction is mined on the canonical chain now, for a family that keeps a native
   * transfer's identity in any block (EVM). Elsewhere a transfer mined again in another block is
   * found again by the scan.
   */
  minedAt?(transactionHash: string): Promise<BlockRef | undefined>;
}

/** A network reader whose head and block hashes are its node's own. */
export abstract class NodeNetworkReader<Node extends NodeHead> implements NetworkReader {
  constructor(protected readonly node: Node) {}

  headNumber(): Promise<number> {
    return this.node.headNumber();
  }

  blockHash(number: number): Promise<string> {
    return this.node.blockHash(number);
  }

  abstract blocks(first: number, last: number): Promise<ScannedBlock[]>;
}

/** The port to an EVM network's JSON-RPC node; every answer is checked by the adapter, so garbage throws. */
export interface ChainReader extends NodeHead {
  /** The canonical blocks `first` to `last`, in order, with their transactions; the adapter batches its requests. */
  blocks(first: number, last: number): Promise<EvmBlock[]>;
  /** `Transfer` logs of these token contracts in a range of blocks. */
  tokenTransfers(fromBlock: number, toBlock: number, tokens: readonly string[]): Promise<TokenTransferLog[]>;
  /** Where a transaction is mined on the canonical chain now, if it is. */
  minedAt(transactionHash: string): Promise<BlockRef | undefined>;
}

export interface BlockRef {
  number: number;
  hash: string;
}

/** A transfer of a watched asset to an address, at a place in the chain. */
export interface ObservedTransfer {
  network: CryptoNetwork;
  transactionHash: string;
  /** The log's index for a token transfer; null for a native transfer. */
  logIndex: number | null;
  block: BlockRef;
  to: string;
  asset: CryptoAssetCode;
  /** In units of the asset, exact. */
  amount: Decimal;
}

/**
 * A raw on-chain value in units of the asset. Exact when the contract has no more decimals than
 * the asset's precision; finer dust (BSC's USDT has 18) is cut off, never rounded up, so nothing
 * is credited that did not arrive.
 */
export function assetAmount(value: bigint, contractDecimals: number, asset: CryptoAssetCode): Decimal {
  const units = new Decimal(value.toString()).div(new Decimal(10).pow(contractDecimals));
  return units.toDecimalPlaces(decimalsOf(asset), Decimal.ROUND_DOWN);
}

/** `amount` in the smallest unit of something with `decimals` places (a coin, a token contract); the amount must not be finer. */
export function smallestUnits(amount: Decimal | string, decimals: number): bigint {
  const units = new Decimal(amount).mul(new Decimal(10).pow(decimals));
  if (!units.isInteger()) throw new RangeError(`${amount.toString()} has more than ${decimals} decimal places`);
  return BigInt(units.toFixed(0));
}

/** How many blocks, its own included, stand on a block: 1 for the head. */
export const depthOf = (blockNumber: number, head: number): number => head - blockNumber + 1;

/** The watcher's place in the chain: the last block it scanned, and the hashes of the ones before. */
export interface ChainCursor extends BlockRef {
  /** The last blocks scanned, oldest first, ending with the cursor's own: where a reorg is traced back to. */
  recent: BlockRef[];
}

/**
 * Where the chain the watcher scanned and the canonical chain part: the newest remembered block
 * still canonical, or undefined when every remembered block was replaced (a reorg deeper than the
 * memory, which the watcher reports and resumes from below).
 */
export async function forkPoint(cursor: ChainCursor, canonicalHash: (number: number) => Promise<string>): Promise<BlockRef | undefined> {
  for (const block of [...cursor.recent].reverse()) {
    if ((await canonicalHash(block.number)) === block.hash) return block;
  }
  return undefined;
}

/** The cursor after scanning `blocks` (in order), remembering the last `memory` of them. */
export function advance(cursor: ChainCursor, blocks: readonly BlockRef[], memory: number): ChainCursor {
  const last = blocks.at(-1);
  if (!last) return cursor;
  return { number: last.number, hash: last.hash, recent: [...cursor.recent, ...blocks.map(({ number, hash }) => ({ number, hash }))].slice(-memory) };
}
