/**
 * The demo provider's payment page: server-rendered HTML in the customer's language, without
 * script, external resources or anything a form could not do. Every word comes from the
 * language's catalogue (../i18n); every value goes through the `html` template's escaping.
 */
import { createHash } from 'node:crypto';
import { CatalogueTranslator, LANGUAGE_CODES, LANGUAGES, type LanguageChoice } from '../../shared/checkout/language.js';
import { html, raw, type Html } from '../../shared/http/html.js';
import { DEMO_CATALOGUES, type DemoMessageKey } from '../i18n/catalogues.js';
import type { Outcome, PageMethod, PaymentRecord } from './records.js';

export interface HtmlResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

type PageText = CatalogueTranslator<DemoMessageKey>;

const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2430;background:#eef1f4}
main{max-width:440px;margin:0 auto;padding:16px}
.languages ul{display:flex;flex-wrap:wrap;gap:4px;list-style:none;margin:0 0 12px;padding:0;font-size:14px}
.languages a{padding:2px 8px;border-radius:6px;color:#35598f}
.languages a[aria-current]{color:#1f2430;font-weight:700;text-decoration:none;background:#fff}
.demo{background:#fff4d6;border:1px solid #e5c45c;border-radius:8px;padding:8px 12px;font-size:14px}
.card{background:#fff;border:1px solid #d9dee5;border-radius:12px;padding:20px;margin-top:12px}
.brand{margin:0;font-size:14px;font-weight:600;color:#5a6477}
h1{font-size:24px;line-height:1.3;margin:4px 0 12px;overflow-wrap:anywhere}
p{margin:8px 0}
.muted{color:#5a6477;font-size:14px;overflow-wrap:anywhere}
button,.button{display:block;width:100%;margin:12px 0 0;padding:12px 16px;border:1px solid #35598f;border-radius:8px;background:#35598f;color:#fff;font:inherit;font-weight:600;text-align:center;text-decoration:none;cursor:pointer}
.fail{background:#fff;color:#9c2a22;border-color:#9c2a22}
a:focus-visible,button:focus-visible{outline:3px solid #9db8e2;outline-offset:1px}
`;

/** The style's CSP source: it is the same on every page, so a hash rather than a per-response nonce. */
const STYLE_SOURCE = `'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`;

/** The page's forms post to the page itself, and nowhere else. */
function contentSecurityPolicy(): string {
  return [
    "default-src 'none'",
    // The empty favicon (`data:,`), so that browsers ask for no other.
    'img-src data:',
    `style-src ${STYLE_SOURCE}`,
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

/** Plain links that reopen this page in each language; the chosen one is marked. */
function languageSwitcher(t: PageText): Html {
  const links = LANGUAGE_CODES.map((code) => html`<li><a href="?lang=${code}" lang="${code}" hreflang="${code}"${code === t.language ? raw(' aria-current="true"') : ''}>${LANGUAGES[code].name}</a></li>`);
  return html`<nav class="languages" aria-label="${t.text('page.languages')}"><ul>${links}</ul></nav>`;
}

/** Seconds a decided payment's page shows its outcome before it goes on to the gateway by itself. */
const RETURN_AFTER_SECONDS = 1;

function htmlDocument(t: PageText, status: number, title: string, main: Html, returnTo?: string): HtmlResponse {
  // A refresh rather than a redirect, so that it works without JavaScript and under any form-action.
  const refresh = returnTo === undefined ? '' : html`<meta http-equiv="refresh" content="${RETURN_AFTER_SECONDS}; url=${returnTo}">`;
  const page = html`<!doctype html>
<html lang="${t.language}" dir="${t.dir}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">${refresh}
<title>${title}</title><link rel="icon" href="data:,"><style>${raw(STYLE)}</style></head>
<body><main>${languageSwitcher(t)}<p class="demo">${t.html('page.demo')}</p>
<div class="card"><p class="brand">${t.html('page.title')}</p>
${main}
</div></main></body></html>`;
  return {
    status,
    body: page.text,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': contentSecurityPolicy(),
      'cache-control': 'no-store',
      'content-language': t.language,
      // Without `?lang=` the language comes from the request's Accept-Language.
      vary: 'Accept-Language',
      // The page's address is what pays: it is not handed to the shop it links back to.
      'referrer-policy': 'no-referrer',
      'x-content-type-options': 'nosniff',
    },
  };
}

/** An amount in running text: isolated, so that a right-to-left sentence does not reorder its digits. */
const shownAmount = (t: PageText, payment: PaymentRecord): Html => html`<strong><bdi>${t.amount(payment.amount, payment.currency)}</bdi></strong>`;

function choiceSection(t: PageText, payment: PaymentRecord): Html {
  const method = t.text(`method.${payment.method as PageMethod}`);
  return html`<h1>${t.html('payment.title', { amount: shownAmount(t, payment) })}</h1>
<p>${t.html('payment.method', { method })}</p>
<p class="muted">${t.html('payment.reference', { reference: html`<bdi>${payment.providerReference}</bdi>` })}</p>
<p>${t.html('payment.choose')}</p>
<form method="post" action="${encodeURIComponent(payment.providerReference)}">
<input type="hidden" name="lang" value="${t.language}">
<button type="submit" name="outcome" value="confirmed">${t.html('payment.succeed')}</button>
<button type="submit" name="outcome" value="failed" class="fail">${t.html('payment.fail')}</button>
</form>`;
}

function outcomeSection(t: PageText, payment: PaymentRecord, outcome: Outcome): Html {
  return html`<h1>${t.html(`${outcome.status}.title`)}</h1>
<p>${t.html(`${outcome.status}.body`, { amount: shownAmount(t, payment) })}</p>
<a class="button" href="${payment.returnUrl}">${t.html('end.return')}</a>`;
}

const translatorOf = (language: LanguageChoice): PageText => new CatalogueTranslator(language.language, DEMO_CATALOGUES[language.language]);

/**
 * The page of a payment: the two choices while it is open, its outcome and the way back once
 * decided. `status` is the page's own unless a refused form asks for another.
 */
export function paymentPage(payment: PaymentRecord, language: LanguageChoice, status = 200): HtmlResponse {
  const t = translatorOf(language);
  const { outcome } = payment;
  if (outcome) return htmlDocument(t, status, t.text(`${outcome.status}.title`), outcomeSection(t, payment, outcome), payment.returnUrl);
  // The choice is posted to this page (its action is relative: `/pay/{ref}` resolves to itself, on
  // whichever host the customer reached), which then shows the outcome.
  return htmlDocument(t, status, t.text('page.title'), choiceSection(t, payment));
}

export function notFoundPage(language: LanguageChoice): HtmlResponse {
  const t = translatorOf(language);
  return htmlDocument(
    t,
    404,
    t.text('notFound.title'),
    html`<h1>${t.html('notFound.title')}</h1>
<p>${t.html('notFound.body')}</p>`,
  );
}
