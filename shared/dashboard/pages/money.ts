/** The money pages: invoices and transactions with their callbacks, and reports. */
import { explorerTransactionUrl } from '../../domain/chains/index.js';
import { Decimal, decimalsOf, formatAmount, Invalid, MAX_PAGE_LIMIT, type Page } from '../../domain/kernel/index.js';
import { can } from '../../domain/dashboard/index.js';
import { INVOICE_STATUSES, type InvoiceView, listInvoicesQuerySchema } from '../../domain/invoicing/index.js';
import { BALANCE_CURRENCIES, createReportRequestSchema, REPORT_TYPES } from '../../domain/ledger/index.js';
import { listTransactionsQuerySchema, TRANSACTION_STATUSES, TRANSACTION_TYPES, type TransactionView } from '../../domain/transactions/index.js';
import type { CallbackDelivery } from '../../domain/callbacks/index.js';
import { html, raw, type Html } from '../../http/html.js';
import { csrfField, dashboardUrl, type DashboardContext } from '../document.js';
import { invoiceStatusBadge, paymentBadges, transactionStatusBadge } from '../badges.js';
import { badge, type Column, facts, idLink, listing, notice, page, pageLinks, pagePosition, type Tone } from '../parts.js';
import { field, NO_PROBLEMS, problemSummary, ruleProblems, zodProblems, type FormProblems } from '../forms.js';
import type { DashboardKey } from '../language.js';
import { redirect, type ReportSummary, signedInUser, type DashboardAnswer, type PageHandler, type PageRequest } from '../page.js';

/** A listing's query from the page's: empty fields are no filter. */
export const filtersOf = (query: Record<string, string>): Record<string, string> => Object.fromEntries(Object.entries(query).filter(([, value]) => value.trim() !== ''));

export function select(context: DashboardContext, name: string, label: string, options: readonly string[], value: string | undefined, labelOf: (option: string) => string = (option) => option): Html {
  const choices = ['', ...options].map(
    (option) => html`<option value="${option}"${option === (value ?? '') ? raw(' selected') : ''}>${option === '' ? context.t.text('list.all') : labelOf(option)}</option>`,
  );
  return html`<label for="filter-${name}">${label}<select id="filter-${name}" name="${name}">${choices}</select></label>`;
}

export function filterInput(context: DashboardContext, problems: FormProblems, name: string, label: string, value: string | undefined, type: 'text' | 'date' = 'text'): Html {
  const problem = problems.get(name);
  return html`<label for="filter-${name}">${label}<input id="filter-${name}" name="${name}" type="${type}" value="${value ?? ''}"${problem ? raw(` aria-invalid="true" aria-describedby="filter-${name}-problem"`) : ''}>${problem ? html`<span class="error" id="filter-${name}-problem">${context.t.text(problem)}</span>` : ''}</label>`;
}

export function filterForm(context: DashboardContext, pagePath: string, controls: Html[]): Html {
  const language = context.language.explicit ? html`<input type="hidden" name="lang" value="${context.language.language}">` : '';
  return html`<form class="inline" method="get" action="${dashboardUrl({ ...context, language: { ...context.language, explicit: false } }, pagePath)}" aria-label="${context.t.text('list.filter')}">${language}${controls}<button class="secondary" type="submit">${context.t.text('list.apply')}</button></form>`;
}

function invoiceRows(context: DashboardContext, invoices: Page<InvoiceView>): Array<Array<Html | string>> {
  const { t } = context;
  return invoices.items.map((invoice) => [
    idLink(context, `invoices/${invoice.id}`, invoice.id),
    invoiceStatusBadge(context, invoice),
    paymentBadges(context, invoice),
    invoice.orderId,
    invoice.customerId,
    t.amount(invoice.amount, invoice.baseCurrency),
    t.amount(invoice.paidAmount, invoice.paymentCurrency),
    t.dateTime(invoice.createdAt),
  ]);
}

