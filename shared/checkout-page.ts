/**
 * The hosted checkout's pages (merchant-api.md "What the service does" 1-5): self-contained HTML
 * (inline style and one small script, both under a per-response nonce; no external scripts,
 * fonts or styles) that works from 320 px wide and inside a merchant's frame. Every merchant- and
 * customer-supplied value goes through the `html` template's escaping.
 */
import { randomBytes } from 'node:crypto';
import QRCode from 'qrcode';
import type { Checkout } from './domain/checkout-service.js';
import { returnUrlOf } from './domain/checkout.js';
import { isCryptoAsset, type CryptoNetwork, type FiatMethod } from './domain/currencies.js';
import type { CancelReason, DirectOpenField, Invoice, InvoiceWallet } from './domain/invoices.js';
import { Decimal } from './domain/money.js';
import type { FieldProblem } from './errors.js';
import { html, raw, type Html } from './http/html.js';
import { routeByName, type HttpRouteName } from './routes.js';

/** How the demo provider lets an INR customer pay before entering the UTR (merchant-api.md 10). */
export const INR_CHANNELS = { upi: 'UPI', imps: 'IMPS / NEFT bank transfer' } as const;
export type InrChannel = keyof typeof INR_CHANNELS;
export const isInrChannel = (value: unknown): value is InrChannel => typeof value === 'string' && Object.hasOwn(INR_CHANNELS, value);

/** What a page shows below the invoice summary. */
export type CheckoutPage =
  | { kind: 'crypto' }
  | { kind: 'details'; fields: readonly DirectOpenField[]; values: Record<string, string>; problems: FieldProblem[] }
  | { kind: 'completed' }
  | { kind: 'closed'; reason: CancelReason }
  /** The demo provider, INR: the customer picks how to pay. */
  | { kind: 'inr-channels' }
  /** The demo provider, INR: the transaction-information form. */
  | { kind: 'utr'; channel: InrChannel; value: string; problem?: string }
  /** The demo provider, other methods: the outcome is the customer's to choose. */
  | { kind: 'simulated-provider' }
  /** Production: the payment is with the local provider, whose integration tells the outcome. */
  | { kind: 'instructions' }
  /** The payment was handed to the provider; its decision is awaited. */
  | { kind: 'waiting' };

export interface RenderedPage {
  status: number;
  html: string;
  headers: Record<string, string>;
}

/** The checkout's URLs for an invoice, from the route table, on the public origin. */
export function checkoutUrl(publicBaseUrl: string, route: HttpRouteName, invoiceId: string): string {
  return publicBaseUrl + routeByName(route).path.replace('{invoiceId}', encodeURIComponent(invoiceId));
}

const POLL_INTERVAL_MS = 2000;

