/**
 * The chain watcher's port to a Bitcoin node over Bitcoin Core's JSON-RPC (`getblockcount`,
 * `getblockhash`, `getblock` with verbosity 2), or a compatible service. Every answer is checked
 * before the watcher sees it: an RPC that answers garbage throws, like one that fails or times out.
 * Amounts are read from the JSON text itself (lossless-json), so a value of 8 decimals becomes its
 * satoshis exactly, never through a binary float.
 */
import { isLosslessNumber, parse, type LosslessNumber } from 'lossless-json';
import * as z from 'zod';

/** How long one call may take; a run that waits longer fails and leaves its cursor. */
const RPC_TIMEOUT_MS = 10_000;

const SATOSHIS_PER_COIN = 100_000_000n;

const hash = z.string().regex(/^[0-9a-f]{64}$/);
const height = z.number().int().nonnegative();

/** A BTC amount as the node writes it (`0.00100000`), in satoshis: 8 places at most. */
const coins = z.custom<LosslessNumber>(isLosslessNumber, 'must be a number').transform((value, ctx) => {
  const match = /^(\d+)(?:\.(\d{1,8}))?$/.exec(value.value);
  if (!match) {
    ctx.addIssue({ code: 'custom', message: `${value.value} is not an amount of at most 8 decimal places` });
    return z.NEVER;
  }
  return BigInt(match[1]!) * SATOSHIS_PER_COIN + BigInt((match[2] ?? '').padEnd(8, '0'));
});

const numeric = z.custom<LosslessNumber>(isLosslessNumber, 'must be a number').transform((value) => Number(value.value));

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
export class BitcoinRpcError extends Error {}

export class BitcoinRpcReader {
  private readonly endpoint: string;
  private readonly authorization: string | undefined;
  private nextId = 0;

  /** `rpcUrl`: the node's URL, with its credentials (`http://user:password@host:port`) when it takes them. */
  constructor(rpcUrl: string) {
    const url = new URL(rpcUrl);
    this.authorization = url.username ? `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}` : undefined;
    url.username = '';
    url.password = '';
    this.endpoint = url.href;
  }

  async headNumber(): Promise<number> {
    return numeric.pipe(height).parse(await this.call('getblockcount', []));
  }

  async blockHash(number: number): Promise<string> {
    return hash.parse(await this.call('getblockhash', [number]));
  }

  /** The canonical block at a height, with every output of its transactions. */
  async block(number: number): Promise<BitcoinBlock> {
    const blockHash = await this.blockHash(number);
    const block = blockSchema.parse(await this.call('getblock', [blockHash, 2]));
    if (block.height !== number || block.hash !== blockHash) throw new BitcoinRpcError(`getblock ${blockHash} answered block ${block.height} ${block.hash}`);
    return {
      number: block.height,
      hash: block.hash,
      parentHash: block.previousblockhash ?? '0'.repeat(64),
      outputs: block.tx.flatMap((tx) => tx.vout.map((output) => ({ txid: tx.txid, index: output.n, script: output.scriptPubKey.hex, satoshis: output.value }))),
    };
  }

  private async call(method: string, params: unknown[]): Promise<unknown> {
    const id = ++this.nextId;
    const response = await fetch(this.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(this.authorization ? { authorization: this.authorization } : {}) },
      body: JSON.stringify({ jsonrpc: '1.0', id, method, params }),
      signal: AbortSignal.timeout(RPC_TIMEOUT_MS),
    });
    const text = await response.text();
    let answer: { result?: unknown; error?: { code?: unknown; message?: unknown } | null; id?: unknown };
    try {
      answer = parse(text) as typeof answer;
    } catch {
      throw new BitcoinRpcError(`${method}: the node answered ${response.status} with no JSON`);
    }
    if (answer.error) throw new BitcoinRpcError(`${method}: ${String(answer.error.message ?? 'error')} (code ${String(answer.error.code)})`);
    if (!response.ok || !('result' in answer)) throw new BitcoinRpcError(`${method}: the node answered ${response.status} without a result`);
    return answer.result;
  }
}
