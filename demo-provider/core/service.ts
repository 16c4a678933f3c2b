/**
 * The demo provider (docs/provider-protocol.md): what it does with each request of the provider protocol and
 * each choice on its payment page, over its ports. Every operation may be repeated: payments,
 * payouts and refunds are keyed by the gateway's reference, a UTR, an outcome and a refund's
 * share of its payment are written once, and an event keeps its `webhook-id` through every attempt.
 */
import type { Deliver } from '../../shared/domain/callbacks/index.js';
import { Conflict, Invalid, NotFound, toDecimal } from '../../shared/domain/kernel/index.js';
import { signMessage, verifiesMessage } from '../../shared/connectors/protocol/messages.js';
import type { CreatePaymentRequest, CreatedPayment, PayoutRequest, ProviderEvent, ProviderRefundRequest, ProviderStatusAnswer } from '../../shared/domain/providers/index.js';
import type { DemoLog, DemoStore, Job, Scheduler } from './ports.js';
import {
  chosenOutcome,
  createdPaymentOf,
  decisionEventOf,
  deliveryVerdict,
  eventWebhookId,
  flowOf,
  nextEventAttemptAt,
  outcomeAt,
  paymentEventOf,
  paymentReferenceOf,
  paymentStatusOf,
  payoutReferenceOf,
  payoutStatusOf,
  refundedTotalWith,
  refundEventOf,
  refundOutcome,
  refundReferenceOf,
  refundStatusOf,
  utrOutcome,
  type Outcome,
  type PaymentRecord,
  type PayoutRecord,
  type RefundRecord,
} from './records.js';

export interface DemoProviderDeps {
  /** The secret it shares with the gateway: requests are checked with it, events signed. */
  secret: string;
  /** Where it is reached from outside, without a trailing slash: its payment pages are `{publicUrl}/pay/{providerReference}`. */
  publicUrl: string;
  /** How long a UTR, or a refund, waits for its decision (GATEWAY_PROVIDER_DELAY_S). */
  utrDecisionDelaySeconds: number;
  store: DemoStore;
  scheduler: Scheduler;
  /** One POST of an event to the gateway. */
  deliver: Deliver;
  clock: () => Date;
  log: DemoLog;
}

const isWebAddress = (url: string): boolean => /^https?:$/.test(new URL(url).protocol);

/**
 * How often a refund is counted against its payment before the request is refused with a 409:
 * each failed try means another refund of the same payment was counted meanwhile, and the
 * gateway sends a refused request again later.
 */
const REFUND_COUNT_TRIES = 3;

export class DemoProvider {
  constructor(private readonly deps: DemoProviderDeps) {}

  /** Whether `headers` sign `body` with the shared secret, within 5 minutes of now. */
  isSigned(headers: Record<string, string | undefined>, body: string): boolean {
    return verifiesMessage(this.deps.secret, headers, body);
  }

  async createPayment(request: CreatePaymentRequest): Promise<CreatedPayment> {
    if (flowOf(request.currency, request.method) === undefined) {
      throw Invalid.of('method', `The demo provider does not offer ${request.method} in ${request.currency}`);
    }
    // The customer is sent there whatever the outcome: it must be a page, not a script or a file.
    if (!isWebAddress(request.returnUrl)) throw Invalid.of('returnUrl', 'returnUrl must be an http or https URL');
    const payment: PaymentRecord = {
      kind: 'payment',
      providerReference: paymentReferenceOf(request.reference),
      reference: request.reference,
      amount: request.amount,
      currency: request.currency,
      method: request.method,
      returnUrl: request.returnUrl,
      notifyUrl: request.notifyUrl,
      createdAt: this.deps.clock().toISOString(),
    };
    const { stored, added } = await this.deps.store.addOnce(payment);
    if (stored.kind !== 'payment') throw new Error(`${stored.providerReference} is not a payment`);
    if (added) this.deps.log.info('Payment created', { providerReference: payment.providerReference, currency: payment.currency, method: payment.method });
    return createdPaymentOf(stored, this.deps.publicUrl);
  }

  /** Takes the UTR of a peer-to-peer payment; its decision is due after the decision delay. */
  async submitUtr(providerReference: string, utr: string): Promise<void> {
    const payment = await this.payment(providerReference);
    if (flowOf(payment.currency, payment.method) !== 'instructions') throw new Conflict('This payment is not paid by UTR');
    const decidesAt = new Date(this.deps.clock().getTime() + this.deps.utrDecisionDelaySeconds * 1000).toISOString();
    const stored = await this.deps.store.setUtrOnce(providerReference, utr, decidesAt);
    if (stored.utr !== utr) throw new Conflict('Another UTR was already submitted for this payment');
    // Scheduled again when the same UTR comes again: the first request may have failed after storing it.
    if (stored.outcome === undefined) await this.deps.scheduler.schedule({ kind: 'decide-utr', providerReference }, new Date(stored.utrDecidesAt!));
  }

