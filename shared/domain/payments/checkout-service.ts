/**
 * The hosted checkout's use cases over small ports: an invoice as its customer sees it (opening
 * it makes it `active`), its live status, the customer's details, and whether a UTR is with the
 * provider. No merchant key: the invoice id in the link is what the customer holds.
 */
import { type PaymentInstructions, type ProviderRoute, ProviderUnavailable } from '../providers/index.js';
import { checkoutStatus, type CheckoutStatus, checkoutStep, type CheckoutStep, type CustomerDetails, type Invoice, isConfirmedByUtr } from '../invoicing/index.js';
import { hasSubmittedUtr } from './fiat-service.js';
import { isUuid, NotFound, Unavailable } from '../kernel/index.js';
import type { Merchant } from '../merchants/index.js';
import type { ProviderRequests } from './provider-requests.js';
import type { Ledger } from './transaction-service.js';

export interface CheckoutInvoices {
  get(id: string): Promise<Invoice | undefined>;
  /** `created` -> `active` while the invoice is created and not lapsed; false when it is not. */
  activate(id: string, now: Date): Promise<boolean>;
  /** Stores details the invoice lacks while it is open; false when it is no longer open or has them already. */
  saveCustomerDetails(id: string, details: CustomerDetails, now: Date): Promise<boolean>;
}

export interface CheckoutServiceDeps {
  invoices: CheckoutInvoices;
  merchants: { getMerchant(id: string): Promise<Merchant | undefined> };
  claims: Pick<Ledger, 'getClaim'>;
  /** The stage's providers, and the payments made at them: the payment step's only. */
  providers?: { routes: readonly ProviderRoute[]; requests: Pick<ProviderRequests, 'paymentFor'> };
  clock: () => Date;
}

/** What a customer at the payment step meets (docs/provider-protocol.md). */
export type PaymentStep =
  /** The provider's own page. */
  | { kind: 'redirect'; url: string }
  /** INR: a provider to choose among the two or more that can serve the invoice. */
  | { kind: 'providers'; providers: Array<{ id: string; name: string }> }
  /** P2P: the provider's instructions, then the UTR. */
  | { kind: 'instructions'; instructions: PaymentInstructions }
  /** With the provider: its decision is awaited (`continueUrl`: its page, for a customer who came back unpaid). */
  | { kind: 'waiting'; continueUrl?: string }
  /** The provider did not answer; nothing was created, and trying again is safe. */
  | { kind: 'unavailable' };

/** An invoice as its customer sees it at `now`. */
export interface Checkout {
  invoice: Invoice;
  merchant: Merchant;
  step: CheckoutStep;
  now: Date;
}

export class CheckoutService {
  constructor(private readonly deps: CheckoutServiceDeps) {}

  /** Undefined for an id that is malformed or unknown. */
  async find(invoiceId: string): Promise<Checkout | undefined> {
    const invoice = isUuid(invoiceId) ? await this.deps.invoices.get(invoiceId) : undefined;
    if (!invoice) return undefined;
    const merchant = await this.deps.merchants.getMerchant(invoice.merchantId);
    if (!merchant) throw new Error(`Invoice ${invoice.id} belongs to no merchant`);
    const now = this.deps.clock();
    return { invoice, merchant, step: checkoutStep(invoice, now), now };
  }

  /** The customer opens the invoice: a `created` one becomes `active` (docs/merchant-guide.md#invoice-lifecycle). */
  async open(invoiceId: string): Promise<Checkout | undefined> {
    const checkout = await this.find(invoiceId);
    if (checkout?.invoice.status !== 'created' || checkout.step.kind === 'closed') return checkout;
    if (await this.deps.invoices.activate(checkout.invoice.id, checkout.now)) {
      return { ...checkout, invoice: { ...checkout.invoice, status: 'active', updatedAt: checkout.now.toISOString() } };
    }
    // It moved on meanwhile (another tab opened it, or it was paid): show it as it is now.
    return this.find(invoiceId);
  }

  async status(invoiceId: string): Promise<CheckoutStatus> {
    const checkout = await this.find(invoiceId);
    if (!checkout) throw new NotFound('Invoice');
    return checkoutStatus(checkout.invoice, checkout.merchant);
  }

  /**
   * Stores what the customer filled in. When the invoice closed, or got these details, since the
   * customer read the form, nothing is stored: the next page shows the invoice as it is.
   */
  async saveCustomerDetails(checkout: Checkout, details: CustomerDetails): Promise<void> {
    await this.deps.invoices.saveCustomerDetails(checkout.invoice.id, details, this.deps.clock());
  }

  /**
   * The payment step of an invoice that has every detail: its payment at the provider, made now if
   * it has none (at `chosen`, an INR customer's pick), and where that sends the customer. A
   * customer back from the provider's page (`returned`) waits for the decision there.
   */
  async paymentStep(checkout: Checkout, options: { chosen?: string; returned?: boolean } = {}): Promise<PaymentStep> {
    const { invoice } = checkout;
    const { providers } = this.deps;
    if (!providers) throw new Error('The payment step needs the providers, which this checkout was given none of');
    if (await hasSubmittedUtr(this.deps.claims, invoice.id)) return { kind: 'waiting' };
    let payment = invoice.providerPayment;
    if (!payment) {
      const eligible = (invoice.providers ?? []).flatMap((id) => providers.routes.filter((route) => route.id === id).map(({ name }) => ({ id, name })));
      if (eligible.length === 0) return { kind: 'unavailable' };
      const chosen = eligible.find(({ id }) => id === options.chosen)?.id;
      // docs/merchant-guide.md#the-hosted-checkout: INR customers choose among two or more providers, unless the merchant
      // sent them straight to one; with one there is nothing to choose, and it is the one the payment goes to.
      if (isConfirmedByUtr(invoice) && !invoice.directOpen && eligible.length > 1 && chosen === undefined) return { kind: 'providers', providers: eligible };
      try {
        payment = await providers.requests.paymentFor(invoice, chosen);
      } catch (error) {
        if (error instanceof ProviderUnavailable || error instanceof Unavailable) return { kind: 'unavailable' };
        throw error;
      }
    }
    if (payment.instructions) return { kind: 'instructions', instructions: payment.instructions };
    if (!payment.redirectUrl) throw new Error(`Invoice ${invoice.id}'s provider payment has neither a page nor instructions`);
    return options.returned ? { kind: 'waiting', continueUrl: payment.redirectUrl } : { kind: 'redirect', url: payment.redirectUrl };
  }
}
