/**
 * The steps of a payment at a provider: choosing the provider (INR), its instructions with the UTR
 * form (P2P), the way on to its page, waiting for its decision, and trying again when it did not answer.
 */
import type { CheckoutPage } from '../page.js';
import type { Invoice } from '../../domain/invoicing/index.js';
import { html, type Html } from '../../http/html.js';
import type { PaymentInstructions } from '../../domain/providers/index.js';
import { copyButton, methodName, shownAmount } from '../fragments.js';
import type { MessageKey, Translator } from '../language.js';
import { qrCodeDataUri } from '../qr-code.js';

const payerName = (invoice: Invoice): string => invoice.customer.fullName ?? [invoice.customer.firstName, invoice.customer.lastName].filter(Boolean).join(' ');

function payerLine(t: Translator, invoice: Invoice): Html {
  const name = payerName(invoice);
  return name === '' ? html`` : html`<p>${t.html('provider.payer', { name: html`<strong><bdi>${name}</bdi></strong>` })}</p>`;
}

export function providersSection(t: Translator, invoice: Invoice, page: Extract<CheckoutPage, { kind: 'providers' }>, providerUrl: (id: string) => string): Html {
  const choices = page.providers.map(({ id, name }) => html`<li><a class="button secondary" href="${providerUrl(id)}">${name}</a></li>`);
  return html`<h1>${t.html('provider.choose')}</h1>
${payerLine(t, invoice)}
<p>${t.html('provider.chooseIntro', { amount: shownAmount(t, invoice.paymentAmount, invoice.paymentCurrency) })}</p>
<ul class="choices">${choices}</ul>`;
}

/** The UPI deep link of an `intent` payment (NPCI's `upi://pay`), which UPI apps and their QR scanners open. */
function upiPaymentUri(instructions: PaymentInstructions): string | undefined {
  if (!instructions.upiId) return undefined;
  const params = new URLSearchParams({ pa: instructions.upiId, pn: instructions.payee, am: instructions.amount, cu: instructions.currency, tn: instructions.reference });
  return `upi://pay?${params.toString().replace(/\+/g, '%20')}`;
}

export async function instructionsSection(t: Translator, invoice: Invoice, page: Extract<CheckoutPage, { kind: 'instructions' }>, action: string): Promise<Html> {
  const { instructions } = page;
  const rows: Array<[MessageKey, string | null | undefined]> = [
    ['instructions.payee', instructions.payee],
    ['instructions.upiId', instructions.upiId],
    ['instructions.accountNumber', instructions.accountNumber],
    ['instructions.bankName', instructions.bankName],
    ['instructions.amount', t.amount(instructions.amount, instructions.currency)],
    ['instructions.reference', instructions.reference],
  ];
  const copyable: ReadonlySet<MessageKey> = new Set(['instructions.upiId', 'instructions.accountNumber', 'instructions.reference']);
  const details = rows.flatMap(([label, value]) =>
    value ? [html`<dt>${t.html(label)}</dt><dd><bdi>${value}</bdi>${copyable.has(label) ? html` ${copyButton(t, value, 'instructions.copy')}` : ''}</dd>`] : [],
  );
  const upi = invoice.paymentMethod === 'intent' ? upiPaymentUri(instructions) : undefined;
  const upiBlock = upi
    ? html`<img class="qr" src="${await qrCodeDataUri(upi)}" width="200" height="200" alt="${t.text('instructions.qrUpi', { amount: t.amount(instructions.amount, instructions.currency) })}">
<a class="button secondary" href="${upi}">${t.html('instructions.openUpi')}</a>`
    : '';
  const invalid = page.problem === undefined ? '' : html` aria-invalid="true" aria-describedby="utr-error"`;
  return html`<h1>${t.html('instructions.title')}</h1>
${payerLine(t, invoice)}
<p>${t.html('instructions.intro', { amount: shownAmount(t, instructions.amount, instructions.currency), method: methodName(t, invoice) })}</p>
<dl class="instructions">${details}</dl>
${upiBlock}
<h2>${t.html('utr.title')}</h2>
<p>${t.html('utr.intro')}</p>
<form method="post" action="${action}">
<label for="utr">${t.html('utr.label')}</label>
<input id="utr" name="utr" pattern="[A-Za-z0-9]{12,22}" minlength="12" maxlength="22" autocomplete="off" autocapitalize="characters" spellcheck="false" dir="ltr" required value="${page.value}"${invalid}>
${page.problem === undefined ? '' : html`<p class="error" id="utr-error">${t.html(`utr.${page.problem}`)}</p>`}
<button type="submit">${t.html('utr.submit')}</button>
</form>`;
}

export const unavailableSection = (t: Translator, retryUrl: string): Html => html`<h1>${t.html('unavailable.title')}</h1>
<p>${t.html('unavailable.body')}</p>
<a class="button" href="${retryUrl}">${t.html('unavailable.retry')}</a>`;

export const handoffSection = (t: Translator, url: string): Html => html`<h1>${t.html('handoff.title')}</h1>
<a class="button" href="${url}">${t.html('handoff.continue')}</a>`;

export const waitingSection = (t: Translator, continueUrl: string | undefined): Html => html`<h1>${t.html('waiting.title')}</h1>
<div class="pending"><span class="spinner"></span><span>${t.html('waiting.body')}</span></div>
${continueUrl === undefined ? '' : html`<a class="button secondary" href="${continueUrl}">${t.html('waiting.continue')}</a>`}`;
