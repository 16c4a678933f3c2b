/**
 * A Tron full node's HTTP API on loopback for the benchmarks, answering `getnowblock`,
 * `getblockbynum` and `gettransactioninfobyblocknum` from blocks built of test/fixtures/tron.ts's
 * shapes (as Tron's documentation shows them). Heights up to the head that were never added are
 * empty blocks; above the head it answers `{}`, as a node does. Each block's answers are serialized
 * when it is added: the server runs in the reader's process, and a timed read should spend its
 * time in the reader, not here.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { tronAddress } from '../shared/chain/tron-reader.js';
import { block, tokenCall, tokenTransferInfo, trxTransfer, trxTransferInfo } from '../test/fixtures/tron.js';

/** A transaction as getblockbynum lists it, with its execution result as gettransactioninfobyblocknum lists it. */
export interface TronFixtureTransaction {
  transaction: unknown;
  info: unknown;
}

/** A random customer-like address (`T…`). */
export const randomTronAddress = (): string => tronAddress(`41${randomBytes(20).toString('hex')}`);

/** A transaction id unique to its block and place. */
export const fixtureTxId = (blockNumber: number, index: number): string => `${blockNumber.toString(16).padStart(16, '0')}${index.toString(16).padStart(48, '0')}`;

/** A TRC-20 transfer of `value` (the token's smallest unit) to `to`, with its successful receipt and `Transfer` log. */
export const tokenPayment = (txID: string, blockNumber: number, token: string, to: string, value: bigint): TronFixtureTransaction => ({
  transaction: tokenCall(txID, token),
  info: tokenTransferInfo(txID, blockNumber, token, to, value),
});

/** A TRX transfer of `sun` to `to`. */
export const trxPayment = (txID: string, blockNumber: number, to: string, sun: number): TronFixtureTransaction => ({
  transaction: trxTransfer(txID, to, sun),
  info: trxTransferInfo(txID, blockNumber),
});

/**
 * A mainnet-like block's transactions: mostly USDT transfers, then TRX transfers, and a tenth
 * calls of another contract, which the reader reads and ignores; each pays an address of its own,
 * so none is found twice in one look-up.
 */
export function busyBlockTransactions(blockNumber: number, count: number, tokens: { usdt: string; other: string }): TronFixtureTransaction[] {
  return Array.from({ length: count }, (_, index) => {
    const txID = fixtureTxId(blockNumber, index);
    const share = index % 10;
    if (share < 6) return tokenPayment(txID, blockNumber, tokens.usdt, randomTronAddress(), BigInt(1_000_000 + index * 137));
    if (share < 9) return trxPayment(txID, blockNumber, randomTronAddress(), 2_000_000 + index);
    return tokenPayment(txID, blockNumber, tokens.other, randomTronAddress(), 5_000_000n);
  });
}

export class TronFixtureNode {
  private readonly answers = new Map<number, { block: Buffer; infos: Buffer }>();

  private constructor(
    private readonly server: Server,
    /** The API's base URL: what `GATEWAY_RPC_TRON` takes. */
    readonly url: string,
    /** The newest block's height. */
    public head: number,
  ) {}

  /** Listens on loopback, its head at `head` (above 0: block 0 has no parent of the fixtures' shape). */
  static async start(head: number): Promise<TronFixtureNode> {
    if (!Number.isInteger(head) || head < 1) throw new RangeError('The fixture head must be a height above 0');
    let node: TronFixtureNode | undefined;
    const server = createServer((request, response) => {
      let text = '';
      request.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      request.on('end', () => {
        const endpoint = (request.url ?? '').replace(/^\/wallet\//, '');
        const num = Number((text ? (JSON.parse(text) as { num?: unknown }) : {}).num);
        const body = node!.answer(endpoint, num);
        if (body === undefined) return response.writeHead(404, { 'content-type': 'application/json' }).end('{}');
        response.writeHead(200, { 'content-type': 'application/json' }).end(body);
      });
    });
    await new Promise<void>((resolveListen) => server.listen(0, '127.0.0.1', resolveListen));
    node = new TronFixtureNode(server, `http://127.0.0.1:${(server.address() as { port: number }).port}`, head);
    return node;
  }

  /** Adds a block holding `transactions` above the head; resolves to its height, the new head. */
  add(transactions: readonly TronFixtureTransaction[]): number {
    const number = ++this.head;
    this.answers.set(number, {
      block: Buffer.from(
        JSON.stringify(
          block(
            number,
            transactions.map((each) => each.transaction),
          ),
        ),
      ),
      infos: Buffer.from(JSON.stringify(transactions.map((each) => each.info))),
    });
    return number;
  }

  private answer(endpoint: string, num: number): Buffer | string | undefined {
    if (endpoint === 'getnowblock') return this.answers.get(this.head)?.block ?? JSON.stringify(block(this.head, []));
    if (endpoint !== 'getblockbynum' && endpoint !== 'gettransactioninfobyblocknum') return undefined;
    if (!Number.isInteger(num) || num < 1 || num > this.head) return '{}';
    const added = this.answers.get(num);
    if (endpoint === 'getblockbynum') return added?.block ?? JSON.stringify(block(num, []));
    return added?.infos ?? '[]';
  }

  stop(): Promise<void> {
    return new Promise((resolveClose) => {
      this.server.close(() => resolveClose());
      this.server.closeAllConnections();
    });
  }
}
