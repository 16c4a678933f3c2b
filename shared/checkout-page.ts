/**
 * The hosted checkout's pages (merchant-api.md "What the service does" 1-5, decisions 17):
 * self-contained HTML (inline style and one small script, both under a per-response nonce; no
 * external scripts, fonts or styles) that works from 320 px wide and inside a merchant's frame, in
 * the customer's language. Every word comes from the language's catalogue; every merchant- and
 * customer-supplied value goes through the `html` template's escaping.
 */
import { randomBytes } from 'node:crypto';
import QRCode from 'qrcode';
import { DATE_TIME_OPTIONS, LANGUAGE_CODES, LANGUAGES, Translator, type Language, type LanguageChoice, type MessageKey } from './checkout/language.js';
import type { Checkout } from './domain/checkout-service.js';
import { paymentProgress, returnUrlOf, type DetailProblem } from './domain/checkout.js';
import type { CryptoAssetCode, CryptoNetwork, FiatMethod } from './domain/currencies.js';
import type { CancelReason, DirectOpenField, Invoice } from './domain/invoices.js';
import { isFrameAncestorSource } from './domain/merchants.js';
import { Decimal } from './domain/money.js';
import { NATIVE_ASSETS, type EvmChain, type EvmNetwork } from './domain/networks.js';
import { paymentUri } from './domain/payment-uri.js';
import type { PaymentInstructions } from './providers/protocol.js';
import { html, raw, type Html } from './http/html.js';
import { routeByName, type HttpRouteName } from './routes.js';
import type { Stage } from './stage.js';

/** Why the UTR form was sent back: the API's format rule, or a UTR another payment used. */
export type UtrProblem = 'invalid' | 'used';

/** What a page shows below the invoice summary. */
export type CheckoutPage =
  | { kind: 'crypto' }
  | { kind: 'details'; fields: readonly DirectOpenField[]; values: Record<string, string>; problems: DetailProblem[] }
  | { kind: 'completed' }
  | { kind: 'closed'; reason: CancelReason }
  /** INR: the customer picks the provider among those that can serve the invoice (decisions 18). */
  | { kind: 'providers'; providers: ReadonlyArray<{ id: string; name: string }> }
  /** P2P: the provider's instructions, then the transaction-information form. */
  | { kind: 'instructions'; instructions: PaymentInstructions; value: string; problem?: UtrProblem }
  /** The provider did not answer: nothing happened, and the customer may try again. */
  | { kind: 'unavailable' }
  /** The payment is with the provider; its decision is awaited. `continueUrl`: the provider's page, for a customer who came back unpaid. */
  | { kind: 'waiting'; continueUrl?: string }
  /**
   * On to the provider's page by a refresh rather than a redirect: a customer who got here from
   * the checkout's form would otherwise be held by the form's policy (form-action), which admits
   * no redirect to an origin it does not name.
   */
  | { kind: 'handoff'; url: string };

/** Where and for whom a page is rendered. */
export interface PageContext {
  publicBaseUrl: string;
  stage: Stage;
  /** Chain ids and token contracts of the EVM networks, for the payment URIs. */
  chains: Readonly<Record<EvmNetwork, Pick<EvmChain, 'chainId' | 'tokens'>>>;
  language: LanguageChoice;
}

export interface RenderedPage {
  status: number;
  html: string;
  headers: Record<string, string>;
}

/**
 * A checkout URL of an invoice, from the route table, on the public origin; with the language when
 * the customer chose it in the URL, so that it carries through links, forms and redirects.
 */
export function checkoutUrl(context: Pick<PageContext, 'publicBaseUrl' | 'language'>, route: HttpRouteName, invoiceId: string, query: Record<string, string> = {}): string {
  const path = routeByName(route).path.replace('{invoiceId}', encodeURIComponent(invoiceId));
  const params = new URLSearchParams({ ...query, ...(context.language.explicit ? { lang: context.language.language } : {}) });
  return `${context.publicBaseUrl}${path}${params.size > 0 ? `?${params}` : ''}`;
}

