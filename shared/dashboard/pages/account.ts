/** The merchant's account: settings and the callback secret, API keys, users and the audit log. */
import { can, DASHBOARD_ROLES, invitationRequestSchema, keyScopesOf } from '../../domain/dashboard/index.js';
import { API_KEY_SCOPES, type IssuedApiKey, merchantSettingsRequestSchema, newApiKeyRequestSchema } from '../../domain/merchants/index.js';
import { Conflict, Invalid } from '../../domain/kernel/index.js';
import { html, raw, type Html } from '../../http/html.js';
import { csrfField, dashboardUrl } from '../document.js';
import { badge, type Column, listing, notice, page } from '../parts.js';
import { field, NO_PROBLEMS, problemSummary, ruleProblems, zodProblems, type FormProblems } from '../forms.js';
import { redirect, signedInUser, type DashboardAnswer, type PageHandler, type PageRequest } from '../page.js';

/**
 * The settings form's fields as the API's request: an empty URL or threshold is none; origins one
 * per line. The payouts' approval threshold is an owner's to change: another role's form leaves it be.
 */
function settingsRequestOf(form: Record<string, string>, setsPayouts: boolean): Record<string, unknown> {
  const url = (value: string | undefined) => (value === undefined || value.trim() === '' ? null : value.trim());
  return {
    ...(setsPayouts && { payoutApprovalAboveUsd: url(form.payoutApprovalAboveUsd) }),
    callbackUrl: url(form.callbackUrl),
    returnUrl: url(form.returnUrl),
    frameAncestors: (form.frameAncestors ?? '')
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter((line) => line !== ''),
    invoiceCallbacks: form.invoiceCallbacks === 'on',
  };
}

const URL_FIELDS = ['callbackUrl', 'returnUrl'];

async function settingsPage(request: PageRequest, options: { problems?: FormProblems; values?: Record<string, string>; top?: Html; status?: number } = {}): Promise<DashboardAnswer> {
  const { context, services } = request;
  const { t } = context;
  // Read once for the request by the router; a change redirects to a page that reads it again.
  const { session, merchant } = signedInUser(request);
  const problems = options.problems ?? NO_PROBLEMS;
  // A form sent back keeps what was typed; a field its user may not change (and so did not send) shows what is saved.
  const saved: Record<string, string> = {
    callbackUrl: merchant.callbackUrl ?? '',
    returnUrl: merchant.returnUrl ?? '',
    frameAncestors: merchant.frameAncestors.join('\n'),
    ...(merchant.invoiceCallbacks && { invoiceCallbacks: 'on' }),
    payoutApprovalAboveUsd: merchant.payoutApprovalAboveUsd ?? '',
  };
  const values: Record<string, string> = options.values ? { payoutApprovalAboveUsd: saved.payoutApprovalAboveUsd ?? '', ...options.values } : saved;
  const editable = can(session.role, 'settings');
  const setsPayouts = can(session.role, 'payouts');
  const form = html`<section>${problemSummary(t, problems)}<form class="stack" method="post" action="${dashboardUrl(context, 'settings')}">${csrfField(context)}<fieldset class="plain"${editable ? '' : raw(' disabled')}>
${field(t, problems, { name: 'callbackUrl', label: t.text('settings.callbackUrl'), type: 'url', value: values.callbackUrl })}
${field(t, problems, { name: 'returnUrl', label: t.text('settings.returnUrl'), type: 'url', value: values.returnUrl })}
${field(t, problems, { name: 'frameAncestors', label: t.text('settings.frameAncestors'), type: 'textarea', value: values.frameAncestors })}
<p class="check"><input id="field-invoiceCallbacks" name="invoiceCallbacks" type="checkbox"${values.invoiceCallbacks === 'on' ? raw(' checked') : ''}><label for="field-invoiceCallbacks">${t.text('settings.invoiceCallbacks')}</label></p>
<fieldset class="plain"${setsPayouts ? '' : raw(' disabled')}>${field(t, problems, { name: 'payoutApprovalAboveUsd', label: t.text('settings.payoutApprovalAboveUsd'), value: values.payoutApprovalAboveUsd })}</fieldset>
${editable ? html`<button class="primary" type="submit">${t.text('settings.save')}</button>` : ''}</fieldset></form></section>`;
  const secret = editable
    ? html`<section><h2>${t.text('settings.secretTitle')}</h2><p>${t.text('settings.secretIntro', { hours: Math.round(services.account.secretOverlapSeconds / 3600) })}</p><form method="post" action="${dashboardUrl(context, 'settings/rotate-secret')}">${csrfField(context)}<button class="secondary" type="submit">${t.text('settings.rotate')}</button></form></section>`
    : html``;
  return page(context, t.text('settings.title'), html`${options.top ?? ''}${form}${secret}`, { status: options.status ?? (problems.size > 0 ? 422 : 200) });
}