  async requestPayout(request: PayoutRequest): Promise<{ providerReference: string }> {
    const payout: PayoutRecord = {
      kind: 'payout',
      providerReference: payoutReferenceOf(request.reference),
      reference: request.reference,
      amount: request.amount,
      currency: request.currency,
      createdAt: this.deps.clock().toISOString(),
    };
    const { stored, added } = await this.deps.store.addOnce(payout);
    if (added) this.deps.log.info('Payout requested', { providerReference: payout.providerReference, currency: payout.currency });
    return { providerReference: stored.providerReference };
  }

  /**
   * Takes a refund of a confirmed payment, of at most what the payment took with its other
   * refunds; its decision is due after the decision delay, and goes to the payment's notifyUrl.
   * A repeated request (the same reference) answers the refund the first one made.
   */
  async requestRefund(request: ProviderRefundRequest): Promise<{ providerReference: string }> {
    const providerReference = refundReferenceOf(request.reference);
    const existing = await this.deps.store.get(providerReference);
    if (existing?.kind === 'refund') {
      // Scheduled again: the first request may have failed after storing the refund.
      if (existing.outcome === undefined) await this.scheduleRefundDecision(existing);
      return { providerReference };
    }
    const payment = await this.countRefund(providerReference, request);
    const now = this.deps.clock();
    const refund: RefundRecord = {
      kind: 'refund',
      providerReference,
      reference: request.reference,
      paymentReference: payment.providerReference,
      amount: request.amount,
      currency: request.currency,
      ...(request.reason === undefined ? {} : { reason: request.reason }),
      notifyUrl: payment.notifyUrl,
      createdAt: now.toISOString(),
      decidesAt: new Date(now.getTime() + this.deps.utrDecisionDelaySeconds * 1000).toISOString(),
    };
    const { stored, added } = await this.deps.store.addOnce(refund);
    if (stored.kind !== 'refund') throw new Error(`${stored.providerReference} is not a refund`);
    if (added) this.deps.log.info('Refund requested', { providerReference, paymentReference: payment.providerReference, currency: refund.currency });
    if (stored.outcome === undefined) await this.scheduleRefundDecision(stored);
    return { providerReference };
  }

  async paymentStatus(providerReference: string): Promise<ProviderStatusAnswer> {
    return paymentStatusOf(await this.payment(providerReference), this.deps.clock());
  }

  async payoutStatus(providerReference: string): Promise<ProviderStatusAnswer> {
    const record = await this.deps.store.get(providerReference);
    if (record?.kind !== 'payout') throw new NotFound('Payout');
    return payoutStatusOf(record, this.deps.clock());
  }

  async refundStatus(providerReference: string): Promise<ProviderStatusAnswer> {
    const record = await this.deps.store.get(providerReference);
    if (record?.kind !== 'refund') throw new NotFound('Refund');
    return refundStatusOf(record, this.deps.clock());
  }

  /** A payment the customer pays on the demo's page; undefined for any other reference. */
  async pagePayment(providerReference: string): Promise<PaymentRecord | undefined> {
    const record = await this.deps.store.get(providerReference);
    return record?.kind === 'payment' && flowOf(record.currency, record.method) === 'page' ? record : undefined;
  }

  /**
   * The customer's choice on the page, recorded once (a second click changes nothing). The event
   * is tried once before the customer is sent back, so that the gateway usually knows the outcome
   * when the customer arrives; retries, if any, follow on the scheduler. Resolves to the payment,
   * undefined when it has no page.
   */
  async choose(providerReference: string, status: Outcome['status']): Promise<PaymentRecord | undefined> {
    const payment = await this.pagePayment(providerReference);
    if (!payment) return undefined;
    const outcome = chosenOutcome(payment, status, this.deps.clock());
    if (await this.deps.store.recordOutcomeOnce(providerReference, outcome)) {
      this.deps.log.info('Payment decided on its page', { providerReference, status });
      // The customer goes back all the same: the gateway's reconciliation reads the outcome if no event gets through.
      await this.deliverEvent(payment.notifyUrl, paymentEventOf(payment, outcome), 1, this.deps.clock()).catch((error: unknown) =>
        this.deps.log.error('Event not sent nor scheduled', { providerReference }, error),
      );
    }
    return payment;
  }

  /** Does a job the scheduler held until it was due. */
  async run(job: Job): Promise<void> {
    if (job.kind === 'decide-utr') return this.decideUtr(job.providerReference);
    if (job.kind === 'decide-refund') return this.decideRefund(job.providerReference);
    const record = await this.deps.store.get(job.providerReference);
    const decided = record && decisionEventOf(record);
    if (!decided) {
      this.deps.log.error('No decided payment or refund for an event', { providerReference: job.providerReference });
      return;
    }
    await this.deliverEvent(decided.notifyUrl, decided.event, job.attempt, new Date(job.firstAttemptAt));
  }

