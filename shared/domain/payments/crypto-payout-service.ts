/**
 * `POST /api/v2/payouts` (decisions on crypto payouts): a crypto payout checked against the
 * asset's rules and the merchant's active payout addresses, its fees quoted (the gateway's payout
 * fee, the network fee estimated from the node at the live rate), reserved in the ledger in the
 * same write as the payout, and handed to its network's sender unless a person must approve it.
 */
import type { Stage } from '../../stage.js';
import { assetAmount, type Chains, NATIVE_ASSETS, smallestUnits } from '../chains/index.js';
import { Conflict, type CryptoAssetCode, type CryptoNetwork, type Decimal, decimalsOf, formatAmount, Invalid, NotFound, Unavailable } from '../kernel/index.js';
import type { AuditAction, AuditEntry, CodeUse } from '../dashboard/index.js';
import { type BalanceReader, heldFor, payingMerchant, writeWithEntries } from '../ledger/index.js';
import type { MerchantProfiles } from '../merchants/index.js';
import {
  checkedPayoutAddress,
  type CryptoPayoutFees,
  cryptoPayoutFees,
  cryptoPayoutProblem,
  type CryptoPayoutRequest,
  type PayoutAddress,
  payoutAddressStatus,
  type PayoutChain,
} from '../payouts/index.js';
import type { RateSource, UsdPrices } from '../rates/index.js';
import { callbackEntry, type CryptoPayoutTransaction, cryptoPayoutTransaction, isCryptoPayout, isRefund, type RefundTransaction } from '../transactions/index.js';
import { type Ledger, ownedTransaction, refundHoldReleased } from './transaction-service.js';
import { reserveWithdrawal } from './withdrawal-reserve.js';

/** A payout as it would be: what `quote` answers before a person confirms it. */
export interface CryptoPayoutQuote {
  amount: string;
  currency: string;
  network: CryptoNetwork;
  address: string;
  fees: { processing: string; technical: string | null };
  /** The amount and both fees: what the payout takes from the available balance. */
  total: string;
  /** What reaches the address: the amount, the fees being on top. */
  arrives: string;
  /** Above the merchant's `payoutApprovalAboveUsd`: it would wait for an owner's approval. */
  waitsForApproval: boolean;
}

/** Where a payout goes once it may be sent: its network's sender, one payout at a time, in order. */
export interface PayoutQueue {
  /**
   * Asks the network's sender to send the payout (`send`), or to replace its stuck transaction, the
   * `attempts`-th (`replace`). Asking twice for the same is harmless: the sender does each once.
   */
  enqueue(request: PayoutSendRequest): Promise<void>;
}

export type PayoutSendRequest = { network: CryptoNetwork; transactionId: string } & ({ kind: 'send' } | { kind: 'replace'; attempts: number });

/** What the stage configures of payouts: its networks (token contracts, confirmations), and the gateway's payout fee per currency. */
export interface PayoutConfiguration {
  chains: Chains;
  payoutFees: Readonly<Record<string, string>>;
}

export interface CryptoPayoutServiceDeps {
  ledger: Ledger;
  balances: BalanceReader;
  merchants: MerchantProfiles;
  addresses: { list(merchantId: string): Promise<PayoutAddress[]> };
  /** A network's fee estimates, from its node; undefined for a network without one configured. */
  feesOn(network: CryptoNetwork): Pick<PayoutChain, 'estimateFee'> | undefined;
  configuration: () => PayoutConfiguration;
  rates: RateSource;
  queue: PayoutQueue;
  /** Hands a rejected payout's callback to the sender at once (the outbox's sweep does it otherwise). */
  callbacks: { publish(callbackIds: string[]): Promise<number> };
  log: { warn(message: string, details: Record<string, unknown>): void };
  stage: Stage;
  clock: () => Date;
  newId: () => string;
}

export class CryptoPayoutService {
  constructor(private readonly deps: CryptoPayoutServiceDeps) {}

