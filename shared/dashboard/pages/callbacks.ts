/**
 * The callbacks page: every delivery of the merchant's callbacks, transactions' and invoices' events
 * alike, newest first, or only those that failed, each with what it announces, its state, attempts
 * and last answer, and the resend of its transaction's or invoice's latest callback.
 */
import type { LoggedDelivery } from '../../domain/payments/index.js';
import { html, type Html } from '../../http/html.js';
import type { DashboardContext } from '../document.js';
import { signedInUser, type PageHandler } from '../page.js';
import { type Column, idLink, listing, page, pageLinks, pagePosition } from '../parts.js';
import { deliveryCells, deliveryColumns, filterForm, filtersOf, resendForm, resentNotice, select } from './money.js';

const LOG_PAGE = 20;

/** What a callback announces, linked: its transaction, or its invoice. */
function subjectLink(context: DashboardContext, delivery: LoggedDelivery): Html {
  const { t } = context;
  const [path, id, key] = delivery.transactionId
    ? (['transactions', delivery.transactionId, 'callbacksLog.transaction'] as const)
    : (['invoices', delivery.invoiceId ?? '', 'callbacksLog.invoice'] as const);
  return html`${t.text(key)} ${idLink(context, `${path}/${id}`, id)}`;
}

function deliveryRows(context: DashboardContext, deliveries: LoggedDelivery[]): Array<Array<Html | string>> {
  // Resending re-queues the latest callback of its transaction or invoice: offered once, beside the newest on the page.
  const offered = new Set<string>();
  return deliveries.map((delivery) => {
    const subject = delivery.transactionId ? `transactions/${delivery.transactionId}` : `invoices/${delivery.invoiceId}`;
    const resend = offered.has(subject) ? '' : resendForm(context, `${subject}/resend`, true);
    offered.add(subject);
    return [context.t.dateTime(delivery.createdAt), subjectLink(context, delivery), ...deliveryCells(context, delivery), resend];
  });
}

export const callbacks: PageHandler = async (request) => {
  const { context, services, query } = request;
  const { t } = context;
  const { user } = signedInUser(request);
  const filters = filtersOf(query);
  const failedOnly = filters.show === 'failed';
  const { position } = pagePosition(filters);
  const log = await services.callbacks.merchantLog(user.merchantId, { failedOnly, limit: LOG_PAGE, ...(position.cursor && { cursor: position.cursor }) });
  const listed: Record<string, string> = failedOnly ? { show: 'failed' } : {};
  const form = filterForm(context, 'callbacks', [select(context, 'show', t.text('callbacksLog.show'), ['failed'], filters.show, () => t.text('callbacksLog.failedOnly'))]);
  const columns: Column[] = [
    { heading: t.text('list.created'), brief: true },
    { heading: t.text('callbacksLog.subject'), brief: true },
    ...deliveryColumns(context),
    { heading: t.text('callbacks.resend') },
  ];
  const empty = t.text(failedOnly ? 'callbacksLog.noFailures' : 'callbacks.none');
  const main = html`${resentNotice(context, query)}<section>${form}${listing(columns, deliveryRows(context, log.items), empty)}${pageLinks(context, 'callbacks', listed, position, log.nextCursor)}</section>`;
  return page(context, t.text('callbacks.title'), main, { query: listed });
};
