/**
 * The hosted checkout's second edition in a real browser (headless Chromium) against the local
 * runtime: every page in every language without a word left untranslated (a screenshot of each
 * language under test/artifacts/), Urdu laid out right to left, axe-core finding nothing on any
 * page at 375 and 1280 px, /docs fitting a phone, the QR code of each network as drawn read back as its payment URI,
 * a partial payment showing up live, and the way back to the shop from a rejected payment.
 *
 * The simulation API of this runtime completes an invoice on any deposit, so the partial payment
 * is written into the invoice as the payment accounting records one (see checkout-pages.ts).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LANGUAGE_CODES } from '../../shared/checkout/language.js';
import {
  accessibilityViolationsAtEveryWidth,
  AUDIT_VIEWPORTS,
  collectPageErrors,
  DESKTOP_VIEWPORT,
  launchChromium,
  NO_VIOLATIONS_AT_ANY_WIDTH,
  PHONE_VIEWPORT,
  saveScreenshot,
  startMerchantSite,
  type MerchantSite,
} from '../support/browser.js';
import { DOCUMENT_LANGUAGE, ENGLISH_PHRASES, RAW_KEY_OR_PLACEHOLDER, readableText } from '../support/catalogues.js';
import { startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';
import { checkoutDriver, withLanguage, type CheckoutDriver } from '../support/checkout-pages.js';
import { decodeQrPng } from '../support/qr.js';

const LIVE_UPDATE_TIMEOUT_MS = 20_000;

const NOT_FOUND_STATUS = 'Failed to load resource: the server responded with a status of 404 (Not Found)';

let dataDir: string;
let gateway: GatewayProcess;
let site: MerchantSite;
let browser: Browser;
let driver: CheckoutDriver;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  browser = await launchChromium();
  site = await startMerchantSite();
  dataDir = await mkdtemp(join(tmpdir(), 'gateway-checkout-languages-'));
  // The provider takes its time, so that a submitted UTR stays on the waiting page.
  gateway = await startGatewayProcess({ dataDir, env: { GATEWAY_PROVIDER_DELAY_S: '600' } });
  driver = checkoutDriver(gateway, dataDir);
});

afterEach(async () => {
  await Promise.all(contexts.splice(0).map((context) => context.close()));
});

afterAll(async () => {
  await browser?.close();
  await site?.close();
  await gateway?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

async function openPage(options: { viewport?: { width: number; height: number }; javaScriptEnabled?: boolean } = {}): Promise<{ page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport: options.viewport ?? PHONE_VIEWPORT, javaScriptEnabled: options.javaScriptEnabled ?? true });
  contexts.push(context);
  const page = await context.newPage();
  return { page, errors: collectPageErrors(page) };
}

async function expectAccessibleAtEveryWidth(page: Page, what: string): Promise<void> {
  expect(await accessibilityViolationsAtEveryWidth(page), what).toEqual(NO_VIOLATIONS_AT_ANY_WIDTH);
}

describe('the checkout in every language', () => {
  it('renders every page without an untranslated word, Urdu right to left, and axe finds nothing at 375 and 1280 px', async () => {
    const pages = await driver.everyCheckoutPage(site.returnUrl);
    const { page, errors } = await openPage({ viewport: AUDIT_VIEWPORTS[0] });
    for (const language of LANGUAGE_CODES) {
      for (const [name, url] of Object.entries(pages)) {
        await page.goto(withLanguage(url, language));
        const what = `${name} in ${language}`;
        expect(await page.evaluate(DOCUMENT_LANGUAGE), what).toEqual(language === 'ur' ? { lang: 'ur', dir: 'rtl', direction: 'rtl' } : { lang: language, dir: 'ltr', direction: 'ltr' });
        const text = await page.evaluate<string>(readableText());
        expect(RAW_KEY_OR_PLACEHOLDER.exec(text)?.[0], what).toBeUndefined();
        if (language !== 'en')
          expect(
            ENGLISH_PHRASES.filter((phrase) => text.includes(phrase)),
            what,
          ).toEqual([]);
        await expectAccessibleAtEveryWidth(page, what);
        if (name === 'crypto' || name === 'crypto-network' || name === 'details') {
          await page.setViewportSize(AUDIT_VIEWPORTS[0]);
          await saveScreenshot(page, `checkout-${language}-${name}`);
        }
        // The browser reports the not-found page's own 404 status; nothing else may go wrong.
        expect(errors.splice(0), what).toEqual(name === 'not-found' ? [NOT_FOUND_STATUS] : []);
      }
    }
  }, 600_000);

  it('lays Urdu out right to left: the language switcher runs from the right', async () => {
    const invoice = await driver.createInvoice({ baseCurrency: 'USDT', amount: 25 });
    const { page } = await openPage({ viewport: DESKTOP_VIEWPORT });
    await page.goto(withLanguage(`${invoice.link}?network=tron`, 'ur'));
    await page.getByRole('heading', { name: 'USDT سے ادائیگی کریں' }).waitFor();
    const english = await page.getByRole('link', { name: 'English' }).boundingBox();
    const azerbaijani = await page.getByRole('link', { name: 'Azərbaycanca' }).boundingBox();
    expect(english!.x).toBeGreaterThan(azerbaijani!.x);
    // Addresses stay left to right inside the right-to-left page, and so do the networks' names.
    expect(await page.evaluate(`getComputedStyle(document.querySelector('.address')).direction`)).toBe('ltr');
    expect(await page.getByRole('list', { name: 'نیٹ ورک منتخب کریں' }).getByRole('link').allTextContents()).toEqual(['Ethereum (ERC-20)', 'BNB Smart Chain (BEP-20)', 'Tron (TRC-20)✓']);
    await saveScreenshot(page, 'checkout-ur-desktop');
  });

  it('switches language without JavaScript and keeps it through the form to the provider', async () => {
    const invoice = await driver.createInvoice({ baseCurrency: 'TRY', amount: 1000 });
    const { page } = await openPage({ javaScriptEnabled: false });
    await page.goto(invoice.link, { waitUntil: 'domcontentloaded' });
    await page.getByRole('link', { name: 'Türkçe' }).click();
    await page.getByRole('heading', { name: 'Bilgileriniz' }).waitFor();
    await page.getByLabel('Ad soyad').fill('Ada Lovelace');
    await page.getByLabel('E-posta').fill('ada@example.com');
    await page.getByLabel('IBAN').fill('TR33 0006 1005 1978 6457 8413 26');
    await page.getByRole('button', { name: 'Ödemeye devam et' }).click();
    // On to the provider's own page, which speaks the language chosen too.
    await page.getByRole('button', { name: 'Başarılı ödemeyi simüle et' }).waitFor();
    expect(page.url().startsWith(`${gateway.demoProviderUrl}/pay/`)).toBe(true);
    expect(new URL(page.url()).searchParams.get('lang')).toBe('tr');
  });
});

describe('/docs', () => {
  it('fits a 375 px screen and axe finds nothing at 375 and 1280 px', async () => {
    const { page, errors } = await openPage({ viewport: AUDIT_VIEWPORTS[0] });
    await page.goto(`${gateway.baseUrl}/docs`);
    expect(await page.evaluate('document.scrollingElement.scrollWidth')).toBeLessThanOrEqual(375);
    await saveScreenshot(page, 'docs-375');
    await expectAccessibleAtEveryWidth(page, '/docs');
    expect(errors).toEqual([]);
  });
});

describe('a crypto payment', () => {
  it("draws the chosen network's QR code, which reads back as its payment URI, and follows a partial payment live on it", async () => {
    const invoice = await driver.createInvoice({ baseCurrency: 'USDT', amount: 25 });
    const [ethereum, bsc, tron] = invoice.wallet.addresses.map((entry: { address: string }) => entry.address);
    const { page, errors } = await openPage();
    await page.goto(invoice.link);
    const drawnQrCodes = async () => {
      const images = page.locator('img.qr');
      return Promise.all(Array.from({ length: await images.count() }, async (_, index) => decodeQrPng(await images.nth(index).screenshot())));
    };
    const asked = (units: string) => ({
      ethereum: `ethereum:0xaA8E23Fb1079EA71e0a56F48a2aA51851D8433D0@11155111/transfer?address=${ethereum}&uint256=${units}`,
      bsc: `ethereum:0x337610d27c682E347C9cD60BD4b3b107C9d34dDd@97/transfer?address=${bsc}&uint256=${units}000000000000`,
      tron,
    });
    const choose = async (name: string, network: string) => {
      await page.getByRole('link', { name }).click();
      await page.waitForURL(`${invoice.link}?network=${network}#pay-on-network`);
    };
    expect(await drawnQrCodes()).toEqual([]);
    await choose('Tron (TRC-20)', 'tron');
    expect(await drawnQrCodes()).toEqual([asked('25000000').tron]);
    await choose('BNB Smart Chain (BEP-20)', 'bsc');
    expect(await drawnQrCodes()).toEqual([asked('25000000').bsc]);
    await choose('Ethereum (ERC-20)', 'ethereum');
    expect(await drawnQrCodes()).toEqual([asked('25000000').ethereum]);
    expect(await page.getByText('Paid so far').count()).toBe(0);

    // The page reloads itself on the payment, keeping the network chosen.
    await driver.simulateDeposit(invoice.id, '10');
    await page.getByText('Paid so far: 10 USDT').waitFor({ timeout: LIVE_UPDATE_TIMEOUT_MS });
    await page.getByText('Still to pay: 15 USDT').waitFor();
    expect(await drawnQrCodes()).toEqual([asked('15000000').ethereum]);
    expect(await page.getByRole('link', { name: 'Open in wallet' }).getAttribute('href')).toBe(asked('15000000').ethereum);
    await saveScreenshot(page, 'checkout-partial-phone');
    expect(errors).toEqual([]);
  });
});

describe('a rejected payment', () => {
  it('offers the way back to the shop, in the language chosen', async () => {
    const invoice = await driver.createInvoice({ baseCurrency: 'TRY', amount: 1000, paymentMethod: 'wallet', customerFullName: 'Ada', redirectUrl: site.returnUrl('rejected-tr') });
    const { page, errors } = await openPage();
    await page.goto(withLanguage(invoice.link, 'tr'));
    // The provider's page, in the language chosen, then back at the checkout, which shows the rejection.
    await page.getByRole('button', { name: 'Başarısız ödemeyi simüle et' }).click();
    await page.goto(withLanguage(invoice.link, 'tr'));
    await page.getByRole('heading', { name: 'Ödeme reddedildi' }).waitFor({ timeout: LIVE_UPDATE_TIMEOUT_MS });
    await saveScreenshot(page, 'checkout-rejected-tr');
    await page.getByRole('link', { name: 'Demo merchant sitesine dön' }).click();
    await page.waitForURL(site.returnUrl('rejected-tr'));
    expect(site.returns).toContain('/return/rejected-tr');
    expect(errors).toEqual([]);
  });
});
