/**
 * The payouts page (docs/merchant-guide.md#crypto-payouts): the latest payouts and the money they
 * hold, the payouts and refunds waiting for an owner's approval, and an owner's new payout: quoted first (both
 * fees, what leaves the balance, what arrives), then confirmed with a fresh code of the owner's
 * authenticator app. Approving and rejecting take a fresh code too; each is written with its audit
 * entry and the code's use, by the service.
 */
import { can, type CodeUse } from '../../domain/dashboard/index.js';
import { CRYPTO_NETWORKS, type CryptoNetwork, Decimal, InsufficientBalance, Invalid, isCryptoAsset, networksOf } from '../../domain/kernel/index.js';
import { BALANCE_CURRENCIES } from '../../domain/ledger/index.js';
import { cryptoPayoutRequestSchema, type CryptoPayoutRequest, type PayoutAddressView } from '../../domain/payouts/index.js';
import { listTransactionsQuerySchema } from '../../domain/transactions/index.js';
import { html, raw, type Html } from '../../http/html.js';
import { csrfField, dashboardUrl } from '../document.js';
import { CODE_PROBLEMS, field, NO_PROBLEMS, problemSummary, type FormProblems } from '../forms.js';
import type { DashboardKey } from '../language.js';
import { redirect, signedInUser, type DashboardAnswer, type PageHandler, type PageRequest } from '../page.js';
import { type Column, facts, idLink, listing, notice, page, pageLinks, pagePosition } from '../parts.js';
import { transactionTable } from './money.js';

/** Every crypto currency with each network that carries it, as `USDT:ethereum`. */
const ASSET_CHOICES: ReadonlyArray<{ value: string; currency: string; network: CryptoNetwork }> = BALANCE_CURRENCIES.filter(isCryptoAsset).flatMap((currency) =>
  networksOf(currency)
    .filter((network) => CRYPTO_NETWORKS.includes(network))
    .map((network) => ({ value: `${currency}:${network}`, currency, network })),
);

interface PayoutsPageOptions {
  top?: Html;
  /** The new payout form's problems and values, sent back to be put right. */
  problems?: FormProblems;
  values?: Record<string, string>;
  status?: number;
}

async function payoutsPage(request: PageRequest, options: PayoutsPageOptions = {}): Promise<DashboardAnswer> {
  const { context, services, query } = request;
  const { t } = context;
  const { user, session } = signedInUser(request);
  const owns = can(session.role, 'payouts');
  const { position } = pagePosition(query);
  const { cursor } = position;
  const [result, waiting, balances, addresses] = await Promise.all([
    services.transactions.list(user.merchantId, listTransactionsQuerySchema.parse({ type: 'withdraw', ...(cursor && { cursor }) })),
    // Payouts and refunds alike wait for an owner's approval.
    services.transactions.list(user.merchantId, listTransactionsQuerySchema.parse({ status: 'pending_approval' })),
    services.balances.view(user.merchantId),
    owns ? services.payoutAddresses.list(user.merchantId) : Promise.resolve({ items: [] }),
  ]);
  const held = balances.items.filter(({ reserved }) => !new Decimal(reserved).isZero());
  const waitingRows = waiting.items.map((payout) => {
    const amount = t.amount(payout.amount, payout.currency);
    const decide = owns
      ? html`<form class="inline" method="post" action="${dashboardUrl(context, `payouts/${payout.id}/decision`)}">${csrfField(context)}<label for="code-${payout.id}">${t.text('payouts.codeFor', { amount })}</label><input id="code-${payout.id}" name="code" required autocomplete="one-time-code" inputmode="numeric"><button class="primary" type="submit" name="decision" value="approve">${t.text('payouts.approve')}</button><button class="danger" type="submit" name="decision" value="reject">${t.text('payouts.reject')}</button></form>`
      : undefined;
    const cells = [
      idLink(context, `transactions/${payout.id}`, payout.id),
      amount,
      html`<code>${payout.network ?? ''}</code>`,
      html`<span class="mono long">${payout.address ?? ''}</span>`,
      t.dateTime(payout.createdAt),
    ];
    return decide ? [...cells, decide] : cells;
  });
  const waitingColumns: Column[] = [
    { heading: t.text('list.id'), brief: true },
    { heading: t.text('list.amount'), numeric: true },
    { heading: t.text('payoutAddresses.network') },
    { heading: t.text('payoutAddresses.address') },
    { heading: t.text('list.created'), brief: true },
    ...(owns ? [{ heading: t.text('payouts.decision') }] : []),
  ];
  const main = html`${options.top ?? ''}<p>${t.text('payouts.intro')}</p>${held.length > 0 ? html`<section><div class="stats">${held.map(({ currency, reserved }) => html`<p class="stat">${t.text('overview.reserved')}<b>${t.amount(reserved, currency)}</b></p>`)}</div></section>` : ''}
<section><h2>${t.text('payouts.waiting')}</h2>${listing(waitingColumns, waitingRows, t.text('payouts.waitingNone'))}</section>
${owns ? newPayoutForm(request, addresses.items, options.problems ?? NO_PROBLEMS, options.values ?? {}) : ''}
<section><h2>${t.text('payouts.latest')}</h2>${transactionTable(context, result)}${pageLinks(context, 'payouts', {}, position, result.nextCursor)}</section>`;
  return page(context, t.text('payouts.title'), main, { status: options.status ?? ((options.problems?.size ?? 0) > 0 ? 422 : 200) });
}

