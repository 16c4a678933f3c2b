/**
 * Payouts on an EVM network over its node's JSON-RPC: EIP-1559 transactions from the treasury
 * (one address on every EVM network), the native coin sent as a plain transfer and a token as
 * ERC-20 `transfer(address,uint256)`. Fees are the node's (`eth_feeHistory`'s next base fee twice,
 * plus `eth_maxPriorityFeePerGas`), gas its `eth_estimateGas`; viem only serializes and hashes. The
 * digest is signed through the treasury signer, its recovery id becoming `yParity`.
 */
import { encodeFunctionData, erc20Abi, getAddress, keccak256, numberToHex, serializeTransaction, type Hex, type TransactionSerializableEIP1559 } from 'viem';
import * as z from 'zod';
import { evmAddress } from '../domain/chains/index.js';
import {
  type PayoutChain,
  type PayoutOrder,
  type PayoutStatus,
  type PayoutTransferPosition,
  type SignedPayout,
  assertTreasuryCovers,
  NOTHING_COMMITTED,
  type TreasuryState,
  type TreasurySigner,
} from '../domain/payouts/index.js';
import { largest } from './bigints.js';
import { decodeTransfer, evmJsonRpc } from './evm-reader.js';
import { JsonRpcError, type JsonRpcHttp } from './json-rpc.js';

/** A plain transfer's gas, the least any transaction takes. */
const TRANSFER_GAS = 21_000n;
/** A token call's gas limit above its estimate, in percent: what it uses may grow between the estimate and the block. */
const CALL_GAS_MARGIN_PERCENT = 20n;
/** What a fee estimate assumes when the node cannot estimate the call (the treasury not funded yet): a token transfer's gas, generously. */
const FALLBACK_TOKEN_GAS = 100_000n;
/** Blocks of `eth_feeHistory` whose median tips stand in for `eth_maxPriorityFeePerGas` on a node without it. */
const TIP_HISTORY_BLOCKS = 5;
/** Nodes take a replacement only when both its fees are at least 10% above the one it replaces (geth's default price bump). */
const REPLACEMENT_BUMP_PERCENT = 10n;

const quantity = z
  .string()
  .regex(/^0x[0-9a-fA-F]+$/, 'must be a hex quantity')
  .transform((value) => BigInt(value));
const hash = z.string().regex(/^0x[0-9a-fA-F]{64}$/);

const feeHistorySchema = z.object({ baseFeePerGas: z.array(quantity).min(1), reward: z.array(z.array(quantity)).optional() });
const logSchema = z.object({ address: z.string(), topics: z.array(z.string()), data: z.string(), logIndex: quantity });
const receiptSchema = z.object({ blockNumber: quantity, blockHash: z.string(), status: quantity, gasUsed: quantity, effectiveGasPrice: quantity, logs: z.array(logSchema) });

/** The log of a token payout's own `Transfer`: from the order's contract, to its address, of its amount. */
function transferLogOf(order: PayoutOrder, logs: readonly z.infer<typeof logSchema>[]): PayoutTransferPosition | undefined {
  if (order.token === null) return undefined;
  const found = logs.find((log) => {
    const transfer = getAddress(log.address) === getAddress(order.token!) ? decodeTransfer(log.topics, log.data as Hex) : undefined;
    return transfer !== undefined && getAddress(transfer.to) === getAddress(order.to) && transfer.value === order.amount;
  });
  return found ? { logIndex: Number(found.logIndex) } : undefined;
}

interface Fees {
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

export interface EvmPayoutChainOptions {
  rpcUrl: string;
  /** The network's EIP-155 chain id, which every transaction is signed for and the node must be on. */
  chainId: number;
  network: PayoutOrder['network'];
  signer: TreasurySigner;
}

export class EvmPayoutChain implements PayoutChain {
  readonly family = 'evm';
  private readonly rpc: JsonRpcHttp;
  private treasuryAddress: Promise<Hex> | undefined;
  private nodeChecked: Promise<void> | undefined;

  constructor(private readonly options: EvmPayoutChainOptions) {
    this.rpc = evmJsonRpc(options.rpcUrl);
  }

  /** The treasury's address, from the signer's public key. */
  treasury(): Promise<Hex> {
    this.treasuryAddress ??= this.options.signer.publicKey('evm').then((publicKey) => evmAddress(publicKey) as Hex);
    this.treasuryAddress.catch(() => (this.treasuryAddress = undefined));
    return this.treasuryAddress;
  }

