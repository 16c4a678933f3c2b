/**
 * Payouts on Tron over a full node's HTTP API (or TronGrid's, with its key): the node builds the
 * transaction (`/wallet/createtransaction` for TRX, `/wallet/triggersmartcontract` for a TRC-20
 * `transfer` with a fee limit), the treasury reads its bytes back and signs them only if they say
 * what was asked (tron-transaction.ts), and `/wallet/broadcasttransaction` sends the node's
 * transaction with the signature. The node rebuilds the transaction from its JSON `raw_data`: if
 * that said anything else than the bytes signed, its txID would differ and the signature would not
 * recover to the treasury, so the node refuses it (`SIGERROR`); nothing else can be sent with it.
 * A Tron transaction cannot be replaced while it can still be mined: a new one is built once the
 * first expired.
 */
import { bytesToHex, concatBytes, numberToBytesBE } from '@noble/curves/utils.js';
import { createBase58check } from '@scure/base';
import { parse, stringify } from 'lossless-json';
import { sha256 } from '@noble/hashes/sha2.js';
import * as z from 'zod';
import { tronAddress } from '../domain/chains/index.js';
import {
  assertTreasuryCovers,
  NOTHING_COMMITTED,
  NotYetExpired,
  type PayoutChain,
  type PayoutOrder,
  type PayoutStatus,
  type PayoutTransferPosition,
  type SignedPayout,
  type TreasuryState,
  type TreasurySigner,
} from '../domain/payouts/index.js';
import { integer, TronApiError, TronHttpApi, tronBlockHash, tronHex20, tronLogSchema, tronTransferOf } from './tron-reader.js';
import { readRawTransaction, type TronContract, tronTransactionId } from './tron-transaction.js';

const base58check = createBase58check(sha256);

/** The most a TRC-20 transfer may burn for its energy, in sun, unless configured: 100 TRX. */
const DEFAULT_FEE_LIMIT = 100_000_000n;
/** `transfer(address,uint256)`'s selector. */
const TRANSFER_SELECTOR = 'a9059cbb';
/**
 * Bytes of bandwidth a signed transaction takes at most, its result's 64 included: a TRX transfer
 * is about 270, a TRC-20 `transfer` about 350.
 */
const TRX_TRANSFER_BYTES = 300n;
const TOKEN_CALL_BYTES = 400n;
/** Energy a TRC-20 `transfer` takes when the node cannot say (the treasury holds none of the token yet): USDT's to an address that never held it. */
const FALLBACK_TRANSFER_ENERGY = 130_000n;
/** Tron's `v`: the recovery id plus 27, as TronWeb writes it. */
const RECOVERY_OFFSET = 27;

const hash = z.string().regex(/^[0-9a-f]{64}$/);
const builtSchema = z.object({ txID: hash, raw_data: z.record(z.string(), z.unknown()), raw_data_hex: z.string() });
const triggerSchema = z.object({ result: z.object({ result: z.boolean().optional(), message: z.string().optional() }), transaction: builtSchema.optional() });
const constantSchema = z.object({ result: z.object({ result: z.boolean().optional() }), energy_used: integer.optional(), constant_result: z.array(z.string()).optional() });
const parametersSchema = z.object({ chainParameter: z.array(z.object({ key: z.string(), value: integer.optional() })) });
const headSchema = z.object({ block_header: z.object({ raw_data: z.object({ number: integer, timestamp: integer }) }) });
const infoSchema = z.object({
  blockNumber: integer.optional(),
  fee: integer.optional(),
  result: z.string().optional(),
  receipt: z.object({ result: z.string().optional() }).optional(),
  log: z.array(tronLogSchema).optional(),
});

/** The log of a TRC-20 payout's own `Transfer`, by its place among the transaction's logs (as the watcher numbers a deposit's): from the order's contract, to its address, of its amount. */
function transferLogOf(order: PayoutOrder, logs: readonly z.infer<typeof tronLogSchema>[]): PayoutTransferPosition | undefined {
  if (order.token === null) return undefined;
  const contract = tronHex20(order.token);
  const logIndex = logs.findIndex((log) => {
    const transfer = log.address === contract ? tronTransferOf(log) : undefined;
    return transfer !== undefined && transfer.to === order.to && transfer.value === order.amount;
  });
  return logIndex >= 0 ? { logIndex } : undefined;
}
const broadcastSchema = z.object({ result: z.boolean().optional(), code: z.string().optional(), message: z.string().optional() });

/** The chain's prices, in sun: a byte of bandwidth, a unit of energy, and what activating a new account burns. */
interface Prices {
  byte: bigint;
  energy: bigint;
  newAccount: bigint;
}

export interface TronPayoutChainOptions {
  /** The node's HTTP API. */
  url: string;
  /** TronGrid's `TRON-PRO-API-KEY`. */
  apiKey?: string;
  signer: TreasurySigner;
  /** The most a TRC-20 transfer may burn, in sun; 100 TRX by default. */
  feeLimit?: bigint;
}

export class TronPayoutChain implements PayoutChain {
  readonly family = 'tron';
  private readonly api: TronHttpApi;
  private treasuryAddress: Promise<string> | undefined;

