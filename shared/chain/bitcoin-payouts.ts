/**
 * Payouts on Bitcoin over Bitcoin Core's JSON-RPC: a spend of the treasury's own P2WPKH outputs,
 * largest first, to the destination, with the change back to the treasury, replace-by-fee
 * signalled (BIP-125) on every input. The fee rate is the node's `estimatesmartfee`, a configured
 * rate when it has none (a new or quiet chain, regtest), and never below what its mempool takes.
 * Each input's BIP-143 digest is signed through the treasury signer. The node's wallet plays no
 * part: it needs `-txindex`, so that a mined transaction can be found by its txid.
 */
import { bytesToHex } from '@noble/hashes/utils.js';
import * as z from 'zod';
import {
  type PayoutChain,
  type PayoutOrder,
  type PayoutStatus,
  type SignedPayout,
  type TreasuryOutput,
  TreasuryBusy,
  TreasuryShortfall,
  type TreasuryState,
  type TreasurySigner,
} from '../domain/payouts/index.js';
import { bitcoinJsonRpc, BitcoinRpcError, coins, numeric, SCAN_TIMEOUT_MS, unspentOutputsOf } from './bitcoin-reader.js';
import {
  type BitcoinTransaction,
  hash160,
  outputScript,
  p2wpkhScript,
  p2wpkhSignatureDigest,
  p2wpkhSpendVirtualSize,
  p2wpkhWitness,
  serializeWithWitnesses,
  transactionId,
} from './bitcoin-transaction.js';
import { largest } from './bigints.js';
import type { JsonRpcHttp } from './json-rpc.js';

/** Each call to the node. */
const RPC_TIMEOUT_MS = 10_000;
/** BIP-125: any sequence below 0xfffffffe lets the transaction be replaced by one paying more. */
const REPLACEABLE_SEQUENCE = 0xfffffffd;
const VERSION = 2;
/** An output worth less than this is dust the network does not relay (Bitcoin Core's limit for a P2PKH output; P2WPKH's is lower): change this small goes to the fee. */
const DUST_SATOSHIS = 546n;
/** `estimatesmartfee`'s target: mined within this many blocks. */
const DEFAULT_CONFIRMATION_TARGET = 3;
/** Satoshis per 1,000 virtual bytes when the node has no estimate: 10 sat/vB. */
const DEFAULT_FALLBACK_FEE_RATE = 10_000n;
/** RPC_VERIFY_ALREADY_IN_CHAIN: `sendrawtransaction` of a transaction already mined. */
const ALREADY_IN_CHAIN = -27;
/** RPC_INVALID_ADDRESS_OR_KEY: `getrawtransaction` of a transaction the node does not know. */
const NO_SUCH_TRANSACTION = -5;

/** Rates are written in coins per 1,000 virtual bytes: read as satoshis, they are satoshis per 1,000. */
const txid = z.string().regex(/^[0-9a-f]{64}$/);
const estimateSchema = z.object({ feerate: coins.optional() });
const mempoolSchema = z.object({ mempoolminfee: coins });
const networkSchema = z.object({ incrementalfee: coins });
const transactionSchema = z.object({
  txid,
  blockhash: z.string().optional(),
  confirmations: numeric.optional(),
  vout: z.array(z.object({ n: numeric, value: coins, scriptPubKey: z.object({ hex: z.string() }) })),
});

export interface BitcoinPayoutChainOptions {
  /** The node's JSON-RPC URL with its credentials; the node runs with `-txindex`. */
  rpcUrl: string;
  signer: TreasurySigner;
  /** `estimatesmartfee`'s target in blocks; 3 by default. */
  confirmationTarget?: number;
  /** Satoshis per 1,000 virtual bytes when the node has no estimate; 10 sat/vB by default. */
  fallbackFeeRate?: bigint;
}

interface Treasury {
  publicKey: Uint8Array;
  publicKeyHash: Uint8Array;
  script: Uint8Array;
}

export class BitcoinPayoutChain implements PayoutChain {
  readonly family = 'bitcoin';
  private readonly rpc: JsonRpcHttp;
  /** The scan of the treasury's outputs waits longer than any other call. */
  private readonly scanRpc: JsonRpcHttp;
  private treasuryKey: Promise<Treasury> | undefined;
  private indexChecked: Promise<void> | undefined;

  constructor(private readonly options: BitcoinPayoutChainOptions) {
    this.rpc = bitcoinJsonRpc(options.rpcUrl, RPC_TIMEOUT_MS);
    this.scanRpc = bitcoinJsonRpc(options.rpcUrl, SCAN_TIMEOUT_MS);
  }

  /** The treasury's output script (P2WPKH of the signer's key), hex: what its outputs pay, and what the watcher knows it by. */
  async treasuryScript(): Promise<string> {
    return Buffer.from((await this.treasury()).script).toString('hex');
  }