function selectField(request: PageRequest, problems: FormProblems, name: string, label: string, options: Html[]): Html {
  const { t } = request.context;
  const problem = problems.get(name);
  return html`<label for="field-${name}">${label}</label><select id="field-${name}" name="${name}" required${problem ? raw(` aria-invalid="true" aria-describedby="field-${name}-problem"`) : ''}>${options}</select>${problem ? html`<p class="error" id="field-${name}-problem">${t.text(problem)}</p>` : ''}`;
}

/** Step one: what to pay out, where to; only pairs of a currency and a network with an active address of the merchant's are offered. */
function newPayoutForm(request: PageRequest, addresses: readonly PayoutAddressView[], problems: FormProblems, values: Record<string, string>): Html {
  const { context } = request;
  const { t } = context;
  const active = addresses.filter(({ status }) => status === 'active');
  if (active.length === 0) {
    return html`<section><h2>${t.text('payouts.new')}</h2><p>${t.text('payouts.noAddresses')} <a href="${dashboardUrl(context, 'payout-addresses')}">${t.text('nav.payoutAddresses')}</a></p></section>`;
  }
  const networks = new Set(active.map(({ network }) => network));
  const assets = ASSET_CHOICES.filter(({ network }) => networks.has(network)).map(
    ({ value, currency, network }) => html`<option value="${value}"${values.asset === value ? raw(' selected') : ''}>${currency} · ${network}</option>`,
  );
  const byNetwork = [...networks].map(
    (network) =>
      html`<optgroup label="${network}">${active
        .filter((address) => address.network === network)
        .map(
          (address) =>
            html`<option value="${address.network}:${address.address}"${values.address === `${address.network}:${address.address}` ? raw(' selected') : ''}>${address.label ? `${address.label}: ` : ''}${address.address}</option>`,
        )}</optgroup>`,
  );
  return html`<section><h2>${t.text('payouts.new')}</h2>${problemSummary(t, problems)}<form class="stack" method="post" action="${dashboardUrl(context, 'payouts/quote')}">${csrfField(context)}
${selectField(request, problems, 'asset', t.text('payouts.asset'), assets)}
${selectField(request, problems, 'address', t.text('payouts.address'), byNetwork)}
${field(t, problems, { name: 'amount', label: t.text('payouts.amount'), value: values.amount, required: true, inputmode: 'text' })}
<button class="primary" type="submit">${t.text('payouts.quote')}</button></form></section>`;
}

