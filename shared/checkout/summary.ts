import { type Invoice, paymentProgress } from '../domain/invoicing/index.js';
import { html, type Html } from '../http/html.js';
import { dateTime, shownAmount } from './fragments.js';
import type { Translator } from './language.js';

/** The invoice at the top of every invoice's page: merchant, order, amount, what is paid, and the time left when there is a countdown. */
export function summary(t: Translator, invoice: Invoice, merchantName: string, secondsLeft: number | undefined): Html {
  const converted = invoice.baseCurrency !== invoice.paymentCurrency;
  const progress = paymentProgress(invoice);
  const open = invoice.status === 'created' || invoice.status === 'active';
  return html`<header class="card">
<div class="summary-top"><span class="merchant">${merchantName}</span><span class="order">${t.html('summary.order', { orderId: html`<bdi>${invoice.orderId}</bdi>` })}</span></div>
<p class="amount"><bdi>${t.amount(invoice.paymentAmount, invoice.paymentCurrency)}</bdi></p>
${converted ? html`<p class="muted"><bdi>${t.amount(invoice.amount, invoice.baseCurrency)}</bdi></p>` : ''}
${
  open && progress.partial
    ? html`<div class="progress">
<p>${t.html('summary.paid', { amount: shownAmount(t, progress.paid, invoice.paymentCurrency) })}</p>
<p>${t.html('summary.remaining', { amount: shownAmount(t, progress.remaining, invoice.paymentCurrency) })}</p>
</div>`
    : ''
}
${
  secondsLeft === undefined
    ? ''
    : html`<p class="muted">${t.html('summary.timeLeft', {
        time: html`<span class="countdown" dir="ltr" data-seconds-left="${secondsLeft}">${t.text('summary.minutes', { minutes: Math.ceil(secondsLeft / 60) })}</span>`,
      })}</p>
<p class="muted">${t.html('summary.payBy', { date: dateTime(t, invoice.expiresAt) })}</p>`
}
</header>`;
}