export const invoices: PageHandler = async (request) => {
  const { context, services, query } = request;
  const { t } = context;
  const { user } = signedInUser(request);
  const filters = filtersOf(query);
  const { query: listQuery, position } = pagePosition(filters);
  const parsed = listInvoicesQuerySchema.safeParse(listQuery);
  const problems = parsed.success ? NO_PROBLEMS : zodProblems(parsed.error);
  const result = parsed.success ? await services.invoices.list(user.merchantId, parsed.data) : { items: [], nextCursor: null };
  const form = filterForm(context, 'invoices', [
    select(context, 'status', t.text('list.status'), INVOICE_STATUSES, filters.status),
    filterInput(context, problems, 'orderId', t.text('list.orderId'), filters.orderId),
    filterInput(context, problems, 'customerId', t.text('list.customerId'), filters.customerId),
  ]);
  const columns: Column[] = [
    { heading: t.text('list.id'), brief: true },
    { heading: t.text('list.status'), brief: true },
    { heading: t.text('list.payment'), brief: true },
    { heading: t.text('list.orderId') },
    { heading: t.text('list.customerId') },
    { heading: t.text('list.amount'), numeric: true },
    { heading: t.text('invoice.paid'), numeric: true },
    { heading: t.text('list.created'), brief: true },
  ];
  const main = html`${problemSummary(t, problems)}<section>${form}</section><section>${listing(columns, invoiceRows(context, result), t.text('list.empty'))}${pageLinks(context, 'invoices', listQuery, position, result.nextCursor)}</section>`;
  return page(context, t.text('nav.invoices'), main, { status: parsed.success ? 200 : 422, query: filters });
};

/**
 * A transaction's hash on chain, linked to its network's block explorer (shortened in a listing,
 * named in full for those who hear it); nothing for fiat or a payout not yet signed.
 */
function chainLink(context: DashboardContext, { network, transactionHash }: Pick<TransactionView, 'network' | 'transactionHash'>, short = false): Html {
  if (!network || !transactionHash) return html``;
  const url = explorerTransactionUrl(context.explorers(), network, transactionHash);
  const shown = short && transactionHash.length > 20 ? `${transactionHash.slice(0, 10)}…${transactionHash.slice(-6)}` : transactionHash;
  const kind = short ? 'id' : 'mono';
  if (!url) return html`<span class="${kind}">${shown}</span>`;
  return html`<a class="${kind}" href="${url}" rel="noopener noreferrer" title="${context.t.text('transaction.explorer', { hash: transactionHash })}">${shown}</a>`;
}

export function transactionTable(context: DashboardContext, transactions: Page<TransactionView>): Html {
  const { t } = context;
  const rows = transactions.items.map((transaction) => [
    idLink(context, `transactions/${transaction.id}`, transaction.id),
    html`<code>${transaction.type}</code>`,
    transactionStatusBadge(context, transaction.status),
    t.amount(transaction.amount, transaction.currency),
    transaction.orderId ?? '',
    chainLink(context, transaction, true),
    t.dateTime(transaction.createdAt),
  ]);
  const columns: Column[] = [
    { heading: t.text('list.id'), brief: true },
    { heading: t.text('list.type'), brief: true },
    { heading: t.text('list.status'), brief: true },
    { heading: t.text('list.amount'), numeric: true },
    { heading: t.text('list.orderId') },
    { heading: t.text('transaction.txHash') },
    { heading: t.text('list.created'), brief: true },
  ];
  return listing(columns, rows, t.text('list.empty'));
}

const DELIVERY_TONES = { pending: 'waiting', delivered: 'done', parked: 'ended' } as const satisfies Record<CallbackDelivery['state'], Tone>;

/** A callback delivery as a listing shows it: what it announced, its state, attempts and last answer. */
export function deliveryCells({ t }: DashboardContext, delivery: CallbackDelivery): Array<Html | string> {
  const last = delivery.attempts.at(-1);
  return [
    html`<span class="mono long">${delivery.webhookId}</span>`,
    badge(t.text(`status.delivery.${delivery.state}`), DELIVERY_TONES[delivery.state]),
    t.number(delivery.attempts.length),
    last ? `${last.status ?? last.error ?? ''} · ${t.dateTime(last.at)}` : '',
  ];
}

export const deliveryColumns = ({ t }: DashboardContext): Column[] => [
  { heading: t.text('callbacks.event') },
  { heading: t.text('callbacks.status'), brief: true },
  { heading: t.text('callbacks.attempts'), numeric: true },
  { heading: t.text('callbacks.lastAnswer') },
];

function callbackTable(context: DashboardContext, deliveries: CallbackDelivery[]): Html {
  return listing(
    deliveryColumns(context),
    deliveries.map((delivery) => deliveryCells(context, delivery)),
    context.t.text('callbacks.none'),
  );
}

