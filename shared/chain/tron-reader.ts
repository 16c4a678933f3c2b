/**
 * The chain watcher's port to a Tron full node over its HTTP API (`/wallet/getnowblock`,
 * `/wallet/getblockbynum`, `/wallet/gettransactioninfobyblocknum`), or a TronGrid-compatible
 * service with its API key in `TRON-PRO-API-KEY`. A block's transfers are TRX `TransferContract`s
 * whose `ret` is `SUCCESS`, and TRC-20 `Transfer` logs of transactions whose receipt is `SUCCESS`
 * (Tron's documentation of gettransactioninfobyid asks to check the result before reading logs).
 * Addresses are base58check (`T…`), as the gateway derives them. Every answer is checked: an API
 * that fails, times out or answers garbage throws.
 */
import { createBase58check } from '@scure/base';
import { sha256 } from '@noble/hashes/sha2.js';
import { isLosslessNumber, parse, stringify, type LosslessNumber } from 'lossless-json';
import * as z from 'zod';

const RPC_TIMEOUT_MS = 10_000;

/** keccak256("Transfer(address,address,uint256)"): the first topic of an ERC-20/TRC-20 transfer. */
const TRANSFER_TOPIC = 'ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

const base58check = createBase58check(sha256);

/** `41…` (21 bytes, hex) as `T…`. */
export const tronAddress = (hex: string): string => base58check.encode(Buffer.from(hex, 'hex'));

/** `T…` as the 20-byte hex of a log's address (no `41`). */
export const tronHex20 = (address: string): string => Buffer.from(base58check.decode(address)).subarray(1).toString('hex');

/** A whole number as the node writes it, exact. */
export const integer = z.custom<LosslessNumber>(isLosslessNumber, 'must be a number').transform((value, ctx) => {
  if (!/^\d+$/.test(value.value)) {
    ctx.addIssue({ code: 'custom', message: `${value.value} is not a whole number` });
    return z.NEVER;
  }
  return BigInt(value.value);
});
const height = integer.transform(Number);
const hash = z.string().regex(/^[0-9a-f]{64}$/);
const hexAddress = z.string().regex(/^41[0-9a-f]{40}$/);

const headerSchema = z.object({ blockID: hash, block_header: z.object({ raw_data: z.object({ number: height, parentHash: hash }) }) });

const contractSchema = z.object({
  type: z.string(),
  parameter: z.object({ value: z.record(z.string(), z.unknown()) }),
});

const blockSchema = headerSchema.extend({
  transactions: z
    .array(
      z.object({
        txID: hash,
        ret: z.array(z.object({ contractRet: z.string().optional() })).optional(),
        raw_data: z.object({ contract: z.array(contractSchema) }),
      }),
    )
    .optional(),
});

const transferValueSchema = z.object({ to_address: hexAddress, amount: integer });

/** A log of a transaction's execution, as gettransactioninfobyid and gettransactioninfobyblocknum write it: the contract's address without its 41 prefix. */
export const tronLogSchema = z.object({
  address: z.string().regex(/^[0-9a-f]{40}$/),
  topics: z.array(z.string().regex(/^[0-9a-f]{64}$/)).optional(),
  data: z
    .string()
    .regex(/^[0-9a-f]*$/)
    .optional(),
});

/** A TRC-20 `Transfer` log's recipient (T…) and value, or undefined for any other log. */
export function tronTransferOf(log: z.infer<typeof tronLogSchema>): { to: string; value: bigint } | undefined {
  const [topic, , to] = log.topics ?? [];
  if (topic !== TRANSFER_TOPIC || !to || !log.data) return undefined;
  return { to: tronAddress(`41${to.slice(24)}`), value: BigInt(`0x${log.data.slice(0, 64) || '0'}`) };
}

const infoSchema = z.array(
  z.object({
    id: hash,
    receipt: z.object({ result: z.string().optional() }).optional(),
    log: z.array(tronLogSchema).optional(),
  }),
);

/** A transfer to an address in a block: TRX (`token` null) or a TRC-20 token's. */
export interface TronTransfer {
  transactionHash: string;
  /** The log's index in its transaction for a token transfer; null for TRX. */
  logIndex: number | null;
  to: string;
  /** The token contract (`T…`); null for TRX. */
  token: string | null;
  /** In the smallest unit (sun for TRX). */
  value: bigint;
}

