/** Getting in and out: sign-in, taking an invitation (password, second factor, recovery codes), signing out. */
import { qrCodeDataUri } from '../../checkout/qr-code.js';
import { clearedSessionCookie, cookieScopeOf, requiresSecondFactor, sessionCookie, totpUri } from '../../domain/dashboard/index.js';
import { html } from '../../http/html.js';
import { dashboardDocument, dashboardUrl, type DashboardContext } from '../document.js';
import { field, NO_PROBLEMS, problemSummary, type FormProblems } from '../forms.js';
import { redirect, signedInUser, type DashboardAnswer, type PageHandler, type PageRequest } from '../page.js';

/** The name authenticator apps show beside the account. */
const TOTP_ISSUER = 'Payment Gateway';

const SIGN_IN_NOTICES = { expired: 'signIn.expired', 'signed-out': 'signIn.signedOut' } as const;

function signInPage(context: DashboardContext, { email = '', failed = false, reason }: { email?: string; failed?: boolean; reason?: string }, headers?: Record<string, string>): DashboardAnswer {
  const { t } = context;
  const notice = reason && Object.hasOwn(SIGN_IN_NOTICES, reason) ? SIGN_IN_NOTICES[reason as keyof typeof SIGN_IN_NOTICES] : undefined;
  const main = html`${failed ? html`<p class="alert" role="alert">${t.text('signIn.failed')}</p>` : ''}${notice ? html`<p class="notice">${t.text(notice)}</p>` : ''}
<section><form class="stack" method="post" action="${dashboardUrl(context, 'sign-in')}">
${field(t, NO_PROBLEMS, { name: 'email', label: t.text('signIn.email'), type: 'email', value: email, required: true, autocomplete: 'username' })}
${field(t, NO_PROBLEMS, { name: 'password', label: t.text('signIn.password'), type: 'password', required: true, autocomplete: 'current-password' })}
${field(t, NO_PROBLEMS, { name: 'code', label: t.text('signIn.code'), autocomplete: 'one-time-code' })}
<button class="primary" type="submit">${t.text('signIn.submit')}</button></form></section>`;
  return { kind: 'page', page: dashboardDocument(context, { status: failed ? 401 : 200, title: t.text('signIn.title'), main, headers }) };
}

export const showSignIn: PageHandler = async ({ context, query }) => signInPage(context, { reason: query.reason });

/** Every refusal reads the same (docs/merchant-guide.md#dashboard): the address is kept, nothing else is said. */
export const signIn: PageHandler = async ({ context, services, form }) => {
  const signedIn = await services.access.signIn(form.email ?? '', form.password ?? '', form.code ?? '');
  if (!signedIn) return signInPage(context, { email: form.email, failed: true });
  return redirect(dashboardUrl(context, 'overview'), { 'set-cookie': sessionCookie(signedIn.sessionToken, cookieScopeOf(context.publicBaseUrl)) });
};

export const signOut: PageHandler = async (request) => {
  const { context, services, form } = request;
  const signedIn = signedInUser(request);
  if (form.everywhere === 'yes') await services.access.signOutEverywhere(signedIn);
  else await services.access.signOut(signedIn.session);
  return redirect(dashboardUrl(context, 'sign-in', { reason: 'signed-out' }), { 'set-cookie': clearedSessionCookie(cookieScopeOf(context.publicBaseUrl)) });
};

const invalidInvitation = (context: DashboardContext): DashboardAnswer => ({
  kind: 'page',
  page: dashboardDocument(context, { status: 404, title: context.t.text('error.notFound'), main: html`<p>${context.t.text('join.invalid')}</p>` }),
});

async function joinPage(request: PageRequest, secret: string, problems: FormProblems): Promise<DashboardAnswer> {
  const { context, services, params } = request;
  const { t } = context;
  const invitation = await services.access.invitation(params.token ?? '');
  if (!invitation) return invalidInvitation(context);
  const merchant = await services.account.view(invitation.merchantId);
  const required = requiresSecondFactor(invitation.role);
  const qr = await qrCodeDataUri(totpUri(secret, TOTP_ISSUER, invitation.email));
  const main = html`${problemSummary(t, problems)}<p>${t.text('join.intro', { merchant: merchant.name, role: t.text(`role.${invitation.role}`), email: invitation.email })}</p>
<section><form class="stack" method="post" action="${dashboardUrl(context, `join/${params.token}`)}">
<input type="hidden" name="email" value="${invitation.email}" autocomplete="username">
${field(t, problems, { name: 'password', label: t.text('join.password'), type: 'password', required: true, autocomplete: 'new-password' })}
${field(t, problems, { name: 'passwordAgain', label: t.text('join.passwordAgain'), type: 'password', required: true, autocomplete: 'new-password' })}
<h2>${t.text('join.totpTitle')}</h2><p>${t.text(required ? 'join.totpRequired' : 'join.totpOptional')}</p>
<img class="qr" src="${qr}" alt="${t.text('join.totpQr')}" width="200" height="200"><p class="mono">${t.text('join.totpKey', { key: secret })}</p>
<input type="hidden" name="totpSecret" value="${secret}">
${field(t, problems, { name: 'code', label: t.text('join.code'), required, autocomplete: 'one-time-code', inputmode: 'numeric' })}
<button class="primary" type="submit">${t.text('join.submit')}</button></form></section>`;
  return { kind: 'page', page: dashboardDocument(context, { status: problems.size > 0 ? 422 : 200, title: t.text('join.title', { merchant: merchant.name }), main }) };
}

export const showJoin: PageHandler = async (request) => joinPage(request, request.services.access.newTotpSecret(), NO_PROBLEMS);

/** The seed comes back with the form (the page showed it); a seed that is not base32 simply matches no code. */
export const join: PageHandler = async (request) => {
  const { context, services, params, form } = request;
  const { t } = context;
  if (!(await services.access.invitation(params.token ?? ''))) return invalidInvitation(context);
  const secret = /^[A-Z2-7]{32}$/.test(form.totpSecret ?? '') ? form.totpSecret! : services.access.newTotpSecret();
  const outcome = await services.access.join(params.token ?? '', { password: form.password ?? '', passwordAgain: form.passwordAgain ?? '', totpSecret: secret, code: form.code });
  if ('problems' in outcome) {
    const problems = new Map(outcome.problems.map((problem) => [problem === 'passwords_differ' ? 'passwordAgain' : problem.startsWith('code') ? 'code' : 'password', `problem.${problem}` as const]));
    return joinPage(request, secret, problems);
  }
  const cookie = { 'set-cookie': sessionCookie(outcome.sessionToken, cookieScopeOf(context.publicBaseUrl)) };
  if (outcome.recoveryCodes.length === 0) return redirect(dashboardUrl(context, 'overview'), cookie);
  const codes = outcome.recoveryCodes.map((code) => html`<li>${code}</li>`);
  const main = html`<section><p>${t.text('join.recoveryIntro')}</p><ol class="codes">${codes}</ol>
<p><a href="${dashboardUrl(context, 'overview')}">${t.text('join.continue')}</a></p></section>`;
  return { kind: 'page', page: dashboardDocument(context, { title: t.text('join.recoveryTitle'), main, headers: cookie }) };
};
