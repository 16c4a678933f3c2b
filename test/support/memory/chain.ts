/**
 * An EVM network in memory, read as a chain watcher reads a node: blocks mined when the test says,
 * holding native transfers and token `Transfer` logs, and reorganisations that replace every block
 * above a height with a new branch. Every block mined has a hash of its own, on any branch.
 */
import { createHash } from 'node:crypto';
import type { BlockRef, ChainReader, EvmBlock, TokenTransferLog } from '../../../shared/domain/chains/chain.js';

export interface ChainPayment {
  to: string;
  /** In the smallest unit: wei, or the token contract's. */
  value: bigint;
  /** The token contract; absent for the native coin. */
  token?: string;
  /** The transaction's hash, given to mine the same transaction again on a new branch. */
  hash?: string;
}

export class MemoryChain implements ChainReader {
  private readonly canonicalBlocks: EvmBlock[] = [];
  private readonly logs = new Map<string, TokenTransferLog[]>();
  private minted = 0;

  constructor() {
    this.mine();
  }

  get head(): number {
    return this.canonicalBlocks.length - 1;
  }

  /** Mines a block holding these payments, each a transaction of its own; answers their hashes, in order. */
  mine(...payments: ChainPayment[]): string[] {
    const number = this.canonicalBlocks.length;
    const blockHash = this.newHash('block');
    const transactions: Array<EvmBlock['transactions'][number]> = [];
    const logs: TokenTransferLog[] = [];
    const hashes = payments.map((payment) => {
      const hash = payment.hash ?? this.newHash('transaction');
      if (payment.token === undefined) {
        transactions.push({ hash, to: payment.to, value: payment.value });
      } else {
        // A token transfer is a call of its contract, carrying no coin; its log names the recipient.
        transactions.push({ hash, to: payment.token, value: 0n });
        logs.push({ token: payment.token, to: payment.to, value: payment.value, transactionHash: hash, logIndex: logs.length, blockNumber: number, blockHash });
      }
      return hash;
    });
    this.canonicalBlocks.push({ number, hash: blockHash, parentHash: this.canonicalBlocks.at(-1)?.hash ?? `0x${'0'.repeat(64)}`, transactions });
    this.logs.set(blockHash, logs);
    return hashes;
  }

  /** Mines `count` empty blocks. */
  mineEmpty(count: number): void {
    for (let i = 0; i < count; i++) this.mine();
  }

  /** Drops every block above `height`: the blocks mined next make the new branch. */
  fork(height: number): void {
    this.canonicalBlocks.length = height + 1;
  }

  async headNumber(): Promise<number> {
    return this.head;
  }

  async blocks(first: number, last: number): Promise<EvmBlock[]> {
    return Array.from({ length: Math.max(0, last - first + 1) }, (_, i) => structuredClone(this.canonical(first + i)));
  }

  async blockHash(number: number): Promise<string> {
    return this.canonical(number).hash;
  }

  async tokenTransfers(fromBlock: number, toBlock: number, tokens: readonly string[]): Promise<TokenTransferLog[]> {
    const watched = new Set(tokens.map((token) => token.toLowerCase()));
    return this.canonicalBlocks
      .slice(fromBlock, toBlock + 1)
      .flatMap((block) => this.logs.get(block.hash) ?? [])
      .filter((log) => watched.has(log.token.toLowerCase()))
      .map((log) => ({ ...log }));
  }

  async minedAt(transactionHash: string): Promise<BlockRef | undefined> {
    const block = this.canonicalBlocks.find((candidate) => candidate.transactions.some((transaction) => transaction.hash === transactionHash));
    return block && { number: block.number, hash: block.hash };
  }

  /** A node answers an error for a height above its head. */
  private canonical(number: number): EvmBlock {
    const block = this.canonicalBlocks[number];
    if (!block) throw new Error(`No block ${number}: the head is ${this.head}`);
    return block;
  }

  private newHash(kind: string): string {
    return `0x${createHash('sha256')
      .update(`${kind} ${this.minted++}`)
      .digest('hex')}`;
  }
}