  async estimateFee(order: PayoutOrder): Promise<bigint> {
    const [{ nextBaseFee, maxPriorityFeePerGas }, gas] = await Promise.all([this.feeMarket(), this.gasFor(order).catch((error) => this.fallbackGas(order, error))]);
    return gas * (nextBaseFee + maxPriorityFeePerGas);
  }

  async readTreasury(): Promise<TreasuryState> {
    const nonce = quantity.parse(await this.rpc.call('eth_getTransactionCount', [await this.treasury(), 'pending']));
    return { family: 'evm', nonce: Number(nonce) };
  }

  async prepare(order: PayoutOrder, treasury: TreasuryState): Promise<SignedPayout> {
    if (treasury.family !== 'evm') throw new TypeError(`An EVM payout spends the EVM treasury's nonce, not a ${treasury.family} treasury's state`);
    await this.checkNode();
    const from = await this.treasury();
    const [fees, tokenBalance] = await Promise.all([this.fees(), order.token === null ? undefined : this.tokenBalance(order.token, from)]);
    const committed = treasury.committed ?? NOTHING_COMMITTED;
    // Checked before the gas is estimated: a transfer of more tokens than there are does not estimate.
    if (order.token !== null) assertTreasuryCovers(order.network, order.token, order.amount, tokenBalance!, committed.tokens[order.token] ?? 0n);
    const gas = await this.gasFor(order);
    const maxFee = gas * fees.maxFeePerGas;
    const balance = quantity.parse(await this.rpc.call('eth_getBalance', [from, 'latest']));
    assertTreasuryCovers(order.network, null, maxFee + (order.token === null ? order.amount : 0n), balance, committed.native);
    return this.sign(order, { nonce: treasury.nonce, gasLimit: gas, ...fees });
  }

  async broadcast(rawTransaction: string): Promise<void> {
    try {
      await this.rpc.call('eth_sendRawTransaction', [rawTransaction]);
    } catch (error) {
      // "already known", "known transaction", "nonce too low" once it is mined: each node says it its own way, and the node knowing the hash says it for all.
      if (error instanceof JsonRpcError && (await this.rpc.call('eth_getTransactionByHash', [keccak256(rawTransaction as Hex)])) !== null) return;
      throw error;
    }
  }

  async status(payout: SignedPayout): Promise<PayoutStatus> {
    const spend = evmSpend(payout);
    const [receipt, head] = await this.rpc.batch([
      { method: 'eth_getTransactionReceipt', params: [payout.transactionHash] },
      { method: 'eth_blockNumber', params: [] },
    ]);
    if (receipt !== null) {
      const { blockNumber, blockHash, status, gasUsed, effectiveGasPrice, logs } = receiptSchema.parse(receipt);
      const transfer = transferLogOf(payout.order, logs);
      return {
        state: 'mined',
        blockNumber: Number(blockNumber),
        blockHash,
        ...(transfer ? { transfer } : {}),
        confirmations: Number(quantity.parse(head) - blockNumber + 1n),
        succeeded: status === 1n,
        feePaid: gasUsed * effectiveGasPrice,
      };
    }
    if ((await this.rpc.call('eth_getTransactionByHash', [payout.transactionHash])) !== null) return { state: 'pending' };
    const minedNonce = quantity.parse(await this.rpc.call('eth_getTransactionCount', [await this.treasury(), 'latest']));
    return minedNonce > BigInt(spend.nonce) ? { state: 'dropped' } : { state: 'unknown' };
  }

  /** The same transaction with the same nonce, both fees raised by the nodes' bump at least, and to the market's when it rose further. */
  async replace(previous: SignedPayout): Promise<SignedPayout> {
    const spend = evmSpend(previous);
    const market = await this.fees();
    const maxPriorityFeePerGas = largest(bumped(spend.maxPriorityFeePerGas), market.maxPriorityFeePerGas);
    const maxFeePerGas = largest(bumped(spend.maxFeePerGas), market.maxFeePerGas, maxPriorityFeePerGas);
    return this.sign(previous.order, { nonce: spend.nonce, gasLimit: spend.gasLimit, maxFeePerGas, maxPriorityFeePerGas });
  }

