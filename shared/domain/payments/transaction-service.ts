/**
 * Money movement over small ports: recording deposits against invoices, settling transactions
 * with the balance entries they bring, and the merchant's view of them. Every write is decided on
 * a state read and committed only if that state still holds; a lost race is decided again on the
 * new state.
 */
import { writeWithEntries, type BalancePosting, type BalanceReader } from '../ledger/index.js';
import type { CallbackEntry } from '../callbacks/index.js';
import type { AuditEntry, CodeUse } from '../dashboard/index.js';
import {
  callbackEntry,
  type ChainPosition,
  depositTransaction,
  type DepositValuation,
  isFinalStatus,
  isRefund,
  refundsHeldAfter,
  type Transaction,
  type TransactionStatus,
  type TransactionEvidence,
  type TransactionType,
  type TransactionView,
} from '../transactions/index.js';
import {
  amountRuleProblem,
  type BusinessMetrics,
  type CommitResult,
  Conflict,
  type CryptoNetwork,
  Decimal,
  type DepositSource,
  familyOf,
  formatRate,
  Gone,
  Invalid,
  isCryptoAsset,
  isUuid,
  networksOf,
  NotFound,
  optimisticAttempts,
} from '../kernel/index.js';
import { type DepositRefusal, type Invoice, invoiceAfterDeposit, invoiceAfterRefund, type InvoiceUpdate, withInvoiceEvent } from '../invoicing/index.js';
import { authenticatedMerchant, type MerchantProfiles } from '../merchants/index.js';
import { crossRate, type RateSource } from '../rates/index.js';

/** A value that may be taken once (a UTR, a merchant's withdrawal orderId), taken in the same write as the record it guards. */
export interface UniqueClaim {
  id: string;
  /** What the claim points at, read back to tell a repeat from a clash. */
  owner: Record<string, string>;
}

/** The transactions, and the one write of each state change with everything it brings (invoice, balance entries, callback, claims). */
export interface Ledger {
  get(id: string): Promise<Transaction | undefined>;
  getClaim(id: string): Promise<UniqueClaim | undefined>;
  insert(
    transaction: Transaction,
    options: { invoice?: InvoiceUpdate; posting?: BalancePosting; callbacks?: CallbackEntry[]; claims?: UniqueClaim[]; decision?: PersonsDecision; refundHold?: RefundHold },
  ): Promise<CommitResult>;
  transition(
    next: Transaction,
    from: TransactionStatus,
    options: { invoice?: InvoiceUpdate; posting?: BalancePosting; callbacks?: CallbackEntry[]; releaseClaims?: string[]; decision?: PersonsDecision; refundHold?: RefundHold },
  ): Promise<CommitResult>;
}

/**
 * What a refund, new or failed, changes of its deposit's `refundsHeld`: written with it, only if
 * the deposit is still confirmed and holds `expected` (undefined: nothing refunded yet).
 */
export interface RefundHold {
  depositId: string;
  expected: string | undefined;
  next: string;
}

/**
 * A change a dashboard user made with a fresh TOTP code (asking for a payout, approving one): its audit entry, and
 * the code's use on the user, written with the change or not at all.
 */
export interface PersonsDecision {
  entry: AuditEntry;
  code: CodeUse;
}

export interface TransactionServiceDeps {
  ledger: Ledger;
  /** The merchant's balances, which a confirmed deposit or a settled withdrawal posts to in its own write. */
  balances: BalanceReader;
  invoices: { get(id: string): Promise<Invoice | undefined> };
  merchants: MerchantProfiles;
  callbacks: { publish(callbackIds: string[]): Promise<number> };
  /** Values a deposit in another currency than its invoice's. */
  rates: RateSource;
  metrics: Pick<BusinessMetrics, 'depositSettled'>;
  clock: () => Date;
  newId: () => string;
  /** Where the gateway is served: an invoice event's view links to the invoice's checkout. */
  publicBaseUrl: string;
}

export interface DepositInput {
  source: DepositSource;
  amount?: Decimal;
  currency?: string;
  network?: CryptoNetwork | null;
  status: TransactionStatus;
  transactionHash?: string | null;
  senderDetails?: Partial<TransactionView['senderDetails']>;
  /** An on-chain deposit: where it was seen; its amount is what arrived, so no maximum applies. */
  chain?: ChainPosition;
  /** What shows the deposit happened (a transfer on chain, a provider's word, a simulation), written with it. */
  evidence?: TransactionEvidence;
  /** Claimed in the same write: what makes a deposit exist once (an on-chain transfer's id). Recording it again answers the first. */
  uniqueId?: string;
  /**
   * Money a payment provider reports (docs/provider-protocol.md): it has moved already, so a closed invoice
   * records it too, and the invoice's payment at the provider is decided.
   */
  reportedByProvider?: boolean;
}

