/**
 * The hosted checkout's rules (docs/merchant-guide.md#the-hosted-checkout): the step
 * an invoice is at for its customer, the customer details the checkout collects (by the creation
 * request's own field rules), what has been paid so far, and where the customer returns to. Pure.
 */
import * as z from 'zod';
import { Decimal, decimalsOf, formatAmount } from '../kernel/index.js';
import { missingCustomerFields, type DirectOpenField } from './invoices.js';
import { customerDetails, type CancelReason, type CustomerDetails, type CustomerField, type Invoice, type InvoiceStatus } from './invoice.js';
import { createInvoiceRequestSchema } from './invoice-requests.js';
import { normalizedUrl, type Merchant } from '../merchants/index.js';

export type CheckoutStep =
  | { kind: 'completed' }
  /** Canceled, or lapsed and not yet swept by the expiry schedule. */
  | { kind: 'closed'; reason: CancelReason }
  | { kind: 'crypto' }
  /** Local fiat lacking customer details the method needs. */
  | { kind: 'details'; fields: DirectOpenField[] }
  /** Local fiat with every detail: the payment provider's turn. */
  | { kind: 'payment' };

export function checkoutStep(invoice: Invoice, now: Date): CheckoutStep {
  if (invoice.status === 'completed') return { kind: 'completed' };
  if (invoice.status === 'canceled') return { kind: 'closed', reason: invoice.cancelReason ?? 'expired' };
  // The expiry schedule runs about once a minute; for the customer the invoice is over already.
  if (Date.parse(invoice.expiresAt) <= now.getTime()) return { kind: 'closed', reason: 'expired' };
  if (invoice.family === 'crypto') return { kind: 'crypto' };
  const fields = missingCustomerFields(invoice);
  return fields.length > 0 ? { kind: 'details', fields } : { kind: 'payment' };
}

const isWebUrl = (value: string): boolean => {
  try {
    return ['https:', 'http:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
};

/** Where the customer goes after the deposit: the invoice's `redirectUrl`, else the merchant's static URL. */
export function returnUrlOf(invoice: Pick<Invoice, 'redirectUrl'>, merchant: Pick<Merchant, 'returnUrl'>): string | null {
  const url = invoice.redirectUrl ?? merchant.returnUrl;
  // Only a web address may become a link or a redirect, and in the form a `Location` header takes
  // (invoices and settings stored before URLs were normalised may hold any text).
  return url !== null && isWebUrl(url) ? normalizedUrl(url) : null;
}

/** What the customer has paid so far and what is left, at the payment currency's precision (docs/merchant-guide.md#how-payments-are-counted). */
export interface PaymentProgress {
  paid: string;
  remaining: string;
  /** Something has arrived, and less than asked. */
  partial: boolean;
}

export function paymentProgress(invoice: Pick<Invoice, 'paymentAmount' | 'paymentCurrency' | 'paidAmount'>): PaymentProgress {
  const decimals = decimalsOf(invoice.paymentCurrency);
  const paid = new Decimal(invoice.paidAmount);
  const remaining = Decimal.max(0, new Decimal(invoice.paymentAmount).minus(paid));
  return { paid: formatAmount(paid, decimals), remaining: formatAmount(remaining, decimals), partial: paid.greaterThan(0) && remaining.greaterThan(0) };
}

/** What the checkout page polls: no other invoice data. */
export interface CheckoutStatus {
  status: InvoiceStatus;
  paidLate?: true;
  paidAmount: string;
  remainingAmount: string;
  redirectUrl: string | null;
}

export function checkoutStatus(invoice: Invoice, merchant: Pick<Merchant, 'returnUrl'>): CheckoutStatus {
  const { paid, remaining } = paymentProgress(invoice);
  return {
    status: invoice.status,
    ...(invoice.paidLate ? { paidLate: true } : {}),
    paidAmount: paid,
    remainingAmount: remaining,
    redirectUrl: returnUrlOf(invoice, merchant),
  };
}

/** Why a customer detail was refused, for the page to say in the customer's language. */
export type DetailRule = 'required' | 'tooLong' | 'email' | 'iban' | 'invalid';

export interface DetailProblem {
  field: DirectOpenField;
  rule: DetailRule;
  /** `tooLong`: the most characters allowed. */
  max?: number;
}

function detailProblem(field: DirectOpenField, issue: z.core.$ZodIssue, input: Record<string, string | undefined>): DetailProblem {
  if (input[field] === undefined) return { field, rule: 'required' };
  if (issue.code === 'too_big') return { field, rule: 'tooLong', max: Number(issue.maximum) };
  if (issue.code === 'invalid_format' && issue.format === 'email') return { field, rule: 'email' };
  // The only refinement among the details is the IBAN's checksum.
  if (issue.code === 'custom' && field === 'customerAccount') return { field, rule: 'iban' };
  return { field, rule: 'invalid' };
}

export type CustomerDetailsForm = { details: CustomerDetails } | { problems: DetailProblem[] };

/**
 * Checks the submitted values of `fields` by the same rules as invoice creation; a blank field is
 * a missing one. Problems come one per field, in the order of `fields`.
 */
export function parseCustomerDetails(fields: readonly DirectOpenField[], form: Record<string, string | undefined>): CustomerDetailsForm {
  const shape = createInvoiceRequestSchema.shape;
  const schema = z.object(Object.fromEntries(fields.map((field) => [field, shape[field].unwrap() as z.ZodType<string, string>])));
  const input = Object.fromEntries(fields.map((field) => [field, form[field]?.trim() || undefined]));
  const result = schema.safeParse(input);
  if (result.success) return { details: customerDetails(result.data as Partial<Record<CustomerField, string>>) };
  const problems = new Map<string, DetailProblem>();
  for (const issue of result.error.issues) {
    const field = String(issue.path[0]) as DirectOpenField;
    if (!problems.has(field)) problems.set(field, detailProblem(field, issue, input));
  }
  return { problems: fields.flatMap((field) => problems.get(field) ?? []) };
}
