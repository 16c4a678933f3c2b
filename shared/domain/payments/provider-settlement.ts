/**
 * What payment providers decide (docs/provider-protocol.md#provider-to-gateway-events), however the decision arrives: an event on
 * `POST /api/v2/providers/{providerId}/events`, or the reconciliation asking about what an event
 * missed. A payment's outcome is its invoice's one deposit at that provider (a UTR deposit settles,
 * any other is recorded), a payout's its withdrawal's, a refund's its refund's. Applying an outcome twice changes nothing;
 * an outcome that contradicts a settled one is a conflict.
 */
import { type ProviderEvent, type ProviderRegistry, type ProviderStatusAnswer, ProviderUnavailable, type SenderDetails } from '../providers/index.js';
import { providerPaymentClaimId, utrClaimId } from '../chains/index.js';
import { Conflict, Decimal, DomainError, Invalid, isUuid, NotAuthentic, NotFound } from '../kernel/index.js';
import type { Invoice } from '../invoicing/index.js';
import type { ProviderRequests } from './provider-requests.js';
import type { Ledger, TransactionService } from './transaction-service.js';
import { isRefund, type ProviderEventStamp, providerEvidence, type Transaction } from '../transactions/index.js';

/** A provider's decision on one of its payments, payouts or refunds. */
export interface ProviderOutcome {
  kind: 'payment' | 'payout' | 'refund';
  /** The invoice of a payment, the withdrawal of a payout, the refund of a refund. */
  reference: string;
  providerReference: string;
  status: 'confirmed' | 'failed';
  /** What really arrived; the payment's amount when the provider does not say. */
  amount?: string;
  currency?: string;
  senderDetails?: SenderDetails;
  /** The UTR the provider names, if it does. */
  utr?: string;
  /** The event that told the outcome; absent when a status read did. */
  event?: ProviderEventStamp;
}

/** What the reconciliation does with time (docs/operations.md#payment-providers): ask after 10 minutes, alarm after 24 hours. */
export interface ReconciliationPolicy {
  /** A payment or payout undecided this long is asked about. */
  askAfterSeconds: number;
  /** A transaction still processing this long is overdue (alarmed). */
  overdueAfterSeconds: number;
  /** A request the provider never took is sent again this long after the first try. */
  resendAfterSeconds: number;
}

export const RECONCILIATION_POLICY: ReconciliationPolicy = { askAfterSeconds: 600, overdueAfterSeconds: 24 * 3600, resendAfterSeconds: 30 };

export interface ReconciliationReport {
  /** Status reads made. */
  asked: number;
  /** Outcomes applied from them. */
  settled: number;
  /** UTRs and payouts sent again. */
  resent: number;
  /** Transactions still processing after `overdueAfterSeconds`. */
  overdue: number;
  /** Provider calls that failed this run. */
  failures: number;
}

export interface ProviderSettlementDeps {
  registry: ProviderRegistry;
  transactions: Pick<TransactionService, 'recordDeposit' | 'settle'>;
  ledger: Pick<Ledger, 'get' | 'getClaim'> & { awaitingProvider(providerId: string): Promise<Transaction[]> };
  invoices: {
    get(id: string): Promise<Invoice | undefined>;
    awaitingProvider(providerId: string): Promise<Invoice[]>;
    stopAwaitingProvider(id: string): Promise<void>;
  };
  /** Sends again what a provider never took; the reconciliation's only. */
  resend?: {
    requests: Pick<ProviderRequests, 'forwardUtr' | 'requestPayout' | 'requestRefund'>;
    /** A UTR deposit's receipt, as it was given, for the UTR's request. */
    receiptOf(transaction: Transaction): Promise<Parameters<ProviderRequests['forwardUtr']>[1]>;
    /** A withdrawal's recipient as the provider takes it, the card number opened. */
    recipientOf(transaction: Transaction): Promise<Parameters<ProviderRequests['requestPayout']>[1]>;
  };
  policy?: ReconciliationPolicy;
  log: { warn(message: string, details: Record<string, unknown>): void };
  clock: () => Date;
}

export const outcomeOfEvent = (event: ProviderEvent): ProviderOutcome => ({
  kind: event.type.slice(0, event.type.indexOf('.')) as ProviderOutcome['kind'],
  reference: event.reference,
  providerReference: event.providerReference,
  status: event.type.endsWith('.confirmed') ? 'confirmed' : 'failed',
  amount: event.amount,
  currency: event.currency,
  senderDetails: event.senderDetails,
  utr: event.utr,
});

/** An authentic event's `webhook-id`, and its `webhook-timestamp` (seconds since the epoch) as an ISO 8601 time. */
const eventStampOf = (headers: Record<string, string>): ProviderEventStamp => ({
  webhookId: headers['webhook-id']!,
  at: new Date(Number(headers['webhook-timestamp']) * 1000).toISOString(),
});

