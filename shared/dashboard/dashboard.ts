/**
 * The dashboard's pages and forms (docs/merchant-guide.md#dashboard), behind the gateway's routes
 * `GET` and `POST /dashboard/{page+}` and `GET /dashboard/receipts/{transactionId}`: which page a path is, whether it needs a session
 * and which permission of its user's role, the CSRF token of every form, and what a refusal of
 * the domain looks like as a page. Roles are checked here, on the server, for every page and form.
 */
import type { LanguageChoice } from '../checkout/language.js';
import type { NetworkExplorers } from '../domain/chains/index.js';
import { can, clearedSessionCookie, cookieScopeOf, type Permission, sessionTokenOf, validCsrf } from '../domain/dashboard/index.js';
import { Conflict, DomainError, Gone, NotFound, Unavailable } from '../domain/kernel/index.js';
import { html } from '../http/html.js';
import type { Stage } from '../stage.js';
import { dashboardDocument, dashboardUrl, type DashboardContext } from './document.js';
import { DashboardTranslator } from './language.js';
import { redirect, type DashboardAnswer, type DashboardServices, type PageHandler } from './page.js';
import * as access from './pages/access.js';
import * as account from './pages/account.js';
import * as balances from './pages/balances.js';
import * as callbacks from './pages/callbacks.js';
import * as money from './pages/money.js';
import * as overview from './pages/overview.js';
import * as payoutAddresses from './pages/payout-addresses.js';
import * as payouts from './pages/payouts.js';
import * as refunds from './pages/refunds.js';

export type DashboardMethod = 'GET' | 'POST';

interface DashboardRoute {
  method: DashboardMethod;
  /** The path under `/dashboard`, `{name}` for one segment. */
  path: string;
  /** `public`: no session (sign-in, invitations); else what the user's role must allow. */
  needs: Permission | 'public';
  handle: PageHandler;
}

const ROUTES: readonly DashboardRoute[] = [
  { method: 'GET', path: 'sign-in', needs: 'public', handle: access.showSignIn },
  { method: 'POST', path: 'sign-in', needs: 'public', handle: access.signIn },
  { method: 'GET', path: 'join/{token}', needs: 'public', handle: access.showJoin },
  { method: 'POST', path: 'join/{token}', needs: 'public', handle: access.join },
  { method: 'POST', path: 'sign-out', needs: 'read', handle: access.signOut },
  { method: 'GET', path: 'overview', needs: 'read', handle: overview.overview },
  { method: 'GET', path: 'invoices', needs: 'read', handle: money.invoices },
  { method: 'GET', path: 'invoices/{invoiceId}', needs: 'read', handle: money.invoice },
  { method: 'POST', path: 'invoices/{invoiceId}/resend', needs: 'callbacks', handle: money.resendInvoiceEvent },
  { method: 'GET', path: 'transactions', needs: 'read', handle: money.transactions },
  { method: 'GET', path: 'transactions/{transactionId}', needs: 'read', handle: money.transaction },
  { method: 'GET', path: 'receipts/{transactionId}', needs: 'read', handle: money.transactionReceipt },
  { method: 'POST', path: 'transactions/{transactionId}/resend', needs: 'callbacks', handle: money.resendTransactionCallback },
  { method: 'POST', path: 'transactions/{transactionId}/refund', needs: 'payouts', handle: refunds.refundDeposit },
  { method: 'GET', path: 'balances', needs: 'read', handle: balances.balances },
  { method: 'GET', path: 'callbacks', needs: 'read', handle: callbacks.callbacks },
  { method: 'GET', path: 'payouts', needs: 'read', handle: payouts.payouts },
  { method: 'POST', path: 'payouts/quote', needs: 'payouts', handle: payouts.quotePayout },
  { method: 'POST', path: 'payouts/new', needs: 'payouts', handle: payouts.createPayout },
  { method: 'POST', path: 'payouts/{transactionId}/decision', needs: 'payouts', handle: payouts.decidePayout },
  { method: 'GET', path: 'payout-addresses', needs: 'read', handle: payoutAddresses.payoutAddresses },
  { method: 'POST', path: 'payout-addresses', needs: 'payouts', handle: payoutAddresses.addPayoutAddress },
  { method: 'POST', path: 'payout-addresses/{addressId}/remove', needs: 'payouts', handle: payoutAddresses.removePayoutAddress },
  { method: 'GET', path: 'reports', needs: 'read', handle: money.reports },
  { method: 'POST', path: 'reports', needs: 'reports', handle: money.requestReport },
  { method: 'GET', path: 'reports/{reportId}/download', needs: 'read', handle: money.downloadReport },
  { method: 'GET', path: 'settings', needs: 'read', handle: account.settings },
  { method: 'POST', path: 'settings', needs: 'settings', handle: account.saveSettings },
  { method: 'POST', path: 'settings/rotate-secret', needs: 'settings', handle: account.rotateSecret },
  { method: 'GET', path: 'keys', needs: 'read', handle: account.keys },
  { method: 'POST', path: 'keys', needs: 'keys', handle: account.createKey },
  { method: 'POST', path: 'keys/{keyId}/revoke', needs: 'keys', handle: account.revokeKey },
  { method: 'GET', path: 'users', needs: 'read', handle: account.users },
  { method: 'POST', path: 'users', needs: 'users', handle: account.inviteUser },
  { method: 'POST', path: 'users/{email}/remove', needs: 'users', handle: account.removeUser },
  { method: 'GET', path: 'audit', needs: 'audit', handle: account.audit },
];

