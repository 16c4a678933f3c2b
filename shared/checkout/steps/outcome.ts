/** The end states: the invoice paid, or closed (expired, rejected), each with the way back to the shop. */
import type { CancelReason, Invoice } from '../../domain/invoicing/index.js';
import { html, type Html } from '../../http/html.js';
import { dateTime } from '../fragments.js';
import type { Translator } from '../language.js';

/** Every end state's way out: back to the shop when there is a way, else leave. */
function wayBack(t: Translator, returnUrl: string | null, merchantName: string): Html {
  if (returnUrl === null) return html`<p class="muted">${t.html('end.close')}</p>`;
  return html`<a class="button" href="${returnUrl}">${t.html('end.return', { merchant: merchantName })}</a>`;
}

export function completedSection(t: Translator, invoice: Invoice, merchantName: string, returnUrl: string | null): Html {
  return html`<p class="outcome" aria-hidden="true">✓</p><h1>${t.html('completed.title')}</h1>
<p>${t.html(invoice.paidLate ? 'completed.bodyLate' : 'completed.body', { merchant: merchantName })}</p>
${wayBack(t, returnUrl, merchantName)}`;
}

export function closedSection(t: Translator, invoice: Invoice, reason: CancelReason, merchantName: string, returnUrl: string | null): Html {
  const body =
    reason === 'rejected'
      ? html`<h1>${t.html('rejected.title')}</h1><p>${t.html('rejected.body', { merchant: merchantName })}</p>`
      : html`<h1>${t.html('expired.title')}</h1><p>${t.html('expired.body', { date: dateTime(t, invoice.expiresAt), merchant: merchantName })}</p>${
          invoice.family === 'crypto' ? html`<p class="muted">${t.html('expired.credited', { currency: invoice.paymentCurrency })}</p>` : ''
        }`;
  return html`${body}${wayBack(t, returnUrl, merchantName)}`;
}
