/**
 * What a merchant sends about invoices: the creation request (its fields and their rules of
 * form) and the listing's filters. The rules that turn a request into an invoice are in invoices.ts.
 */
import * as z from 'zod';
import { createdRangeInOrder, FIAT_METHODS, isValidIban, jsonNumberAmount, listedAs, PAYMENT_CURRENCIES, PRICED_CURRENCIES, pageParameters } from '../kernel/index.js';
import { INVOICE_STATUSES } from './invoice.js';

const currencyCode = z
  .string()
  .trim()
  .regex(/^[A-Za-z]{3,5}$/, 'must be a currency code')
  .transform((code) => code.toUpperCase());

const text = (max: number) => z.string().trim().min(1).max(max);

export const createInvoiceRequestSchema = z.strictObject({
  amount: jsonNumberAmount('Amount in baseCurrency; method limits apply to the amount in the payment currency'),
  baseCurrency: listedAs(currencyCode, PRICED_CURRENCIES).describe('Currency of the invoice: a crypto asset, a local currency, or USD/EUR with paymentCurrency'),
  displayCurrencies: text(64).optional().describe('Currency shown at checkout'),
  paymentCurrency: listedAs(currencyCode, PAYMENT_CURRENCIES).optional().describe('Currency the customer pays in; decides the deposit family'),
  customerId: text(128).describe("Merchant's identifier of the customer; crypto addresses are permanent per customer"),
  orderId: text(128).describe("Merchant's order identifier, unique per merchant"),
  applicationId: text(128).optional().describe('Application identifier when the merchant has several'),
  invoiceStrategy: z.enum(['fixed']).optional().describe('Rate strategy; the rate is fixed at creation'),
  paymentMethod: z
    .enum([...FIAT_METHODS, 'crypto'])
    .optional()
    .describe('Local method; with the customer fields it needs, the checkout is skipped'),
  customerFullName: text(200).optional().describe('Wallet and bank-transfer methods'),
  customerFirstName: text(100).optional().describe('INR'),
  customerLastName: text(100).optional().describe('INR'),
  customerEmail: z.email().max(254).optional().describe('INR and iban'),
  customerAccount: z
    .string()
    .transform((iban) => iban.replace(/\s+/g, '').toUpperCase())
    .refine(isValidIban, 'must be a valid IBAN')
    .optional()
    .describe("Customer's IBAN, for iban"),
  customerCountry: z
    .string()
    .regex(/^[A-Za-z]{2}$/, 'must be an ISO 3166-1 alpha-2 country code')
    .transform((c) => c.toUpperCase())
    .optional()
    .describe('ISO 3166-1 alpha-2'),
  customerPhone: z
    .string()
    .regex(/^\d{10}$/, 'must be exactly 10 digits')
    .optional()
    .describe('Exactly 10 digits'),
  redirectUrl: z.string().max(2048).optional().describe('Absolute https URL the customer returns to (http allowed in demo); kept with its host in punycode and path percent-encoded'),
});

export type CreateInvoiceRequest = z.output<typeof createInvoiceRequestSchema>;

/** `GET /api/v2/invoices` (docs/merchant-guide.md#listings-and-pagination): the filters, each served by an index of its own. */
export const listInvoicesQuerySchema = z
  .strictObject({
    status: z.enum(INVOICE_STATUSES).optional().describe('Only invoices in this status'),
    orderId: text(128).optional().describe('The invoice of this orderId (at most one)'),
    customerId: text(128).optional().describe("This customer's invoices"),
    ...pageParameters,
  })
  .refine(...createdRangeInOrder);

export type ListInvoicesQuery = z.output<typeof listInvoicesQuerySchema>;
export type InvoiceFilters = Pick<ListInvoicesQuery, 'status' | 'orderId' | 'customerId'>;
