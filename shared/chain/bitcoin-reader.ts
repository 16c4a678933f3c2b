/**
 * The chain watcher's port to a Bitcoin node over Bitcoin Core's JSON-RPC (`getblockcount`,
 * `getblockhash`, `getblock` with verbosity 2), or a compatible service, a range of blocks in a few
 * JSON-RPC batches. Every answer is checked before the watcher sees it: an RPC that answers garbage
 * throws, like one that fails or times out.
 * Amounts are read from the JSON text itself (lossless-json), so a value of 8 decimals becomes its
 * satoshis exactly, never through a binary float.
 */
import { isLosslessNumber, parse, type LosslessNumber } from 'lossless-json';
import * as z from 'zod';
import { heights } from '../domain/kernel/index.js';
import { JsonRpcError, JsonRpcHttp } from './json-rpc.js';

/** How long one request may take; a run that waits longer fails and leaves its cursor. */
const RPC_TIMEOUT_MS = 10_000;

const SATOSHIS_PER_COIN = 100_000_000n;

const hash = z.string().regex(/^[0-9a-f]{64}$/);
const height = z.number().int().nonnegative();

/** A BTC amount as the node writes it (`0.00100000`), in satoshis: 8 places at most. */
export const coins = z.custom<LosslessNumber>(isLosslessNumber, 'must be a number').transform((value, ctx) => {
  const match = /^(\d+)(?:\.(\d{1,8}))?$/.exec(value.value);
  if (!match) {
    ctx.addIssue({ code: 'custom', message: `${value.value} is not an amount of at most 8 decimal places` });
    return z.NEVER;
  }
  return BigInt(match[1]!) * SATOSHIS_PER_COIN + BigInt((match[2] ?? '').padEnd(8, '0'));
});

export const numeric = z.custom<LosslessNumber>(isLosslessNumber, 'must be a number').transform((value) => Number(value.value));

const blockSchema = z.object({
  hash,
  height: numeric.pipe(height),
  // Absent on the genesis block only.
  previousblockhash: hash.optional(),
  tx: z.array(
    z.object({
      txid: hash,
      vout: z.array(z.object({ value: coins, n: numeric.pipe(height), scriptPubKey: z.object({ hex: z.string().regex(/^([0-9a-f]{2})*$/) }) })),
    }),
  ),
});

/** An output of a transaction in a block: what the watcher matches on the customers' scripts. */
export interface BitcoinOutput {
  txid: string;
  /** The output's index in its transaction. */
  index: number;
  /** The output script, hex. */
  script: string;
  satoshis: bigint;
}

export interface BitcoinBlock {
  number: number;
  hash: string;
  parentHash: string;
  outputs: BitcoinOutput[];
}

/** A JSON-RPC error the node answered, or an answer that is not JSON-RPC. */
export class BitcoinRpcError extends JsonRpcError {}

/** Hashes asked for in one request: each answer is 64 characters. */
const HASHES_PER_REQUEST = 100;
/**
 * Blocks asked for in one request, and requests at a time: a mainnet block with its transactions
 * is megabytes of JSON, so a request of ten keeps a run within its function's memory.
 */
const BLOCKS_PER_REQUEST = 10;
const BLOCK_REQUESTS_AT_ONCE = 2;

/**
 * The JSON-RPC client of a Bitcoin node at `rpcUrl`, with its credentials
 * (`http://user:password@host:port`) when it takes them, sent as Basic authorization.
 */
export function bitcoinJsonRpc(rpcUrl: string, timeoutMs: number): JsonRpcHttp {
  const url = new URL(rpcUrl);
  const authorization = url.username ? `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}` : undefined;
  url.username = '';
  url.password = '';
  return new JsonRpcHttp(url.href, {
    version: '1.0',
    timeoutMs,
    parse: (text) => parse(text),
    headers: authorization ? { authorization } : {},
    errorClass: BitcoinRpcError,
  });
}