export const settings: PageHandler = async (request) => settingsPage(request, { top: request.query.done === 'saved' ? notice(request.context.t.text('settings.saved')) : undefined });

/** The same schema and rules as `PATCH /api/v2/merchant`. */
export const saveSettings: PageHandler = async (request) => {
  const { context, services, form } = request;
  const signedIn = signedInUser(request);
  const parsed = merchantSettingsRequestSchema.safeParse(settingsRequestOf(form, can(signedIn.session.role, 'payouts')));
  if (!parsed.success) return settingsPage(request, { problems: zodProblems(parsed.error), values: form });
  try {
    await services.account.update(signedIn.user.merchantId, parsed.data);
  } catch (error) {
    if (error instanceof Invalid) return settingsPage(request, { problems: ruleProblems(error.problems, URL_FIELDS), values: form });
    throw error;
  }
  await services.access.record(signedIn, 'settings.updated');
  return redirect(dashboardUrl(context, 'settings', { done: 'saved' }));
};

/** The new secret is shown in this answer alone: it is not stored in clear, and the page is not cached. */
export const rotateSecret: PageHandler = async (request) => {
  const { context, services } = request;
  const signedIn = signedInUser(request);
  const rotated = await services.account.rotateCallbackSecret(signedIn.user.merchantId);
  await services.access.record(signedIn, 'callback_secret.rotated');
  return settingsPage(request, { top: notice(html`${context.t.text('settings.newSecret')} <code>${rotated.callbackSecret}</code>`) });
};

/**
 * The form's fields of a new key: a checkbox per scope (`scope-read`), the addresses one per line
 * or comma-separated. Every scope checked is asked for, offered or not: one beyond the role's
 * reach is refused by the service rather than dropped unseen.
 */
function keyRequestOf(form: Record<string, string>): Record<string, unknown> {
  const allowedIps = (form.allowedIps ?? '').split(/[\s,]+/).filter((entry) => entry !== '');
  return { name: form.name ?? '', scopes: API_KEY_SCOPES.filter((scope) => form[`scope-${scope}`] === 'on'), allowedIps };
}

