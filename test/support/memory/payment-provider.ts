/**
 * A payment provider in memory, as the provider protocol (docs/provider-protocol.md) has it answer the gateway's requests:
 * one payment per `webhook-id` however often it is asked, UTRs, payouts and refunds taken (or
 * refunds refused, as a provider that refunds nothing answers 501), and every call failing with
 * `ProviderUnavailable` while it is down. It records what it was sent.
 */
import type { CreatedPayment, CreatePaymentRequest, ForwardUtrRequest, PayoutRequest, ProviderRefundRequest } from '../../../shared/domain/providers/provider-port.js';
import { ProviderDoesNotRefund, ProviderUnavailable, type PaymentProvider, type ProviderMessage, type ProviderRegistry, type ProviderRoute } from '../../../shared/domain/providers/providers.js';

type RequestSender = Pick<PaymentProvider, 'id' | 'createPayment' | 'forwardUtr' | 'requestPayout' | 'requestRefund'>;

export class MemoryPaymentProvider implements RequestSender {
  /** While true, every request fails as a provider that does not answer. */
  down = false;
  readonly payments = new Map<string, { request: CreatePaymentRequest; created: CreatedPayment }>();
  readonly utrs: Array<{ providerReference: string } & ProviderMessage<ForwardUtrRequest>> = [];
  readonly payouts: Array<ProviderMessage<PayoutRequest>> = [];
  readonly refunds: Array<ProviderMessage<ProviderRefundRequest>> = [];
  /** False: it refunds nothing. */
  refunding = true;
  private stalled?: Promise<void>;

  constructor(readonly route: ProviderRoute) {}

  get id(): string {
    return this.route.id;
  }

  /** Payments wait for the returned function before they are answered: a provider slower than the gateway waits. */
  stall(): () => void {
    let release!: () => void;
    this.stalled = new Promise((resolve) => (release = resolve));
    return () => {
      this.stalled = undefined;
      release();
    };
  }

  async createPayment({ webhookId, body }: ProviderMessage<CreatePaymentRequest>): Promise<CreatedPayment> {
    await this.stalled;
    this.answer();
    const known = this.payments.get(webhookId);
    if (known) return known.created;
    const providerReference = `pay-${this.payments.size + 1}`;
    // P2P in INR is paid by the customer's own transfer, confirmed by its UTR; anything else on the provider's page.
    const created: CreatedPayment =
      body.currency === 'INR' && body.method === 'p2p'
        ? { providerReference, instructions: { payee: 'Demo Payee', upiId: 'payee@upi', amount: body.amount, currency: body.currency, reference: providerReference } }
        : { providerReference, redirectUrl: `https://provider.example/pay/${providerReference}` };
    this.payments.set(webhookId, { request: body, created });
    return created;
  }

  async forwardUtr(providerReference: string, message: ProviderMessage<ForwardUtrRequest>): Promise<void> {
    this.answer();
    this.utrs.push({ providerReference, ...message });
  }

  async requestPayout(message: ProviderMessage<PayoutRequest>): Promise<{ providerReference: string }> {
    this.answer();
    this.payouts.push(message);
    return { providerReference: `po-${this.payouts.length}` };
  }

  async requestRefund(message: ProviderMessage<ProviderRefundRequest>): Promise<{ providerReference: string }> {
    this.answer();
    if (!this.refunding) throw new ProviderDoesNotRefund(this.id);
    const known = this.refunds.findIndex((refund) => refund.webhookId === message.webhookId);
    if (known >= 0) return { providerReference: `rf-${known + 1}` };
    this.refunds.push(message);
    return { providerReference: `rf-${this.refunds.length}` };
  }

  private answer(): void {
    if (this.down) throw new ProviderUnavailable(this.id, 'connection refused');
  }
}

/**
 * The stage's providers. The services here only send requests: status reads and events are the
 * reconciliation's and the events route's, so the providers are given as senders only.
 */
export function memoryProviderRegistry(...providers: MemoryPaymentProvider[]): ProviderRegistry {
  return {
    routes: providers.map((provider) => provider.route),
    get: (id) => providers.find((provider) => provider.id === id) as PaymentProvider | undefined,
  };
}