  constructor(private readonly options: TronPayoutChainOptions) {
    this.api = new TronHttpApi(options.url, options.apiKey);
  }

  /** The treasury's address (`T…`), from the signer's public key. */
  treasury(): Promise<string> {
    this.treasuryAddress ??= this.options.signer.publicKey('tron').then(tronAddress);
    this.treasuryAddress.catch(() => (this.treasuryAddress = undefined));
    return this.treasuryAddress;
  }

  async estimateFee(order: PayoutOrder): Promise<bigint> {
    const prices = await this.prices();
    if (order.token === null) return TRX_TRANSFER_BYTES * prices.byte + ((await this.accountExists(order.to)) ? 0n : prices.newAccount);
    const answer = constantSchema.parse(await this.call('triggerconstantcontract', { ...(await this.transferCall(order)), visible: false }));
    const energy = answer.result.result === true && answer.energy_used ? answer.energy_used : FALLBACK_TRANSFER_ENERGY;
    return TOKEN_CALL_BYTES * prices.byte + energy * prices.energy;
  }

  async readTreasury(): Promise<TreasuryState> {
    return { family: 'tron' };
  }

  async prepare(order: PayoutOrder, treasury: TreasuryState): Promise<SignedPayout> {
    if (treasury.family !== 'tron') throw new TypeError(`A Tron payout is built by the node, not from a ${treasury.family} treasury's state`);
    if (order.amount <= 0n) throw new RangeError(`A payout's amount is positive, not ${order.amount}`);
    const owner = hex21(await this.treasury());
    const [prices, trx, newAccount] = await Promise.all([this.prices(), this.trxBalance(owner), order.token === null ? this.accountExists(order.to).then((exists) => !exists) : false]);
    const feeLimit = order.token === null ? 0n : (this.options.feeLimit ?? DEFAULT_FEE_LIMIT);
    const maxFee = feeLimit + (order.token === null ? TRX_TRANSFER_BYTES : TOKEN_CALL_BYTES) * prices.byte + (newAccount ? prices.newAccount : 0n);
    const committed = treasury.committed ?? NOTHING_COMMITTED;
    if (order.token !== null) assertTreasuryCovers(order.network, order.token, order.amount, await this.tokenBalance(order.token, owner), committed.tokens[order.token] ?? 0n);
    assertTreasuryCovers(order.network, null, maxFee + (order.token === null ? order.amount : 0n), trx, committed.native);

    const built =
      order.token === null
        ? builtSchema.parse(await this.call('createtransaction', { owner_address: owner, to_address: hex21(order.to), amount: Number(order.amount), visible: false }))
        : await this.triggerTransfer(order, feeLimit);
    const raw = readRawTransaction(built.raw_data_hex);
    assertAsked(raw.contract, expectedContract(order, owner));
    if (raw.feeLimit !== feeLimit) throw new TronApiError(`The node built a transaction with a fee limit of ${raw.feeLimit} sun, not ${feeLimit}`);
    const digest = tronTransactionId(built.raw_data_hex);
    if (bytesToHex(digest) !== built.txID) throw new TronApiError(`The node answered txID ${built.txID} for a transaction whose hash is ${bytesToHex(digest)}`);

    const { r, s, recovery } = await this.options.signer.sign('tron', digest);
    const signature = concatBytes(numberToBytesBE(r, 32), numberToBytesBE(s, 32), Uint8Array.of(RECOVERY_OFFSET + recovery));
    return {
      order,
      // The signed transaction as `broadcasttransaction` takes it, the node's numbers kept as it wrote them.
      rawTransaction: stringify({ visible: false, txID: built.txID, raw_data: built.raw_data, raw_data_hex: built.raw_data_hex, signature: [bytesToHex(signature)] })!,
      transactionHash: built.txID,
      maxFee,
      spend: { family: 'tron', expiresAt: raw.expiration, feeLimit },
    };
  }

  async broadcast(rawTransaction: string): Promise<void> {
    const answer = broadcastSchema.parse(await this.call('broadcasttransaction', parse(rawTransaction) as Record<string, unknown>));
    if (answer.result === true || answer.code === 'DUP_TRANSACTION_ERROR') return;
    throw new TronApiError(`broadcasttransaction: ${answer.code ?? 'refused'}: ${readable(answer.message ?? '')}`);
  }

  async status(payout: SignedPayout): Promise<PayoutStatus> {
    const spend = tronSpend(payout);
    // The head first: a transaction not in any block up to it, expired by its time, is in none after.
    const head = headSchema.parse(await this.call('getnowblock', {})).block_header.raw_data;
    const info = infoSchema.parse(await this.call('gettransactioninfobyid', { value: payout.transactionHash }));
    if (info.blockNumber !== undefined) {
      const succeeded = info.result !== 'FAILED' && (info.receipt?.result === undefined || info.receipt.result === 'SUCCESS');
      const blockHash = await tronBlockHash(this.api, Number(info.blockNumber));
      const transfer = transferLogOf(payout.order, info.log ?? []);
      return {
        state: 'mined',
        blockNumber: Number(info.blockNumber),
        blockHash,
        ...(transfer ? { transfer } : {}),
        confirmations: Number(head.number - info.blockNumber + 1n),
        succeeded,
        feePaid: info.fee ?? 0n,
      };
    }
    if (head.timestamp >= BigInt(spend.expiresAt)) return { state: 'dropped' };
    const pending = z.object({ txID: hash.optional() }).parse(await this.call('gettransactionfrompending', { value: payout.transactionHash }));
    return pending.txID === payout.transactionHash ? { state: 'pending' } : { state: 'unknown' };
  }