function matchRoute(method: DashboardMethod, page: string): { route: DashboardRoute; params: Record<string, string> } | undefined {
  const segments = page.split('/');
  for (const route of ROUTES) {
    if (route.method !== method) continue;
    const pattern = route.path.split('/');
    if (pattern.length !== segments.length) continue;
    const params: Record<string, string> = {};
    const matches = pattern.every((part, i) => {
      const name = /^\{(\w+)\}$/.exec(part)?.[1];
      if (name === undefined) return part === segments[i];
      params[name] = segments[i]!;
      return segments[i] !== '';
    });
    if (matches) return { route, params };
  }
  return undefined;
}

export interface DashboardRequest {
  method: DashboardMethod;
  /** The path under `/dashboard/`, decoded segment by segment. */
  page: string;
  query: Record<string, string>;
  form: Record<string, string>;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  language: LanguageChoice;
}

export interface DashboardSettings {
  stage: Stage;
  publicBaseUrl: string;
  /** The block explorers as the stage's configuration has them now (docs/operations.md#stage-configuration), read where a page links a hash. */
  explorers: () => NetworkExplorers;
}

/** A form posted from another site: a browser says so (`Sec-Fetch-Site`, `Origin`); SameSite cookies and the CSRF token are the rest of the defence. */
function crossSite(headers: Record<string, string>, publicBaseUrl: string): boolean {
  const site = headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return true;
  const origin = headers.origin;
  return origin !== undefined && origin !== 'null' && origin !== new URL(publicBaseUrl).origin;
}

export class Dashboard {
  constructor(
    private readonly services: DashboardServices,
    private readonly settings: DashboardSettings,
  ) {}

  async serve(request: DashboardRequest): Promise<DashboardAnswer> {
    const base: DashboardContext = { t: new DashboardTranslator(request.language.language), language: request.language, page: request.page, ...this.settings };
    const matched = matchRoute(request.method, request.page);
    if (!matched) return this.refusal(base, 404, 'error.notFound', 'error.notFoundBody');
    const { route, params } = matched;
    const { lang: _lang, ...query } = request.query;
    const { csrf, ...form } = request.form;
    if (request.method === 'POST' && crossSite(request.headers, this.settings.publicBaseUrl)) return this.refusal(base, 403, 'error.csrf', 'error.csrfBody');

    let context = base;
    if (route.needs !== 'public') {
      const token = sessionTokenOf(request.headers.cookie);
      const signedIn = await this.services.access.signedIn(token);
      if (!signedIn) {
        // An ended session's cookie goes with it; with none, the sign-in page says nothing more.
        const headers = token ? { 'set-cookie': clearedSessionCookie(cookieScopeOf(this.settings.publicBaseUrl)) } : undefined;
        return redirect(dashboardUrl(base, 'sign-in', token ? { reason: 'expired' } : {}), headers);
      }
      const merchant = await this.services.account.view(signedIn.user.merchantId);
      context = { ...base, signedIn: { ...signedIn, merchant } };
      if (request.method === 'POST' && !validCsrf(signedIn.session, csrf)) return this.refusal(context, 403, 'error.csrf', 'error.csrfBody');
      if (!can(signedIn.session.role, route.needs)) return this.refusal(context, 403, 'error.forbidden', 'error.forbiddenBody');
    }
    try {
      return await route.handle({ context, services: this.services, params, query, form });
    } catch (error) {
      return this.domainRefusal(context, error);
    }
  }

  /** What the domain refuses, as a page; anything else is a fault for the handler's error handling. */
  private domainRefusal(context: DashboardContext, error: unknown): DashboardAnswer {
    if (!(error instanceof DomainError)) throw error;
    if (error instanceof NotFound || error instanceof Gone) return this.refusal(context, 404, 'error.notFound', 'error.notFoundBody');
    if (error instanceof Unavailable) return this.refusal(context, 503, 'error.unavailable');
    const { t } = context;
    return this.page(
      context,
      error instanceof Conflict ? 409 : 422,
      t.text('error.conflictTitle'),
      html`<p class="alert">${t.text('error.conflict', { reason: error.message })}</p><p><a href="${dashboardUrl(context, 'overview')}">${t.text('error.back')}</a></p>`,
    );
  }

  private refusal(
    context: DashboardContext,
    status: number,
    title: 'error.notFound' | 'error.csrf' | 'error.forbidden' | 'error.unavailable',
    body?: 'error.notFoundBody' | 'error.csrfBody' | 'error.forbiddenBody',
  ): DashboardAnswer {
    const { t } = context;
    const role = context.signedIn?.session.role ?? 'viewer';
    const text = body ? html`<p>${t.text(body, body === 'error.forbiddenBody' ? { role: t.text(`role.${role}`) } : {})}</p>` : html``;
    return this.page(
      context,
      status,
      t.text(title),
      html`${text}<p><a href="${dashboardUrl(context, context.signedIn ? 'overview' : 'sign-in')}">${t.text(context.signedIn ? 'error.back' : 'signIn.title')}</a></p>`,
    );
  }

  private page(context: DashboardContext, status: number, title: string, main: ReturnType<typeof html>): DashboardAnswer {
    return { kind: 'page', page: dashboardDocument(context, { status, title, main }) };
  }
}
