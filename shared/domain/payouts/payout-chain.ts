/**
 * The chain side of sending a payout, the port each family's adapter in `shared/chain/`
 * implements: an order ("pay this amount of this asset on this network to this address") made
 * into a signed transaction from the treasury, broadcast, followed until mined, and replaced when
 * it is stuck. Amounts are bigint smallest units (wei, satoshis, sun, a token's units); addresses
 * and hashes are as each chain writes them. No I/O here.
 */
import type { CryptoNetwork } from '../kernel/index.js';
import type { TreasuryFamily } from './signer.js';

export interface PayoutOrder {
  network: CryptoNetwork;
  /** The token's contract on the network (`0x…`, `T…`); null for the network's own coin. */
  token: string | null;
  /** The destination, as `destinationAddress` gives it. */
  to: string;
  /** In the asset's smallest units; positive. */
  amount: bigint;
}

/** An unspent output of the Bitcoin treasury. */
export interface TreasuryOutput {
  txid: string;
  index: number;
  satoshis: bigint;
}

/** What a new transaction of the treasury may spend: the EVM nonce it takes, the Bitcoin outputs it may spend; Tron's node keeps no such state. */
/**
 * What the treasury's signed payouts of a network that are not settled yet will take of it, in
 * smallest units: of the network's coin (their amounts and the most their fees burn) and of each
 * token by its contract. A balance read from the node does not count them until they are mined.
 */
export interface Committed {
  native: bigint;
  tokens: Readonly<Record<string, bigint>>;
}

export const NOTHING_COMMITTED: Committed = { native: 0n, tokens: {} };

/** What the signed payouts commit of the treasury, together. */
export function committedBy(payouts: readonly SignedPayout[]): Committed {
  const tokens: Record<string, bigint> = {};
  let native = 0n;
  for (const { order, maxFee } of payouts) {
    native += maxFee + (order.token === null ? order.amount : 0n);
    if (order.token !== null) tokens[order.token] = (tokens[order.token] ?? 0n) + order.amount;
  }
  return { native, tokens };
}

/**
 * The treasury holds `needed` of an asset beside what its unsettled payouts commit of it, or the
 * payout waits: short when the treasury does not hold it at all (`TreasuryShortfall`), busy when
 * only its own payouts in flight stand in the way (`TreasuryBusy`), so that two payouts that each
 * fit never both go out to have the second revert.
 */
export function assertTreasuryCovers(network: CryptoNetwork, token: string | null, needed: bigint, held: bigint, committed: bigint): void {
  if (held < needed) throw new TreasuryShortfall(network, token, needed, held);
  if (held - committed < needed) throw new TreasuryBusy(network);
}

export type TreasuryState =
  /** `committed`: what the network's signed, unsettled payouts will take, which the balances read do not show yet. */
  | { family: 'evm'; nonce: number; committed?: Committed }
  /**
   * `outputs`: the confirmed outputs nothing spends yet; `inFlight`: satoshis of the treasury's
   * outputs that its transactions waiting in the mempool spend, whose change returns once mined.
   */
  | { family: 'bitcoin'; outputs: readonly TreasuryOutput[]; inFlight?: bigint }
  | { family: 'tron'; committed?: Committed };

/** What a signed transaction spends and bids, all a replacement needs to take its place. */
export type PayoutSpend =
  | { family: 'evm'; nonce: number; gasLimit: bigint; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }
  /** `feeRate` in satoshis per 1,000 virtual bytes; `change` back to the treasury (0: none). */
  | { family: 'bitcoin'; inputs: readonly TreasuryOutput[]; change: bigint; feeRate: bigint }
  /** Past `expiresAt` (ms since the epoch, by the chain's block times) the transaction can no longer be mined. */
  | { family: 'tron'; expiresAt: number; feeLimit: bigint };

export interface SignedPayout {
  order: PayoutOrder;
  /** The signed transaction as the network's node takes it: hex, without 0x for Bitcoin and Tron, with it for EVM. */
  rawTransaction: string;
  /** The hash the chain knows it by (EVM's with 0x; Bitcoin's txid; Tron's txID). */
  transactionHash: string;
  /** The most this transaction can cost the treasury in network fees, in the native coin's smallest units. */
  maxFee: bigint;
  spend: PayoutSpend;
}