  /** A new transaction for the same order, once the first can no longer be mined. */
  async replace(previous: SignedPayout): Promise<SignedPayout> {
    const spend = tronSpend(previous);
    const status = await this.status(previous);
    if (status.state === 'mined') throw new Error(`Transaction ${previous.transactionHash} was mined in block ${status.blockNumber}: there is nothing to replace`);
    if (status.state !== 'dropped') throw new NotYetExpired(previous.transactionHash, spend.expiresAt);
    return this.prepare(previous.order, { family: 'tron' });
  }

  private async triggerTransfer(order: PayoutOrder, feeLimit: bigint) {
    const answer = triggerSchema.parse(await this.call('triggersmartcontract', { ...(await this.transferCall(order)), fee_limit: Number(feeLimit), call_value: 0, visible: false }));
    if (answer.result.result !== true || !answer.transaction) throw new TronApiError(`triggersmartcontract: ${readable(answer.result.message ?? 'refused')}`);
    return answer.transaction;
  }

  /** The TRC-20 `transfer` of the order, as the node's contract calls take it. */
  private async transferCall(order: PayoutOrder) {
    return {
      owner_address: hex21(await this.treasury()),
      contract_address: hex21(order.token!),
      function_selector: 'transfer(address,uint256)',
      parameter: transferArguments(order),
    };
  }

  private async prices(): Promise<Prices> {
    const { chainParameter } = parametersSchema.parse(await this.call('getchainparameters', {}));
    // A parameter whose value is 0 is written without one.
    const value = (key: string) => chainParameter.find((parameter) => parameter.key === key)?.value ?? 0n;
    return { byte: value('getTransactionFee'), energy: value('getEnergyFee'), newAccount: value('getCreateNewAccountFeeInSystemContract') + value('getCreateAccountFee') };
  }

  private async accountExists(address: string): Promise<boolean> {
    const account = z.object({ address: z.string().optional() }).parse(await this.call('getaccount', { address: hex21(address), visible: false }));
    return account.address !== undefined;
  }

  private async trxBalance(owner: string): Promise<bigint> {
    return z.object({ balance: integer.optional() }).parse(await this.call('getaccount', { address: owner, visible: false })).balance ?? 0n;
  }

  private async tokenBalance(token: string, owner: string): Promise<bigint> {
    const answer = constantSchema.parse(
      await this.call('triggerconstantcontract', { owner_address: owner, contract_address: hex21(token), function_selector: 'balanceOf(address)', parameter: word(owner.slice(2)), visible: false }),
    );
    const [result] = answer.constant_result ?? [];
    if (answer.result.result !== true || !result || !/^[0-9a-f]{64}$/.test(result)) throw new TronApiError(`balanceOf of ${token}: the node answered no balance`);
    return BigInt(`0x${result}`);
  }

  private call(endpoint: string, body: Record<string, unknown>): Promise<unknown> {
    return this.api.call(endpoint, body);
  }
}

/** `T…` as the 21 bytes in hex (`41…`) the node's calls and the transaction's bytes carry. */
const hex21 = (address: string): string => bytesToHex(base58check.decode(address));

/** A 20-byte address or an amount as one 32-byte ABI word. */
const word = (hex: string): string => hex.padStart(64, '0');

const transferArguments = (order: PayoutOrder): string => word(hex21(order.to).slice(2)) + word(order.amount.toString(16));

function expectedContract(order: PayoutOrder, owner: string): TronContract {
  if (order.token === null) return { type: 'TransferContract', owner, to: hex21(order.to), amount: order.amount };
  return { type: 'TriggerSmartContract', owner, contract: hex21(order.token), callValue: 0n, data: TRANSFER_SELECTOR + transferArguments(order) };
}

/** The node built what was asked, field for field, or nothing is signed. */
function assertAsked(built: TronContract, asked: TronContract): void {
  const differs = Object.entries(asked).filter(([key, value]) => (built as unknown as Record<string, unknown>)[key] !== value);
  if (built.type !== asked.type || differs.length > 0) {
    throw new TronApiError(`The node built another transaction than the one asked: ${built.type !== asked.type ? built.type : differs.map(([key]) => key).join(', ')} differs`);
  }
}

function tronSpend(payout: SignedPayout) {
  if (payout.spend.family !== 'tron') throw new TypeError(`Not a Tron payout: ${payout.transactionHash}`);
  return payout.spend;
}

/** The node writes its messages in hex: as text when they are. */
const readable = (message: string): string => (/^([0-9a-f]{2})+$/.test(message) ? Buffer.from(message, 'hex').toString('utf8') : message);