  /**
   * What a payout would be, written nowhere: its fees (the gateway's, the network's estimated now),
   * what it takes from the balance, what arrives at the address, and whether it would wait for an
   * owner's approval. The same checks as `create`: what it refuses, `create` refuses.
   */
  async quote(merchantId: string, request: CryptoPayoutRequest): Promise<CryptoPayoutQuote> {
    const { payout } = await this.prepare(merchantId, request);
    const decimals = decimalsOf(payout.currency);
    return {
      amount: payout.amount,
      currency: payout.currency,
      network: payout.network,
      address: payout.address,
      fees: { processing: payout.fees.processing, technical: payout.fees.technical },
      total: formatAmount(heldFor(payout), decimals),
      arrives: payout.amount,
      waitsForApproval: payout.status === 'pending_approval',
    };
  }

  /**
   * A payout asked for by the API (no code) or by an owner in the dashboard, confirmed with a fresh
   * TOTP code: then its audit entry and the code's use are written with it, or nothing is, so a
   * second submission of the same code is refused and asks for nothing twice.
   */
  async create(merchantId: string, request: CryptoPayoutRequest, code?: CodeUse): Promise<CryptoPayoutTransaction> {
    const { payout, now } = await this.prepare(merchantId, request);
    const decision = code && { code, entry: this.auditEntry(payout, code, 'payout.requested', now) };
    if ((await reserveWithdrawal(this.deps, payout, decision)) !== 'committed') {
      if (code && (await this.deps.ledger.get(payout.id)) === undefined) throw Invalid.of('code', 'code was used already: enter the next one');
      throw new Conflict('The balance kept changing; retry the request');
    }
    if (payout.status === 'processing') await handOverPayout(this.deps, payout);
    return payout;
  }

  /**
   * An owner's decision on a payout waiting for approval, confirmed with a fresh TOTP code:
   * approved, it is `processing` and goes to its network's sender; rejected, it is `failed`, its
   * reserve released and the merchant called back. Written with its audit entry and the code's
   * use, or not at all.
   */
  async decide(merchantId: string, transactionId: string, decision: 'approve' | 'reject', code: CodeUse): Promise<CryptoPayoutTransaction | RefundTransaction> {
    const payout = await ownedTransaction(this.deps.ledger, merchantId, transactionId);
    if (!isCryptoPayout(payout) && !isRefund(payout)) throw new NotFound('Transaction');
    if (payout.status !== 'pending_approval') throw new Conflict(`The payout is ${payout.status}: only a payout waiting for approval is approved or rejected`);
    const now = this.deps.clock();
    const next = { ...payout, status: decision === 'approve' ? 'processing' : 'failed', updatedAt: now.toISOString(), decidedBy: code.email } as const;
    const entry = this.auditEntry(payout, code, decision === 'approve' ? 'payout.approved' : 'payout.rejected', now);
    const callbacks = decision === 'reject' ? [callbackEntry(next, now)] : [];
    const refundHold = await refundHoldReleased(this.deps.ledger, next);
    const result = await writeWithEntries(this.deps.balances, payout, next, (posting) =>
      this.deps.ledger.transition(next, 'pending_approval', { posting, callbacks, decision: { entry, code }, refundHold }),
    );
    if (result !== 'committed') {
      const current = await this.deps.ledger.get(transactionId);
      if (current?.status !== 'pending_approval') throw new Conflict(`The payout is ${current?.status ?? 'gone'}: it was decided meanwhile`);
      throw Invalid.of('code', 'code was used already: enter the next one');
    }
    if (callbacks.length > 0) await this.deps.callbacks.publish(callbacks.map((callback) => callback.id));
    if (next.status === 'processing' && isCryptoPayout(next)) await handOverPayout(this.deps, next);
    return next;
  }

  /** The payout a request makes, checked, quoted and valued, not yet written. */
  private async prepare(merchantId: string, request: CryptoPayoutRequest): Promise<{ payout: CryptoPayoutTransaction; now: Date }> {
    const problem = cryptoPayoutProblem(request);
    if (problem) throw problem;
    const merchant = await payingMerchant(this.deps.merchants, merchantId);
    const now = this.deps.clock();
    const address = await this.activeAddress(merchantId, request, now);
    const { payoutFees } = this.deps.configuration();
    const { token, unitDecimals, fees: quoted, prices } = await quoteSending(this.deps, { ...request, to: address }, payoutFees[request.currency] ?? '0');
    const payout = cryptoPayoutTransaction(request, {
      id: this.deps.newId(),
      merchantId,
      address,
      fees: quoted,
      token,
      unitDecimals,
      prices,
      approvalAboveUsd: merchant.payoutApprovalAboveUsd ?? null,
      now,
    });
    return { payout, now };
  }