const DONE: Record<string, DashboardKey> = {
  approved: 'payouts.approved',
  rejected: 'payouts.rejected',
  requested: 'payouts.requested',
  waiting: 'payouts.requestedWaiting',
};

export const payouts: PageHandler = async (request) => {
  const done = request.query.done;
  return payoutsPage(request, { top: done && Object.hasOwn(DONE, done) ? notice(request.context.t.text(DONE[done]!)) : undefined });
};

/** The form's payout as the API's request, or the problems of its fields (`asset`, `address`, `amount`). */
function payoutRequestOf(form: Record<string, string>): { request: CryptoPayoutRequest } | { problems: FormProblems } {
  const [currency = '', network = ''] = (form.asset ?? '').split(':');
  const separator = (form.address ?? '').indexOf(':');
  const addressNetwork = separator < 0 ? '' : form.address!.slice(0, separator);
  const address = separator < 0 ? '' : form.address!.slice(separator + 1);
  const problems = new Map<string, DashboardKey>();
  const parsed = cryptoPayoutRequestSchema.safeParse({ amount: form.amount?.trim() ?? '', currency, network, address });
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const name = String(issue.path[0] ?? '');
      const fieldName = name === 'currency' || name === 'network' ? 'asset' : name;
      if (!problems.has(fieldName)) problems.set(fieldName, fieldName === 'amount' && (form.amount ?? '').trim() === '' ? 'problem.required' : 'problem.invalid');
    }
  }
  if (addressNetwork !== network && !problems.has('address')) problems.set('address', 'problem.address_network');
  if (!parsed.success || problems.size > 0) return { problems };
  return { request: parsed.data as CryptoPayoutRequest };
}

/** The domain's refusal of a payout, beside the field it names; a short balance beside the amount. */
function refusedFields(error: unknown): FormProblems | undefined {
  if (error instanceof InsufficientBalance) return new Map([['amount', 'problem.balance']]);
  if (!(error instanceof Invalid)) return undefined;
  const problems = new Map<string, DashboardKey>();
  for (const { field: name } of error.problems) {
    const fieldName = name === 'currency' || name === 'network' ? 'asset' : name === 'address' || name === 'code' ? name : 'amount';
    if (!problems.has(fieldName)) problems.set(fieldName, fieldName === 'code' ? 'problem.code_used' : 'problem.invalid');
  }
  return problems;
}

/** Step two: the quote shown, and the payout confirmed with a fresh code; the request rides in hidden fields, quoted again when it is sent. */
async function confirmPage(request: PageRequest, payout: CryptoPayoutRequest, problems: FormProblems): Promise<DashboardAnswer> {
  const { context, services, form } = request;
  const { t } = context;
  const { user } = signedInUser(request);
  const quote = await services.payouts.quote(user.merchantId, payout);
  const { available } = (await services.balances.view(user.merchantId)).items.find(({ currency }) => currency === quote.currency) ?? { available: '0' };
  if (new Decimal(available).lessThan(quote.total)) return payoutsPage(request, { problems: new Map([['amount', 'problem.balance']]), values: form });
  const hidden = { asset: form.asset ?? '', address: form.address ?? '', amount: form.amount ?? '' };
  const main = html`${problemSummary(t, problems)}<section>${facts([
    [t.text('payouts.amount'), t.amount(quote.amount, quote.currency)],
    [t.text('payoutAddresses.network'), html`<code>${quote.network}</code>`],
    [t.text('payoutAddresses.address'), html`<span class="mono">${quote.address}</span>`],
    [t.text('transaction.processingFee'), t.amount(quote.fees.processing, quote.currency)],
    [t.text('transaction.networkFee'), quote.fees.technical === null ? '' : t.amount(quote.fees.technical, quote.currency)],
    [t.text('payouts.total'), html`<b>${t.amount(quote.total, quote.currency)}</b>`],
    [t.text('payouts.arrives'), html`<b>${t.amount(quote.arrives, quote.currency)}</b>`],
  ])}${quote.waitsForApproval ? html`<p>${t.text('payouts.waitsNote')}</p>` : ''}</section>
<section><form class="stack" method="post" action="${dashboardUrl(context, 'payouts/new')}">${csrfField(context)}${Object.entries(hidden).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
${field(t, problems, { name: 'code', label: t.text('payoutAddresses.code'), required: true, autocomplete: 'one-time-code', inputmode: 'numeric' })}
<button class="primary" type="submit">${t.text('payouts.confirm')}</button></form><p><a href="${dashboardUrl(context, 'payouts')}">${t.text('payouts.change')}</a></p></section>`;
  return page(context, t.text('payouts.confirmTitle'), main, { status: problems.size > 0 ? 422 : 200 });
}