/**
 * Where a sent transaction is. `dropped`: it can never be mined, as another transaction spent
 * what it spends (its nonce, its inputs: a replacement) or it expired (Tron). `unknown`: the node
 * does not know it, and it could still be mined (broadcast it again).
 */
export type PayoutStatus =
  | { state: 'pending' }
  /**
   * `blockHash`: the mining block's hash. `transfer`: where the order's own transfer is in the
   * transaction, as the node shows it: a token's `Transfer` log, a Bitcoin output; absent for a
   * native EVM or Tron transfer (there is none), and for a transaction that did not pay the order.
   */
  | { state: 'mined'; blockNumber: number; blockHash: string; transfer?: PayoutTransferPosition; confirmations: number; succeeded: boolean; feePaid: bigint }
  | { state: 'dropped' }
  | { state: 'unknown' };

/** Where a payout's transfer is in its transaction: a token transfer's log, or a Bitcoin output. */
export type PayoutTransferPosition = { logIndex: number } | { outputIndex: number };

export interface PayoutChain {
  readonly family: TreasuryFamily;
  /** The network fee an order's transaction would likely cost now, in the native coin's smallest units. */
  estimateFee(order: PayoutOrder): Promise<bigint>;
  /** The treasury's state as the node sees it: the next nonce counting pending transactions, the unspent outputs. */
  readTreasury(): Promise<TreasuryState>;
  /** The order as a transaction signed by the treasury, not yet sent; throws `TreasuryShortfall` when the treasury cannot pay it. */
  prepare(order: PayoutOrder, treasury: TreasuryState): Promise<SignedPayout>;
  /** Hands the transaction to the node; one the node knows already (in its pool or mined) is sent. */
  broadcast(rawTransaction: string): Promise<void>;
  status(payout: SignedPayout): Promise<PayoutStatus>;
  /** A transaction taking a stuck one's place: the same nonce or inputs with a higher fee; on Tron a new one once the first expired. */
  replace(previous: SignedPayout): Promise<SignedPayout>;
}

/** The treasury holds less of an asset than a payout needs: the payout waits until it is funded. */
export class TreasuryShortfall extends Error {
  constructor(
    readonly network: CryptoNetwork,
    /** The token's contract; null for the native coin. */
    readonly token: string | null,
    readonly needed: bigint,
    readonly available: bigint,
  ) {
    super(`The ${network} treasury holds ${available} of ${token ?? 'its native coin'} in smallest units, and needs ${needed}`);
    this.name = new.target.name;
  }
}

/**
 * The treasury could pay the payout but for what its own unsettled transactions take: it waits for
 * them (a Bitcoin payout sent right after another, for its change; an EVM or Tron one behind
 * others that together take more than the treasury holds), and is not short.
 */
export class TreasuryBusy extends Error {
  constructor(readonly network: CryptoNetwork) {
    super(`The ${network} treasury waits for its own transactions to be mined before it can pay this`);
    this.name = new.target.name;
  }
}

/** A Tron transaction asked to be replaced before it expired: both could still be mined. */
export class NotYetExpired extends Error {
  constructor(
    readonly transactionHash: string,
    readonly expiresAt: number,
  ) {
    super(`Transaction ${transactionHash} can be mined until ${new Date(expiresAt).toISOString()}: it is replaced only after`);
    this.name = new.target.name;
  }
}

/** A signed payout as stored with its transaction: JSON, its bigints as `{ "bigint": "…" }`. */
export const encodeSignedPayout = (signed: SignedPayout): string => JSON.stringify(signed, (_key, value: unknown) => (typeof value === 'bigint' ? { bigint: value.toString() } : value));

/** The signed payout `encodeSignedPayout` stored, with its bigints back. */
export const decodeSignedPayout = (stored: string): SignedPayout =>
  JSON.parse(stored, (_key, value: unknown) =>
    typeof value === 'object' && value !== null && Object.keys(value).length === 1 && typeof (value as { bigint?: unknown }).bigint === 'string' ? BigInt((value as { bigint: string }).bigint) : value,
  ) as SignedPayout;