const isOpenAt = (invoice: Invoice, now: Date) => (invoice.status === 'created' || invoice.status === 'active') && Date.parse(invoice.expiresAt) > now.getTime();

const ageSeconds = (since: string, now: Date) => (now.getTime() - Date.parse(since)) / 1000;

export class ProviderSettlement {
  constructor(private readonly deps: ProviderSettlementDeps) {}

  /** An event from `providerId`: its signature first, then its outcome (not authentic, not found, a conflict or invalid). */
  async receive(providerId: string, headers: Record<string, string>, body: string): Promise<void> {
    const provider = this.deps.registry.get(providerId);
    if (!provider) throw new NotFound('Provider');
    const read = await provider.readEvent(headers, body);
    if ('refused' in read) {
      if (read.refused === 'unauthorized') throw new NotAuthentic('The event is not signed by this provider, or its timestamp is more than 5 minutes away');
      throw Invalid.of('body', `The body is not a provider event: ${read.reason}`);
    }
    await this.apply(providerId, { ...outcomeOfEvent(read.event), event: eventStampOf(headers) });
  }

  async apply(providerId: string, outcome: ProviderOutcome): Promise<void> {
    if (outcome.kind === 'payment') await this.applyPayment(providerId, outcome);
    else await this.applyMoneyOut(providerId, outcome);
  }

  /**
   * Asks each provider about what waited too long for its decision and settles what it answers;
   * sends again the UTRs and payouts it never took; counts what is overdue. One provider's failure
   * does not stop the others'.
   */
  async reconcile(): Promise<ReconciliationReport> {
    const report: ReconciliationReport = { asked: 0, settled: 0, resent: 0, overdue: 0, failures: 0 };
    for (const { id } of this.deps.registry.routes) {
      for (const transaction of await this.deps.ledger.awaitingProvider(id)) await this.reconcileTransaction(id, transaction, report);
      for (const invoice of await this.deps.invoices.awaitingProvider(id)) await this.reconcilePayment(id, invoice, report);
    }
    return report;
  }

  private get policy(): ReconciliationPolicy {
    return this.deps.policy ?? RECONCILIATION_POLICY;
  }

  private async applyPayment(providerId: string, outcome: ProviderOutcome): Promise<void> {
    const invoice = isUuid(outcome.reference) ? await this.deps.invoices.get(outcome.reference) : undefined;
    const payment = invoice?.providerPayment;
    if (!invoice || payment?.providerId !== providerId || payment.providerReference !== outcome.providerReference) throw new NotFound('Payment');
    if (outcome.currency !== undefined && outcome.currency !== invoice.paymentCurrency) {
      throw Invalid.of('currency', `currency must be the payment's, ${invoice.paymentCurrency}`);
    }
    const amount = new Decimal(outcome.amount ?? invoice.paymentAmount);
    const claimId = providerPaymentClaimId(providerId, payment.providerReference);
    const claim = await this.deps.ledger.getClaim(claimId);
    const deposit = claim && (await this.deps.ledger.get(claim.owner.transactionId!));
    if (!deposit && outcome.status === 'failed' && !isOpenAt(invoice, this.deps.clock())) {
      // A payment that never happened for an invoice already over: nothing moved, nothing to tell.
      await this.deps.invoices.stopAwaitingProvider(invoice.id);
      return;
    }
    if (!deposit) {
      await this.deps.transactions.recordDeposit(
        invoice.merchantId,
        invoice.id,
        {
          source: 'fiat',
          status: outcome.status,
          amount,
          currency: invoice.paymentCurrency,
          senderDetails: outcome.senderDetails,
          evidence: providerEvidence(providerId, outcome.providerReference, outcome.utr, outcome.event),
          uniqueId: claimId,
          reportedByProvider: true,
        },
        invoice,
      );
      return;
    }
    if (deposit.status !== 'processing') {
      if (deposit.status === outcome.status && (outcome.status === 'failed' || amount.equals(deposit.amount))) return;
      throw new Conflict(`The payment is already ${deposit.status}${deposit.status === outcome.status ? ` for ${deposit.amount} ${deposit.currency}` : ''}`);
    }
    const utr = (deposit as Transaction & { utr?: string }).utr;
    await this.deps.transactions.settle(deposit.merchantId, deposit.id, outcome.status, {
      expectedType: 'deposit',
      source: 'fiat',
      // A rejected UTR is free for the payment it really belongs to; the invoice keeps its own claim (docs/merchant-guide.md#confirming-a-deposit-by-utr).
      releaseClaim: outcome.status === 'failed' && utr ? utrClaimId(utr) : undefined,
      details: { amount, senderDetails: outcome.senderDetails, settlesProviderPayment: true, evidence: providerEvidence(providerId, outcome.providerReference, outcome.utr ?? utr, outcome.event) },
    });
  }