  /** The merchant's payout address the request names, in its stored form: on the request's network and active, else a 422 on `address`. */
  private async activeAddress(merchantId: string, request: CryptoPayoutRequest, now: Date): Promise<string> {
    const canonical = checkedPayoutAddress(request.network, request.address, this.deps.stage);
    const found = (await this.deps.addresses.list(merchantId)).find((address) => address.network === request.network && address.address === canonical);
    if (!found) throw Invalid.of('address', `address is not one of your payout addresses on ${request.network}; add it in the dashboard first`);
    if (payoutAddressStatus(found, now) !== 'active') throw Invalid.of('address', `address is pending until ${found.activatesAt}: payouts go to active addresses only`);
    return found.address;
  }

  /** What an owner did to a payout, for the audit log. */
  private auditEntry(payout: CryptoPayoutTransaction | RefundTransaction, code: CodeUse, action: AuditAction, now: Date): AuditEntry {
    const subject = `${payout.id}: ${payout.amount} ${payout.currency} on ${payout.network} to ${payout.address}`;
    return { merchantId: payout.merchantId, id: this.deps.newId(), at: now.toISOString(), actor: code.email, action, subject };
  }
}

/**
 * What sending `amount` of `currency` on `network` to `to` takes, quoted now: the asset's contract
 * there (none for the network's coin) and the places of its smallest unit, the gateway's fee
 * (`payoutFee`) and the network fee the node estimates, at the live rate, and the prices used.
 */
export async function quoteSending(
  deps: Pick<CryptoPayoutServiceDeps, 'configuration' | 'feesOn' | 'rates'>,
  order: { network: CryptoNetwork; currency: CryptoAssetCode; to: string; amount: Decimal },
  payoutFee: string,
): Promise<{ token: string | null; unitDecimals: number; fees: CryptoPayoutFees; prices: UsdPrices }> {
  const { token, unitDecimals } = assetOn(deps.configuration().chains, order);
  const fees = deps.feesOn(order.network);
  if (!fees) throw new Unavailable(`No node of ${order.network} is configured, so its payouts cannot be quoted; nothing was recorded`);
  const networkUnits = await fees.estimateFee({ network: order.network, token, to: order.to, amount: smallestUnits(order.amount, unitDecimals) }).catch((error: unknown) => {
    throw new Unavailable(`The ${order.network} node did not quote the network fee (${error instanceof Error ? error.message : String(error)}); nothing was recorded, retry the request`);
  });
  const { prices } = await deps.rates.current();
  const coin = NATIVE_ASSETS[order.network];
  return { token, unitDecimals, fees: cryptoPayoutFees(order, { payoutFee, networkFee: assetAmount(networkUnits, decimalsOf(coin), coin), prices }), prices };
}

/**
 * To its network's sender. A queue that does not take it now loses nothing: the payout (or refund)
 * is recorded, and the network's watcher hands over every processing one nothing was signed for.
 */
export async function handOverPayout(deps: Pick<CryptoPayoutServiceDeps, 'queue' | 'log'>, payout: Pick<CryptoPayoutTransaction, 'id' | 'network'>): Promise<void> {
  await deps.queue.enqueue({ kind: 'send', network: payout.network, transactionId: payout.id }).catch((error: unknown) => {
    deps.log.warn('The payout queue did not take the payout; the chain watcher hands it over again', {
      transactionId: payout.id,
      reason: error instanceof Error ? error.message : String(error),
    });
  });
}

/** The asset on its network: the network's own coin (no contract), or the token contract the stage configures there. */
function assetOn(chains: Chains, order: { network: CryptoNetwork; currency: CryptoAssetCode }): { token: string | null; unitDecimals: number } {
  if (NATIVE_ASSETS[order.network] === order.currency) return { token: null, unitDecimals: decimalsOf(order.currency) };
  const contract = chains[order.network].tokens[order.currency];
  if (!contract) throw Invalid.of('currency', `${order.currency} has no token contract configured on ${order.network} here`);
  return { token: contract.address, unitDecimals: contract.decimals };
}
