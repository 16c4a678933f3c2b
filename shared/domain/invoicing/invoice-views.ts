/** What a merchant sees of an invoice: `POST /api/v2/invoices`, `GET /api/v2/invoices/{id}` and the listing. */
import * as z from 'zod';
import { Decimal, decimalsOf, FIAT_METHODS, formatAmount, listedAs, PAYMENT_CURRENCIES, PRICED_CURRENCIES } from '../kernel/index.js';
import { type Invoice, INVOICE_STATUSES, invoiceWalletSchema, PAYMENT_STATUSES } from './invoice.js';

const decimalString = (description: string) =>
  z
    .string()
    .regex(/^\d+(\.\d+)?$/)
    .describe(description);

/** What the merchant sees: `POST /api/v2/invoices` and `GET /api/v2/invoices/{id}`. */
export const invoiceViewSchema = z.object({
  id: z.uuid(),
  link: z.url().describe('Hosted checkout page: redirect, new tab or iFrame'),
  status: z.enum(INVOICE_STATUSES),
  cancelReason: z.enum(['expired', 'rejected']).optional(),
  paidLate: z.literal(true).optional().describe('A deposit arrived after the invoice was canceled and was credited'),
  amount: decimalString('Amount in baseCurrency'),
  baseCurrency: listedAs(z.string(), PRICED_CURRENCIES),
  paymentCurrency: listedAs(z.string(), PAYMENT_CURRENCIES),
  paymentAmount: decimalString('amount x exchangeRate, rounded half-up to the payment currency precision'),
  exchangeRate: decimalString('Units of paymentCurrency per one unit of baseCurrency, fixed at creation'),
  paidAmount: decimalString('Sum of the confirmed deposits in paymentCurrency, at its precision'),
  refundedAmount: decimalString('Sum of the confirmed refunds of its deposits in paymentCurrency, at its precision'),
  paymentStatus: z.enum(PAYMENT_STATUSES).describe('unpaid: nothing yet; partial: less than paymentAmount (the invoice stays open); paid: exactly; overpaid: more'),
  transactionIds: z.array(z.uuid()).describe('Every transaction recorded on the invoice, oldest first, including deposits in another currency'),
  completedAt: z.iso.datetime().nullable().describe('When the invoice was paid in full'),
  paymentMethod: z.enum([...FIAT_METHODS, 'crypto']),
  directOpen: z.boolean().describe('The checkout is skipped and the customer goes straight to the payment method'),
  customerId: z.string(),
  orderId: z.string(),
  applicationId: z.string().nullable(),
  redirectUrl: z.string().nullable(),
  expiresAt: z.iso.datetime(),
  createdAt: z.iso.datetime(),
  wallet: invoiceWalletSchema.optional().describe('Crypto invoices: where the customer pays'),
});

export type InvoiceView = z.output<typeof invoiceViewSchema>;

export const checkoutLink = (publicBaseUrl: string, invoiceId: string): string => `${publicBaseUrl}/checkout/${invoiceId}`;

export function invoiceView(invoice: Invoice, publicBaseUrl: string): InvoiceView {
  return {
    id: invoice.id,
    link: checkoutLink(publicBaseUrl, invoice.id),
    status: invoice.status,
    ...(invoice.cancelReason ? { cancelReason: invoice.cancelReason } : {}),
    ...(invoice.paidLate ? { paidLate: true } : {}),
    amount: invoice.amount,
    baseCurrency: invoice.baseCurrency,
    paymentCurrency: invoice.paymentCurrency,
    paymentAmount: invoice.paymentAmount,
    exchangeRate: invoice.exchangeRate,
    paidAmount: invoice.paidAmount,
    refundedAmount: invoice.refundedAmount ?? formatAmount(new Decimal(0), decimalsOf(invoice.paymentCurrency)),
    paymentStatus: invoice.paymentStatus,
    transactionIds: invoice.transactionIds,
    completedAt: invoice.completedAt,
    paymentMethod: invoice.paymentMethod,
    directOpen: invoice.directOpen,
    customerId: invoice.customerId,
    orderId: invoice.orderId,
    applicationId: invoice.applicationId,
    redirectUrl: invoice.redirectUrl,
    expiresAt: invoice.expiresAt,
    createdAt: invoice.createdAt,
    ...(invoice.wallet ? { wallet: invoice.wallet } : {}),
  };
}