/** `scantxoutset start` as Bitcoin Core answers it: every unspent output matching the descriptors, at the node's best block. */
const scanSchema = z.object({
  success: z.boolean(),
  unspents: z.array(
    z.object({
      txid: z.string().regex(/^[0-9a-f]{64}$/),
      vout: numeric.pipe(z.number().int().nonnegative()),
      scriptPubKey: z.string().regex(/^([0-9a-f]{2})+$/),
      amount: coins,
      height: numeric.pipe(z.number().int().nonnegative()),
    }),
  ),
});

export type ScannedOutput = z.infer<typeof scanSchema>['unspents'][number];

/**
 * `scantxoutset` reads the node's whole set of unspent outputs: seconds on a test network, minutes
 * on Bitcoin's main network, where only one scan runs at a time. A client that scans waits this long.
 */
export const SCAN_TIMEOUT_MS = 300_000;

/**
 * The confirmed outputs paying a script (hex), amounts in satoshis. The script is asked for
 * (`raw(…)`) rather than an address (`addr(…)`): a node writes addresses with its own network's
 * prefix (a regtest node's are not the gateway's `tb1…`), a script is the same on all.
 */
export async function unspentOutputsOf(rpc: JsonRpcHttp, script: string): Promise<ScannedOutput[]> {
  const answer = scanSchema.parse(await rpc.call('scantxoutset', ['start', [`raw(${script})`]]));
  if (!answer.success) throw new BitcoinRpcError(`scantxoutset of ${script}: the scan did not finish`);
  const foreign = answer.unspents.find((output) => output.scriptPubKey !== script);
  if (foreign) throw new BitcoinRpcError(`scantxoutset of ${script} answered output ${foreign.txid}:${foreign.vout} of another script`);
  return answer.unspents;
}

export class BitcoinRpcReader {
  private readonly rpc: JsonRpcHttp;

  /** `rpcUrl`: the node's URL, with its credentials (`http://user:password@host:port`) when it takes them. */
  constructor(rpcUrl: string) {
    this.rpc = bitcoinJsonRpc(rpcUrl, RPC_TIMEOUT_MS);
  }

  async headNumber(): Promise<number> {
    return numeric.pipe(height).parse(await this.rpc.call('getblockcount', []));
  }

  async blockHash(number: number): Promise<string> {
    return hash.parse(await this.rpc.call('getblockhash', [number]));
  }

  /** The canonical block at a height, with every output of its transactions. */
  async block(number: number): Promise<BitcoinBlock> {
    const [block] = await this.blocks(number, number);
    return block!;
  }

  /**
   * The canonical blocks `first` to `last`, in order: their hashes in one batch, then the blocks
   * by hash in a few batches, rather than two requests a block.
   */
  async blocks(first: number, last: number): Promise<BitcoinBlock[]> {
    const numbers = heights(first, last);
    const hashes = (
      await this.rpc.batches(
        numbers.map((number) => ({ method: 'getblockhash', params: [number] })),
        HASHES_PER_REQUEST,
        1,
      )
    ).map((answer) => hash.parse(answer));
    const answers = await this.rpc.batches(
      hashes.map((blockHash) => ({ method: 'getblock', params: [blockHash, 2] })),
      BLOCKS_PER_REQUEST,
      BLOCK_REQUESTS_AT_ONCE,
    );
    return answers.map((answer, index) => {
      const block = blockSchema.parse(answer);
      if (block.height !== numbers[index] || block.hash !== hashes[index]) throw new BitcoinRpcError(`getblock ${hashes[index]} answered block ${block.height} ${block.hash}`);
      return {
        number: block.height,
        hash: block.hash,
        parentHash: block.previousblockhash ?? '0'.repeat(64),
        outputs: block.tx.flatMap((tx) => tx.vout.map((output) => ({ txid: tx.txid, index: output.n, script: output.scriptPubKey.hex, satoshis: output.value }))),
      };
    });
  }
}
