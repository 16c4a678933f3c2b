/**
 * An EVM network in memory, as `PayoutChain` sees one: a treasury with a nonce and balances, a
 * pool of broadcast transactions, and blocks the test mines, each transaction succeeding or
 * reverting as the test says. What only a real node shows is tested against hardhat
 * (test/integration/crypto-payouts.test.ts).
 */
import { createHash } from 'node:crypto';
import type { CryptoNetwork } from '../../../shared/domain/kernel/index.js';
import {
  type PayoutChain,
  type PayoutOrder,
  type PayoutStatus,
  type SignedPayout,
  type TreasuryState,
  assertTreasuryCovers,
  type Committed,
  NOTHING_COMMITTED,
  TreasuryBusy,
} from '../../../shared/domain/payouts/index.js';

/** 21,000 gas at 1 gwei: 0.000021 of the coin. */
export const MEMORY_GAS_FEE = 21_000n * 1_000_000_000n;

interface Mined {
  block: number;
  succeeded: boolean;
  fee: bigint;
}

export class MemoryPayoutChain implements PayoutChain {
  readonly family = 'evm';
  /** The treasury's holdings: `native`, or a token's contract. */
  readonly holdings = new Map<string, bigint>();
  /** What each destination received, by `{to}/{token|native}`. */
  readonly received = new Map<string, bigint>();
  readonly pool = new Map<string, SignedPayout>();
  readonly mined = new Map<string, Mined>();
  readonly broadcasts: string[] = [];
  signed = 0;
  height = 0;
  private minedNonce = 0;
  /** Hashes whose transaction reverts when mined. */
  readonly reverting = new Set<string>();
  /** Broadcasts that fail before reaching the pool, as a node down would. */
  failBroadcasts = 0;
  /** The treasury waits for its own transactions to be mined, as a Bitcoin one whose change is not yet confirmed does. */
  busy = false;

  constructor(readonly network: CryptoNetwork = 'ethereum') {}

  fund(token: string | null, amount: bigint): void {
    const key = token ?? 'native';
    this.holdings.set(key, (this.holdings.get(key) ?? 0n) + amount);
  }

  async estimateFee(_order: PayoutOrder): Promise<bigint> {
    return MEMORY_GAS_FEE;
  }

  async readTreasury(): Promise<TreasuryState> {
    return { family: 'evm', nonce: this.minedNonce + this.pool.size };
  }

  async prepare(order: PayoutOrder, treasury: TreasuryState): Promise<SignedPayout> {
    if (treasury.family !== 'evm') throw new TypeError('an EVM treasury');
    return this.sign(order, treasury.nonce, MEMORY_GAS_FEE, treasury.committed);
  }

  async broadcast(rawTransaction: string): Promise<void> {
    if (this.failBroadcasts > 0) {
      this.failBroadcasts -= 1;
      throw new Error('The node is unreachable');
    }
    this.broadcasts.push(rawTransaction);
    const signed = JSON.parse(rawTransaction, (_key, value: unknown) => (typeof value === 'string' && /^\d+n$/.test(value) ? BigInt(value.slice(0, -1)) : value)) as SignedPayout;
    if (!this.mined.has(signed.transactionHash)) this.pool.set(signed.transactionHash, signed);
  }

  async status(payout: SignedPayout): Promise<PayoutStatus> {
    const mined = this.mined.get(payout.transactionHash);
    if (mined) {
      // A block's hash is its number, written out; a token's transfer is the transaction's one log.
      const blockHash = `0x${mined.block.toString(16).padStart(64, '0')}`;
      const transfer = payout.order.token === null ? {} : { transfer: { logIndex: 0 } };
      return { state: 'mined', blockNumber: mined.block, blockHash, ...transfer, confirmations: this.height - mined.block + 1, succeeded: mined.succeeded, feePaid: mined.fee };
    }
    if (this.pool.has(payout.transactionHash)) return { state: 'pending' };
    return payout.spend.family === 'evm' && payout.spend.nonce < this.minedNonce ? { state: 'dropped' } : { state: 'unknown' };
  }

  async replace(previous: SignedPayout): Promise<SignedPayout> {
    if (previous.spend.family !== 'evm') throw new TypeError('an EVM payout');
    return this.sign(previous.order, previous.spend.nonce, (previous.maxFee * 9n) / 8n + 1n);
  }

  /** A block with the pool's transactions, one per nonce in nonce order (a replacement wins over what it replaced), each paid from the treasury. */
  mine(): void {
    this.height += 1;
    const byNonce = new Map<number, SignedPayout>();
    for (const signed of this.pool.values()) {
      const nonce = (signed.spend as { nonce: number }).nonce;
      const other = byNonce.get(nonce);
      if (!other || signed.maxFee > other.maxFee) byNonce.set(nonce, signed);
    }
    for (const nonce of [...byNonce.keys()].sort((a, b) => a - b)) {
      if (nonce !== this.minedNonce) break;
      const signed = byNonce.get(nonce)!;
      const succeeded = !this.reverting.has(signed.transactionHash);
      this.take('native', signed.maxFee);
      if (succeeded) {
        this.take(signed.order.token ?? 'native', signed.order.amount);
        const key = `${signed.order.to}/${signed.order.token ?? 'native'}`;
        this.received.set(key, (this.received.get(key) ?? 0n) + signed.order.amount);
      }
      this.mined.set(signed.transactionHash, { block: this.height, succeeded, fee: signed.maxFee });
      this.minedNonce += 1;
    }
    for (const [hash, signed] of this.pool) if (this.mined.has(hash) || (signed.spend as { nonce: number }).nonce < this.minedNonce) this.pool.delete(hash);
  }

  mineBlocks(count: number): void {
    for (let i = 0; i < count; i++) this.mine();
  }

  private take(key: string, amount: bigint): void {
    this.holdings.set(key, (this.holdings.get(key) ?? 0n) - amount);
  }

  private sign(order: PayoutOrder, nonce: number, fee: bigint, committed: Committed = NOTHING_COMMITTED): SignedPayout {
    if (this.busy) throw new TreasuryBusy(order.network);
    assertTreasuryCovers(order.network, null, fee + (order.token === null ? order.amount : 0n), this.holdings.get('native') ?? 0n, committed.native);
    if (order.token !== null) assertTreasuryCovers(order.network, order.token, order.amount, this.holdings.get(order.token) ?? 0n, committed.tokens[order.token] ?? 0n);
    this.signed += 1;
    const body = { order, nonce, fee };
    const text = JSON.stringify(body, (_key, value: unknown) => (typeof value === 'bigint' ? `${value}n` : value));
    const transactionHash = `0x${createHash('sha256').update(text).digest('hex')}`;
    const signed: SignedPayout = { order, rawTransaction: '', transactionHash, maxFee: fee, spend: { family: 'evm', nonce, gasLimit: 21_000n, maxFeePerGas: fee / 21_000n, maxPriorityFeePerGas: 1n } };
    signed.rawTransaction = JSON.stringify(signed, (_key, value: unknown) => (typeof value === 'bigint' ? `${value}n` : value));
    return signed;
  }
}
