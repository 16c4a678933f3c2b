/**
 * The frame of every checkout page: the HTML document with its inline style and script under the
 * response's nonce, the language switcher, the demo notice, and the headers the page is served with.
 */
import type { Invoice } from '../domain/invoicing/index.js';
import { html, raw, type Html } from '../http/html.js';
import type { Stage } from '../stage.js';
import { contentSecurityPolicy, newNonce, type EmbeddingPolicy } from './content-security-policy.js';
import { LANGUAGE_CODES, LANGUAGES, type Language, type MessageKey, type Translator } from './language.js';
import { CHECKOUT_SCRIPT } from './script.js';
import { CHECKOUT_STYLE } from './style.js';

export interface RenderedPage {
  status: number;
  html: string;
  headers: Record<string, string>;
}

export interface CheckoutDocument {
  status: number;
  title: string;
  /** What the invoice is paid with, which the demo notice speaks of; none on a page of no invoice. */
  family?: Invoice['family'];
  main: Html;
  /** Where the page goes on to by itself, at once. */
  refreshTo?: string;
  /** The same page in another language. */
  pageUrlIn: (language: Language) => string;
  policy: EmbeddingPolicy;
}

/** The language switcher: plain links, so it works without the script; each reopens this page in its language. */
function languageSwitcher(t: Translator, pageUrlIn: (language: Language) => string): Html {
  const links = LANGUAGE_CODES.map(
    (code) => html`<li><a href="${pageUrlIn(code)}" lang="${code}" hreflang="${code}"${code === t.language ? raw(' aria-current="true"') : ''}>${LANGUAGES[code].name}</a></li>`,
  );
  return html`<nav class="languages" aria-label="${t.text('page.languages')}"><ul>${links}</ul></nav>`;
}

/** Crypto is paid on test networks, fiat at the demo provider. */
const DEMO_NOTICES: Record<Invoice['family'], MessageKey> = { crypto: 'demo.crypto', fiat: 'demo.fiat' };

export function htmlDocument(t: Translator, stage: Stage, document: CheckoutDocument): RenderedPage {
  const nonce = newNonce();
  // Demo pages say so on every page (docs/merchant-guide.md#the-hosted-checkout), and how paying works there.
  const demo = stage === 'demo' ? html`<p class="demo">${t.html(document.family === undefined ? 'demo.notice' : DEMO_NOTICES[document.family])}</p>` : '';
  const page = html`<!doctype html>
<html lang="${t.language}" dir="${t.dir}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${document.title}</title>${document.refreshTo === undefined ? '' : html`<meta http-equiv="refresh" content="0; url=${document.refreshTo}">`}<link rel="icon" href="data:,"><style nonce="${nonce}">${raw(CHECKOUT_STYLE)}</style></head>
<body><main>${languageSwitcher(t, document.pageUrlIn)}${demo}${document.main}</main><script nonce="${nonce}">${raw(CHECKOUT_SCRIPT)}</script></body></html>`;
  return {
    status: document.status,
    html: page.text,
    headers: {
      'content-security-policy': contentSecurityPolicy(nonce, document.policy),
      'cache-control': 'no-store',
      'content-language': t.language,
      // Without `?lang=` the language comes from the request's Accept-Language.
      vary: 'Accept-Language',
      // The link is what the customer holds to pay: it is not handed to the sites the page links to.
      'referrer-policy': 'no-referrer',
      'x-content-type-options': 'nosniff',
    },
  };
}