const STYLE = `
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d2330;background:#f3f5f8}
main{max-width:480px;margin:0 auto;padding:12px}
.card{background:#fff;border:1px solid #dde1e8;border-radius:12px;padding:16px;margin-bottom:12px}
.summary-top{display:flex;flex-wrap:wrap;justify-content:space-between;gap:4px 12px;font-size:14px;color:#5b6578}
.merchant{font-weight:600;color:#1d2330;overflow-wrap:anywhere}
.order{overflow-wrap:anywhere}
.amount{font-size:28px;font-weight:700;line-height:1.2;margin:8px 0 0;overflow-wrap:anywhere}
.muted{color:#5b6578;font-size:14px}
p{margin:8px 0}
h1{font-size:20px;line-height:1.3;margin:0 0 8px}
h2{font-size:16px;margin:0 0 8px}
.countdown{font-variant-numeric:tabular-nums;font-weight:600;color:#1d2330}
.network{border-top:1px solid #dde1e8;margin-top:16px;padding-top:16px}
.qr{display:block;width:200px;max-width:100%;height:auto;margin:8px auto 12px;image-rendering:pixelated}
.address{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:14px;word-break:break-all;background:#f3f5f8;border-radius:8px;padding:8px 10px;margin:0}
.button,button{display:block;width:100%;margin:12px 0 0;padding:12px 16px;border:1px solid #2f5d9e;border-radius:8px;background:#2f5d9e;color:#fff;font:inherit;font-weight:600;text-align:center;text-decoration:none;cursor:pointer}
.button:focus-visible,button:focus-visible,input:focus-visible{outline:3px solid #9db8e2;outline-offset:1px}
.secondary{background:#fff;color:#2f5d9e}
.copy{display:inline-block;width:auto;margin-top:8px;padding:6px 14px;font-size:14px}
.choices{list-style:none;margin:0;padding:0}
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
 * Copy buttons (the clipboard API, else a selection), the countdown to the invoice's expiry
 * (reloading when it runs out, so the server shows the expired state), and the live status:
 * on completion the customer goes to the return URL, and any other change reloads the page.
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
        button.textContent = copied ? 'Copied' : 'Copy failed: select the text';
        setTimeout(function () { button.textContent = label; }, 2000);
      }
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(text).then(function () { show(true); }, function () { show(copyBySelection(text)); });
      } else {
        show(copyBySelection(text));
      }
    });
  });
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
    var shown = watched.getAttribute('data-status');
    var poll = function () {
      fetch(watched.getAttribute('data-status-url'), { cache: 'no-store', headers: { accept: 'application/json' } })
        .then(function (response) { return response.ok ? response.json() : null; })
        .then(function (body) {
          var current = body && body.data;
          if (current && current.status === 'completed' && /^https?:\\/\\//i.test(current.redirectUrl || '')) {
            location.replace(current.redirectUrl);
          } else if (current && current.status !== shown) {
            location.reload();
          } else {
            setTimeout(poll, ${POLL_INTERVAL_MS});
          }
        }, function () { setTimeout(poll, ${POLL_INTERVAL_MS}); });
    };
    setTimeout(poll, ${POLL_INTERVAL_MS});
  }
})();`;

const NETWORK_NAMES: Record<CryptoNetwork, string> = {
  bitcoin: 'Bitcoin',
  ethereum: 'Ethereum',
  bsc: 'BNB Smart Chain',
  polygon: 'Polygon',
  tron: 'Tron',
  bahamut: 'Bahamut',
};

const METHOD_NAMES: Record<FiatMethod, string> = {
  wallet: 'Wallet',
  bankpay: 'Bank transfer',
  iban: 'IBAN bank transfer',
  p2p: 'Bank transfer',
  intent: 'UPI',
};

const FIELD_INPUTS: Record<DirectOpenField, { label: string; type: string; autocomplete: string }> = {
  customerFullName: { label: 'Full name', type: 'text', autocomplete: 'name' },
  customerFirstName: { label: 'First name', type: 'text', autocomplete: 'given-name' },
  customerLastName: { label: 'Last name', type: 'text', autocomplete: 'family-name' },
  customerEmail: { label: 'Email', type: 'email', autocomplete: 'email' },
  customerAccount: { label: 'IBAN', type: 'text', autocomplete: 'off' },
};

/** Rule messages are written to follow a field name ("must be …"); beside the field they start a sentence. */
const sentence = (message: string): string => message.charAt(0).toUpperCase() + message.slice(1);

/** Crypto amounts without the trailing zeros of their 18-place precision; fiat with its cents. */
const shownAmount = (amount: string, currency: string): string => (isCryptoAsset(currency) ? new Decimal(amount).toFixed() : amount);

const methodName = (invoice: Invoice): string => METHOD_NAMES[invoice.paymentMethod as FiatMethod];

const payerName = (invoice: Invoice): string =>
  invoice.customer.fullName ?? [invoice.customer.firstName, invoice.customer.lastName].filter(Boolean).join(' ');

/**
 * CSP sources for `frame-ancestors` from the merchant's setting: `*`, keywords, schemes and
 * origins (with `*.` host wildcards). Anything else could end the directive early, so it is left
 * out; with nothing left, no one may frame the page.
 */
