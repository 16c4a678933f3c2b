/**
 * A Tron full node's HTTP API on loopback, answering as Tron's documentation shows it answers
 * (test/fixtures/tron.ts) from a chain the test builds: blocks are added, replaced from a height on
 * (a reorganisation), and hold TRX transfers and TRC-20 transfers, successful or failed. The node
 * can be made to fail as a real one or its service does: refuse connections, never answer, answer
 * an error, HTML, well-formed JSON that is not a block, or blocks whose parent is another block.
 * Its wallet (tron-wallet.ts) builds, takes and executes transactions; a block is produced every
 * 3 seconds of the chain's time.
 */
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { block, blockId, tokenCall, tokenTransferInfo, trxTransfer, trxTransferInfo } from '../fixtures/tron.js';
import { TronWallet } from './tron-wallet.js';

/** A transaction of a block with its execution result, as gettransactioninfobyblocknum lists it. */
export interface TronTransaction {
  txID: string;
  transaction: unknown;
  info: (blockNumber: number) => unknown;
}

export type TronNodeFault = 'refused' | 'silent' | 'error-answer' | 'not-json' | 'not-a-block' | 'parent-mismatch';

const newTxId = (): string => randomBytes(32).toString('hex');

/** A TRX transfer (`TransferContract`) of `sun` to `to`; `contractRet` other than SUCCESS is a failed one. */
export function trx(to: string, sun: bigint, contractRet = 'SUCCESS', txID = newTxId()): TronTransaction {
  return { txID, transaction: trxTransfer(txID, to, sun, contractRet), info: (blockNumber) => trxTransferInfo(txID, blockNumber) };
}

/**
 * A TRC-20 `transfer` of `units` (the token's smallest unit) to `to`. A failed one (`REVERT`) is
 * written with its Transfer log still there, so that only its result keeps it from being read.
 */
export function trc20(token: string, to: string, units: bigint, result: 'SUCCESS' | 'REVERT' = 'SUCCESS', txID = newTxId()): TronTransaction {
  const call = tokenCall(txID, token);
  return {
    txID,
    transaction: result === 'SUCCESS' ? call : { ...call, ret: [{ contractRet: result }] },
    info: (blockNumber) => ({ ...tokenTransferInfo(txID, blockNumber, token, to, units, result), ...(result === 'SUCCESS' ? {} : { result: 'FAILED', resMessage: '5452433230' }) }),
  };
}

interface ChainBlock {
  number: number;
  blockID: string;
  parentHash: string;
  transactions: TronTransaction[];
}

/** The chain's time at block 0, and between blocks (Tron's block interval). */
const GENESIS_TIME = 1_777_445_121_000;
const BLOCK_INTERVAL_MS = 3_000;

export class TronNode {
  /** Balances, and the transactions the node builds and takes. */
  readonly wallet = new TronWallet(() => ({ number: this.head, timestamp: this.timeOf(this.head), blockID: this.hashAt(this.head) }));
  /** The canonical chain, by height. */
  private chain: ChainBlock[] = [];
  private branches = 0;
  /** How the node fails; undefined: it answers as a healthy node. */
  private fault: TronNodeFault | undefined;

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {
    this.chain.push({ number: 0, blockID: blockId(0), parentHash: '0'.repeat(64), transactions: [] });
  }