  /** One input and change back: what a payout from a well-funded treasury costs at the node's current rate. */
  async estimateFee(order: PayoutOrder): Promise<bigint> {
    const { script } = await this.treasury();
    const shape = this.transaction([{ txid: '00'.repeat(32), index: 0, satoshis: 0n }], order, script, 1n);
    return feeFor(p2wpkhSpendVirtualSize(shape), await this.marketRate());
  }

  /**
   * The treasury's confirmed outputs that no transaction in the node's mempool spends yet, found as
   * the admin CLI's `treasury` finds them (`scantxoutset`, a scan of the whole UTXO set: minutes on
   * mainnet); a caller that follows the treasury's outputs itself passes its own list to `prepare`.
   */
  async readTreasury(): Promise<TreasuryState> {
    const scanned = await unspentOutputsOf(this.scanRpc, await this.treasuryScript());
    const unspent = await this.rpc.batch(scanned.map((output) => ({ method: 'gettxout', params: [output.txid, output.vout, true] })));
    const outputs = scanned.filter((_, i) => unspent[i] !== null).map((output) => ({ txid: output.txid, index: output.vout, satoshis: output.amount }));
    const inFlight = scanned.filter((_, i) => unspent[i] === null).reduce((sum, output) => sum + output.amount, 0n);
    return { family: 'bitcoin', outputs, inFlight };
  }

  async prepare(order: PayoutOrder, treasury: TreasuryState): Promise<SignedPayout> {
    if (treasury.family !== 'bitcoin') throw new TypeError(`A Bitcoin payout spends the Bitcoin treasury's outputs, not a ${treasury.family} treasury's state`);
    if (order.amount < DUST_SATOSHIS) throw new RangeError(`A payout of ${order.amount} satoshis is dust the network does not relay`);
    const [rate, { script }] = await Promise.all([this.marketRate(), this.treasury()]);
    const available = [...treasury.outputs].sort((a, b) => (a.satoshis > b.satoshis ? -1 : a.satoshis < b.satoshis ? 1 : 0));
    const inputs: TreasuryOutput[] = [];
    let fee = 0n;
    for (const output of available) {
      inputs.push(output);
      fee = feeFor(p2wpkhSpendVirtualSize(this.transaction(inputs, order, script, 1n)), rate);
      if (total(inputs) >= order.amount + fee) return this.sign(order, inputs, rate, fee);
    }
    // What the treasury's own unmined transactions spend comes back as their change: then it waits, and is not short.
    if (total(inputs) + (treasury.inFlight ?? 0n) >= order.amount + fee) throw new TreasuryBusy(order.network);
    throw new TreasuryShortfall(order.network, null, order.amount + fee, total(inputs));
  }

  async broadcast(rawTransaction: string): Promise<void> {
    try {
      // A transaction already in the mempool is answered as sent; one already mined is refused as such.
      await this.rpc.call('sendrawtransaction', [rawTransaction]);
    } catch (error) {
      if (error instanceof BitcoinRpcError && error.code === ALREADY_IN_CHAIN) return;
      throw error;
    }
  }

  async status(payout: SignedPayout): Promise<PayoutStatus> {
    const spend = bitcoinSpend(payout);
    await this.checkIndex();
    let found: z.infer<typeof transactionSchema>;
    try {
      found = transactionSchema.parse(await this.rpc.call('getrawtransaction', [payout.transactionHash, true]));
    } catch (error) {
      if (!(error instanceof BitcoinRpcError && error.code === NO_SUCH_TRANSACTION)) throw error;
      // Not in the mempool nor mined: gone for good once another transaction spends any of its inputs.
      const inputs = await this.rpc.batch(spend.inputs.map((input) => ({ method: 'gettxout', params: [input.txid, input.index, true] })));
      return inputs.some((output) => output === null) ? { state: 'dropped' } : { state: 'unknown' };
    }
    if (!found.blockhash) return { state: 'pending' };
    const header = z.object({ height: numeric }).parse(await this.rpc.call('getblockheader', [found.blockhash]));
    // The fee is what the inputs hold beyond the outputs, known exactly since the treasury wrote both.
    // The order's output, as the node read the transaction: the treasury writes it first, and its script and amount say it is.
    const script = bytesToHex(outputScript(payout.order.to));
    const paying = found.vout.find((output) => output.scriptPubKey.hex === script && output.value === payout.order.amount);
    return {
      state: 'mined',
      blockNumber: header.height,
      blockHash: found.blockhash,
      ...(paying ? { transfer: { outputIndex: Number(paying.n) } } : {}),
      confirmations: found.confirmations ?? 1,
      succeeded: true,
      feePaid: payout.maxFee,
    };
  }

