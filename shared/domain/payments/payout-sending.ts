/**
 * Sending crypto payouts and settling them (decisions on crypto payouts), over small ports.
 * `PayoutSender` is the one sender of a (treasury, network): it signs a payout's transaction,
 * stores it with the payout, and only then broadcasts it, so a retry broadcasts the same bytes;
 * it alone replaces a stuck transaction. `PayoutSettlement` runs with the network's chain watcher:
 * it follows each processing payout's transactions, settles it once one is deep enough (confirmed,
 * or failed with the network fee it spent kept back), broadcasts again what the node forgot, asks
 * the sender to replace what is stuck, and hands over payouts nothing was signed for.
 */
import { type BusinessMetrics, type CryptoAssetCode, type CryptoNetwork, Decimal, decimalsOf } from '../kernel/index.js';
import { assetAmount, NATIVE_ASSETS, NETWORK_ADDRESS_FAMILY } from '../chains/index.js';
import {
  type Committed,
  committedBy,
  decodeSignedPayout,
  encodeSignedPayout,
  networkFeeIn,
  type PayoutChain,
  type PayoutStatus,
  type SignedPayout,
  TreasuryBusy,
  type TreasuryState,
  TreasuryShortfall,
  NotYetExpired,
} from '../payouts/index.js';
import type { RateSource } from '../rates/index.js';
import { type ChainEvidence, type CryptoPayoutTransaction, isCryptoPayout, lastAttempt, payoutOrderOf, type Transaction, withAttempt } from '../transactions/index.js';
import type { PayoutQueue, PayoutSendRequest } from './crypto-payout-service.js';
import type { TransactionService } from './transaction-service.js';

/** The EVM treasury's next nonce on a network, as the sender last stored it with a signed transaction. */
export interface TreasuryNonce {
  network: CryptoNetwork;
  /** The nonce the new transaction takes. */
  used: number;
  /** The stored next nonce it was decided on; undefined when none was stored yet. */
  expected: number | undefined;
}

/** Where payouts and their signed transactions are kept. */
export interface PayoutRecords {
  get(id: string): Promise<Transaction | undefined>;
  /**
   * Writes the payout with its new signed transaction if it is still processing with `attempts`
   * signed transactions, and, with an EVM nonce, the treasury's next nonce if it is still
   * `expected`; false when either moved meanwhile.
   */
  recordAttempt(next: CryptoPayoutTransaction, attempts: number, nonce?: TreasuryNonce): Promise<boolean>;
  /** The EVM treasury's next nonce on the network, as stored; undefined before the first. */
  treasuryNonce(network: CryptoNetwork): Promise<number | undefined>;
  /** The network's transactions on chain still short of their end: deposits short of their confirmations, and processing crypto payouts. */
  pendingOnChain(network: string): Promise<Transaction[]>;
}

/** A chain's adapter for one network, with the treasury key it signs with; undefined for a network without a node configured. */
export type PayoutChains = (network: CryptoNetwork) => PayoutChain | undefined;

export interface PayoutSenderDeps {
  records: PayoutRecords;
  chains: PayoutChains;
  metrics: Pick<BusinessMetrics, 'treasuryShortfall'>;
  clock: () => Date;
}

export type SendOutcome = 'sent' | 'rebroadcast' | 'replaced' | 'skipped';

/** The payout waits for the treasury: the message stays queued (its sender tries again later), and nothing was signed. */
export class PayoutWaits extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = new.target.name;
  }
}

export class PayoutSender {
  constructor(private readonly deps: PayoutSenderDeps) {}

  /** Does what the request asks, once: a request repeated, or about a payout that moved on, does nothing new. */
  async handle(request: PayoutSendRequest): Promise<SendOutcome> {
    const payout = await this.deps.records.get(request.transactionId);
    if (!payout || !isCryptoPayout(payout) || payout.status !== 'processing' || payout.network !== request.network) return 'skipped';
    const chain = this.chainOf(payout.network);
    if (request.kind === 'replace') return this.replace(payout, chain, request.attempts);
    const last = lastAttempt(payout);
    if (last) {
      await chain.broadcast(decodeSignedPayout(last.signed).rawTransaction);
      return 'rebroadcast';
    }
    const { state, stored } = await this.treasuryState(chain, payout);
    let signed: SignedPayout;
    try {
      signed = await chain.prepare(payoutOrderOf(payout), state);
    } catch (error) {
      throw this.shortfall(payout, error);
    }
    const nonce = signed.spend.family === 'evm' ? { network: payout.network, used: signed.spend.nonce, expected: stored } : undefined;
    return this.store(payout, chain, signed, nonce, 'sent');
  }

