/**
 * What a dashboard page is given and gives back, and the services it reads through: the same ones
 * the API's functions use (docs/architecture.md#the-dashboard), never a table of its own.
 */
import type { RenderedPage } from '../checkout/document.js';
import type { ApiKeyService, ApiKeyView, MerchantSettings, MerchantView, RotatedSecret } from '../domain/merchants/index.js';
import type { CodeUse, DashboardAccess } from '../domain/dashboard/index.js';
import type { CryptoPayoutQuote, DeliveryLogQuery, LoggedDelivery } from '../domain/payments/index.js';
import type { BalanceEntryView, BalanceView, CreateReportRequest, DailyTotals, ListBalanceEntriesQuery, ReportView } from '../domain/ledger/index.js';
import type { CallbackDelivery } from '../domain/callbacks/index.js';
import type { InvoiceView, ListInvoicesQuery } from '../domain/invoicing/index.js';
import type { Decimal, Page } from '../domain/kernel/index.js';
import type { CryptoPayoutRequest, NewPayoutAddressRequest, PayoutAddressAuthority, PayoutAddressList, PayoutAddressView } from '../domain/payouts/index.js';
import type { ListTransactionsQuery, RefundRequest, TransactionView } from '../domain/transactions/index.js';
import type { DashboardContext } from './document.js';

/** A report as the reports page lists it. */
export interface ReportSummary {
  id: string;
  type: ReportView['type'];
  status: ReportView['status'];
  rows: number | null;
  createdAt: string;
}

export interface DashboardServices {
  access: DashboardAccess<unknown>;
  account: {
    view(merchantId: string): Promise<MerchantView>;
    update(merchantId: string, request: MerchantSettings): Promise<MerchantView>;
    rotateCallbackSecret(merchantId: string): Promise<RotatedSecret>;
    /** How long a rotated secret keeps signing, in seconds. */
    secretOverlapSeconds: number;
  };
  invoices: {
    list(merchantId: string, query: ListInvoicesQuery): Promise<Page<InvoiceView>>;
    get(merchantId: string, id: string): Promise<InvoiceView>;
  };
  transactions: {
    list(merchantId: string, query: ListTransactionsQuery): Promise<Page<TransactionView>>;
    view(merchantId: string, id: string): Promise<TransactionView>;
  };
  /** A transaction's signed receipt (docs/merchant-guide.md#receipts), a compact JWS. */
  receipts: { receipt(merchantId: string, transactionId: string): Promise<string> };
  callbacks: {
    deliveries(merchantId: string, transactionId: string): Promise<CallbackDelivery[]>;
    invoiceDeliveries(merchantId: string, invoiceId: string): Promise<CallbackDelivery[]>;
    resend(merchantId: string, transactionId: string): Promise<{ webhookId: string }>;
    resendInvoiceEvent(merchantId: string, invoiceId: string): Promise<{ webhookId: string }>;
    merchantLog(merchantId: string, query: DeliveryLogQuery): Promise<Page<LoggedDelivery>>;
  };
  balances: {
    view(merchantId: string): Promise<{ items: BalanceView[] }>;
    entries(merchantId: string, query: ListBalanceEntriesQuery): Promise<Page<BalanceEntryView>>;
  };
  reports: {
    create(merchantId: string, request: CreateReportRequest): Promise<{ id: string }>;
    view(merchantId: string, id: string): Promise<ReportView>;
    recent(merchantId: string): Promise<ReportSummary[]>;
  };
  totals: DailyTotals;
  payoutAddresses: {
    list(merchantId: string): Promise<PayoutAddressList>;
    add(merchantId: string, request: NewPayoutAddressRequest, by: PayoutAddressAuthority): Promise<PayoutAddressView>;
    remove(merchantId: string, id: string, actor: string): Promise<void>;
  };
  /** Crypto payouts: quoted, asked for and decided by an owner, each with a fresh TOTP code. */
  payouts: {
    quote(merchantId: string, request: CryptoPayoutRequest): Promise<CryptoPayoutQuote>;
    create(merchantId: string, request: CryptoPayoutRequest, code: CodeUse): Promise<{ status: string }>;
    decide(merchantId: string, transactionId: string, decision: 'approve' | 'reject', code: CodeUse): Promise<unknown>;
  };
  /** Refunds of the merchant's deposits: what is still refundable, and a refund asked for by an owner with a fresh TOTP code. */
  refunds: {
    refundable(merchantId: string, transactionId: string): Promise<Decimal | undefined>;
    create(merchantId: string, request: RefundRequest, code: CodeUse): Promise<{ id: string }>;
  };
  keys: {
    list(merchantId: string): Promise<ApiKeyView[]>;
    issue: ApiKeyService['issue'];
    revoke(merchantId: string, keyId: string): Promise<ApiKeyView>;
  };
  clock: () => Date;
}

export interface PageRequest {
  context: DashboardContext;
  services: DashboardServices;
  /** The path's parameters (`invoices/{invoiceId}`). */
  params: Record<string, string>;
  /** The query, without `lang`. */
  query: Record<string, string>;
  /** A form's fields, without `csrf`. */
  form: Record<string, string>;
}

/** `file`: a download (a transaction's signed receipt), named `name`. */
export type DashboardAnswer =
  | { kind: 'page'; page: RenderedPage }
  | { kind: 'redirect'; location: string; headers?: Record<string, string> }
  | { kind: 'file'; name: string; contentType: string; body: string };

export type PageHandler = (request: PageRequest) => Promise<DashboardAnswer>;

export const redirect = (location: string, headers?: Record<string, string>): DashboardAnswer => ({ kind: 'redirect', location, ...(headers && { headers }) });

/** The user of a page that needs one: the router gives signed-in pages nothing else. */
export function signedInUser(request: PageRequest): NonNullable<DashboardContext['signedIn']> {
  const { signedIn } = request.context;
  if (!signedIn) throw new Error('A signed-in page was served without a user');
  return signedIn;
}