/** Step one's answer: the payout quoted, to be confirmed; or the form again, its problems beside their fields. */
export const quotePayout: PageHandler = async (request) => {
  const parsed = payoutRequestOf(request.form);
  if ('problems' in parsed) return payoutsPage(request, { problems: parsed.problems, values: request.form });
  try {
    return await confirmPage(request, parsed.request, NO_PROBLEMS);
  } catch (error) {
    const problems = refusedFields(error);
    if (!problems) throw error;
    return payoutsPage(request, { problems, values: request.form });
  }
};

/**
 * Step two: the payout written with the code's use, so that the same code sent again (a double
 * submit, a reload) is refused and asks for nothing twice. A refused code takes nothing.
 */
export const createPayout: PageHandler = async (request) => {
  const { context, services, form } = request;
  const signedIn = signedInUser(request);
  const parsed = payoutRequestOf(form);
  if ('problems' in parsed) return payoutsPage(request, { problems: parsed.problems, values: form });
  const typed = form.code?.trim() ?? '';
  const code = typed === '' ? 'missing' : await services.access.freshCode(signedIn, typed);
  if (typeof code === 'string') return confirmPage(request, parsed.request, new Map([['code', CODE_PROBLEMS[code]]]));
  let status: string;
  try {
    ({ status } = await services.payouts.create(signedIn.user.merchantId, parsed.request, code));
  } catch (error) {
    const problems = refusedFields(error);
    if (!problems) throw error;
    if (problems.has('code')) return confirmPage(request, parsed.request, problems);
    return payoutsPage(request, { problems, values: form });
  }
  return redirect(dashboardUrl(context, 'payouts', { done: status === 'pending_approval' ? 'waiting' : 'requested' }));
};

/** An owner's approval or rejection of a payout waiting for one, with a fresh code; a refused code changes nothing. */
export const decidePayout: PageHandler = async (request) => {
  const { context, services, form, params } = request;
  const { t } = context;
  const signedIn = signedInUser(request);
  const decision = form.decision;
  if (decision !== 'approve' && decision !== 'reject') return payoutsPage(request, { top: html`<p class="alert" role="alert">${t.text('problem.invalid')}</p>`, status: 422 });
  const typed = form.code?.trim() ?? '';
  const code: CodeUse | keyof typeof CODE_PROBLEMS = typed === '' ? 'missing' : await services.access.freshCode(signedIn, typed);
  const refused = (key: DashboardKey) => payoutsPage(request, { top: html`<p class="alert" role="alert">${t.text(key)}</p>`, status: 422 });
  if (typeof code === 'string') return refused(CODE_PROBLEMS[code]);
  try {
    await services.payouts.decide(signedIn.user.merchantId, params.transactionId ?? '', decision, code);
  } catch (error) {
    if (error instanceof Invalid) return refused('problem.code_used');
    throw error;
  }
  return redirect(dashboardUrl(context, 'payouts', { done: decision === 'approve' ? 'approved' : 'rejected' }));
};