  static async start(): Promise<TronNode> {
    let node: TronNode | undefined;
    const server = createServer((request, response) => {
      // No connection is kept for the next call, so that a node that stops listening refuses the very next one.
      response.setHeader('connection', 'close');
      let text = '';
      request.on('data', (chunk) => (text += chunk));
      request.on('end', () => node!.answer(request.url ?? '', text, response));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    node = new TronNode(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return node;
  }

  get head(): number {
    return this.chain.length - 1;
  }

  /** Adds a block holding these transactions; answers its height. */
  mine(...transactions: TronTransaction[]): number {
    const parent = this.chain.at(-1)!;
    const number = parent.number + 1;
    this.chain.push({ number, blockID: blockId(number, this.branches), parentHash: parent.blockID, transactions });
    return number;
  }

  /** Adds a block holding the pending transactions that have not expired; answers its height. */
  minePending(): number {
    const number = this.head + 1;
    return this.mine(...this.wallet.takePending(number, this.timeOf(number)));
  }

  timeOf(number: number): number {
    return GENESIS_TIME + number * BLOCK_INTERVAL_MS;
  }

  /** Adds `count` empty blocks. */
  mineEmpty(count: number): void {
    for (let i = 0; i < count; i++) this.mine();
  }

  /** The canonical block's hash at a height. */
  hashAt(number: number): string {
    return this.chain[number]!.blockID;
  }

  /**
   * Replaces the chain from `height` up with another branch whose blocks hold `blocks` (one list of
   * transactions per block), at least one block longer than what it replaces.
   */
  reorg(height: number, blocks: TronTransaction[][] = []): void {
    const replaced = this.chain.length - height;
    this.chain = this.chain.slice(0, height);
    this.branches++;
    for (let i = 0; i < Math.max(blocks.length, replaced + 1); i++) this.mine(...(blocks[i] ?? []));
  }

  /** Block `height` names another parent than the block before it, until the answered function mends it. */
  breakParentOf(height: number): () => void {
    const stored = this.chain[height]!;
    const parentHash = stored.parentHash;
    stored.parentHash = 'dd'.repeat(32);
    return () => void (stored.parentHash = parentHash);
  }

  /** From now on the node fails so; a refusing node no longer listens. */
  async failWith(fault: TronNodeFault): Promise<void> {
    this.fault = fault;
    if (fault === 'refused') {
      this.server.closeAllConnections();
      await new Promise<void>((resolveClose) => this.server.close(() => resolveClose()));
    }
  }

  /** Answers as a healthy node again, on the same port. */
  async heal(): Promise<void> {
    const fault = this.fault;
    this.fault = undefined;
    if (fault === 'refused') {
      this.server.listen(Number(new URL(this.url).port), '127.0.0.1');
      await once(this.server, 'listening');
    }
  }

  close(): void {
    this.server.closeAllConnections();
    this.server.close();
  }

  private blockJson(number: number) {
    const stored = this.chain[number];
    if (!stored) return {};
    const json = block(
      number,
      stored.transactions.map((tx) => tx.transaction),
    );
    const parentHash = this.fault === 'parent-mismatch' ? 'ee'.repeat(32) : stored.parentHash;
    return { ...json, blockID: stored.blockID, block_header: { ...json.block_header, raw_data: { ...json.block_header.raw_data, parentHash, timestamp: this.timeOf(number) } } };
  }

  private answer(path: string, text: string, response: ServerResponse): void {
    // Never answers: the reader's own timeout ends the call.
    if (this.fault === 'silent') return;
    if (this.fault === 'not-json') return void response.writeHead(503, { 'content-type': 'text/html' }).end('<html><body>503 Service Temporarily Unavailable</body></html>');
    if (this.fault === 'error-answer') {
      return void response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ Error: 'class org.tron.core.exception.StoreException : database is being repaired' }));
    }
    const request = (text ? JSON.parse(text) : {}) as Record<string, unknown>;
    const num = request.num as number | undefined;
    const endpoint = path.replace(/^\/wallet\//, '');
    // The wallet's endpoints first; the blocks' below.
    let body: unknown = this.wallet.answer(endpoint, request);
    if (body === undefined) {
      switch (endpoint) {
        case 'getnowblock':
          body = this.blockJson(this.head);
          break;
        case 'getblockbynum':
          body = this.blockJson(num!);
          break;
        case 'gettransactioninfobyblocknum':
          body = num! <= 0 ? {} : (this.chain[num!]?.transactions ?? []).map((tx) => tx.info(num!));
          break;
        default:
          return void response.writeHead(404, { 'content-type': 'application/json' }).end('{}');
      }
    }
    let json = JSON.stringify(body);
    // Well-formed JSON, but no hash in it is a hash.
    if (this.fault === 'not-a-block') json = json.replace(/"[0-9a-f]{64}"/g, '"0x1234"');
    response.writeHead(200, { 'content-type': 'application/json' }).end(json);
  }
}