/** What a settlement may bring besides the state: the amount a provider reports arrived, and who sent it. */
export interface SettlementDetails {
  amount?: Decimal;
  senderDetails?: Partial<TransactionView['senderDetails']>;
  /** The invoice's payment at its provider is decided by this settlement. */
  settlesProviderPayment?: boolean;
  /** A crypto payout: the transaction that was mined. */
  transactionHash?: string;
  /** What shows the transaction reached its final state, written with it; the transaction's earlier evidence stays otherwise. */
  evidence?: TransactionEvidence;
  /** A crypto payout that failed on chain: the network fee its transaction spent, in the payout's currency, kept back from the release. */
  networkSpent?: string;
}

/**
 * How a transaction reaching its final state changes its invoice: a deposit as the invoice's
 * payments count it (never refused: it was taken when it was recorded), a confirmed refund added to
 * what the invoice refunded.
 */
function invoiceChangeOf(invoice: Invoice, next: Transaction, now: Date): InvoiceUpdate | undefined {
  if (isRefund(next)) return invoiceAfterRefund(invoice, next);
  const outcome = invoiceAfterDeposit(invoice, next, false, now);
  return 'update' in outcome ? outcome.update : undefined;
}

/** A refund that failed gives its amount back to what its deposit may still refund, in the same write. */
export async function refundHoldReleased(ledger: Pick<Ledger, 'get'>, next: Transaction): Promise<RefundHold | undefined> {
  if (!isRefund(next) || next.status !== 'failed') return undefined;
  const deposit = await ledger.get(next.refundOf);
  if (!deposit) throw new Error(`Refund ${next.id} is of deposit ${next.refundOf}, which is not recorded`);
  return { depositId: deposit.id, expected: deposit.refundsHeld, next: refundsHeldAfter(deposit, new Decimal(next.amount).neg()) };
}

/** The merchant's own transaction; anything else is as unknown as a missing one. */
export async function ownedTransaction(ledger: Pick<Ledger, 'get'>, merchantId: string, transactionId: string): Promise<Transaction> {
  const transaction = isUuid(transactionId) ? await ledger.get(transactionId) : undefined;
  if (!transaction || transaction.merchantId !== merchantId) throw new NotFound('Transaction');
  return transaction;
}

export class TransactionService {
  constructor(private readonly deps: TransactionServiceDeps) {}

  owned(merchantId: string, transactionId: string): Promise<Transaction> {
    return ownedTransaction(this.deps.ledger, merchantId, transactionId);
  }

  async ownedInvoice(merchantId: string, invoiceId: string): Promise<Invoice> {
    const invoice = isUuid(invoiceId) ? await this.deps.invoices.get(invoiceId) : undefined;
    if (!invoice || invoice.merchantId !== merchantId) throw new NotFound('Invoice');
    return invoice;
  }

