/**
 * What the gateway asks of payment providers (docs/provider-protocol.md): a payment for an invoice, a UTR for
 * a payment, a payout, a refund. Each request has a `webhook-id` of its own that stays the same when it is
 * sent again, so a provider never creates a payment or a payout twice; a provider that does not
 * answer leaves everything as it was (`ProviderUnavailable`), and the request is sent again: by
 * the customer's next visit for a payment, by the reconciliation for a UTR, a payout or a refund.
 */
import type { CreatePaymentRequest, ForwardUtrRequest, PaymentProvider, PayoutRequest, ProviderPayment, ProviderRefundRequest, ProviderRegistry } from '../providers/index.js';
import { checkoutLink, type Invoice, type Receipt } from '../invoicing/index.js';
import type { RefundTransaction, Transaction, TransactionProvider, WithdrawTransaction } from '../transactions/index.js';
import { Unavailable } from '../kernel/index.js';

/** The `webhook-id` of each kind of request: one per invoice's payment, per UTR deposit, per payout. */
export const providerRequestIds = {
  payment: (invoiceId: string) => `payment:${invoiceId}`,
  utr: (transactionId: string) => `utr:${transactionId}`,
  payout: (transactionId: string) => `payout:${transactionId}`,
  refund: (transactionId: string) => `refund:${transactionId}`,
};

/** Where a provider's events about payments and payouts go: the gateway's events route for it. */
export const providerNotifyUrl = (publicBaseUrl: string, providerId: string): string => `${publicBaseUrl}/api/v2/providers/${providerId}/events`;

export interface ProviderRequestsDeps {
  registry: ProviderRegistry;
  invoices: {
    get(id: string): Promise<Invoice | undefined>;
    /** Keeps the invoice's provider payment unless it has one already; false when it had. */
    attachProviderPayment(invoiceId: string, payment: ProviderPayment): Promise<boolean>;
  };
  transactions: {
    /** Records what the provider took of a transaction's request. */
    recordProviderRequest(transactionId: string, provider: TransactionProvider): Promise<void>;
  };
  publicBaseUrl: string;
  clock: () => Date;
}

/** A payout's recipient as the provider takes it: the card number in clear, which only this request carries. */
export type PayoutRecipient = PayoutRequest['recipient'];

export class ProviderRequests {
  constructor(private readonly deps: ProviderRequestsDeps) {}

  /** The provider of `id`, which the configuration may have lost since the record named it. */
  provider(id: string): PaymentProvider {
    const provider = this.deps.registry.get(id);
    if (!provider) throw new Unavailable(`The payment provider ${id} is not configured here; try again later`);
    return provider;
  }

  /**
   * The invoice's payment at its provider, created if it has none: at `chosen` (an INR customer's
   * choice among the invoice's providers) or else its first provider still configured. Two
   * visitors creating it at once send one request (the same `webhook-id`) and keep the first answer.
   */
  async paymentFor(invoice: Invoice, chosen?: string): Promise<ProviderPayment> {
    if (invoice.providerPayment) return invoice.providerPayment;
    const providerId = chosen ?? invoice.providers?.find((id) => this.deps.registry.get(id) !== undefined);
    if (!providerId || !invoice.providers?.includes(providerId)) {
      throw new Unavailable('No payment provider configured here serves this invoice; try again later');
    }
    const created = await this.provider(providerId).createPayment({ webhookId: providerRequestIds.payment(invoice.id), body: this.paymentRequest(invoice, providerId) });
    const payment: ProviderPayment = { providerId, ...created, createdAt: this.deps.clock().toISOString() };
    if (await this.deps.invoices.attachProviderPayment(invoice.id, payment)) return payment;
    const current = await this.deps.invoices.get(invoice.id);
    if (!current?.providerPayment) throw new Error(`Invoice ${invoice.id} refused a provider payment and has none`);
    return current.providerPayment;
  }

  /** Sends a UTR deposit's UTR to the invoice's provider, and records that it took it. */
  async forwardUtr(deposit: Pick<Transaction, 'id' | 'provider'> & { utr: string }, receipt?: Receipt): Promise<void> {
    const { provider } = deposit;
    if (!provider?.reference) throw new Error(`Deposit ${deposit.id} has no provider payment to send its UTR to`);
    const body: ForwardUtrRequest = {
      utr: deposit.utr,
      ...(receipt ? { receipt: { content: receipt.content.toString('base64'), extension: receipt.extension, ...(receipt.name ? { name: receipt.name } : {}) } } : {}),
    };
    await this.provider(provider.id).forwardUtr(provider.reference, { webhookId: providerRequestIds.utr(deposit.id), body });
    await this.deps.transactions.recordProviderRequest(deposit.id, { ...provider, requestedAt: this.deps.clock().toISOString() });
  }

  /** Asks the withdrawal's provider to pay it out, and records the provider's reference of the payout. */
  async requestPayout(withdrawal: WithdrawTransaction, recipient: PayoutRecipient): Promise<void> {
    const { provider } = withdrawal;
    if (!provider) throw new Error(`Withdrawal ${withdrawal.id} has no provider`);
    const body: PayoutRequest = {
      reference: withdrawal.id,
      amount: withdrawal.amount,
      currency: withdrawal.currency as PayoutRequest['currency'],
      recipient,
      notifyUrl: providerNotifyUrl(this.deps.publicBaseUrl, provider.id),
    };
    const { providerReference } = await this.provider(provider.id).requestPayout({ webhookId: providerRequestIds.payout(withdrawal.id), body });
    await this.deps.transactions.recordProviderRequest(withdrawal.id, { id: provider.id, reference: providerReference, requestedAt: this.deps.clock().toISOString() });
  }

  /**
   * Asks the refund's provider to give the payment's money back, and records the provider's
   * reference of the refund; `ProviderDoesNotRefund` when it refunds nothing.
   */
  async requestRefund(refund: RefundTransaction): Promise<void> {
    const { provider } = refund;
    if (!provider?.paymentReference) throw new Error(`Refund ${refund.id} has no provider payment to give back`);
    const body: ProviderRefundRequest = {
      reference: refund.id,
      paymentReference: provider.paymentReference,
      amount: refund.amount,
      currency: refund.currency as ProviderRefundRequest['currency'],
      ...(refund.reason === undefined ? {} : { reason: refund.reason }),
    };
    const { providerReference } = await this.provider(provider.id).requestRefund({ webhookId: providerRequestIds.refund(refund.id), body });
    await this.deps.transactions.recordProviderRequest(refund.id, { ...provider, reference: providerReference, requestedAt: this.deps.clock().toISOString() });
  }

  private paymentRequest(invoice: Invoice, providerId: string): CreatePaymentRequest {
    const { customer } = invoice;
    return {
      reference: invoice.id,
      amount: invoice.paymentAmount,
      currency: invoice.paymentCurrency as CreatePaymentRequest['currency'],
      method: invoice.paymentMethod as CreatePaymentRequest['method'],
      customer: {
        id: invoice.customerId,
        fullName: customer.fullName ?? null,
        firstName: customer.firstName ?? null,
        lastName: customer.lastName ?? null,
        email: customer.email ?? null,
        phone: customer.phone ?? null,
        account: customer.account ?? null,
        country: customer.country ?? null,
      },
      // Back at the checkout: it waits there for the decision, with the way back to the provider's page.
      returnUrl: `${checkoutLink(this.deps.publicBaseUrl, invoice.id)}/provider?from=provider`,
      notifyUrl: providerNotifyUrl(this.deps.publicBaseUrl, providerId),
      expiresAt: invoice.expiresAt,
    };
  }
}
