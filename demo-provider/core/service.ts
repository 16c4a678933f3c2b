/**
 * The demo provider (docs/provider-protocol.md): what it does with each request of the provider protocol and
 * each choice on its payment page, over its ports. Every operation may be repeated: payments and
 * payouts are keyed by the gateway's reference, a UTR and an outcome are written once, and an
 * event keeps its `webhook-id` through every attempt.
 */
import type { Deliver } from '../../shared/domain/callbacks/index.js';
import { Conflict, Invalid, NotFound } from '../../shared/domain/kernel/index.js';
import { signMessage, verifiesMessage } from '../../shared/connectors/protocol/messages.js';
import type { CreatePaymentRequest, CreatedPayment, PayoutRequest, ProviderStatusAnswer } from '../../shared/domain/providers/index.js';
import type { DemoLog, DemoStore, Job, Scheduler } from './ports.js';
import {
  chosenOutcome,
  createdPaymentOf,
  deliveryVerdict,
  eventWebhookId,
  flowOf,
  nextEventAttemptAt,
  paymentEventOf,
  paymentReferenceOf,
  paymentStatusOf,
  payoutReferenceOf,
  payoutStatusOf,
  utrOutcome,
  type Outcome,
  type PaymentRecord,
  type PayoutRecord,
} from './records.js';

export interface DemoProviderDeps {
  /** The secret it shares with the gateway: requests are checked with it, events signed. */
  secret: string;
  /** Where it is reached from outside, without a trailing slash: its payment pages are `{publicUrl}/pay/{providerReference}`. */
  publicUrl: string;
  /** How long a UTR waits for its decision (GATEWAY_PROVIDER_DELAY_S). */
  utrDecisionDelaySeconds: number;
  store: DemoStore;
  scheduler: Scheduler;
  /** One POST of an event to the gateway. */
  deliver: Deliver;
  clock: () => Date;
  log: DemoLog;
}

const isWebAddress = (url: string): boolean => /^https?:$/.test(new URL(url).protocol);

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

  async paymentStatus(providerReference: string): Promise<ProviderStatusAnswer> {
    return paymentStatusOf(await this.payment(providerReference), this.deps.clock());
  }

  async payoutStatus(providerReference: string): Promise<ProviderStatusAnswer> {
    const record = await this.deps.store.get(providerReference);
    if (record?.kind !== 'payout') throw new NotFound('Payout');
    return payoutStatusOf(record, this.deps.clock());
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
      await this.deliverEvent({ ...payment, outcome }, 1, this.deps.clock()).catch((error: unknown) => this.deps.log.error('Event not sent nor scheduled', { providerReference }, error));
    }
    return payment;
  }

  /** Does a job the scheduler held until it was due. */
  async run(job: Job): Promise<void> {
    if (job.kind === 'decide-utr') return this.decideUtr(job.providerReference);
    const payment = await this.deps.store.get(job.providerReference);
    if (payment?.kind !== 'payment' || payment.outcome === undefined) {
      this.deps.log.error('No decided payment for an event', { providerReference: job.providerReference });
      return;
    }
    await this.deliverEvent({ ...payment, outcome: payment.outcome }, job.attempt, new Date(job.firstAttemptAt));
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
    await this.deliverEvent({ ...payment, outcome }, 1, this.deps.clock());
  }

  /** One attempt at the payment's event; a failure the gateway may recover from schedules the next. */
  private async deliverEvent(payment: PaymentRecord & { outcome: Outcome }, attempt: number, firstAttemptAt: Date): Promise<void> {
    const { providerReference } = payment;
    const event = paymentEventOf(payment, payment.outcome);
    const signed = signMessage(this.deps.secret, eventWebhookId(event), JSON.stringify(event), this.deps.clock());
    const result = await this.deps.deliver(payment.notifyUrl, signed);
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