  /**
   * Records a deposit on the merchant's invoice, moves the invoice, credits the merchant's balance
   * if it is confirmed, and owes the callback if final: every deposit, whatever its source, is booked here.
   * `invoiceRead`: the invoice as the caller just read it, which the first attempt decides on
   * instead of reading it again; a lost race reads it anew.
   */
  async recordDeposit(merchantId: string, invoiceId: string, input: DepositInput, invoiceRead?: Invoice): Promise<Transaction> {
    // Recorded already: answered before the invoice's state (paid since, by this very deposit) is judged.
    const earlier = input.uniqueId && (await this.claimed(input.uniqueId));
    if (earlier) return earlier;
    const merchant = await authenticatedMerchant(this.deps.merchants, merchantId);
    const id = this.deps.newId();
    let known = invoiceRead?.id === invoiceId && invoiceRead.merchantId === merchantId ? invoiceRead : undefined;
    for await (const _attempt of optimisticAttempts()) {
      const invoice = known ?? (await this.ownedInvoice(merchantId, invoiceId));
      known = undefined;
      const now = this.deps.clock();
      const details = await this.depositDetails(invoice, input);
      const transaction = depositTransaction(invoice, { id, now, ...details }, merchant.processingFeePercent);
      const outcome = invoiceAfterDeposit(invoice, transaction, true, now, input.reportedByProvider);
      if ('refused' in outcome) throw refusal(outcome.refused, invoice);
      if (input.reportedByProvider) outcome.update.settlesProviderPayment = true;
      const { update, event } = withInvoiceEvent(merchant, invoice, outcome.update, this.deps.publicBaseUrl, now);
      const callbacks = [...(isFinalStatus(transaction.status) ? [callbackEntry(transaction, now)] : []), ...(event ? [event] : [])];
      const claims = input.uniqueId ? [{ id: input.uniqueId, owner: { transactionId: id, merchantId } }] : [];
      const result = await writeWithEntries(this.deps.balances, undefined, transaction, (posting) => this.deps.ledger.insert(transaction, { invoice: update, posting, callbacks, claims }));
      if (result === 'committed') {
        if (isFinalStatus(transaction.status)) this.deps.metrics.depositSettled(input.source, transaction.status);
        if (callbacks.length > 0) await this.deps.callbacks.publish(callbacks.map((callback) => callback.id));
        return transaction;
      }
      const recorded = input.uniqueId && (await this.claimed(input.uniqueId));
      if (recorded) return recorded;
    }
    // A confirmed deposit also posts to the merchant's balance, which deposits racing on it may keep moving (docs/operations.md#one-merchants-balance-is-one-item).
    throw new Conflict("The invoice or the merchant's balance kept changing; retry the request");
  }

  /**
   * Moves a processing transaction to its final state (a provider's decision, a simulated
   * withdrawal outcome, an on-chain deposit at depth). Asking for the state it already has
   * answers it again. An on-chain deposit whose block left the chain before it was ever called
   * back is simply failed (`callback: false`), and gives up its claim (`releaseClaim`): should the
   * transfer be mined again, it is a new deposit. A deposit's `source` names who decided, for the metrics.
   * A provider's decision may bring the amount that really arrived (`details.amount`): the deposit
   * is valued and its fee taken anew at that amount. The balance entries of the new state are
   * written with it: a confirmed deposit's credit, a withdrawal's payout or the release of its reserve.
   */
  async settle(
    merchantId: string,
    transactionId: string,
    status: 'confirmed' | 'failed',
    options: { expectedType?: TransactionType | readonly TransactionType[]; callback?: boolean; releaseClaim?: string; source?: DepositSource; details?: SettlementDetails } = {},
  ): Promise<Transaction> {
    const { expectedType, callback: withCallback = true, releaseClaim, source, details = {} } = options;
    // Its settings decide whether the invoice's change is announced too.
    const merchant = await authenticatedMerchant(this.deps.merchants, merchantId);
    for await (const _attempt of optimisticAttempts()) {
      const current = await this.owned(merchantId, transactionId);
      const expectedTypes = [expectedType ?? []].flat();
      if (expectedTypes.length > 0 && !expectedTypes.includes(current.type)) throw Invalid.of('transactionId', `Transaction is not a ${expectedTypes.join(' or a ')}`);
      if (current.status === status) return current;
      if (current.status !== 'processing') throw new Conflict(`Transaction is already ${current.status}`);

      const now = this.deps.clock();
      const invoice = current.invoiceId ? await this.deps.invoices.get(current.invoiceId) : undefined;
      const next = await this.settled(current, status, invoice, details, now);
      const settled = invoice && invoiceChangeOf(invoice, next, now);
      if (settled && details.settlesProviderPayment) settled.settlesProviderPayment = true;
      const { update, event } = invoice && settled ? withInvoiceEvent(merchant, invoice, settled, this.deps.publicBaseUrl, now) : { update: settled, event: undefined };
      const callbacks = [...(withCallback ? [callbackEntry(next, now)] : []), ...(event ? [event] : [])];
      const released = releaseClaim ? [releaseClaim] : [];
      const refundHold = await refundHoldReleased(this.deps.ledger, next);
      const result = await writeWithEntries(this.deps.balances, current, next, (posting) =>
        this.deps.ledger.transition(next, 'processing', { invoice: update, posting, callbacks, releaseClaims: released, refundHold }),
      );
      if (result === 'committed') {
        if (next.type === 'deposit' && source) this.deps.metrics.depositSettled(source, status);
        if (callbacks.length > 0) await this.deps.callbacks.publish(callbacks.map((callback) => callback.id));
        return next;
      }
    }
    throw new Conflict('The transaction kept changing; retry the request');
  }