  private async decideUtr(providerReference: string): Promise<void> {
    const payment = await this.deps.store.get(providerReference);
    if (payment?.kind !== 'payment' || payment.utr === undefined || payment.utrDecidesAt === undefined) {
      this.deps.log.error('No payment with a UTR to decide', { providerReference });
      return;
    }
    const outcome = utrOutcome({ ...payment, utr: payment.utr, utrDecidesAt: payment.utrDecidesAt });
    // Recorded already: this is a repeated job, and the first one sent the event.
    if (!(await this.deps.store.recordOutcomeOnce(providerReference, outcome))) return;
    this.deps.log.info('UTR decided', { providerReference, status: outcome.status });
    await this.deliverEvent(payment.notifyUrl, paymentEventOf(payment, outcome), 1, this.deps.clock());
  }

  private async decideRefund(providerReference: string): Promise<void> {
    const refund = await this.deps.store.get(providerReference);
    if (refund?.kind !== 'refund') {
      this.deps.log.error('No refund to decide', { providerReference });
      return;
    }
    const outcome = refundOutcome(refund);
    // Recorded already: this is a repeated job, and the first one sent the event.
    if (!(await this.deps.store.recordRefundOutcomeOnce(providerReference, outcome))) return;
    this.deps.log.info('Refund decided', { providerReference, status: outcome.status });
    await this.deliverEvent(refund.notifyUrl, refundEventOf(refund), 1, this.deps.clock());
  }

  private async scheduleRefundDecision(refund: RefundRecord): Promise<void> {
    await this.deps.scheduler.schedule({ kind: 'decide-refund', providerReference: refund.providerReference }, new Date(refund.decidesAt));
  }

  /**
   * Counts a refund in its payment's refunded total, once however often it is asked, and resolves
   * to the payment: refused unless the payment is confirmed, in the refund's currency, and its
   * refunds together stay within what it took.
   */
  private async countRefund(refundReference: string, request: ProviderRefundRequest): Promise<PaymentRecord> {
    if (toDecimal(request.amount).isZero()) throw Invalid.of('amount', 'A refund must be of more than zero');
    for (let tries = 1; ; tries++) {
      const payment = await this.payment(request.paymentReference);
      // A request repeated after counting the refund, before storing it.
      if (payment.refundReferences?.includes(refundReference)) return payment;
      // The status reads' view: a UTR decision that is due counts, even if its job has not run yet.
      const outcome = outcomeAt(payment, this.deps.clock());
      if (outcome?.status !== 'confirmed') throw new Conflict('Only a confirmed payment can be refunded');
      if (request.currency !== payment.currency) throw Invalid.of('currency', `The payment is in ${payment.currency}`);
      const refunded = refundedTotalWith(payment, outcome.amount, request.amount);
      if (refunded === undefined) throw Invalid.of('amount', `The refunds of this payment would exceed the ${outcome.amount} ${payment.currency} it took`);
      if (await this.deps.store.countRefundOnce(payment.providerReference, refundReference, refunded, payment.refundedAmount)) return payment;
      if (tries === REFUND_COUNT_TRIES) throw new Conflict('Other refunds of this payment are being counted; try again');
    }
  }

  /** One attempt at an event; a failure the gateway may recover from schedules the next. */
  private async deliverEvent(notifyUrl: string, event: ProviderEvent, attempt: number, firstAttemptAt: Date): Promise<void> {
    const { providerReference } = event;
    const signed = signMessage(this.deps.secret, eventWebhookId(event), JSON.stringify(event), this.deps.clock());
    const result = await this.deps.deliver(notifyUrl, signed);
    const details = { providerReference, type: event.type, attempt, status: result.status, error: result.error };
    const verdict = deliveryVerdict(result.status);
    if (verdict === 'delivered') return this.deps.log.info('Event delivered', details);
    if (verdict === 'refused') return this.deps.log.warn('Event refused by the gateway; not sent again', details);
    const next = nextEventAttemptAt(attempt, firstAttemptAt, this.deps.clock());
    if (next === undefined) return this.deps.log.error('Event not delivered within its delivery window; given up', details);
    this.deps.log.warn('Event not delivered; will try again', { ...details, nextAttemptAt: next.toISOString() });
    await this.deps.scheduler.schedule({ kind: 'deliver-event', providerReference, attempt: attempt + 1, firstAttemptAt: firstAttemptAt.toISOString() }, next);
  }

  private async payment(providerReference: string): Promise<PaymentRecord> {
    const record = await this.deps.store.get(providerReference);
    if (record?.kind !== 'payment') throw new NotFound('Payment');
    return record;
  }
}