  /** A payout's outcome settles its withdrawal, a refund's its refund: each the provider's own, under the reference it gave. */
  private async applyMoneyOut(providerId: string, outcome: ProviderOutcome): Promise<void> {
    const type = outcome.kind === 'payout' ? 'withdraw' : 'refund';
    const subject = outcome.kind === 'payout' ? 'Payout' : 'Refund';
    const transaction = isUuid(outcome.reference) ? await this.deps.ledger.get(outcome.reference) : undefined;
    const provider = transaction?.type === type ? transaction.provider : undefined;
    if (!transaction || provider?.id !== providerId || (provider.reference !== undefined && provider.reference !== outcome.providerReference)) throw new NotFound(subject);
    if (transaction.status === outcome.status) return;
    if (transaction.status !== 'processing') throw new Conflict(`The ${outcome.kind} is already ${transaction.status}`);
    await this.deps.transactions.settle(transaction.merchantId, transaction.id, outcome.status, {
      expectedType: type,
      details: { evidence: providerEvidence(providerId, outcome.providerReference, undefined, outcome.event) },
    });
  }

  private async reconcileTransaction(providerId: string, transaction: Transaction, report: ReconciliationReport): Promise<void> {
    const now = this.deps.clock();
    const age = ageSeconds(transaction.createdAt, now);
    if (age > this.policy.overdueAfterSeconds) report.overdue++;
    const provider = transaction.provider!;
    await this.tryProvider(providerId, transaction.id, report, async () => {
      if (!provider.requestedAt) {
        if (age < this.policy.resendAfterSeconds || !this.deps.resend) return;
        const { requests, receiptOf, recipientOf } = this.deps.resend;
        if (transaction.type === 'deposit') await requests.forwardUtr(transaction as Transaction & { utr: string }, await receiptOf(transaction));
        else if (isRefund(transaction)) await requests.requestRefund(transaction);
        else await requests.requestPayout(transaction as Parameters<ProviderRequests['requestPayout']>[0], await recipientOf(transaction));
        report.resent++;
        return;
      }
      // A UTR deposit is its invoice's payment, asked about with the invoice; a payout or a refund is asked about here.
      if (transaction.type === 'deposit' || !provider.reference || ageSeconds(provider.requestedAt, now) < this.policy.askAfterSeconds) return;
      report.asked++;
      const kind = transaction.type === 'refund' ? 'refund' : 'payout';
      const provided = this.deps.registry.get(providerId)!;
      const answer = kind === 'refund' ? await provided.refundStatus(provider.reference) : await provided.payoutStatus(provider.reference);
      if (await this.settleFromAnswer(providerId, { kind, reference: transaction.id, providerReference: provider.reference }, answer)) report.settled++;
    });
  }

  private async reconcilePayment(providerId: string, invoice: Invoice, report: ReconciliationReport): Promise<void> {
    const payment = invoice.providerPayment;
    const now = this.deps.clock();
    if (!payment || ageSeconds(payment.createdAt, now) < this.policy.askAfterSeconds) return;
    await this.tryProvider(providerId, invoice.id, report, async () => {
      report.asked++;
      const answer = await this.deps.registry.get(providerId)!.paymentStatus(payment.providerReference);
      if (await this.settleFromAnswer(providerId, { kind: 'payment', reference: invoice.id, providerReference: payment.providerReference, currency: invoice.paymentCurrency }, answer)) {
        report.settled++;
      } else if (ageSeconds(invoice.expiresAt, now) > this.policy.overdueAfterSeconds) {
        // Closed a day ago and still undecided: the customer never paid; stop asking.
        await this.deps.invoices.stopAwaitingProvider(invoice.id);
      }
    });
  }

  /** Applies a status read's decision; false while the provider has none. */
  private async settleFromAnswer(providerId: string, subject: Omit<ProviderOutcome, 'status'>, answer: ProviderStatusAnswer): Promise<boolean> {
    if (answer.status === 'pending') return false;
    await this.apply(providerId, { ...subject, status: answer.status, amount: answer.amount, senderDetails: answer.senderDetails });
    return true;
  }

  /** One item's reconciliation: a provider that fails, or an outcome that cannot apply, is logged and left for the next run. */
  private async tryProvider(providerId: string, subject: string, report: ReconciliationReport, work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } catch (error) {
      if (!(error instanceof ProviderUnavailable || error instanceof DomainError)) throw error;
      report.failures++;
      this.deps.log.warn('Reconciliation left an item for the next run', { providerId, subject, reason: error.message });
    }
  }
}