/** The resend button of a transaction's or an invoice's callbacks; from the callbacks page, back to that page. */
export function resendForm(context: DashboardContext, action: string, fromLog = false): Html {
  if (!context.signedIn || !can(context.signedIn.session.role, 'callbacks')) return html``;
  return html`<form method="post" action="${dashboardUrl(context, action)}">${csrfField(context)}${fromLog ? html`<input type="hidden" name="from" value="callbacks">` : ''}<button class="secondary" type="submit">${context.t.text('callbacks.resend')}</button></form>`;
}

export const resentNotice = (context: DashboardContext, query: Record<string, string>): Html => (query.done === 'resent' ? notice(context.t.text('callbacks.resent')) : html``);

/** The fees of the invoice's confirmed deposits in its payment currency, which its paid amount sums: what the merchant's balance got is the rest. */
function invoiceFees(invoice: InvoiceView, transactions: TransactionView[]): Decimal {
  return transactions
    .filter(({ type, status, currency }) => type === 'deposit' && status === 'confirmed' && currency === invoice.paymentCurrency)
    .reduce((sum, { fees }) => sum.plus(fees.processing).plus(fees.technical ?? 0), new Decimal(0));
}

export const invoice: PageHandler = async (request) => {
  const { context, services, params, query } = request;
  const { t } = context;
  const { user } = signedInUser(request);
  const found = await services.invoices.get(user.merchantId, params.invoiceId ?? '');
  const [transactions, events] = await Promise.all([
    services.transactions.list(user.merchantId, listTransactionsQuerySchema.parse({ invoiceId: found.id, limit: MAX_PAGE_LIMIT })),
    services.callbacks.invoiceDeliveries(user.merchantId, found.id),
  ]);
  const fees = invoiceFees(found, transactions.items);
  const refunds = transactions.items.filter(({ type }) => type === 'refund');
  const payments = transactions.items.filter(({ type }) => type !== 'refund');
  const amountIn = (value: Decimal | string) => t.amount(value.toString(), found.paymentCurrency);
  const main = html`${resentNotice(context, query)}<section>${facts([
    [t.text('list.status'), html`${invoiceStatusBadge(context, found)}${paymentBadges(context, found)}`],
    [t.text('list.amount'), t.amount(found.amount, found.baseCurrency)],
    ...(found.paymentCurrency === found.baseCurrency ? [] : [[t.text('invoice.toPay'), amountIn(found.paymentAmount)] as [string, string]]),
    [t.text('invoice.paid'), amountIn(found.paidAmount)],
    [t.text('transaction.fee'), amountIn(fees)],
    [t.text('transaction.net'), amountIn(new Decimal(found.paidAmount).minus(fees))],
    [t.text('invoice.refunded'), amountIn(found.refundedAmount)],
    [t.text('invoice.method'), html`<code>${found.paymentMethod}</code>`],
    ...(found.wallet
      ? [
          [t.text('invoice.networks'), html`${found.wallet.networks.map((network) => html`<code>${network}</code> `)}`] as [string, Html],
          [t.text('invoice.address'), html`<span class="mono">${found.wallet.address}</span>`] as [string, Html],
        ]
      : []),
    [t.text('list.orderId'), found.orderId],
    [t.text('list.customerId'), found.customerId],
    [t.text('list.created'), t.dateTime(found.createdAt)],
    [t.text('invoice.expires'), t.dateTime(found.expiresAt)],
    ...(found.completedAt ? [[t.text('invoice.completed'), t.dateTime(found.completedAt)] as [string, string]] : []),
    [t.text('invoice.checkout'), html`<a class="mono" href="${found.link}">${found.link}</a>`],
  ])}</section>
<section><h2>${t.text('invoice.transactions')}</h2>${transactionTable(context, { items: payments, nextCursor: null })}</section>
<section><h2>${t.text('refunds.title')}</h2>${refunds.length > 0 ? transactionTable(context, { items: refunds, nextCursor: null }) : html`<p>${t.text('invoice.noRefunds')}</p>`}</section>
<section><h2>${t.text('invoice.events')}</h2>${callbackTable(context, events)}${events.length > 0 ? resendForm(context, `invoices/${found.id}/resend`) : ''}</section>`;
  return page(context, t.text('invoice.title', { id: found.id }), main);
};

