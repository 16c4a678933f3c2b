/**
 * The callbacks page: every delivery of the merchant's callbacks, transactions' and invoices' events
 * alike, newest first, or only those that failed, each with what it announces, its state, attempts
 * and last answer, and the resend of its transaction's or invoice's latest callback.
 */
import type { LoggedDelivery } from '../../domain/payments/index.js';
import { html, type Html } from '../../http/html.js';
import { dashboardUrl, type DashboardContext } from '../document.js';
import { signedInUser, type PageHandler } from '../page.js';
import { page, table, th } from '../parts.js';
import { filterForm, filtersOf, nextLink, resendForm, resentNotice, select } from './money.js';

const LOG_PAGE = 20;

/** What a callback announces, linked: its transaction, or its invoice. */
function subjectLink(context: DashboardContext, delivery: LoggedDelivery): Html {
  const { t } = context;
  const [path, id, key] = delivery.transactionId
    ? (['transactions', delivery.transactionId, 'callbacksLog.transaction'] as const)
    : (['invoices', delivery.invoiceId ?? '', 'callbacksLog.invoice'] as const);
  return html`${t.text(key)} <a class="mono" href="${dashboardUrl(context, `${path}/${id}`)}" aria-label="${t.text('list.open', { id })}">${id.slice(0, 8)}</a>`;
}

function deliveryRows(context: DashboardContext, deliveries: LoggedDelivery[]): Html[] {
  const { t } = context;
  // Resending re-queues the latest callback of its transaction or invoice: offered once, beside the newest on the page.
  const offered = new Set<string>();
  return deliveries.map((delivery) => {
    const last = delivery.attempts.at(-1);
    const subject = delivery.transactionId ? `transactions/${delivery.transactionId}` : `invoices/${delivery.invoiceId}`;
    const resend = offered.has(subject) ? '' : resendForm(context, `${subject}/resend`, true);
    offered.add(subject);
    return html`<tr><td>${t.dateTime(delivery.createdAt)}</td><td>${subjectLink(context, delivery)}</td><td class="mono">${delivery.webhookId}</td><td><code>${delivery.state}</code></td><td class="num">${t.number(delivery.attempts.length)}</td><td>${last ? `${last.status ?? last.error ?? ''} · ${t.dateTime(last.at)}` : ''}</td><td>${resend}</td></tr>`;
  });
}

export const callbacks: PageHandler = async (request) => {
  const { context, services, query } = request;
  const { t } = context;
  const { user } = signedInUser(request);
  const filters = filtersOf(query);
  const failedOnly = filters.show === 'failed';
  const log = await services.callbacks.merchantLog(user.merchantId, { failedOnly, limit: LOG_PAGE, ...(filters.cursor && { cursor: filters.cursor }) });
  const listing: Record<string, string> = failedOnly ? { show: 'failed' } : {};
  const form = filterForm(context, 'callbacks', [select(context, 'show', t.text('callbacksLog.show'), ['failed'], filters.show, () => t.text('callbacksLog.failedOnly'))]);
  const headings = [
    th(t.text('list.created')),
    th(t.text('callbacksLog.subject')),
    th(t.text('callbacks.event')),
    th(t.text('callbacks.status')),
    th(t.text('callbacks.attempts'), true),
    th(t.text('callbacks.lastAnswer')),
    th(t.text('callbacks.resend')),
  ];
  const newest = filters.cursor ? html`<p><a href="${dashboardUrl(context, 'callbacks', listing)}">${t.text('pages.newest')}</a></p>` : '';
  const main = html`${resentNotice(context, query)}<section>${form}${table(headings, deliveryRows(context, log.items), t.text(failedOnly ? 'callbacksLog.noFailures' : 'callbacks.none'))}${newest}${nextLink(context, 'callbacks', listing, log)}</section>`;
  return page(context, t.text('callbacks.title'), main, { query: listing });
};