  private async sign(order: PayoutOrder, spend: { nonce: number; gasLimit: bigint } & Fees): Promise<SignedPayout> {
    const transaction: TransactionSerializableEIP1559 = {
      type: 'eip1559',
      chainId: this.options.chainId,
      nonce: spend.nonce,
      gas: spend.gasLimit,
      maxFeePerGas: spend.maxFeePerGas,
      maxPriorityFeePerGas: spend.maxPriorityFeePerGas,
      ...callOf(order),
    };
    const digest = keccak256(serializeTransaction(transaction), 'bytes');
    const { r, s, recovery } = await this.options.signer.sign('evm', digest);
    const rawTransaction = serializeTransaction(transaction, { r: numberToHex(r, { size: 32 }), s: numberToHex(s, { size: 32 }), yParity: recovery });
    return { order, rawTransaction, transactionHash: keccak256(rawTransaction), maxFee: spend.gasLimit * spend.maxFeePerGas, spend: { family: 'evm', ...spend } };
  }

  /** The next block's base fee, and the tip the node suggests (or the recent blocks' median tip, on a node without `eth_maxPriorityFeePerGas`). */
  private async feeMarket(): Promise<{ nextBaseFee: bigint; maxPriorityFeePerGas: bigint }> {
    const history = feeHistorySchema.parse(await this.rpc.call('eth_feeHistory', [numberToHex(TIP_HISTORY_BLOCKS), 'latest', [50]]));
    // The history's last base fee is the next block's.
    const nextBaseFee = history.baseFeePerGas.at(-1)!;
    let maxPriorityFeePerGas: bigint;
    try {
      maxPriorityFeePerGas = quantity.parse(await this.rpc.call('eth_maxPriorityFeePerGas', []));
    } catch (error) {
      if (!(error instanceof JsonRpcError)) throw error;
      const tips = (history.reward ?? []).map((reward) => reward[0] ?? 0n).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      maxPriorityFeePerGas = tips[Math.floor(tips.length / 2)] ?? 0n;
    }
    return { nextBaseFee, maxPriorityFeePerGas };
  }

  /** What a new transaction bids: the tip, and room for the base fee to double before it is mined. */
  private async fees(): Promise<Fees> {
    const { nextBaseFee, maxPriorityFeePerGas } = await this.feeMarket();
    return { maxFeePerGas: 2n * nextBaseFee + maxPriorityFeePerGas, maxPriorityFeePerGas };
  }

  private async gasFor(order: PayoutOrder): Promise<bigint> {
    const { to, value, data } = callOf(order);
    const call = { from: await this.treasury(), to, value: numberToHex(value), ...(data ? { data } : {}) };
    const estimate = quantity.parse(await this.rpc.call('eth_estimateGas', [call, 'latest']));
    return order.token === null ? estimate : (estimate * (100n + CALL_GAS_MARGIN_PERCENT)) / 100n;
  }

  /** A fee is quoted even before the treasury holds what the order sends: a transfer's gas stands in for the estimate the node refused. */
  private fallbackGas(order: PayoutOrder, error: unknown): bigint {
    if (!(error instanceof JsonRpcError)) throw error;
    return order.token === null ? TRANSFER_GAS : FALLBACK_TOKEN_GAS;
  }

  private async tokenBalance(token: string, owner: Hex): Promise<bigint> {
    const data = encodeFunctionData({ abi: erc20Abi, functionName: 'balanceOf', args: [owner] });
    const answer = z
      .string()
      .regex(/^0x[0-9a-fA-F]{64}$/, 'must be one uint256')
      .parse(await this.rpc.call('eth_call', [{ to: getAddress(token), data }, 'latest']));
    return BigInt(answer);
  }

  /** The node must be on the chain the transactions are signed for: asked once, again only after a failure. */
  private checkNode(): Promise<void> {
    this.nodeChecked ??= (async () => {
      const chainId = quantity.parse(await this.rpc.call('eth_chainId', []));
      if (chainId !== BigInt(this.options.chainId)) throw new Error(`The ${this.options.network} node is on chain ${chainId}, not chain ${this.options.chainId} as configured`);
    })();
    this.nodeChecked.catch(() => (this.nodeChecked = undefined));
    return this.nodeChecked;
  }
}

/** The call an order makes: value to the destination, or the token's `transfer`. */
function callOf(order: PayoutOrder): { to: Hex; value: bigint; data?: Hex } {
  if (order.amount <= 0n) throw new RangeError(`A payout's amount is positive, not ${order.amount}`);
  const to = getAddress(order.to);
  if (order.token === null) return { to, value: order.amount };
  return { to: getAddress(order.token), value: 0n, data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, order.amount] }) };
}

function evmSpend(payout: SignedPayout) {
  if (payout.spend.family !== 'evm') throw new TypeError(`Not an EVM payout: ${payout.transactionHash}`);
  hash.parse(payout.transactionHash);
  return payout.spend;
}

const bumped = (value: bigint): bigint => value + (value * REPLACEMENT_BUMP_PERCENT) / 100n + 1n;