  /** A transaction in the stuck one's place, if it is still the payout's last: the same nonce or inputs with higher fees, or on Tron a new one once the first expired. */
  private async replace(payout: CryptoPayoutTransaction, chain: PayoutChain, attempts: number): Promise<SendOutcome> {
    const last = lastAttempt(payout);
    if (!last || payout.payout.attempts.length !== attempts) return 'skipped';
    let signed: SignedPayout;
    try {
      signed = await chain.replace(decodeSignedPayout(last.signed));
    } catch (error) {
      // Still minable: the watcher asks again once it expired.
      if (error instanceof NotYetExpired) return 'skipped';
      throw this.shortfall(payout, error);
    }
    return this.store(payout, chain, signed, undefined, 'replaced');
  }

  /** Stored first, broadcast after: a sender that stops in between leaves bytes the next broadcast sends as they are. */
  private async store(payout: CryptoPayoutTransaction, chain: PayoutChain, signed: SignedPayout, nonce: TreasuryNonce | undefined, outcome: SendOutcome): Promise<SendOutcome> {
    const next = withAttempt(payout, signed, encodeSignedPayout(signed), this.deps.clock());
    if (!(await this.deps.records.recordAttempt(next, payout.payout.attempts.length, nonce))) {
      // Another sender stored one first: it broadcasts it. Else the treasury's stored nonce moved: the message is tried again.
      const now = await this.deps.records.get(payout.id);
      if (now && isCryptoPayout(now) && now.payout.attempts.length > payout.payout.attempts.length) return 'skipped';
      throw new Error(`Payout ${payout.id} was not stored with its transaction: the treasury's nonce or the payout moved meanwhile`);
    }
    await chain.broadcast(signed.rawTransaction);
    return outcome;
  }

  /**
   * The treasury as the payout is prepared against: as the node sees it, with what the network's
   * other unsettled payouts take (Bitcoin's node says itself which outputs they spend), and on EVM
   * the nonce stored here, ahead of the node's while a transaction signed here has not reached it.
   */
  private async treasuryState(chain: PayoutChain, payout: CryptoPayoutTransaction): Promise<{ state: TreasuryState; stored?: number }> {
    const treasury = await chain.readTreasury();
    if (treasury.family === 'bitcoin') return { state: treasury };
    const committed = await this.committed(payout);
    if (treasury.family === 'tron') return { state: { ...treasury, committed } };
    const stored = await this.deps.records.treasuryNonce(payout.network);
    return { state: { ...treasury, nonce: Math.max(treasury.nonce, stored ?? 0), committed }, stored };
  }

  /**
   * What the network's other signed payouts not settled yet take of the treasury (those mined but
   * short of their depth too: counted twice, they only make a payout near the treasury's end wait).
   */
  private async committed(payout: CryptoPayoutTransaction): Promise<Committed> {
    const pending = await this.deps.records.pendingOnChain(payout.network);
    const signed = pending.flatMap((other) => {
      const last = isCryptoPayout(other) && other.id !== payout.id && other.status === 'processing' ? lastAttempt(other) : undefined;
      return last ? [decodeSignedPayout(last.signed)] : [];
    });
    return committedBy(signed);
  }

  /** A treasury too short for the payout is reported and waited out, one busy with its own transactions only waited out; anything else is the error it was. */
  private shortfall(payout: CryptoPayoutTransaction, error: unknown): unknown {
    if (error instanceof TreasuryBusy) return new PayoutWaits(error.message);
    if (!(error instanceof TreasuryShortfall)) return error;
    // Short of the network's coin (the payout's amount, or the fee of a token transfer), or of the token.
    const native = error.token === null;
    const asset: CryptoAssetCode = native ? NATIVE_ASSETS[payout.network] : payout.currency;
    const places = native ? decimalsOf(asset) : payout.payout.unitDecimals;
    this.deps.metrics.treasuryShortfall(payout.network, asset, assetAmount(error.needed - error.available, places, asset).toNumber());
    return new PayoutWaits(error.message);
  }

  private chainOf(network: CryptoNetwork): PayoutChain {
    const chain = this.deps.chains(network);
    if (!chain) throw new Error(`${network} has no node configured, so its payouts cannot be sent`);
    return chain;
  }
}

export interface PayoutSettlementDeps {
  network: CryptoNetwork;
  /** Blocks, its own included, a payout's transaction needs before the payout settles. */
  confirmations: number;
  records: Pick<PayoutRecords, 'pendingOnChain'>;
  /** Reads and broadcasts; the settlement never signs. */
  chain: Pick<PayoutChain, 'status' | 'broadcast'>;
  queue: PayoutQueue;
  transactions: Pick<TransactionService, 'settle'>;
  rates: RateSource;
  /** Seconds a transaction may wait unmined before it is replaced (GATEWAY_PAYOUT_STUCK_S). */
  stuckSeconds: number;
  /** Seconds a processing payout may wait with nothing signed before it is handed over again. */
  handOverSeconds: number;
  clock: () => Date;
}

