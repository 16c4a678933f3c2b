/**
 * The frame of every dashboard page: the document with its one inline style under the response's
 * nonce and no script at all, the header with the merchant's pages (those the user's role may
 * open), the sign-out forms, the language switcher, and the headers the page is served with.
 */
import { type Language, LANGUAGE_CODES, type LanguageChoice, LANGUAGES } from '../checkout/language.js';
import { newNonce } from '../checkout/content-security-policy.js';
import type { RenderedPage } from '../checkout/document.js';
import type { NetworkExplorers } from '../domain/chains/index.js';
import { can, type Permission, type SignedIn } from '../domain/dashboard/index.js';
import type { MerchantView } from '../domain/merchants/index.js';
import { html, raw, type Html } from '../http/html.js';
import type { Stage } from '../stage.js';
import type { DashboardKey, DashboardTranslator } from './language.js';
import { DASHBOARD_STYLE } from './style.js';

/** What every page of one request knows: who asks, in which language, and where the dashboard is. */
export interface DashboardContext {
  t: DashboardTranslator;
  language: LanguageChoice;
  stage: Stage;
  publicBaseUrl: string;
  /** Where a transaction's hash is linked, per network: read when a page links one. */
  explorers: () => NetworkExplorers;
  /** The page's path under `/dashboard`, without its query. */
  page: string;
  /** The signed-in user, with its merchant's settings as read once for the request; absent on the sign-in and invitation pages. */
  signedIn?: SignedIn & { merchant: MerchantView };
}

/** Where a dashboard page is on the public origin, keeping a language chosen in the URL. */
export function dashboardUrl(context: Pick<DashboardContext, 'publicBaseUrl' | 'language'>, page: string, query: Record<string, string | undefined> = {}): string {
  const params = new URLSearchParams(Object.entries(query).filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== ''));
  if (context.language.explicit) params.set('lang', context.language.language);
  const search = params.toString();
  return `${context.publicBaseUrl}/dashboard/${page}${search ? `?${search}` : ''}`;
}

/** The pages of the header, each with what its user needs. */
const NAVIGATION: ReadonlyArray<{ page: string; key: DashboardKey; needs: Permission }> = [
  { page: 'overview', key: 'nav.overview', needs: 'read' },
  { page: 'balances', key: 'nav.balances', needs: 'read' },
  { page: 'invoices', key: 'nav.invoices', needs: 'read' },
  { page: 'transactions', key: 'nav.transactions', needs: 'read' },
  { page: 'callbacks', key: 'nav.callbacks', needs: 'read' },
  { page: 'payouts', key: 'nav.payouts', needs: 'read' },
  { page: 'payout-addresses', key: 'nav.payoutAddresses', needs: 'read' },
  { page: 'reports', key: 'nav.reports', needs: 'read' },
  { page: 'settings', key: 'nav.settings', needs: 'read' },
  { page: 'keys', key: 'nav.keys', needs: 'read' },
  { page: 'users', key: 'nav.users', needs: 'read' },
  { page: 'audit', key: 'nav.audit', needs: 'audit' },
];

/** The CSRF field every form of a signed-in page carries. */
export const csrfField = (context: DashboardContext): Html => html`<input type="hidden" name="csrf" value="${context.signedIn?.session.csrf ?? ''}">`;

function header(context: DashboardContext): Html {
  const { t, signedIn } = context;
  if (!signedIn) return html``;
  const section = context.page.split('/')[0];
  const links = NAVIGATION.filter(({ needs }) => can(signedIn.session.role, needs)).map(
    ({ page, key }) => html`<li><a href="${dashboardUrl(context, page)}"${page === section ? raw(' aria-current="page"') : ''}>${t.text(key)}</a></li>`,
  );
  const signOut = (everywhere: boolean) =>
    html`<form method="post" action="${dashboardUrl(context, 'sign-out')}">${csrfField(context)}${everywhere ? html`<input type="hidden" name="everywhere" value="yes">` : ''}<button type="submit">${t.text(everywhere ? 'nav.signOutEverywhere' : 'nav.signOut')}</button></form>`;
  return html`<header><div class="top"><span class="merchant">${signedIn.merchant.name}</span><span class="who">${t.text('nav.signedInAs', { email: signedIn.user.email, role: t.text(`role.${signedIn.session.role}`) })} ${signOut(false)} ${signOut(true)}</span></div><nav aria-label="${t.text('nav.label')}"><ul>${links}</ul></nav></header>`;
}

function languageSwitcher(context: DashboardContext, query: Record<string, string>): Html {
  const { t } = context;
  const links = LANGUAGE_CODES.map((code: Language) => {
    const href = dashboardUrl({ ...context, language: { language: code, explicit: true } }, context.page, query);
    return html`<li><a href="${href}" lang="${code}" hreflang="${code}"${code === t.language ? raw(' aria-current="true"') : ''}>${LANGUAGES[code].name}</a></li>`;
  });
  return html`<nav class="languages" aria-label="${t.text('page.languages')}"><ul>${links}</ul></nav>`;
}

export interface DashboardDocument {
  status?: number;
  /** The page's own name, also its heading. */
  title: string;
  main: Html;
  /** The page's query, kept by the language switcher's links. */
  query?: Record<string, string>;
  headers?: Record<string, string>;
}

/** Nothing loads but the page's own style: no script, no frame, forms only to the dashboard. */
export const dashboardContentSecurityPolicy = (nonce: string): string =>
  ["default-src 'none'", "img-src 'self' data:", `style-src 'nonce-${nonce}'`, "form-action 'self'", "frame-ancestors 'none'", "base-uri 'none'"].join('; ');

export function dashboardDocument(context: DashboardContext, document: DashboardDocument): RenderedPage {
  const { t } = context;
  const nonce = newNonce();
  const title = context.signedIn ? t.text('page.title', { page: document.title, merchant: context.signedIn.merchant.name }) : document.title;
  const demo = context.stage === 'demo' ? html`<p class="demo">${t.text('page.demo')}</p>` : '';
  const page = html`<!doctype html>
<html lang="${t.language}" dir="${t.dir}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title><link rel="icon" href="data:,"><style nonce="${nonce}">${raw(DASHBOARD_STYLE)}</style></head>
<body><a class="skip" href="#content">${t.text('page.skip')}</a>${header(context)}${languageSwitcher(context, document.query ?? {})}<main id="content">${demo}<h1>${document.title}</h1>${document.main}</main></body></html>`;
  return {
    status: document.status ?? 200,
    html: page.text,
    headers: {
      'content-security-policy': dashboardContentSecurityPolicy(nonce),
      'cache-control': 'no-store',
      'content-language': t.language,
      vary: 'Accept-Language, Cookie',
      'referrer-policy': 'no-referrer',
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
      ...document.headers,
    },
  };
}