export const transactions: PageHandler = async (request) => {
  const { context, services, query } = request;
  const { t } = context;
  const { user } = signedInUser(request);
  const filters = filtersOf(query);
  const { query: listQuery, position } = pagePosition(filters);
  const parsed = listTransactionsQuerySchema.safeParse(listQuery);
  const problems = parsed.success ? NO_PROBLEMS : zodProblems(parsed.error);
  const result = parsed.success ? await services.transactions.list(user.merchantId, parsed.data) : { items: [], nextCursor: null };
  const form = filterForm(context, 'transactions', [
    select(context, 'type', t.text('list.type'), TRANSACTION_TYPES, filters.type),
    select(context, 'status', t.text('list.status'), TRANSACTION_STATUSES, filters.status),
    filterInput(context, problems, 'orderId', t.text('list.orderId'), filters.orderId),
    filterInput(context, problems, 'invoiceId', t.text('list.invoiceId'), filters.invoiceId),
  ]);
  const main = html`${problemSummary(t, problems)}<section>${form}</section><section>${transactionTable(context, result)}${pageLinks(context, 'transactions', listQuery, position, result.nextCursor)}</section>`;
  return page(context, t.text('nav.transactions'), main, { status: parsed.success ? 200 : 422, query: filters });
};

/** A refund form sent back to be put right: its problems beside their fields, and what was typed. */
export interface RefundFormState {
  problems: FormProblems;
  values: Record<string, string>;
}

/**
 * A transaction with its callbacks; a deposit also with its refunds and, for an owner while some of
 * it is refundable, the refund form (the refundable amount filled in, an address on a crypto
 * deposit's network, a fresh code of the authenticator app).
 */
export async function transactionPage(request: PageRequest, refundForm?: RefundFormState): Promise<DashboardAnswer> {
  const { context, services, params, query } = request;
  const { t } = context;
  const { user, session } = signedInUser(request);
  const found = await services.transactions.view(user.merchantId, params.transactionId ?? '');
  const isDeposit = found.type === 'deposit';
  const [deliveries, refunds, refundable] = await Promise.all([
    services.callbacks.deliveries(user.merchantId, found.id),
    isDeposit && found.invoiceId
      ? services.transactions.list(user.merchantId, listTransactionsQuerySchema.parse({ type: 'refund', invoiceId: found.invoiceId }))
      : Promise.resolve({ items: [], nextCursor: null }),
    isDeposit && can(session.role, 'payouts') ? services.refunds.refundable(user.merchantId, found.id) : Promise.resolve(undefined),
  ]);
  const ofDeposit = { items: refunds.items.filter((refund) => refund.refundOf === found.id), nextCursor: null };
  const main = html`${resentNotice(context, query)}${query.done === 'refunded' ? notice(t.text('refunds.requested')) : ''}<section>${facts([
    [t.text('list.type'), html`<code>${found.type}</code>`],
    [t.text('list.status'), transactionStatusBadge(context, found.status)],
    [t.text('list.amount'), t.amount(found.amount, found.currency)],
    ...(found.invoiceId ? [[t.text('list.invoiceId'), html`<a class="mono" href="${dashboardUrl(context, `invoices/${found.invoiceId}`)}">${found.invoiceId}</a>`] as [string, Html]] : []),
    ...(found.refundOf ? [[t.text('transaction.refundOf'), html`<a class="mono" href="${dashboardUrl(context, `transactions/${found.refundOf}`)}">${found.refundOf}</a>`] as [string, Html]] : []),
    ...(found.network ? [[t.text('transaction.network'), found.network] as [string, string]] : []),
    ...(found.address ? [[t.text('transaction.address'), html`<span class="mono">${found.address}</span>`] as [string, Html]] : []),
    ...(found.transactionHash ? [[t.text('transaction.txHash'), chainLink(context, found)] as [string, Html]] : []),
    ...(found.address || isDeposit ? [[t.text('transaction.processingFee'), t.amount(found.fees.processing, found.currency)] as [string, string]] : []),
    ...((found.address || isDeposit) && found.fees.technical !== null ? [[t.text('transaction.networkFee'), t.amount(found.fees.technical, found.currency)] as [string, string]] : []),
    // What a deposit leaves in the balance once its fees are taken (docs/merchant-guide.md#balances).
    ...(isDeposit
      ? [
          [
            t.text('transaction.net'),
            t.amount(
              new Decimal(found.amount)
                .minus(found.fees.processing)
                .minus(found.fees.technical ?? 0)
                .toString(),
              found.currency,
            ),
          ] as [string, string],
        ]
      : []),
    [t.text('list.orderId'), found.orderId ?? ''],
    [t.text('list.created'), t.dateTime(found.createdAt)],
    [t.text('transaction.receipt'), html`<a class="mono" href="${dashboardUrl(context, `receipts/${found.id}`)}" download="receipt-${found.id}.jws">receipt-${found.id}.jws</a>`],
  ])}</section>
${isDeposit ? html`<section><h2>${t.text('refunds.title')}</h2>${ofDeposit.items.length > 0 ? transactionTable(context, ofDeposit) : html`<p>${t.text('refunds.none')}</p>`}</section>` : ''}
${refundable?.greaterThan(0) ? refundFormOf(context, found, formatAmount(refundable, decimalsOf(found.currency)), refundForm) : ''}
<section><h2>${t.text('callbacks.title')}</h2>${callbackTable(context, deliveries)}${resendForm(context, `transactions/${found.id}/resend`)}</section>`;
  return page(context, t.text('transaction.title', { id: found.id }), main, { status: (refundForm?.problems.size ?? 0) > 0 ? 422 : 200 });
}

