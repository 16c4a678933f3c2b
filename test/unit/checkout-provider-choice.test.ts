/**
 * The provider choice of an INR invoice that two providers serve, in every language: the browser
 * tests meet it in English only, since the demo stage's one INR provider leaves nothing to choose.
 */
import { describe, expect, it } from 'vitest';
import { LANGUAGES, LANGUAGE_CODES } from '../../shared/checkout/language.js';
import { renderCheckoutPage } from '../../shared/checkout-page.js';
import { defaultChains } from '../../shared/domain/chains/networks.js';
import { createInvoiceRequestSchema } from '../../shared/domain/invoicing/invoice-requests.js';
import { buildInvoice } from '../../shared/domain/invoicing/invoices.js';
import type { Checkout } from '../../shared/domain/payments/checkout-service.js';
import { DEMO_USD_PRICES, StaticRateSource } from '../../shared/domain/rates/rates.js';
import { ENGLISH_PHRASES, RAW_KEY_OR_PLACEHOLDER, untranslatedIn } from '../support/catalogues.js';
import { stageProviders } from '../support/providers.js';
import { asRequestBody } from '../support/request-body.js';

const prices = (await new StaticRateSource(DEMO_USD_PRICES).current()).prices;
const NOW = new Date('2026-01-01T00:00:00.000Z');
const INVOICE_ID = '00000000-0000-4000-8000-000000000001';
const PROVIDERS = [
  { id: 'psp-one', name: 'PSP One' },
  { id: 'psp-two', name: 'PSP Two' },
];

function inrCheckout(): Checkout {
  const request = createInvoiceRequestSchema.parse(
    asRequestBody({ orderId: 'o-1', customerId: 'c-1', baseCurrency: 'INR', amount: 1000, customerFirstName: 'Asha', customerLastName: 'Rao', customerEmail: 'asha@example.com' }),
  );
  const invoice = buildInvoice(request, { id: INVOICE_ID, merchantId: 'm-1', now: NOW }, prices, { stage: 'demo', lifetimeSeconds: 900, providers: stageProviders('demo'), networks: [] });
  return { invoice, merchant: { name: 'Shop', returnUrl: null, frameAncestors: [] } as unknown as Checkout['merchant'], step: { kind: 'payment' }, now: NOW };
}

/** What a reader sees of the page: its text, without the style, the script and the markup. */
const readableText = (page: string): string =>
  page
    .replace(/<(style|script)[^>]*>[\s\S]*?<\/\1>/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#39;/g, "'");

describe('the provider choice', () => {
  it.each(LANGUAGE_CODES)('is written in %s alone, each provider a link to its payment in that language', async (language) => {
    const { html } = await renderCheckoutPage(
      inrCheckout(),
      { kind: 'providers', providers: PROVIDERS },
      { publicBaseUrl: 'https://pay.example', stage: 'demo', chains: defaultChains('demo'), language: { language, explicit: true } },
    );
    const text = readableText(html);
    expect(untranslatedIn(text, language, { englishPhrases: ENGLISH_PHRASES, rawKeyOrPlaceholder: RAW_KEY_OR_PLACEHOLDER })).toEqual([]);
    expect(text).toContain(LANGUAGES[language].catalogue['provider.choose']);
    expect([...html.matchAll(/<li><a class="button secondary" href="([^"]+)">([^<]+)<\/a><\/li>/g)].map(([, href, name]) => ({ href, name }))).toEqual(
      PROVIDERS.map(({ id, name }) => ({ href: `https://pay.example/checkout/${INVOICE_ID}/provider?provider=${id}&amp;lang=${language}`, name })),
    );
  });
});