async function keysPage(request: PageRequest, options: { problems?: FormProblems; values?: Record<string, string>; top?: Html } = {}): Promise<DashboardAnswer> {
  const { context, services } = request;
  const { t } = context;
  const { user, session } = signedInUser(request);
  const manages = can(session.role, 'keys');
  const reach = keyScopesOf(session.role);
  const problems = options.problems ?? NO_PROBLEMS;
  // A new form offers every scope the role may give, checked.
  const values = options.values ?? Object.fromEntries(reach.map((scope) => [`scope-${scope}`, 'on']));
  const keys = await services.keys.list(user.merchantId);
  const rows = keys.map((key) => [
    key.name ?? '',
    html`<span class="mono">${key.hint}</span>`,
    key.scopes.join(', '),
    html`<span class="mono">${key.allowedIps.length === 0 ? t.text('keys.anyAddress') : key.allowedIps.join(', ')}</span>`,
    t.dateTime(key.createdAt),
    key.lastUsedAt ? t.dateTime(key.lastUsedAt) : t.text('keys.never'),
    // A revoked key's state says when, too long for a badge.
    key.status === 'active' ? badge(t.text('keys.active'), 'done') : t.text('keys.revoked', { date: key.revokedAt ? t.dateTime(key.revokedAt) : '' }),
    manages && key.status === 'active'
      ? html`<form method="post" action="${dashboardUrl(context, `keys/${key.id}/revoke`)}">${csrfField(context)}<button class="danger" type="submit" aria-label="${t.text('keys.revoke')} ${key.name ?? key.hint}">${t.text('keys.revoke')}</button></form>`
      : '',
  ]);
  const scopeProblem = problems.get('scopes');
  const scopeChoices = html`<fieldset class="plain"${scopeProblem ? raw(' aria-describedby="field-scopes-problem"') : ''}><legend>${t.text('keys.scopes')}</legend>${reach.map(
    (scope) =>
      html`<p class="check"><input id="field-scope-${scope}" name="scope-${scope}" type="checkbox"${values[`scope-${scope}`] === 'on' ? raw(' checked') : ''}><label for="field-scope-${scope}"><span class="mono">${scope}</span>: ${t.text(`keys.scope.${scope}`)}</label></p>`,
  )}${scopeProblem ? html`<p class="error" id="field-scopes-problem">${t.text(scopeProblem)}</p>` : ''}</fieldset>`;
  const create = manages
    ? html`<section><h2>${t.text('keys.create')}</h2>${problemSummary(t, problems)}<form class="stack" method="post" action="${dashboardUrl(context, 'keys')}">${csrfField(context)}${field(t, problems, { name: 'name', label: t.text('keys.name'), value: values.name, required: true })}${scopeChoices}${field(t, problems, { name: 'allowedIps', label: t.text('keys.allowedIps'), type: 'textarea', value: values.allowedIps })}<p class="hint">${t.text('keys.allowedIpsHint')}</p><button class="primary" type="submit">${t.text('keys.create')}</button></form></section>`
    : html``;
  const main = html`${options.top ?? ''}${create}<section>${listing(
    [
      { heading: t.text('keys.name'), brief: true },
      { heading: t.text('keys.hint') },
      { heading: t.text('keys.scopes') },
      { heading: t.text('keys.allowedIps') },
      { heading: t.text('keys.created') },
      { heading: t.text('keys.lastUsed') },
      { heading: t.text('list.status') },
      { heading: t.text('keys.revoke') },
    ],
    rows,
    t.text('keys.none'),
  )}</section>`;
  return page(context, t.text('keys.title'), main, { status: problems.size > 0 ? 422 : 200 });
}

export const keys: PageHandler = async (request) => keysPage(request, { top: request.query.done === 'revoked' ? notice(request.context.t.text('keys.revokedNotice')) : undefined });

/**
 * The key's text is shown in this answer alone: only its digest is kept. It is given only scopes
 * the user's role may give (docs/merchant-guide.md#key-scopes); the service refuses any other.
 */
export const createKey: PageHandler = async (request) => {
  const { context, services, form } = request;
  const signedIn = signedInUser(request);
  const reach = keyScopesOf(signedIn.session.role);
  const parsed = newApiKeyRequestSchema.safeParse(keyRequestOf(form));
  if (!parsed.success) return keysPage(request, { problems: zodProblems(parsed.error), values: form });
  let issued: IssuedApiKey;
  try {
    issued = await services.keys.issue(signedIn.user.merchantId, parsed.data, reach);
  } catch (error) {
    if (error instanceof Invalid) return keysPage(request, { problems: ruleProblems(error.problems), values: form });
    throw error;
  }
  await services.access.record(signedIn, 'api_key.created', `${parsed.data.name} (${issued.key.id}; ${issued.key.scopes.join(' ')})`);
  return keysPage(request, { top: notice(html`${context.t.text('keys.newKey')} <code>${issued.apiKey}</code>`) });
};

export const revokeKey: PageHandler = async (request) => {
  const { context, services, params } = request;
  const signedIn = signedInUser(request);
  await services.keys.revoke(signedIn.user.merchantId, params.keyId ?? '');
  await services.access.record(signedIn, 'api_key.revoked', params.keyId);
  return redirect(dashboardUrl(context, 'keys', { done: 'revoked' }));
};