export interface PayoutSettlementSummary {
  confirmed: number;
  failed: number;
  waiting: number;
  rebroadcast: number;
  replacing: number;
  handedOver: number;
}

/** One settlement run over a network's processing payouts. */
export class PayoutSettlement {
  constructor(private readonly deps: PayoutSettlementDeps) {}

  async run(): Promise<PayoutSettlementSummary> {
    const summary: PayoutSettlementSummary = { confirmed: 0, failed: 0, waiting: 0, rebroadcast: 0, replacing: 0, handedOver: 0 };
    const payouts = (await this.deps.records.pendingOnChain(this.deps.network)).filter(isCryptoPayout);
    for (const payout of payouts) summary[await this.follow(payout)] += 1;
    return summary;
  }

  private async follow(payout: CryptoPayoutTransaction): Promise<keyof PayoutSettlementSummary> {
    const now = this.deps.clock().getTime();
    const last = lastAttempt(payout);
    if (!last) {
      if (now - Date.parse(payout.updatedAt) < this.deps.handOverSeconds * 1000) return 'waiting';
      await this.deps.queue.enqueue({ kind: 'send', network: payout.network, transactionId: payout.id });
      return 'handedOver';
    }
    // Any of its transactions may be the one mined: a replacement, or the one it replaced.
    const attempts = payout.payout.attempts.map((attempt) => decodeSignedPayout(attempt.signed));
    const statuses = await Promise.all(attempts.map((signed) => this.deps.chain.status(signed)));
    const minedAt = statuses.findIndex((status) => status.state === 'mined');
    if (minedAt >= 0) return this.settleMined(payout, attempts[minedAt]!, statuses[minedAt] as Extract<PayoutStatus, { state: 'mined' }>);
    const newest = statuses.at(-1)!;
    if (newest.state === 'unknown') {
      await this.deps.chain.broadcast(attempts.at(-1)!.rawTransaction);
      return 'rebroadcast';
    }
    const stuck = now - Date.parse(last.signedAt) >= this.deps.stuckSeconds * 1000;
    if (newest.state === 'dropped' || stuck) {
      await this.deps.queue.enqueue({ kind: 'replace', network: payout.network, transactionId: payout.id, attempts: attempts.length });
      return 'replacing';
    }
    return 'waiting';
  }

  /** Settled once its transaction is as deep as the network's deposits must be: before that, a reorganisation may still take it out. */
  private async settleMined(payout: CryptoPayoutTransaction, signed: SignedPayout, status: Extract<PayoutStatus, { state: 'mined' }>): Promise<keyof PayoutSettlementSummary> {
    if (status.confirmations < this.deps.confirmations) return 'waiting';
    if (status.succeeded) {
      const evidence = payoutEvidence(payout, signed, status);
      await this.deps.transactions.settle(payout.merchantId, payout.id, 'confirmed', { expectedType: payout.type, details: { transactionHash: signed.transactionHash, evidence } });
      return 'confirmed';
    }
    const networkSpent = await this.spentInCurrency(payout, status.feePaid);
    await this.deps.transactions.settle(payout.merchantId, payout.id, 'failed', { expectedType: payout.type, details: { transactionHash: signed.transactionHash, networkSpent } });
    return 'failed';
  }

  /**
   * What the failed transaction cost in network fees, in the payout's currency at the live rate,
   * rounded up and never more than the network fee the merchant was quoted (all of it without a rate).
   */
  private async spentInCurrency(payout: CryptoPayoutTransaction, feePaid: bigint): Promise<string> {
    const coin = NATIVE_ASSETS[payout.network];
    const { currency } = payout;
    const quoted = new Decimal(payout.fees.technical ?? 0);
    const spent = networkFeeIn(currency, payout.network, assetAmount(feePaid, decimalsOf(coin), coin), (await this.deps.rates.current()).prices) ?? quoted;
    return Decimal.min(spent, quoted).toFixed(decimalsOf(currency));
  }
}

/**
 * The mined payout as a receipt states it: its block, and its transfer's place in the transaction
 * as the node showed it (a token's log, a Bitcoin output); a native EVM or Tron transfer has no log.
 */
function payoutEvidence(payout: CryptoPayoutTransaction, signed: SignedPayout, status: Extract<PayoutStatus, { state: 'mined' }>): ChainEvidence {
  const nativeOnAccountChain = payout.payout.token === null && NETWORK_ADDRESS_FAMILY[payout.network] !== 'btc';
  return {
    source: 'chain',
    network: payout.network,
    transactionHash: signed.transactionHash,
    blockNumber: status.blockNumber,
    blockHash: status.blockHash,
    ...(nativeOnAccountChain ? { logIndex: null } : {}),
    ...status.transfer,
    to: payout.address,
    contract: payout.payout.token,
    confirmations: status.confirmations,
  };
}
