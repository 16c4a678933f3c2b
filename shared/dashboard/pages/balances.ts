/**
 * The balances page: per currency what is available and what is reserved, as `GET /api/v2/balances`
 * shows them, and the statement (`GET /api/v2/balance/entries`) with its filters, a page at a time,
 * with a button asking for the same entries as a CSV report.
 */
import { can } from '../../domain/dashboard/index.js';
import { BALANCE_CURRENCIES, BALANCE_ENTRY_TYPES, type BalanceEntryView, listBalanceEntriesQuerySchema } from '../../domain/ledger/index.js';
import { html, type Html } from '../../http/html.js';
import { csrfField, dashboardUrl, type DashboardContext } from '../document.js';
import { NO_PROBLEMS, problemSummary, zodProblems } from '../forms.js';
import { signedInUser, type PageHandler } from '../page.js';
import { type Column, idLink, listing, page, pageLinks, pagePosition, table, th } from '../parts.js';
import { dayBound, filterForm, filterInput, filtersOf, select } from './money.js';

/** A report covers at most a year: without a first day, the button asks for the year up to the last. */
const REPORT_DAYS = 365;

const dayBefore = (day: string, days: number): string => new Date(Date.parse(`${day}T00:00:00Z`) - days * 86_400_000).toISOString().slice(0, 10);

function entryRows(context: DashboardContext, entries: BalanceEntryView[]): Array<Array<Html | string>> {
  const { t } = context;
  return entries.map((entry) => [
    t.dateTime(entry.createdAt),
    html`<code>${entry.type}</code>`,
    t.amount(entry.amount, entry.currency),
    t.amount(entry.availableAfter, entry.currency),
    t.amount(entry.reservedAfter, entry.currency),
    entry.transactionId ? idLink(context, `transactions/${entry.transactionId}`, entry.transactionId) : '',
  ]);
}

/** The button asking for the statement's entries as a CSV file: its days (a year up to today without them) and its currency; a report holds every type. */
function reportButton(context: DashboardContext, filters: Record<string, string>, today: string): Html {
  const { t } = context;
  const to = filters.createdTo ?? today;
  const from = filters.createdFrom ?? dayBefore(to, REPORT_DAYS - 1);
  const hidden = { type: 'balance_entries', createdFrom: from, createdTo: to, ...(filters.currency && { currency: filters.currency }) };
  return html`<form method="post" action="${dashboardUrl(context, 'reports')}">${csrfField(context)}${Object.entries(hidden).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}<button class="secondary" type="submit">${t.text('balances.report')}</button><p class="hint">${t.text('balances.reportHint', { from, to })}</p></form>`;
}

export const balances: PageHandler = async (request) => {
  const { context, services, query } = request;
  const { t } = context;
  const { user, session } = signedInUser(request);
  const now = services.clock();
  const filters = filtersOf(query);
  const { query: listQuery, position } = pagePosition(filters);
  // The form's days are the API's bounds: the first instant of the first, the last of the last.
  const parsed = listBalanceEntriesQuerySchema.safeParse({
    ...listQuery,
    createdFrom: dayBound(filters.createdFrom, false, now),
    createdTo: dayBound(filters.createdTo, true, now),
  });
  const problems = parsed.success ? NO_PROBLEMS : zodProblems(parsed.error);
  const [current, entries] = await Promise.all([
    services.balances.view(user.merchantId),
    parsed.success ? services.balances.entries(user.merchantId, parsed.data) : Promise.resolve({ items: [], nextCursor: null }),
  ]);
  const balanceRows = current.items.map(
    ({ currency, available, reserved }) => html`<tr><th scope="row">${currency}</th><td class="num">${t.amount(available, currency)}</td><td class="num">${t.amount(reserved, currency)}</td></tr>`,
  );
  const form = filterForm(context, 'balances', [
    select(context, 'currency', t.text('reports.currency'), BALANCE_CURRENCIES, filters.currency),
    select(context, 'type', t.text('list.type'), BALANCE_ENTRY_TYPES, filters.type),
    filterInput(context, problems, 'createdFrom', t.text('reports.from'), filters.createdFrom, 'date'),
    filterInput(context, problems, 'createdTo', t.text('reports.to'), filters.createdTo, 'date'),
  ]);
  const columns: Column[] = [
    { heading: t.text('list.created'), brief: true },
    { heading: t.text('list.type'), brief: true },
    { heading: t.text('list.amount'), numeric: true },
    { heading: t.text('balances.availableAfter'), numeric: true },
    { heading: t.text('balances.reservedAfter'), numeric: true },
    { heading: t.text('balances.transaction'), brief: true },
  ];
  const main = html`<section><h2>${t.text('overview.balances')}</h2>${table([th(t.text('reports.currency')), th(t.text('overview.available'), true), th(t.text('overview.reserved'), true)], balanceRows, t.text('overview.noBalances'))}</section>
${problemSummary(t, problems)}<section><h2>${t.text('balances.entries')}</h2>${form}${can(session.role, 'reports') && parsed.success ? reportButton(context, filters, now.toISOString().slice(0, 10)) : ''}${listing(columns, entryRows(context, entries.items), t.text('list.empty'))}${pageLinks(context, 'balances', listQuery, position, entries.nextCursor)}</section>`;
  return page(context, t.text('balances.title'), main, { status: parsed.success ? 200 : 422, query: filters });
};