async function usersPage(request: PageRequest, options: { problems?: FormProblems; values?: Record<string, string>; top?: Html } = {}): Promise<DashboardAnswer> {
  const { context, services } = request;
  const { t } = context;
  const { user, session } = signedInUser(request);
  const manages = can(session.role, 'users');
  const problems = options.problems ?? NO_PROBLEMS;
  const users = await services.access.users(user.merchantId);
  const rows = users.map((each) => [
    each.email,
    t.text(`role.${each.role}`),
    t.text(each.totpSecret === undefined ? 'users.no' : 'users.yes'),
    t.dateTime(each.createdAt),
    manages && each.email !== user.email
      ? html`<form method="post" action="${dashboardUrl(context, `users/${encodeURIComponent(each.email)}/remove`)}">${csrfField(context)}<button class="danger" type="submit" aria-label="${t.text('users.remove')} ${each.email}">${t.text('users.remove')}</button></form>`
      : '',
  ]);
  const values = options.values ?? {};
  const invite = manages
    ? html`<section><h2>${t.text('users.invite')}</h2>${problemSummary(t, problems)}<form class="stack" method="post" action="${dashboardUrl(context, 'users')}">${csrfField(context)}${field(t, problems, { name: 'email', label: t.text('users.email'), type: 'email', value: values.email, required: true })}
<label for="field-role">${t.text('users.role')}</label><select id="field-role" name="role">${DASHBOARD_ROLES.map((role) => html`<option value="${role}"${(values.role ?? 'viewer') === role ? raw(' selected') : ''}>${t.text(`role.${role}`)}</option>`)}</select>
<button class="primary" type="submit">${t.text('users.inviteSubmit')}</button></form></section>`
    : html``;
  const main = html`${options.top ?? ''}${invite}<section>${listing(
    [t.text('users.email'), t.text('users.role'), t.text('users.secondFactor'), t.text('users.since'), t.text('users.remove')].map((heading, index) => ({ heading, brief: index === 0 })),
    rows,
    '',
  )}</section>`;
  return page(context, t.text('users.title'), main, { status: problems.size > 0 ? 422 : 200 });
}

export const users: PageHandler = async (request) => usersPage(request, { top: request.query.done === 'removed' ? notice(request.context.t.text('users.removed')) : undefined });

/** The link is shown to the owner who invites, to hand on: the gateway sends no e-mail. */
export const inviteUser: PageHandler = async (request) => {
  const { context, services, form } = request;
  const signedIn = signedInUser(request);
  const parsed = invitationRequestSchema.safeParse({ email: form.email, role: form.role });
  if (!parsed.success) return usersPage(request, { problems: zodProblems(parsed.error), values: form });
  let invited: Awaited<ReturnType<typeof services.access.invite>>;
  try {
    invited = await services.access.invite(signedIn.user.merchantId, parsed.data, signedIn.user.email);
  } catch (error) {
    if (error instanceof Conflict) return usersPage(request, { problems: new Map([['email', 'problem.taken']]), values: form });
    throw error;
  }
  const link = dashboardUrl({ ...context, language: { ...context.language, explicit: false } }, `join/${invited.token}`);
  return usersPage(request, {
    top: notice(html`${context.t.text('users.invited', { email: invited.invitation.email, date: context.t.dateTime(invited.invitation.expiresAt) })} <code>${link}</code>`),
  });
};

export const removeUser: PageHandler = async (request) => {
  const { context, services, params } = request;
  await services.access.removeUser(signedInUser(request), params.email ?? '');
  return redirect(dashboardUrl(context, 'users', { done: 'removed' }));
};

export const audit: PageHandler = async (request) => {
  const { context, services } = request;
  const { t } = context;
  const { user } = signedInUser(request);
  const entries = await services.access.auditLog(user.merchantId);
  const rows = entries.map((entry) => [t.dateTime(entry.at), entry.actor, html`<code>${entry.action}</code>`, entry.subject ?? '']);
  const columns: Column[] = [t.text('audit.at'), t.text('audit.actor'), t.text('audit.action'), t.text('audit.subject')].map((heading, index) => ({ heading, brief: index === 0 }));
  return page(context, t.text('audit.title'), listing(columns, rows, t.text('audit.none')));
};