const POLL_INTERVAL_MS = 2000;

const STYLE = `
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d2330;background:#f3f5f8}
main{max-width:480px;margin:0 auto;padding:12px}
.card{background:#fff;border:1px solid #dde1e8;border-radius:12px;padding:16px;margin-bottom:12px}
.languages ul{display:flex;flex-wrap:wrap;gap:4px;list-style:none;margin:0 0 8px;padding:0;font-size:14px}
.languages a{display:inline-block;min-height:24px;padding:2px 8px;border-radius:6px;color:#2f5d9e}
.languages a[aria-current]{color:#1d2330;font-weight:700;text-decoration:none;background:#fff;border:1px solid #dde1e8}
.summary-top{display:flex;flex-wrap:wrap;justify-content:space-between;gap:4px 12px;font-size:14px;color:#5b6578}
.merchant{font-weight:600;color:#1d2330;overflow-wrap:anywhere}
.order{overflow-wrap:anywhere}
.amount{font-size:28px;font-weight:700;line-height:1.2;margin:8px 0 0;overflow-wrap:anywhere}
.muted{color:#5b6578;font-size:14px}
.progress{border-top:1px solid #dde1e8;margin-top:12px;padding-top:8px}
.progress p{margin:4px 0}
p{margin:8px 0}
h1{font-size:20px;line-height:1.3;margin:0 0 8px}
h2{font-size:16px;margin:0 0 8px}
.countdown{font-variant-numeric:tabular-nums;font-weight:600;color:#1d2330}
.network{border-top:1px solid #dde1e8;margin-top:16px;padding-top:16px}
.qr{display:block;width:200px;max-width:100%;height:auto;margin:8px auto 12px;image-rendering:pixelated}
.address{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:14px;word-break:break-all;background:#f3f5f8;border-radius:8px;padding:8px 10px;margin:0}
.button,button{display:block;width:100%;margin:12px 0 0;padding:12px 16px;border:1px solid #2f5d9e;border-radius:8px;background:#2f5d9e;color:#fff;font:inherit;font-weight:600;text-align:center;text-decoration:none;cursor:pointer}
a:focus-visible,button:focus-visible,input:focus-visible{outline:3px solid #9db8e2;outline-offset:1px}
.secondary{background:#fff;color:#2f5d9e}
.copy{display:inline-block;width:auto;margin-top:8px;padding:6px 14px;font-size:14px}
.choices{list-style:none;margin:0;padding:0}
.instructions{display:grid;grid-template-columns:max-content 1fr;gap:4px 12px;margin:12px 0}
.instructions dt{color:#5b6578}
.instructions dd{margin:0;overflow-wrap:anywhere}
.instructions .copy{margin:0 0 0 4px;padding:2px 10px}
label{display:block;font-weight:600;margin:16px 0 4px}
input{display:block;width:100%;padding:10px 12px;font:inherit;border:1px solid #b8c0cc;border-radius:8px;background:#fff;color:inherit}
input[aria-invalid=true]{border-color:#b3261e}
.error{color:#b3261e;font-size:14px;margin:4px 0 0}
.demo{background:#fff6dc;border:1px solid #e8c96a;border-radius:8px;padding:8px 12px;font-size:14px;margin:0 0 12px}
.pending{display:flex;align-items:center;gap:12px;margin-top:16px}
.spinner{flex:none;width:22px;height:22px;border:3px solid #dde1e8;border-top-color:#2f5d9e;border-radius:50%;animation:spin 1s linear infinite}
@keyframes spin{to{transform:rotate(360deg)}}
@media (prefers-reduced-motion:reduce){.spinner{animation:none}}
.outcome{font-size:40px;line-height:1;margin:0 0 8px;color:#2f7d4f}
.offscreen{position:fixed;left:-9999px;top:0}
@media (min-width:600px){main{padding:32px 16px}.card{padding:24px}}
`;

/**
 * Copy buttons (the clipboard API, else a selection), dates in the reader's own time zone, the
 * countdown to the invoice's expiry (reloading when it runs out, so the server shows the expired
 * state), and the live status: on completion the customer goes to the return URL, and any other
 * change (a status, a partial payment) reloads the page, which the server renders anew.
 */
