/**
 * The hosted checkout's use cases over small ports: an invoice as its customer sees it (opening
 * it makes it `active`), its live status, the customer's details, and whether a UTR is with the
 * provider. No merchant key: the invoice id in the link is what the customer holds.
 */
import { notFound } from '../errors.js';
import { checkoutStatus, checkoutStep, type CheckoutStatus, type CheckoutStep } from './checkout.js';
import { hasSubmittedUtr } from './fiat-service.js';
import { isUuid } from './invoice-service.js';
import type { CustomerDetails, Invoice } from './invoices.js';
import type { Merchant } from './merchants.js';
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
  clock: () => Date;
}

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

  /** The customer opens the invoice: a `created` one becomes `active` (decisions 5). */
  async open(invoiceId: string): Promise<Checkout | undefined> {
    const checkout = await this.find(invoiceId);
    if (!checkout || checkout.invoice.status !== 'created' || checkout.step.kind === 'closed') return checkout;
    if (await this.deps.invoices.activate(checkout.invoice.id, checkout.now)) {
      return { ...checkout, invoice: { ...checkout.invoice, status: 'active', updatedAt: checkout.now.toISOString() } };
    }
    // It moved on meanwhile (another tab opened it, or it was paid): show it as it is now.
    return this.find(invoiceId);
  }

  async status(invoiceId: string): Promise<CheckoutStatus> {
    const checkout = await this.find(invoiceId);
    if (!checkout) throw notFound('Invoice');
    return checkoutStatus(checkout.invoice, checkout.merchant);
  }

  /**
   * Stores what the customer filled in. When the invoice closed, or got these details, since the
   * customer read the form, nothing is stored: the next page shows the invoice as it is.
   */
  async saveCustomerDetails(checkout: Checkout, details: CustomerDetails): Promise<void> {
    await this.deps.invoices.saveCustomerDetails(checkout.invoice.id, details, this.deps.clock());
  }

  async hasSubmittedUtr(invoiceId: string): Promise<boolean> {
    return hasSubmittedUtr(this.deps.claims, invoiceId);
  }
}
