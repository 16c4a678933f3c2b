/**
 * The states of invoices and transactions as badges (docs/merchant-guide.md#dashboard): each in
 * words of the page's language, with a colour and a shape of its tone, as the API's states go.
 */
import type { InvoiceView } from '../domain/invoicing/index.js';
import type { TransactionView } from '../domain/transactions/index.js';
import { html, type Html } from '../http/html.js';
import type { DashboardContext } from './document.js';
import { badge, type Tone } from './parts.js';

const INVOICE_TONES = { created: 'none', active: 'waiting', completed: 'done', canceled: 'ended' } as const satisfies Record<InvoiceView['status'], Tone>;
const PAYMENT_TONES = { unpaid: 'none', partial: 'attention', paid: 'done', overpaid: 'attention' } as const satisfies Record<InvoiceView['paymentStatus'], Tone>;
const TRANSACTION_TONES = { processing: 'waiting', pending_approval: 'attention', confirmed: 'done', failed: 'ended' } as const satisfies Record<TransactionView['status'], Tone>;

/** An invoice's state: canceled as it ended (expired, or canceled), and whether a deposit came after. */
export function invoiceStatusBadge({ t }: DashboardContext, invoice: Pick<InvoiceView, 'status' | 'cancelReason'>): Html {
  if (invoice.status === 'canceled' && invoice.cancelReason === 'expired') return badge(t.text('status.invoice.expired'), 'ended');
  return badge(t.text(`status.invoice.${invoice.status}`), INVOICE_TONES[invoice.status]);
}

/** What the customer paid of the invoice (paid, partially, over, nothing yet), and "paid late" for a deposit after it was canceled. */
export function paymentBadges({ t }: DashboardContext, invoice: Pick<InvoiceView, 'paymentStatus' | 'paidLate'>): Html {
  const late = invoice.paidLate ? badge(t.text('status.payment.late'), 'attention') : '';
  return html`${badge(t.text(`status.payment.${invoice.paymentStatus}`), PAYMENT_TONES[invoice.paymentStatus])}${late}`;
}

export const transactionStatusBadge = ({ t }: DashboardContext, status: TransactionView['status']): Html => badge(t.text(`status.transaction.${status}`), TRANSACTION_TONES[status]);