const SCRIPT = `(function () {
  'use strict';
  function copyBySelection(text) {
    var area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.className = 'offscreen';
    document.body.appendChild(area);
    area.select();
    var copied = false;
    try { copied = document.execCommand('copy'); } catch (error) { copied = false; }
    area.remove();
    return copied;
  }
  document.querySelectorAll('[data-copy]').forEach(function (button) {
    var label = button.textContent;
    button.addEventListener('click', function () {
      var text = button.getAttribute('data-copy');
      function show(copied) {
        button.textContent = button.getAttribute(copied ? 'data-copied' : 'data-copy-failed');
        setTimeout(function () { button.textContent = label; }, 2000);
      }
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(text).then(function () { show(true); }, function () { show(copyBySelection(text)); });
      } else {
        show(copyBySelection(text));
      }
    });
  });
  try {
    var dates = new Intl.DateTimeFormat(document.documentElement.lang, ${JSON.stringify(DATE_TIME_OPTIONS)});
    document.querySelectorAll('time[datetime]').forEach(function (time) {
      time.textContent = dates.format(new Date(time.getAttribute('datetime')));
    });
  } catch (error) { /* The server's UTC time stays. */ }
  var countdown = document.querySelector('[data-seconds-left]');
  if (countdown) {
    var end = Date.now() + Number(countdown.getAttribute('data-seconds-left')) * 1000;
    var pad = function (n) { return (n < 10 ? '0' : '') + n; };
    var timer = setInterval(tick, 1000);
    function tick() {
      var left = Math.max(0, Math.ceil((end - Date.now()) / 1000));
      var hours = Math.floor(left / 3600);
      var minutes = Math.floor((left % 3600) / 60);
      countdown.textContent = (hours > 0 ? hours + ':' + pad(minutes) : minutes) + ':' + pad(left % 60);
      if (left === 0) {
        clearInterval(timer);
        location.reload();
      }
    }
    tick();
  }
  var watched = document.querySelector('[data-status-url]');
  if (watched) {
    var shownStatus = watched.getAttribute('data-status');
    var shownPaid = watched.getAttribute('data-paid');
    var poll = function () {
      fetch(watched.getAttribute('data-status-url'), { cache: 'no-store', headers: { accept: 'application/json' } })
        .then(function (response) { return response.ok ? response.json() : null; })
        .then(function (body) {
          var current = body && body.data;
          if (current && current.status === 'completed' && /^https?:\\/\\//i.test(current.redirectUrl || '')) {
            location.replace(current.redirectUrl);
          } else if (current && (current.status !== shownStatus || current.paidAmount !== shownPaid)) {
            location.reload();
          } else {
            setTimeout(poll, ${POLL_INTERVAL_MS});
          }
        }, function () { setTimeout(poll, ${POLL_INTERVAL_MS}); });
    };
    setTimeout(poll, ${POLL_INTERVAL_MS});
  }
})();`;

/** Proper names: the same in every language. */
const NETWORK_NAMES: Record<CryptoNetwork, string> = {
  bitcoin: 'Bitcoin',
  ethereum: 'Ethereum',
  bsc: 'BNB Smart Chain',
  polygon: 'Polygon',
  tron: 'Tron',
  bahamut: 'Bahamut',
};

/** How wallets and exchanges name a token's network (decisions 17). */
const TOKEN_NETWORK_LABELS: Partial<Record<CryptoNetwork, string>> = {
  ethereum: 'ERC-20',
  bsc: 'BEP-20',
  polygon: 'Polygon',
  tron: 'TRC-20',
};

/** A network as the customer must pick it in a wallet: for a token, with its label, e.g. `Ethereum (ERC-20)`. */
function networkName(network: CryptoNetwork, asset: string): string {
  const name = NETWORK_NAMES[network];
  const label = NATIVE_ASSETS[network] === asset ? undefined : TOKEN_NETWORK_LABELS[network];
  return label === undefined || label === name ? name : `${name} (${label})`;
}