function frameAncestorSources(allowed: readonly string[]): string {
  const source = /^(\*|'self'|'none'|[a-z][a-z0-9+.-]*:|([a-z][a-z0-9+.-]*:\/\/)?(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*(:(\d{1,5}|\*))?)$/i;
  const sources = allowed.filter((value) => source.test(value));
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

function htmlDocument(status: number, title: string, main: Html, policy: EmbeddingPolicy): RenderedPage {
  const nonce = randomBytes(16).toString('base64');
  const page = html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title><link rel="icon" href="data:,"><style nonce="${nonce}">${raw(STYLE)}</style></head>
<body><main>${main}</main><script nonce="${nonce}">${raw(SCRIPT)}</script></body></html>`;
  return {
    status,
    html: page.text,
    headers: {
      'content-security-policy': contentSecurityPolicy(nonce, policy),
      'cache-control': 'no-store',
      // The link is what the customer holds to pay: it is not handed to the sites the page links to.
      'referrer-policy': 'no-referrer',
      'x-content-type-options': 'nosniff',
    },
  };
}

async function qrCodeDataUri(text: string): Promise<string> {
  const svg = await QRCode.toString(text, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
  return `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
}

/** EVM networks share one address: one QR code and copy button per address, naming its networks. */
function addressGroups(wallet: InvoiceWallet): { address: string; networks: CryptoNetwork[] }[] {
  const groups = new Map<string, CryptoNetwork[]>();
  for (const { network, address } of wallet.addresses) groups.set(address, [...(groups.get(address) ?? []), network]);
  return [...groups].map(([address, networks]) => ({ address, networks }));
}

async function cryptoSection(invoice: Invoice, merchantName: string): Promise<Html> {
  const amount = shownAmount(invoice.paymentAmount, invoice.paymentCurrency);
  const groups = await Promise.all(
    addressGroups(invoice.wallet!).map(async ({ address, networks }) => {
      const names = networks.map((network) => NETWORK_NAMES[network]).join(', ');
      return html`<div class="network">
<h2>${names}</h2>
<img class="qr" src="${await qrCodeDataUri(address)}" width="200" height="200" alt="QR code of the ${names} address">
<p class="address">${address}</p>
<button type="button" class="copy secondary" data-copy="${address}">Copy address</button>
</div>`;
    }),
  );
  const networks = invoice.wallet!.networks;
  const where = networks.length === 1 ? `on the ${NETWORK_NAMES[networks[0]!]} network` : 'on one of the networks below';
  return html`<h1>Pay with ${invoice.paymentCurrency}</h1>
<p>Send exactly <strong>${amount} ${invoice.paymentCurrency}</strong> to your address ${where}.
The address is yours for every payment to ${merchantName}.</p>
<button type="button" class="copy secondary" data-copy="${amount}">Copy amount</button>
${groups}
<p class="muted">Send only ${invoice.paymentCurrency}, and only ${networks.length === 1 ? where : 'on a network named with the address'}.</p>
<div class="pending"><span class="spinner"></span><span>Waiting for your payment. This page updates by itself.</span></div>`;
}

function detailsSection(invoice: Invoice, merchantName: string, page: Extract<CheckoutPage, { kind: 'details' }>, action: string): Html {
  const problems = new Map(page.problems.map((problem) => [problem.field, problem.message]));
  const inputs = page.fields.map((field) => {
    const input = FIELD_INPUTS[field];
    const problem = problems.get(field);
    return html`<label for="${field}">${input.label}</label>
<input id="${field}" name="${field}" type="${input.type}" autocomplete="${input.autocomplete}" value="${page.values[field] ?? ''}" required${
      problem === undefined ? '' : html` aria-invalid="true" aria-describedby="${field}-error"`
    }>
${problem === undefined ? '' : html`<p class="error" id="${field}-error">${sentence(problem)}</p>`}`;
  });
  return html`<h1>Your details</h1>
<p>${merchantName} needs these details for your ${methodName(invoice)} payment.</p>
<form method="post" action="${action}">
${inputs}
<button type="submit">Continue to payment</button>
</form>`;
}

const DEMO_PROVIDER_NOTICE = html`<p class="demo">Demo payment provider: a simulation for testing. No money moves.</p>`;

function payerLine(invoice: Invoice): Html {
  const name = payerName(invoice);
  return name === '' ? html`` : html`<p>Payer: <strong>${name}</strong></p>`;
}

function inrChannelsSection(invoice: Invoice, providerUrl: string): Html {
  const choices = Object.entries(INR_CHANNELS).map(
    ([channel, name]) => html`<li><a class="button secondary" href="${providerUrl}?channel=${channel}">${name}</a></li>`,
  );
  return html`${DEMO_PROVIDER_NOTICE}<h1>Choose a payment provider</h1>
${payerLine(invoice)}
<ul class="choices">${choices}</ul>`;
}

function utrSection(invoice: Invoice, page: Extract<CheckoutPage, { kind: 'utr' }>, action: string, providerUrl: string): Html {
  const invalid = page.problem === undefined ? '' : html` aria-invalid="true" aria-describedby="utr-error"`;
  return html`${DEMO_PROVIDER_NOTICE}<h1>Transaction information</h1>
<p>Pay <strong>${invoice.paymentAmount} ${invoice.paymentCurrency}</strong> with ${INR_CHANNELS[page.channel]}, then enter the
12-digit UTR (transaction reference) your bank or UPI app shows for the payment.</p>
<form method="post" action="${action}">
<input type="hidden" name="channel" value="${page.channel}">
<label for="utr">UTR (12 digits)</label>
<input id="utr" name="utr" inputmode="numeric" pattern="[0-9]{12}" maxlength="12" autocomplete="off" required value="${page.value}"${invalid}>
${page.problem === undefined ? '' : html`<p class="error" id="utr-error">${sentence(page.problem)}</p>`}
<button type="submit">Submit</button>
</form>
<a class="button secondary" href="${providerUrl}">Choose another provider</a>`;
}

function simulatedProviderSection(invoice: Invoice, action: string): Html {
  return html`${DEMO_PROVIDER_NOTICE}<h1>${methodName(invoice)}</h1>
${payerLine(invoice)}
<p>Choose how this payment of <strong>${invoice.paymentAmount} ${invoice.paymentCurrency}</strong> ends.</p>
<form method="post" action="${action}">
<button type="submit" name="outcome" value="confirmed">Simulate successful payment</button>
<button type="submit" name="outcome" value="failed" class="secondary">Simulate failed payment</button>
</form>`;
}

const instructionsSection = (invoice: Invoice): Html => html`<h1>Complete your payment</h1>
<p>Your ${methodName(invoice)} payment of <strong>${invoice.paymentAmount} ${invoice.paymentCurrency}</strong> is with the local payment
provider. Follow its instructions to pay.</p>
<div class="pending"><span class="spinner"></span><span>This page updates by itself when the payment is confirmed.</span></div>`;

const WAITING_SECTION = html`<h1>Confirming your payment</h1>
<div class="pending"><span class="spinner"></span><span>The payment provider is confirming your payment. This page updates by itself.</span></div>`;

function returnLink(returnUrl: string | null, merchantName: string, style: 'primary' | 'secondary'): Html {
  if (returnUrl === null) return html``;
  return html`<a class="button${style === 'secondary' ? ' secondary' : ''}" href="${returnUrl}">Return to ${merchantName}</a>`;
}

function completedSection(invoice: Invoice, merchantName: string, returnUrl: string | null): Html {
  return html`<p class="outcome" aria-hidden="true">✓</p><h1>Payment received</h1>
<p>Thank you: ${merchantName} has your payment${invoice.paidLate ? ', which arrived after the invoice had expired' : ''}.</p>
${returnUrl === null ? html`<p class="muted">You can close this page.</p>` : returnLink(returnUrl, merchantName, 'primary')}`;
}

function closedSection(invoice: Invoice, reason: CancelReason, merchantName: string, returnUrl: string | null): Html {
  const body =
    reason === 'rejected'
      ? html`<h1>Payment rejected</h1><p>The payment provider rejected this payment. Ask ${merchantName} for a new payment link to try again.</p>`
      : html`<h1>This invoice has expired</h1><p>The time to pay has run out. Ask ${merchantName} for a new payment link.</p>${
          invoice.family === 'crypto'
            ? html`<p class="muted">If you have already sent ${invoice.paymentCurrency} to the address, it is still credited to you.</p>`
            : ''
        }`;
  return html`${body}${returnLink(returnUrl, merchantName, 'secondary')}`;
}

function summary(invoice: Invoice, merchantName: string, secondsLeft: number | undefined): Html {
  const converted = invoice.baseCurrency !== invoice.paymentCurrency;
  return html`<header class="card">
<div class="summary-top"><span class="merchant">${merchantName}</span><span class="order">Order ${invoice.orderId}</span></div>
<p class="amount">${shownAmount(invoice.paymentAmount, invoice.paymentCurrency)} ${invoice.paymentCurrency}</p>
${converted ? html`<p class="muted">${invoice.amount} ${invoice.baseCurrency}</p>` : ''}
${
  secondsLeft === undefined
    ? ''
    : html`<p class="muted">Time left: <span class="countdown" data-seconds-left="${secondsLeft}">${Math.ceil(secondsLeft / 60)} min</span></p>`
}
</header>`;
}

/** Pages where the customer may still pay show the time left; the others have nothing to time. */
const COUNTDOWN_PAGES: ReadonlySet<CheckoutPage['kind']> = new Set(['crypto', 'details', 'inr-channels', 'utr', 'simulated-provider', 'instructions']);

export async function renderCheckoutPage(checkout: Checkout, page: CheckoutPage, publicBaseUrl: string): Promise<RenderedPage> {
  const { invoice, merchant, now } = checkout;
  const url = (route: HttpRouteName) => checkoutUrl(publicBaseUrl, route, invoice.id);
  const returnUrl = returnUrlOf(invoice, merchant);
  const content = await (async (): Promise<Html> => {
    switch (page.kind) {
      case 'crypto':
        return cryptoSection(invoice, merchant.name);
      case 'details':
        return detailsSection(invoice, merchant.name, page, url('submit-checkout-details'));
      case 'inr-channels':
        return inrChannelsSection(invoice, url('get-checkout-provider'));
      case 'utr':
        return utrSection(invoice, page, url('submit-checkout-utr'), url('get-checkout-provider'));
      case 'simulated-provider':
        return simulatedProviderSection(invoice, url('simulate-checkout-payment'));
      case 'instructions':
        return instructionsSection(invoice);
      case 'waiting':
        return WAITING_SECTION;
      case 'completed':
        return completedSection(invoice, merchant.name, returnUrl);
      case 'closed':
        return closedSection(invoice, page.reason, merchant.name, returnUrl);
    }
  })();
  const secondsLeft = COUNTDOWN_PAGES.has(page.kind) ? Math.max(0, Math.ceil((Date.parse(invoice.expiresAt) - now.getTime()) / 1000)) : undefined;
  // Until it is completed, the invoice can still change under the customer's eyes (paid, rejected, expired, paid late).
  const watch = page.kind === 'completed' ? html`` : html` data-status-url="${url('get-checkout-status')}" data-status="${invoice.status}"`;
  const hasProblems = (page.kind === 'details' && page.problems.length > 0) || (page.kind === 'utr' && page.problem !== undefined);
  return htmlDocument(
    hasProblems ? 422 : 200,
    `Pay ${merchant.name}`,
    html`${summary(invoice, merchant.name, secondsLeft)}<section class="card"${watch}>${content}</section>`,
    // A form's answer may redirect the customer on to the merchant (a payment that completes).
    { frameAncestors: merchant.frameAncestors, formTargets: returnUrl === null ? [] : [new URL(returnUrl).origin] },
  );
}

/** An unknown or malformed link. Nothing on it to protect, so any page may frame it. */
export function renderNotFoundPage(): RenderedPage {
  return htmlDocument(
    404,
    'Payment link not found',
    html`<section class="card"><h1>Payment link not found</h1>
<p>This payment link is not valid. Check that you opened the whole link, or ask the shop for a new one.</p></section>`,
    { frameAncestors: ['*'], formTargets: [] },
  );
}
