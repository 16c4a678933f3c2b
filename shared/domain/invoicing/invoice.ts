/**
 * An invoice as the gateway keeps it: its statuses, its customer, its payments and the events it has
 * announced. What every invoicing rule reads; the rules themselves are in the files beside it.
 */
import * as z from 'zod';
import { CRYPTO_NETWORKS, type DepositFamily, type PaymentMethod } from '../kernel/index.js';
import type { ProviderPayment } from '../providers/index.js';

export const INVOICE_STATUSES = ['created', 'active', 'completed', 'canceled'] as const;

export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];

export type CancelReason = 'expired' | 'rejected';

export const PAYMENT_STATUSES = ['unpaid', 'partial', 'paid', 'overpaid'] as const;

export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

/** What an invoice records of its payments. */
export interface InvoicePayments {
  /** Sum of the confirmed deposits in the payment currency, at its precision. */
  paidAmount: string;
  paymentStatus: PaymentStatus;
  /** Every transaction recorded on the invoice, oldest first. */
  transactionIds: string[];
  completedAt: string | null;
  /** Sum of the confirmed refunds of its deposits in the payment currency, at its precision; absent until the first. */
  refundedAmount?: string;
}

export const INVOICE_EVENTS = ['invoice.partially_paid', 'invoice.paid', 'invoice.expired', 'invoice.canceled', 'invoice.paid_late', 'invoice.refunded'] as const;

export type InvoiceEvent = (typeof INVOICE_EVENTS)[number];

/** How many of each event an invoice has announced: the next one's `n` follows. */
export type InvoiceEventCounts = Partial<Record<InvoiceEvent, number>>;

export const invoiceWalletSchema = z.object({
  address: z.string().describe("The customer's permanent address on the first network"),
  networks: z.array(z.enum(CRYPTO_NETWORKS)).describe('Networks the invoice may be paid on'),
  addresses: z.array(z.object({ network: z.enum(CRYPTO_NETWORKS), address: z.string() })).describe('The address on each network (EVM networks share one)'),
});

export type InvoiceWallet = z.output<typeof invoiceWalletSchema>;

export interface CustomerDetails {
  fullName?: string;
  firstName?: string;
  lastName?: string;
  email?: string;
  account?: string;
  country?: string;
  phone?: string;
}

/** The customer fields of the creation request, each with where the invoice keeps it. */
export const CUSTOMER_FIELDS = {
  customerFullName: 'fullName',
  customerFirstName: 'firstName',
  customerLastName: 'lastName',
  customerEmail: 'email',
  customerAccount: 'account',
  customerCountry: 'country',
  customerPhone: 'phone',
} as const satisfies Record<string, keyof CustomerDetails>;

export type CustomerField = keyof typeof CUSTOMER_FIELDS;

/** Request-named customer values as the invoice keeps them. */
export function customerDetails(values: Partial<Record<CustomerField, string>>): CustomerDetails {
  return Object.fromEntries((Object.entries(CUSTOMER_FIELDS) as [CustomerField, keyof CustomerDetails][]).map(([field, key]) => [key, values[field]])) as CustomerDetails;
}

export interface Invoice extends InvoicePayments {
  id: string;
  merchantId: string;
  status: InvoiceStatus;
  cancelReason?: CancelReason;
  paidLate?: boolean;
  family: DepositFamily;
  amount: string;
  baseCurrency: string;
  paymentCurrency: string;
  paymentAmount: string;
  exchangeRate: string;
  /** USD and EUR value of one unit of the payment currency, fixed with the exchange rate. */
  usdRate: string;
  eurRate: string;
  paymentMethod: PaymentMethod;
  directOpen: boolean;
  customerId: string;
  orderId: string;
  applicationId: string | null;
  redirectUrl: string | null;
  displayCurrencies: string | null;
  invoiceStrategy: 'fixed';
  customer: CustomerDetails;
  wallet?: InvoiceWallet;
  /** Local fiat: the providers that can serve the payment, by priority (docs/provider-protocol.md); INR customers choose among them. */
  providers?: string[];
  /** Local fiat: the payment created at a provider for this invoice, once there is one. */
  providerPayment?: ProviderPayment;
  /** How many of each invoice event it has announced (shared/domain/invoicing/invoice-events.ts). */
  invoiceEvents?: InvoiceEventCounts;
  /** SHA-256 of the creation request, to tell a retry from a different order with the same id. */
  requestHash: string;
  expiresAt: string;
  createdAt: string;
  updatedAt: string;
}