  /** The transaction in its final state, anew at the amount a provider reports when it differs. */
  private async settled(current: Transaction, status: 'confirmed' | 'failed', invoice: Invoice | undefined, details: SettlementDetails, now: Date): Promise<Transaction> {
    const next: Transaction = { ...current, status, updatedAt: now.toISOString(), booked: true };
    if (details.senderDetails) next.senderDetails = { ...current.senderDetails, ...details.senderDetails };
    if (details.transactionHash) next.transactionHash = details.transactionHash;
    if (details.evidence) next.evidence = details.evidence;
    if (details.networkSpent) next.fees = { ...current.fees, networkSpent: details.networkSpent };
    if (!details.amount || details.amount.equals(current.amount) || !invoice) return next;
    // Valued at the invoice's fixed rates: only a deposit in the invoice's own currency is revalued.
    if (current.currency !== invoice.paymentCurrency) throw new Error(`Deposit ${current.id} is in ${current.currency}, not its invoice's ${invoice.paymentCurrency}`);
    const merchant = await authenticatedMerchant(this.deps.merchants, current.merchantId);
    const revalued = depositTransaction(
      invoice,
      {
        id: current.id,
        amount: details.amount,
        currency: current.currency,
        status,
        network: current.network as CryptoNetwork | null,
        transactionHash: current.transactionHash,
        senderDetails: next.senderDetails,
        now,
      },
      merchant.processingFeePercent,
    );
    return { ...next, ...revalued, createdAt: current.createdAt };
  }

  /** The transaction a claim was taken for. */
  private async claimed(claimId: string): Promise<Transaction | undefined> {
    const claim = await this.deps.ledger.getClaim(claimId);
    return claim ? this.deps.ledger.get(claim.owner.transactionId!) : undefined;
  }

  /**
   * Defaults a deposit to what the invoice asked for, and refuses one it cannot take. A deposit in
   * another currency of the invoice's family is taken, valued at the current rates.
   */
  private async depositDetails(invoice: Invoice, input: DepositInput) {
    const currency = input.currency ?? invoice.paymentCurrency;
    if (familyOf(currency) !== invoice.family) throw Invalid.of('currency', `currency must be a ${invoice.family} currency, like the invoice's ${invoice.paymentCurrency}`);
    const amount = input.amount ?? new Decimal(invoice.paymentAmount);
    const amountRule = !amount.greaterThan(0) ? 'amount must be greater than zero' : input.chain ? undefined : amountRuleProblem(amount, currency);
    if (amountRule) throw Invalid.of('amount', amountRule);
    let network: CryptoNetwork | null = null;
    if (isCryptoAsset(currency)) {
      const networks = networksOf(currency);
      network = input.network ?? invoice.wallet?.networks.find((n) => networks.includes(n)) ?? networks[0]!;
      if (!networks.includes(network)) throw Invalid.of('network', `network must be one of ${networks.join(', ')} for ${currency}`);
    } else if (input.network) {
      throw Invalid.of('network', 'network applies to crypto invoices only');
    }
    return {
      amount,
      currency,
      network,
      status: input.status,
      transactionHash: invoice.family === 'crypto' ? (input.transactionHash ?? null) : null,
      senderDetails: input.senderDetails,
      chain: input.chain,
      evidence: input.evidence,
      valuation: currency === invoice.paymentCurrency ? undefined : await this.valuation(invoice, currency),
    };
  }

  private async valuation(invoice: Invoice, currency: string): Promise<DepositValuation> {
    const { prices } = await this.deps.rates.current();
    const [exchangeRate, usdRate, eurRate] = [crossRate(prices, invoice.baseCurrency, currency), crossRate(prices, currency, 'USD'), crossRate(prices, currency, 'EUR')];
    if (!exchangeRate || !usdRate || !eurRate) throw Invalid.of('currency', `No exchange rate for ${currency}`);
    return { exchangeRate: formatRate(exchangeRate), usdRate: formatRate(usdRate), eurRate: formatRate(eurRate) };
  }
}

/** The answer to a deposit its invoice does not take. */
export function refusal(reason: DepositRefusal, invoice: Pick<Invoice, 'cancelReason'>): Gone | Conflict {
  return reason === 'gone' ? new Gone(`Invoice is canceled (${invoice.cancelReason ?? 'canceled'}) and takes no payment`) : new Conflict('Invoice is already paid');
}