/** The refund form of a deposit: the amount (what is refundable unless typed otherwise), the customer's address on a crypto deposit's network, a reason, the code. */
function refundFormOf(context: DashboardContext, deposit: TransactionView, refundable: string, state: RefundFormState = { problems: NO_PROBLEMS, values: {} }): Html {
  const { t } = context;
  const { problems, values } = state;
  return html`<section><h2>${t.text('refunds.new')}</h2>${problemSummary(t, problems)}<form class="stack" method="post" action="${dashboardUrl(context, `transactions/${deposit.id}/refund`)}">${csrfField(context)}
${field(t, problems, { name: 'amount', label: `${t.text('refunds.amount')} (${deposit.currency})`, value: values.amount ?? refundable, required: true, inputmode: 'text' })}
${deposit.network ? field(t, problems, { name: 'address', label: t.text('refunds.address', { network: deposit.network }), value: values.address, required: true }) : ''}
${field(t, problems, { name: 'reason', label: t.text('refunds.reason'), value: values.reason })}
${field(t, problems, { name: 'code', label: t.text('payoutAddresses.code'), required: true, autocomplete: 'one-time-code', inputmode: 'numeric' })}
<button class="primary" type="submit">${t.text('refunds.submit')}</button></form></section>`;
}

export const transaction: PageHandler = async (request) => transactionPage(request);

/** The transaction's signed receipt as a file, for the user's own merchant only (another's is a 404 page). */
export const transactionReceipt: PageHandler = async (request) => {
  const { user } = signedInUser(request);
  const id = request.params.transactionId ?? '';
  const receipt = await request.services.receipts.receipt(user.merchantId, id);
  return { kind: 'file', name: `receipt-${id}.jws`, contentType: 'application/jose', body: receipt };
};

const resend =
  (kind: 'invoices' | 'transactions'): PageHandler =>
  async (request) => {
    const { context, services, params } = request;
    const signedIn = signedInUser(request);
    const id = (kind === 'invoices' ? params.invoiceId : params.transactionId) ?? '';
    if (kind === 'invoices') await services.callbacks.resendInvoiceEvent(signedIn.user.merchantId, id);
    else await services.callbacks.resend(signedIn.user.merchantId, id);
    await services.access.record(signedIn, 'callback.resent', id);
    // From the callbacks page, back to it.
    return redirect(dashboardUrl(context, request.form.from === 'callbacks' ? 'callbacks' : `${kind}/${id}`, { done: 'resent' }));
  };

export const resendInvoiceEvent = resend('invoices');
export const resendTransactionCallback = resend('transactions');

/**
 * A day of the form as the API's bound: its first instant, or with `end` its last, but no later
 * than `now`: the API refuses an end in the future, and a report up to today runs up to now.
 */
