/**
 * The payout addresses (docs/merchant-guide.md#payout-addresses): every role reads them; an owner
 * adds one, confirmed with a fresh code of their authenticator app, and removes one. The audit
 * entry is written with each change, by the service.
 */
import { can } from '../../domain/dashboard/index.js';
import { CRYPTO_NETWORKS, Conflict, Invalid } from '../../domain/kernel/index.js';
import { newPayoutAddressRequestSchema } from '../../domain/payouts/index.js';
import { html, raw, type Html } from '../../http/html.js';
import { csrfField, dashboardUrl, type DashboardContext } from '../document.js';
import { CODE_PROBLEMS, field, NO_PROBLEMS, problemSummary, zodProblems, type FormProblems } from '../forms.js';
import type { DashboardKey } from '../language.js';
import { badge, type Column, listing, notice, page } from '../parts.js';
import { redirect, signedInUser, type DashboardAnswer, type PageHandler, type PageRequest } from '../page.js';

/** How long a new address waits, in words: none, whole hours, or seconds. */
function delayText({ t }: DashboardContext, seconds: number): string {
  if (seconds === 0) return t.text('payoutAddresses.delayNone');
  if (seconds % 3600 === 0) return t.text('payoutAddresses.delayHours', { hours: t.number(seconds / 3600) });
  return t.text('payoutAddresses.delaySeconds', { seconds: t.number(seconds) });
}

async function addressesPage(request: PageRequest, options: { problems?: FormProblems; values?: Record<string, string>; top?: Html; status?: number } = {}): Promise<DashboardAnswer> {
  const { context, services } = request;
  const { t } = context;
  const { user, session, merchant } = signedInUser(request);
  const manages = can(session.role, 'payouts');
  const problems = options.problems ?? NO_PROBLEMS;
  const values = options.values ?? {};
  const { items } = await services.payoutAddresses.list(user.merchantId);
  const rows = items.map((address) => {
    const cells = [
      address.label ?? '',
      html`<code>${address.network}</code>`,
      html`<span class="mono long">${address.address}</span>`,
      badge(t.text(`payoutAddresses.status.${address.status}`), address.status === 'active' ? 'done' : 'waiting'),
      t.dateTime(address.activatesAt),
      t.dateTime(address.createdAt),
    ];
    const remove = html`<form method="post" action="${dashboardUrl(context, `payout-addresses/${address.id}/remove`)}">${csrfField(context)}<button class="danger" type="submit" aria-label="${t.text('payoutAddresses.remove')} ${address.label ?? address.address}">${t.text('payoutAddresses.remove')}</button></form>`;
    return manages ? [...cells, remove] : cells;
  });
  const columns: Column[] = [
    { heading: t.text('payoutAddresses.label'), brief: true },
    { heading: t.text('payoutAddresses.network'), brief: true },
    { heading: t.text('payoutAddresses.address') },
    { heading: t.text('list.status'), brief: true },
    { heading: t.text('payoutAddresses.activatesAt') },
    { heading: t.text('payoutAddresses.created') },
    ...(manages ? [{ heading: t.text('payoutAddresses.remove') }] : []),
  ];
  const networkProblem = problems.get('network');
  const add = manages
    ? html`<section><h2>${t.text('payoutAddresses.add')}</h2>${problemSummary(t, problems)}<form class="stack" method="post" action="${dashboardUrl(context, 'payout-addresses')}">${csrfField(context)}
<label for="field-network">${t.text('payoutAddresses.network')}</label><select id="field-network" name="network"${networkProblem ? raw(' aria-invalid="true" aria-describedby="field-network-problem"') : ''}>${CRYPTO_NETWORKS.map((network) => html`<option value="${network}"${values.network === network ? raw(' selected') : ''}>${network}</option>`)}</select>${networkProblem ? html`<p class="error" id="field-network-problem">${t.text(networkProblem)}</p>` : ''}
${field(t, problems, { name: 'address', label: t.text('payoutAddresses.address'), value: values.address, required: true })}
${field(t, problems, { name: 'label', label: t.text('payoutAddresses.labelOptional'), value: values.label })}
${field(t, problems, { name: 'code', label: t.text('payoutAddresses.code'), required: true, autocomplete: 'one-time-code', inputmode: 'numeric' })}
<button class="primary" type="submit">${t.text('payoutAddresses.submit')}</button></form></section>`
    : html``;
  const main = html`${options.top ?? ''}<p>${t.text('payoutAddresses.intro')} ${delayText(context, merchant.payoutAddressDelaySeconds)}</p>${add}<section><h2>${t.text('payoutAddresses.list')}</h2>${listing(columns, rows, t.text('payoutAddresses.none'))}</section>`;
  return page(context, t.text('payoutAddresses.title'), main, { status: options.status ?? (problems.size > 0 ? 422 : 200) });
}

const DONE: Record<string, DashboardKey> = { added: 'payoutAddresses.added', removed: 'payoutAddresses.removed' };

export const payoutAddresses: PageHandler = async (request) => {
  const done = request.query.done;
  return addressesPage(request, { top: done && Object.hasOwn(DONE, done) ? notice(request.context.t.text(DONE[done]!)) : undefined });
};

/**
 * The address is checked by the same rules as the operator's, and added only with a fresh code of
 * the owner's app: one not taken before, by a sign-in or another change. A refused form changes
 * nothing and takes no code.
 */
export const addPayoutAddress: PageHandler = async (request) => {
  const { context, services, form } = request;
  const signedIn = signedInUser(request);
  const parsed = newPayoutAddressRequestSchema.safeParse({ network: form.network, address: form.address ?? '', ...(form.label?.trim() && { label: form.label }) });
  const problems = new Map<string, DashboardKey>(parsed.success ? [] : zodProblems(parsed.error));
  const typed = form.code?.trim() ?? '';
  const code = typed === '' ? 'missing' : await services.access.freshCode(signedIn, typed);
  if (typeof code === 'string') problems.set('code', CODE_PROBLEMS[code]);
  if (!parsed.success || typeof code === 'string') return addressesPage(request, { problems, values: form });
  try {
    await services.payoutAddresses.add(signedIn.user.merchantId, parsed.data, code);
  } catch (error) {
    if (error instanceof Conflict) return addressesPage(request, { problems: new Map([['address', 'problem.address_taken']]), values: form, status: 409 });
    if (error instanceof Invalid) {
      const refused = new Map(error.problems.map(({ field }) => [field, field === 'code' ? 'problem.code_used' : 'problem.not_an_address'] as const));
      return addressesPage(request, { problems: refused, values: form });
    }
    throw error;
  }
  return redirect(dashboardUrl(context, 'payout-addresses', { done: 'added' }));
};

export const removePayoutAddress: PageHandler = async (request) => {
  const { context, services, params } = request;
  const signedIn = signedInUser(request);
  await services.payoutAddresses.remove(signedIn.user.merchantId, params.addressId ?? '', signedIn.user.email);
  return redirect(dashboardUrl(context, 'payout-addresses', { done: 'removed' }));
};