const FIELD_INPUTS: Record<DirectOpenField, { type: string; autocomplete: string; dir: 'auto' | 'ltr' }> = {
  customerFullName: { type: 'text', autocomplete: 'name', dir: 'auto' },
  customerFirstName: { type: 'text', autocomplete: 'given-name', dir: 'auto' },
  customerLastName: { type: 'text', autocomplete: 'family-name', dir: 'auto' },
  customerEmail: { type: 'email', autocomplete: 'email', dir: 'ltr' },
  customerAccount: { type: 'text', autocomplete: 'off', dir: 'ltr' },
};

const payerName = (invoice: Invoice): string =>
  invoice.customer.fullName ?? [invoice.customer.firstName, invoice.customer.lastName].filter(Boolean).join(' ');

/**
 * CSP sources for `frame-ancestors` from the merchant's setting. Anything but a source could end
 * the directive early, so it is left out; with nothing left, no one may frame the page.
 */
function frameAncestorSources(allowed: readonly string[]): string {
  const sources = allowed.filter(isFrameAncestorSource);
  return sources.length > 0 ? sources.join(' ') : "'none'";
}

interface EmbeddingPolicy {
  /** Origins allowed to frame the page. */
  frameAncestors: readonly string[];
  /** Origins a form's redirects may end at, besides the checkout's own. */
  formTargets: readonly string[];
}

function contentSecurityPolicy(nonce: string, policy: EmbeddingPolicy): string {
  return [
    "default-src 'none'",
    "img-src 'self' data:",
    `style-src 'nonce-${nonce}'`,
    `script-src 'nonce-${nonce}'`,
    "connect-src 'self'",
    `form-action ${["'self'", ...policy.formTargets].join(' ')}`,
    `frame-ancestors ${frameAncestorSources(policy.frameAncestors)}`,
    "base-uri 'none'",
  ].join('; ');
}

/** The language switcher: plain links, so it works without the script; each reopens this page in its language. */
function languageSwitcher(t: Translator, pageUrlIn: (language: Language) => string): Html {
  const links = LANGUAGE_CODES.map(
    (code) =>
      html`<li><a href="${pageUrlIn(code)}" lang="${code}" hreflang="${code}"${code === t.language ? raw(' aria-current="true"') : ''}>${LANGUAGES[code].name}</a></li>`,
  );
  return html`<nav class="languages" aria-label="${t.text('page.languages')}"><ul>${links}</ul></nav>`;
}

interface Document {
  status: number;
  title: string;
  main: Html;
  /** Where the page goes on to by itself, at once. */
  refreshTo?: string;
  /** The same page in another language. */
  pageUrlIn: (language: Language) => string;
  policy: EmbeddingPolicy;
}

