/**
 * Invoice use cases over small ports (repository, customer wallets, rates), so the rules stay
 * free of AWS and every store can be swapped in tests.
 */
import { buildInvoice, invoiceWallet, type InvoicePolicy } from './invoices.js';
import type { Invoice } from './invoice.js';
import type { CreateInvoiceRequest, InvoiceFilters, ListInvoicesQuery } from './invoice-requests.js';
import { invoiceView, type InvoiceView } from './invoice-views.js';
import { type BusinessMetrics, isUuid, type Listing, listingOf, NotFound, type Page, Unavailable } from '../kernel/index.js';
import { unavailableRates, type RateSource } from '../rates/index.js';
import { addressForNetwork, type CustomerAddresses } from '../chains/index.js';
import type { ProviderPayment } from '../providers/index.js';

export type CreateOutcome = { invoice: Invoice; created: boolean };

export interface InvoiceRepository {
  /**
   * Stores the invoice and claims its orderId for the merchant in one transaction. When the
   * orderId is taken by an invoice created from the same request, that invoice is returned
   * instead; by another request, a 409 conflict.
   */
  create(invoice: Invoice): Promise<CreateOutcome>;
  /** Throws the 409 `create` would throw when the invoice's orderId is taken by another request. */
  refuseTakenOrder(invoice: Invoice): Promise<void>;
  get(id: string): Promise<Invoice | undefined>;
  /** A page of the merchant's invoices, newest first; a cursor that does not continue this listing is a 422. */
  list(merchantId: string, listing: Listing<InvoiceFilters>): Promise<Page<Invoice>>;
}

/** An open invoice whose lifetime has ended, as the expiry index holds it. */
export interface DueInvoice {
  id: string;
  /** Absent from index entries written before the index carried the owner. */
  merchantId?: string;
}

/** A customer's permanent deposit addresses, allocated on first use. */
export interface CustomerWallets {
  /** `beforeAllocating` runs before a new customer's index is used up; what it throws stops that. */
  addressesFor(merchantId: string, customerId: string, beforeAllocating?: () => Promise<void>): Promise<{ addresses: CustomerAddresses }>;
}

/** Opens an invoice's payment at one of its providers (payments' `ProviderRequests`), or gives the one it has. */
export interface ProviderPayments {
  paymentFor(invoice: Invoice, chosen?: string): Promise<ProviderPayment>;
}

export interface InvoiceServiceDeps {
  invoices: InvoiceRepository;
  /** Only functions that create invoices derive addresses: reading invoices needs no wallets. */
  wallets?: CustomerWallets;
  rates: RateSource;
  policy: InvoicePolicy;
  publicBaseUrl: string;
  metrics: Pick<BusinessMetrics, 'invoiceCreated'>;
  /**
   * Functions that create invoices: a direct-open fiat invoice gets its payment at its provider at
   * once (docs/provider-protocol.md), so that its customer goes straight there.
   */
  providerPayments?: ProviderPayments;
  log?: { warn(message: string, details: Record<string, unknown>): void };
  clock: () => Date;
  newId: () => string;
}

/**
 * How long creating a direct-open invoice waits for its provider. Creation never fails because a
 * provider is down or slow: the link asks the provider again (with the same `webhook-id`) when
 * the customer opens it.
 */
export const PAYMENT_AT_CREATION_MS = 3_000;

export class InvoiceService {
  constructor(private readonly deps: InvoiceServiceDeps) {}

  async create(merchantId: string, request: CreateInvoiceRequest): Promise<InvoiceView> {
    const { invoices, wallets, rates, policy, clock, newId } = this.deps;
    const snapshot = await rates.current();
    const unavailable = unavailableRates(snapshot, request.baseCurrency, request.paymentCurrency ?? request.baseCurrency);
    if (unavailable.length > 0) {
      throw new Unavailable(`No current exchange rate for ${unavailable.join(', ')}; try again shortly`);
    }
    const invoice = buildInvoice(request, { id: newId(), merchantId, now: clock() }, snapshot.prices, policy);
    if (invoice.family === 'crypto') {
      if (!wallets) throw new Error('Creating a crypto invoice needs the customer wallets, which this service was given none of');
      // A refused request changes nothing: a new customer's address index is not used up for an order that is taken.
      const { addresses } = await wallets.addressesFor(merchantId, invoice.customerId, () => invoices.refuseTakenOrder(invoice));
      invoice.wallet = invoiceWallet(invoice.paymentCurrency, policy.networks, (network) => addressForNetwork(addresses, network));
    }
    const outcome = await invoices.create(invoice);
    if (outcome.created) this.deps.metrics.invoiceCreated(outcome.invoice.paymentMethod);
    if (outcome.created && outcome.invoice.directOpen) await this.paymentAtCreation(outcome.invoice);
    return invoiceView(outcome.invoice, this.deps.publicBaseUrl);
  }

  private async paymentAtCreation(invoice: Invoice): Promise<void> {
    const { providerPayments, log } = this.deps;
    if (!providerPayments) return;
    let timer: NodeJS.Timeout | undefined;
    const attempt = providerPayments.paymentFor(invoice).catch((error: unknown) => {
      log?.warn('No payment at the provider yet; the checkout asks again', { invoiceId: invoice.id, reason: error instanceof Error ? error.message : String(error) });
    });
    await Promise.race([attempt, new Promise((resolve) => (timer = setTimeout(resolve, PAYMENT_AT_CREATION_MS)))]);
    clearTimeout(timer);
  }

  /** The merchant's own invoices, newest first, a page at a time (docs/merchant-guide.md#listings-and-pagination). */
  async list(merchantId: string, query: ListInvoicesQuery): Promise<Page<InvoiceView>> {
    const page = await this.deps.invoices.list(merchantId, listingOf(query));
    return { items: page.items.map((invoice) => invoiceView(invoice, this.deps.publicBaseUrl)), nextCursor: page.nextCursor };
  }

  /** The merchant's own invoice; another merchant's is as unknown as a missing one. */
  async get(merchantId: string, id: string): Promise<InvoiceView> {
    const invoice = isUuid(id) ? await this.deps.invoices.get(id) : undefined;
    if (!invoice || invoice.merchantId !== merchantId) throw new NotFound('Invoice');
    return invoiceView(invoice, this.deps.publicBaseUrl);
  }
}
