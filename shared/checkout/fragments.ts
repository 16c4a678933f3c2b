/** Small pieces of markup that several parts of a checkout page share. */
import type { FiatMethod } from '../domain/kernel/index.js';
import type { Invoice } from '../domain/invoicing/index.js';
import { html, type Html } from '../http/html.js';
import type { MessageKey, Translator } from './language.js';

/** An amount in running text: isolated, so that a right-to-left sentence does not reorder its digits. */
export const shownAmount = (t: Translator, amount: string, currency: string): Html => html`<strong><bdi>${t.amount(amount, currency)}</bdi></strong>`;

export function copyButton(t: Translator, text: string, label: MessageKey): Html {
  return html`<button type="button" class="copy secondary" data-copy="${text}" data-copied="${t.text('crypto.copied')}" data-copy-failed="${t.text('crypto.copyFailed')}">${t.html(label)}</button>`;
}

/** A date in UTC as the server writes it, which the page's script rewrites in the reader's own time zone. */
export const dateTime = (t: Translator, iso: string): Html => html`<time datetime="${iso}">${t.dateTime(iso)}</time>`;

/** The invoice's local-fiat method in the customer's language. */
export const methodName = (t: Translator, invoice: Invoice): string => t.text(`method.${invoice.paymentMethod as FiatMethod}`);