  /**
   * The same inputs and outputs, the fee raised as BIP-125 asks (a higher rate, and at least the
   * node's incremental relay fee more for the replacement's size) or to the market's rate when it
   * is higher, taken from the change.
   */
  async replace(previous: SignedPayout): Promise<SignedPayout> {
    const spend = bitcoinSpend(previous);
    const [market, network, { script }] = await Promise.all([this.marketRate(), this.rpc.call('getnetworkinfo', []), this.treasury()]);
    const incremental = networkSchema.parse(network).incrementalfee;
    const rate = largest(spend.feeRate + incremental, market);
    const size = p2wpkhSpendVirtualSize(this.transaction(spend.inputs, previous.order, script, 1n));
    const least = previous.maxFee + feeFor(size, incremental);
    const fee = largest(feeFor(size, rate), least);
    const needed = previous.order.amount + fee;
    if (total(spend.inputs) < needed) throw new TreasuryShortfall(previous.order.network, null, needed, total(spend.inputs));
    return this.sign(previous.order, spend.inputs, rate, fee);
  }

  /** Signs the spend of `inputs` paying the order and `fee`; change too small to relay goes to the fee. */
  private async sign(order: PayoutOrder, inputs: readonly TreasuryOutput[], rate: bigint, fee: bigint): Promise<SignedPayout> {
    const { publicKey, publicKeyHash, script } = await this.treasury();
    let change = total(inputs) - order.amount - fee;
    if (change < DUST_SATOSHIS) change = 0n;
    const transaction = this.transaction(inputs, order, script, change);
    const witnesses: Uint8Array[][] = [];
    for (const [index, input] of inputs.entries()) {
      const signature = await this.options.signer.sign('bitcoin', p2wpkhSignatureDigest(transaction, index, publicKeyHash, input.satoshis));
      witnesses.push(p2wpkhWitness(signature, publicKey));
    }
    return {
      order,
      rawTransaction: serializeWithWitnesses(transaction, witnesses),
      transactionHash: transactionId(transaction),
      maxFee: total(inputs) - order.amount - change,
      spend: { family: 'bitcoin', inputs: [...inputs], change, feeRate: rate },
    };
  }

  private transaction(inputs: readonly TreasuryOutput[], order: PayoutOrder, treasuryScript: Uint8Array, change: bigint): BitcoinTransaction {
    const outputs = [{ script: outputScript(order.to), satoshis: order.amount }];
    if (change > 0n) outputs.push({ script: treasuryScript, satoshis: change });
    return { version: VERSION, inputs: inputs.map((input) => ({ txid: input.txid, index: input.index, sequence: REPLACEABLE_SEQUENCE })), outputs, locktime: 0 };
  }

  /** Satoshis per 1,000 virtual bytes: the node's estimate or the fallback, at least its mempool's minimum. */
  private async marketRate(): Promise<bigint> {
    const [estimate, mempool] = await this.rpc.batch([
      { method: 'estimatesmartfee', params: [this.options.confirmationTarget ?? DEFAULT_CONFIRMATION_TARGET] },
      { method: 'getmempoolinfo', params: [] },
    ]);
    const rate = estimateSchema.parse(estimate).feerate ?? this.options.fallbackFeeRate ?? DEFAULT_FALLBACK_FEE_RATE;
    const floor = mempoolSchema.parse(mempool).mempoolminfee;
    return largest(rate, floor);
  }

  private treasury(): Promise<Treasury> {
    this.treasuryKey ??= this.options.signer.publicKey('bitcoin').then((publicKey) => {
      const publicKeyHash = hash160(publicKey);
      return { publicKey, publicKeyHash, script: p2wpkhScript(publicKeyHash) };
    });
    this.treasuryKey.catch(() => (this.treasuryKey = undefined));
    return this.treasuryKey;
  }

  /** Without `-txindex` a node finds only its mempool's transactions by txid, and a mined payout would look dropped. */
  private checkIndex(): Promise<void> {
    this.indexChecked ??= (async () => {
      const indexes = z.object({ txindex: z.object({ synced: z.boolean() }).optional() }).parse(await this.rpc.call('getindexinfo', []));
      if (!indexes.txindex) throw new Error('The Bitcoin node keeps no transaction index: run it with -txindex');
    })();
    this.indexChecked.catch(() => (this.indexChecked = undefined));
    return this.indexChecked;
  }
}

function bitcoinSpend(payout: SignedPayout) {
  if (payout.spend.family !== 'bitcoin') throw new TypeError(`Not a Bitcoin payout: ${payout.transactionHash}`);
  return payout.spend;
}

const total = (outputs: readonly TreasuryOutput[]): bigint => outputs.reduce((sum, output) => sum + output.satoshis, 0n);

/** The fee of `virtualSize` bytes at `rate` satoshis per 1,000, rounded up. */
const feeFor = (virtualSize: number, rate: bigint): bigint => (BigInt(virtualSize) * rate + 999n) / 1000n;