function htmlDocument(t: Translator, stage: Stage, document: Document): RenderedPage {
  const nonce = randomBytes(16).toString('base64');
  // Demo pages say so on every page (decisions 17): its addresses are test addresses.
  const demo = stage === 'demo' ? html`<p class="demo">${t.html('demo.notice')}</p>` : '';
  const page = html`<!doctype html>
<html lang="${t.language}" dir="${t.dir}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${document.title}</title>${document.refreshTo === undefined ? '' : html`<meta http-equiv="refresh" content="0; url=${document.refreshTo}">`}<link rel="icon" href="data:,"><style nonce="${nonce}">${raw(STYLE)}</style></head>
<body><main>${languageSwitcher(t, document.pageUrlIn)}${demo}${document.main}</main><script nonce="${nonce}">${raw(SCRIPT)}</script></body></html>`;
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

/** A PNG (smaller than the SVG for these sizes, and what any QR reader takes), scaled up crisply by the page. */
const qrCodeDataUri = (text: string): Promise<string> => QRCode.toDataURL(text, { errorCorrectionLevel: 'M', margin: 2, scale: 4 });

/** An amount in running text: isolated, so that a right-to-left sentence does not reorder its digits. */
const shownAmount = (t: Translator, amount: string, currency: string): Html => html`<strong><bdi>${t.amount(amount, currency)}</bdi></strong>`;

function copyButton(t: Translator, text: string, label: MessageKey): Html {
  return html`<button type="button" class="copy secondary" data-copy="${text}" data-copied="${t.text('crypto.copied')}" data-copy-failed="${t.text(
    'crypto.copyFailed',
  )}">${t.html(label)}</button>`;
}

async function cryptoSection(t: Translator, invoice: Invoice, merchantName: string, chains: PageContext['chains']): Promise<Html> {
  const asset = invoice.paymentCurrency as CryptoAssetCode;
  const progress = paymentProgress(invoice);
  // What the wallet is asked for: what remains of the amount.
  const amount = new Decimal(progress.remaining).toFixed();
  const payment = shownAmount(t, amount, asset);
  const blocks = await Promise.all(
    invoice.wallet!.addresses.map(async ({ network, address }) => {
      const name = networkName(network, asset);
      const uri = paymentUri({ network, asset, address, amount }, chains);
      const alt = uri === undefined ? t.text('crypto.qrAddress', { network: name }) : t.text('crypto.qrPayment', { amount: t.amount(amount, asset), network: name });
      return html`<div class="network">
<h2>${name}</h2>
<img class="qr" src="${await qrCodeDataUri(uri ?? address)}" width="200" height="200" alt="${alt}">
${uri === undefined ? html`<p class="muted">${t.html('crypto.addressOnly')}</p>` : ''}
<p class="address" dir="ltr">${address}</p>
${copyButton(t, address, 'crypto.copyAddress')}
${uri === undefined ? '' : html`<a class="button secondary" href="${uri}">${t.html('crypto.openWallet')}</a>`}
</div>`;
    }),
  );
  const networks = invoice.wallet!.networks;
  const only = networks.length === 1 ? networkName(networks[0]!, asset) : undefined;
  const send = progress.partial
    ? t.html('crypto.partial', { amount: payment })
    : only === undefined
      ? t.html('crypto.sendOnOneOf', { amount: payment })
      : t.html('crypto.sendOn', { amount: payment, network: only });
  return html`<h1>${t.html('crypto.title', { currency: asset })}</h1>
<p>${send} ${t.html('crypto.addressIsYours', { merchant: merchantName })}</p>
${copyButton(t, amount, 'crypto.copyAmount')}
${blocks}
<p class="muted">${only === undefined ? t.html('crypto.sendOnlyNamed', { currency: asset }) : t.html('crypto.sendOnlyOn', { currency: asset, network: only })}</p>
<div class="pending"><span class="spinner"></span><span>${t.html('crypto.waiting')}</span></div>`;
}

function problemText(t: Translator, problem: DetailProblem): Html {
  if (problem.rule === 'tooLong') return t.html('problem.tooLong', { max: problem.max ?? 0 });
  return t.html(`problem.${problem.rule}`);
}

function detailsSection(t: Translator, invoice: Invoice, merchantName: string, page: Extract<CheckoutPage, { kind: 'details' }>, action: string): Html {
  const problems = new Map(page.problems.map((problem) => [problem.field, problem]));
  const inputs = page.fields.map((field) => {
    const input = FIELD_INPUTS[field];
    const problem = problems.get(field);
    return html`<label for="${field}">${t.html(`field.${field}`)}</label>
<input id="${field}" name="${field}" type="${input.type}" autocomplete="${input.autocomplete}" dir="${input.dir}" value="${page.values[field] ?? ''}" required${
      problem === undefined ? '' : html` aria-invalid="true" aria-describedby="${field}-error"`
    }>
${problem === undefined ? '' : html`<p class="error" id="${field}-error">${problemText(t, problem)}</p>`}`;
  });
  return html`<h1>${t.html('details.title')}</h1>
<p>${t.html('details.intro', { merchant: merchantName, method: methodName(t, invoice) })}</p>
<form method="post" action="${action}">
${inputs}
<button type="submit">${t.html('details.continue')}</button>
</form>`;
}

const methodName = (t: Translator, invoice: Invoice): string => t.text(`method.${invoice.paymentMethod as FiatMethod}`);

function payerLine(t: Translator, invoice: Invoice): Html {
  const name = payerName(invoice);
  return name === '' ? html`` : html`<p>${t.html('provider.payer', { name: html`<strong><bdi>${name}</bdi></strong>` })}</p>`;
}

function providersSection(t: Translator, invoice: Invoice, page: Extract<CheckoutPage, { kind: 'providers' }>, providerUrl: (id: string) => string): Html {
  const choices = page.providers.map(({ id, name }) => html`<li><a class="button secondary" href="${providerUrl(id)}">${name}</a></li>`);
  return html`<h1>${t.html('provider.choose')}</h1>
${payerLine(t, invoice)}
<p>${t.html('provider.chooseIntro', { amount: shownAmount(t, invoice.paymentAmount, invoice.paymentCurrency) })}</p>
<ul class="choices">${choices}</ul>`;
}

/** The UPI deep link of an `intent` payment (NPCI's `upi://pay`), which UPI apps and their QR scanners open. */
export function upiPaymentUri(instructions: PaymentInstructions): string | undefined {
  if (!instructions.upiId) return undefined;
  const params = new URLSearchParams({ pa: instructions.upiId, pn: instructions.payee, am: instructions.amount, cu: instructions.currency, tn: instructions.reference });
  return `upi://pay?${params.toString().replace(/\+/g, '%20')}`;
}

async function instructionsSection(t: Translator, invoice: Invoice, page: Extract<CheckoutPage, { kind: 'instructions' }>, action: string): Promise<Html> {
  const { instructions } = page;
  const rows: Array<[MessageKey, string | null | undefined]> = [
    ['instructions.payee', instructions.payee],
    ['instructions.upiId', instructions.upiId],
    ['instructions.accountNumber', instructions.accountNumber],
    ['instructions.bankName', instructions.bankName],
    ['instructions.amount', t.amount(instructions.amount, instructions.currency)],
    ['instructions.reference', instructions.reference],
  ];
  const copyable: ReadonlySet<MessageKey> = new Set(['instructions.upiId', 'instructions.accountNumber', 'instructions.reference']);
  const details = rows.flatMap(([label, value]) =>
    value ? [html`<dt>${t.html(label)}</dt><dd><bdi>${value}</bdi>${copyable.has(label) ? html` ${copyButton(t, value, 'instructions.copy')}` : ''}</dd>`] : [],
  );
  const upi = invoice.paymentMethod === 'intent' ? upiPaymentUri(instructions) : undefined;
  const upiBlock = upi
    ? html`<img class="qr" src="${await qrCodeDataUri(upi)}" width="200" height="200" alt="${t.text('instructions.qrUpi', { amount: t.amount(instructions.amount, instructions.currency) })}">
<a class="button secondary" href="${upi}">${t.html('instructions.openUpi')}</a>`
    : '';
  const invalid = page.problem === undefined ? '' : html` aria-invalid="true" aria-describedby="utr-error"`;
  return html`<h1>${t.html('instructions.title')}</h1>
${payerLine(t, invoice)}
<p>${t.html('instructions.intro', { amount: shownAmount(t, instructions.amount, instructions.currency), method: methodName(t, invoice) })}</p>
<dl class="instructions">${details}</dl>
${upiBlock}
<h2>${t.html('utr.title')}</h2>
<p>${t.html('utr.intro')}</p>
<form method="post" action="${action}">
<label for="utr">${t.html('utr.label')}</label>
<input id="utr" name="utr" pattern="[A-Za-z0-9]{12,22}" minlength="12" maxlength="22" autocomplete="off" autocapitalize="characters" spellcheck="false" dir="ltr" required value="${page.value}"${invalid}>
${page.problem === undefined ? '' : html`<p class="error" id="utr-error">${t.html(`utr.${page.problem}`)}</p>`}
<button type="submit">${t.html('utr.submit')}</button>
</form>`;
}

const unavailableSection = (t: Translator, retryUrl: string): Html => html`<h1>${t.html('unavailable.title')}</h1>
<p>${t.html('unavailable.body')}</p>
<a class="button" href="${retryUrl}">${t.html('unavailable.retry')}</a>`;

const handoffSection = (t: Translator, url: string): Html => html`<h1>${t.html('handoff.title')}</h1>
<a class="button" href="${url}">${t.html('handoff.continue')}</a>`;

const waitingSection = (t: Translator, continueUrl: string | undefined): Html => html`<h1>${t.html('waiting.title')}</h1>
<div class="pending"><span class="spinner"></span><span>${t.html('waiting.body')}</span></div>
${continueUrl === undefined ? '' : html`<a class="button secondary" href="${continueUrl}">${t.html('waiting.continue')}</a>`}`;

/** Every end state's way out: back to the shop when there is a way, else leave. */
function wayBack(t: Translator, returnUrl: string | null, merchantName: string): Html {
  if (returnUrl === null) return html`<p class="muted">${t.html('end.close')}</p>`;
  return html`<a class="button" href="${returnUrl}">${t.html('end.return', { merchant: merchantName })}</a>`;
}

const dateTime = (t: Translator, iso: string): Html => html`<time datetime="${iso}">${t.dateTime(iso)}</time>`;

function completedSection(t: Translator, invoice: Invoice, merchantName: string, returnUrl: string | null): Html {
  return html`<p class="outcome" aria-hidden="true">✓</p><h1>${t.html('completed.title')}</h1>
<p>${t.html(invoice.paidLate ? 'completed.bodyLate' : 'completed.body', { merchant: merchantName })}</p>
${wayBack(t, returnUrl, merchantName)}`;
}

function closedSection(t: Translator, invoice: Invoice, reason: CancelReason, merchantName: string, returnUrl: string | null): Html {
  const body =
    reason === 'rejected'
      ? html`<h1>${t.html('rejected.title')}</h1><p>${t.html('rejected.body', { merchant: merchantName })}</p>`
      : html`<h1>${t.html('expired.title')}</h1><p>${t.html('expired.body', { date: dateTime(t, invoice.expiresAt), merchant: merchantName })}</p>${
          invoice.family === 'crypto' ? html`<p class="muted">${t.html('expired.credited', { currency: invoice.paymentCurrency })}</p>` : ''
        }`;
  return html`${body}${wayBack(t, returnUrl, merchantName)}`;
}

function summary(t: Translator, invoice: Invoice, merchantName: string, secondsLeft: number | undefined): Html {
  const converted = invoice.baseCurrency !== invoice.paymentCurrency;
  const progress = paymentProgress(invoice);
  const open = invoice.status === 'created' || invoice.status === 'active';
  return html`<header class="card">
<div class="summary-top"><span class="merchant">${merchantName}</span><span class="order">${t.html('summary.order', { orderId: html`<bdi>${invoice.orderId}</bdi>` })}</span></div>
<p class="amount"><bdi>${t.amount(invoice.paymentAmount, invoice.paymentCurrency)}</bdi></p>
${converted ? html`<p class="muted"><bdi>${t.amount(invoice.amount, invoice.baseCurrency)}</bdi></p>` : ''}
${
  open && progress.partial
    ? html`<div class="progress">
<p>${t.html('summary.paid', { amount: shownAmount(t, progress.paid, invoice.paymentCurrency) })}</p>
<p>${t.html('summary.remaining', { amount: shownAmount(t, progress.remaining, invoice.paymentCurrency) })}</p>
</div>`
    : ''
}
${
  secondsLeft === undefined
    ? ''
    : html`<p class="muted">${t.html('summary.timeLeft', {
        time: html`<span class="countdown" dir="ltr" data-seconds-left="${secondsLeft}">${t.text('summary.minutes', { minutes: Math.ceil(secondsLeft / 60) })}</span>`,
      })}</p>
<p class="muted">${t.html('summary.payBy', { date: dateTime(t, invoice.expiresAt) })}</p>`
}
</header>`;
}

/** Pages where the customer may still pay show the time left; the others have nothing to time. */
const COUNTDOWN_PAGES: ReadonlySet<CheckoutPage['kind']> = new Set(['crypto', 'details', 'providers', 'instructions', 'unavailable']);

/** The GET address of what a page shows, for reopening it in another language (a form's answer included). */
function pageAddress(page: CheckoutPage): { route: HttpRouteName; query: Record<string, string> } {
  switch (page.kind) {
    case 'crypto':
    case 'details':
    case 'completed':
    case 'closed':
      return { route: 'get-checkout', query: {} };
    default:
      return { route: 'get-checkout-provider', query: {} };
  }
}

export async function renderCheckoutPage(checkout: Checkout, page: CheckoutPage, context: PageContext): Promise<RenderedPage> {
  const { invoice, merchant, now } = checkout;
  const t = new Translator(context.language.language);
  const url = (route: HttpRouteName, query: Record<string, string> = {}) => checkoutUrl(context, route, invoice.id, query);
  const returnUrl = returnUrlOf(invoice, merchant);
  const content = await (async (): Promise<Html> => {
    switch (page.kind) {
      case 'crypto':
        return cryptoSection(t, invoice, merchant.name, context.chains);
      case 'details':
        return detailsSection(t, invoice, merchant.name, page, url('submit-checkout-details'));
      case 'providers':
        return providersSection(t, invoice, page, (provider) => url('get-checkout-provider', { provider }));
      case 'instructions':
        return instructionsSection(t, invoice, page, url('submit-checkout-utr'));
      case 'unavailable':
        return unavailableSection(t, url('get-checkout-provider'));
      case 'waiting':
        return waitingSection(t, page.continueUrl);
      case 'handoff':
        return handoffSection(t, page.url);
      case 'completed':
        return completedSection(t, invoice, merchant.name, returnUrl);
      case 'closed':
        return closedSection(t, invoice, page.reason, merchant.name, returnUrl);
    }
  })();
  const secondsLeft = COUNTDOWN_PAGES.has(page.kind) ? Math.max(0, Math.ceil((Date.parse(invoice.expiresAt) - now.getTime()) / 1000)) : undefined;
  // Until it is completed, the invoice can still change under the customer's eyes (paid in part or whole, rejected, expired, paid late).
  const watch =
    page.kind === 'completed'
      ? html``
      : html` data-status-url="${url('get-checkout-status')}" data-status="${invoice.status}" data-paid="${paymentProgress(invoice).paid}"`;
  const hasProblems = (page.kind === 'details' && page.problems.length > 0) || (page.kind === 'instructions' && page.problem !== undefined);
  const address = pageAddress(page);
  return htmlDocument(t, context.stage, {
    status: hasProblems ? 422 : page.kind === 'unavailable' ? 503 : 200,
    title: t.text('page.title', { merchant: merchant.name }),
    main: html`${summary(t, invoice, merchant.name, secondsLeft)}<section class="card"${watch}>${content}</section>`,
    refreshTo: page.kind === 'handoff' ? page.url : undefined,
    pageUrlIn: (language) => checkoutUrl({ ...context, language: { language, explicit: true } }, address.route, invoice.id, address.query),
    // A form's answer may redirect the customer on to the merchant (a payment that completes).
    policy: { frameAncestors: merchant.frameAncestors, formTargets: returnUrl === null ? [] : [new URL(returnUrl).origin] },
  });
}

/** An unknown or malformed link. Nothing on it to protect, so any page may frame it. */
export function renderNotFoundPage(context: PageContext, invoiceId: string): RenderedPage {
  const t = new Translator(context.language.language);
  return htmlDocument(t, context.stage, {
    status: 404,
    title: t.text('notFound.title'),
    main: html`<section class="card"><h1>${t.html('notFound.title')}</h1>
<p>${t.html('notFound.body')}</p></section>`,
    pageUrlIn: (language) => checkoutUrl({ ...context, language: { language, explicit: true } }, 'get-checkout', invoiceId),
    policy: { frameAncestors: ['*'], formTargets: [] },
  });
}
