/**
 * The hosted checkout's pages (docs/merchant-guide.md#the-hosted-checkout):
 * self-contained HTML (inline style and one small script, both under a per-response nonce; no
 * external scripts, fonts or styles) that works from 320 px wide and inside a merchant's frame, in
 * the customer's language. Every word comes from the language's catalogue; every merchant- and
 * customer-supplied value goes through the `html` template's escaping.
 *
 * Here each page is put together from its parts under ./checkout/: the document with its style,
 * script and policy, the invoice summary, and the markup of each step.
 */
import { htmlDocument, type RenderedPage } from './checkout/document.js';
import { Translator } from './checkout/language.js';
import type { CheckoutPage, PageContext } from './checkout/page.js';
import { cryptoSection } from './checkout/steps/crypto.js';
import { detailsSection } from './checkout/steps/details.js';
import { closedSection, completedSection } from './checkout/steps/outcome.js';
import { handoffSection, instructionsSection, providersSection, unavailableSection, waitingSection } from './checkout/steps/provider.js';
import { summary } from './checkout/summary.js';
import type { Checkout } from './domain/payments/index.js';
import { paymentProgress, returnUrlOf } from './domain/invoicing/index.js';
import { html, type Html } from './http/html.js';
import { routeByName, type HttpRouteName } from './routes.js';

/** What the handlers name a page by. */
export type { CheckoutPage, UtrProblem } from './checkout/page.js';

/**
 * A checkout URL of an invoice, from the route table, on the public origin; with the language when
 * the customer chose it in the URL, so that it carries through links, forms and redirects.
 */
export function checkoutUrl(context: Pick<PageContext, 'publicBaseUrl' | 'language'>, route: HttpRouteName, invoiceId: string, query: Record<string, string> = {}): string {
  const path = routeByName(route).path.replace('{invoiceId}', encodeURIComponent(invoiceId));
  const params = new URLSearchParams({ ...query, ...(context.language.explicit ? { lang: context.language.language } : {}) });
  return `${context.publicBaseUrl}${path}${params.size > 0 ? `?${params}` : ''}`;
}

/** Pages where the customer may still pay show the time left; the others have nothing to time. */
const COUNTDOWN_PAGES: ReadonlySet<CheckoutPage['kind']> = new Set(['crypto', 'details', 'providers', 'instructions', 'unavailable']);

/** The GET address of what a page shows, for reopening it in another language (a form's answer included). */
function pageAddress(page: CheckoutPage): { route: HttpRouteName; query: Record<string, string> } {
  switch (page.kind) {
    case 'crypto':
      return { route: 'get-checkout', query: page.network === undefined ? {} : { network: page.network } };
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
        return cryptoSection(t, invoice, merchant.name, context, { requested: page.network, urlOf: (network) => url('get-checkout', { network }) });
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
  const watch = page.kind === 'completed' ? html`` : html` data-status-url="${url('get-checkout-status')}" data-status="${invoice.status}" data-paid="${paymentProgress(invoice).paid}"`;
  const hasProblems = (page.kind === 'details' && page.problems.length > 0) || (page.kind === 'instructions' && page.problem !== undefined);
  const address = pageAddress(page);
  return htmlDocument(t, context.stage, {
    status: hasProblems ? 422 : page.kind === 'unavailable' ? 503 : 200,
    title: t.text('page.title', { merchant: merchant.name }),
    family: invoice.family,
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