export interface TronBlock {
  number: number;
  hash: string;
  parentHash: string;
  transfers: TronTransfer[];
}

export class TronApiError extends Error {}

/**
 * A Tron full node's HTTP API (`POST /wallet/<endpoint>`), or a TronGrid-compatible service's with
 * its key: an answer that is no JSON, says `Error` or comes with an HTTP error throws.
 */
export class TronHttpApi {
  private readonly base: string;

  constructor(
    url: string,
    private readonly apiKey?: string,
  ) {
    this.base = url.replace(/\/+$/, '');
  }

  async call(endpoint: string, body: Record<string, unknown>): Promise<unknown> {
    const response = await fetch(`${this.base}/wallet/${endpoint}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...(this.apiKey ? { 'TRON-PRO-API-KEY': this.apiKey } : {}) },
      // Losslessly: a transaction the node built goes back with its numbers as the node wrote them.
      body: stringify(body),
      signal: AbortSignal.timeout(RPC_TIMEOUT_MS),
    });
    const text = await response.text();
    let answer: unknown;
    try {
      answer = parse(text);
    } catch {
      throw new TronApiError(`${endpoint}: the node answered ${response.status} with no JSON`);
    }
    if (answer && typeof answer === 'object' && 'Error' in answer) throw new TronApiError(`${endpoint}: ${String((answer as { Error: unknown }).Error)}`);
    if (!response.ok) throw new TronApiError(`${endpoint}: the node answered ${response.status}`);
    return answer;
  }
}

/** The block at `number` as `schema` reads it (its header, or with its transactions); a node answering another block is refused. */
async function blockByNumber<Block extends z.infer<typeof headerSchema>>(api: TronHttpApi, number: number, schema: z.ZodType<Block>): Promise<Block> {
  const block = schema.parse(await api.call('getblockbynum', { num: number }));
  if (block.block_header.raw_data.number !== number) throw new TronApiError(`getblockbynum ${number} answered block ${block.block_header.raw_data.number}`);
  return block;
}

/** The hash (`blockID`) of the block at `number`: a transaction's info names its block by number only. */
export const tronBlockHash = async (api: TronHttpApi, number: number): Promise<string> => (await blockByNumber(api, number, headerSchema)).blockID;

export class TronHttpReader {
  private readonly api: TronHttpApi;

  constructor(url: string, apiKey?: string) {
    this.api = new TronHttpApi(url, apiKey);
  }

  async headNumber(): Promise<number> {
    return headerSchema.parse(await this.api.call('getnowblock', {})).block_header.raw_data.number;
  }

  blockHash(number: number): Promise<string> {
    return tronBlockHash(this.api, number);
  }

  /** The block at a height with its TRX and TRC-20 transfers of successful transactions; `tokens` names the watched contracts (`T…`). */
  async block(number: number, tokens: readonly string[]): Promise<TronBlock> {
    const block = await blockByNumber(this.api, number, blockSchema);
    const transfers: TronTransfer[] = [];
    for (const transaction of block.transactions ?? []) {
      const [contract] = transaction.raw_data.contract;
      if (contract?.type !== 'TransferContract' || transaction.ret?.[0]?.contractRet !== 'SUCCESS') continue;
      const { to_address, amount } = transferValueSchema.parse(contract.parameter.value);
      transfers.push({ transactionHash: transaction.txID, logIndex: null, to: tronAddress(to_address), token: null, value: amount });
    }
    if (tokens.length > 0 && (block.transactions ?? []).length > 0) {
      const watched = new Map(tokens.map((token) => [tronHex20(token), token]));
      // An empty block answers [] (and a block number <= 0 answers {}).
      const answer = await this.api.call('gettransactioninfobyblocknum', { num: number });
      for (const info of Array.isArray(answer) ? infoSchema.parse(answer) : []) {
        if (info.receipt?.result !== 'SUCCESS') continue;
        (info.log ?? []).forEach((log, logIndex) => {
          const token = watched.get(log.address);
          const transfer = token ? tronTransferOf(log) : undefined;
          if (token && transfer) transfers.push({ transactionHash: info.id, logIndex, token, ...transfer });
        });
      }
    }
    return { number, hash: block.blockID, parentHash: block.block_header.raw_data.parentHash, transfers };
  }
}