export function dayBound(day: string | undefined, end: boolean, now: Date): string | undefined {
  if (!day || !/^\d{4}-\d{2}-\d{2}$/.test(day)) return day || undefined;
  const bound = `${day}T${end ? '23:59:59.999' : '00:00:00.000'}Z`;
  return end && Date.parse(bound) > now.getTime() ? now.toISOString() : bound;
}

const REPORT_TONES = { pending: 'waiting', ready: 'done', failed: 'ended' } as const satisfies Record<ReportSummary['status'], Tone>;

async function reportsPage(request: PageRequest, problems: FormProblems, values: Record<string, string>, told?: DashboardKey): Promise<DashboardAnswer> {
  const { context, services } = request;
  const { t } = context;
  const { user, session } = signedInUser(request);
  const recent = await services.reports.recent(user.merchantId);
  const rows = recent.map((report) => [
    t.text(`reports.type.${report.type}`),
    badge(t.text(`status.report.${report.status}`), REPORT_TONES[report.status]),
    report.rows === null ? '' : t.number(report.rows),
    t.dateTime(report.createdAt),
    report.status === 'ready' ? html`<a href="${dashboardUrl(context, `reports/${report.id}/download`)}">${t.text('reports.download')}</a>` : '',
  ]);
  const form = can(session.role, 'reports')
    ? html`<section><h2>${t.text('reports.request')}</h2>${problemSummary(t, problems)}<form class="stack" method="post" action="${dashboardUrl(context, 'reports')}">${csrfField(context)}
<label for="field-type">${t.text('reports.type')}</label><select id="field-type" name="type">${REPORT_TYPES.map((type) => html`<option value="${type}"${values.type === type ? raw(' selected') : ''}>${t.text(`reports.type.${type}`)}</option>`)}</select>
${field(t, problems, { name: 'createdFrom', label: t.text('reports.from'), type: 'date', value: values.createdFrom, required: true })}
${field(t, problems, { name: 'createdTo', label: t.text('reports.to'), type: 'date', value: values.createdTo, required: true })}
<label for="field-currency">${t.text('reports.currency')}</label><select id="field-currency" name="currency"><option value="">${t.text('list.all')}</option>${BALANCE_CURRENCIES.map((currency) => html`<option value="${currency}"${values.currency === currency ? raw(' selected') : ''}>${currency}</option>`)}</select>
<button class="primary" type="submit">${t.text('reports.submit')}</button></form></section>`
    : html``;
  const columns: Column[] = [
    { heading: t.text('reports.type'), brief: true },
    { heading: t.text('list.status'), brief: true },
    { heading: t.text('reports.rows'), numeric: true },
    { heading: t.text('list.created'), brief: true },
    { heading: t.text('reports.download') },
  ];
  const main = html`${told ? notice(t.text(told)) : ''}${form}<section><h2>${t.text('reports.recent')}</h2>${listing(columns, rows, t.text('reports.none'))}</section>`;
  return page(context, t.text('reports.title'), main, { status: problems.size > 0 ? 422 : 200 });
}

export const reports: PageHandler = async (request) => reportsPage(request, NO_PROBLEMS, {}, request.query.done === 'requested' ? 'reports.requested' : undefined);

/** The form's days become the API's bounds; the API's schema and rules judge them. */
export const requestReport: PageHandler = async (request) => {
  const { context, services, form } = request;
  const signedIn = signedInUser(request);
  const now = services.clock();
  const parsed = createReportRequestSchema.safeParse({
    type: form.type,
    createdFrom: dayBound(form.createdFrom, false, now),
    createdTo: dayBound(form.createdTo, true, now),
    ...(form.currency && { currency: form.currency }),
  });
  if (!parsed.success) return reportsPage(request, zodProblems(parsed.error), form);
  let id: string;
  try {
    ({ id } = await services.reports.create(signedIn.user.merchantId, parsed.data));
  } catch (error) {
    if (error instanceof Invalid) return reportsPage(request, ruleProblems(error.problems), form);
    throw error;
  }
  await services.access.record(signedIn, 'report.requested', id);
  return redirect(dashboardUrl(context, 'reports', { done: 'requested' }));
};

export const downloadReport: PageHandler = async (request) => {
  const { context, services, params } = request;
  const { user } = signedInUser(request);
  const report = await services.reports.view(user.merchantId, params.reportId ?? '');
  return redirect(report.url ?? dashboardUrl(context, 'reports'));
};
