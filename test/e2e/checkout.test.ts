/**
 * The hosted checkout in a real browser (headless Chromium) against the local runtime as
 * `npm start` runs it: what a customer sees and does, from the merchant's link back to the
 * merchant's site, on a 320 px phone, on a desktop and inside a frame of another origin. Every
 * test saves screenshots under test/artifacts/ and fails on any console error (a script or style
 * the Content-Security-Policy refused shows up there).
 */
import { randomInt, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { newApiKey, newMerchant } from '../../shared/domain/merchants/merchants.js';
import { areLoadedImages, collectPageErrors, DESKTOP_VIEWPORT, launchChromium, PHONE_VIEWPORT, saveScreenshot, startMerchantSite, type MerchantSite } from '../support/browser.js';
import { startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';
import { decodeQrPng } from '../support/qr.js';
import { startPartnerProvider, type PartnerProvider } from '../support/partner-provider.js';
import { openRuntimeStack } from '../support/runtime-stack.js';
import { eventually } from '../support/wait.js';

/** The provider decides a UTR after a second; the page polls every two. */
const RETURN_TIMEOUT_MS = 20_000;

let dataDir: string;
let gateway: GatewayProcess;
let site: MerchantSite;
let browser: Browser;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  browser = await launchChromium();
  site = await startMerchantSite();
  dataDir = await mkdtemp(join(tmpdir(), 'gateway-checkout-'));
  gateway = await startGatewayProcess({ dataDir, env: { GATEWAY_PROVIDER_DELAY_S: '1' } });
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

async function createInvoice(fields: Record<string, unknown>, apiKey = gateway.apiKey, at: Pick<GatewayProcess, 'baseUrl'> = gateway) {
  const response = await fetch(`${at.baseUrl}/api/v2/invoices`, {
    method: 'POST',
    headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ orderId: randomUUID(), customerId: `c-${randomUUID()}`, ...fields }),
  });
  const body = (await response.json()) as { data: any };
  expect(response.status, JSON.stringify(body)).toBe(200);
  return body.data;
}

async function simulateDeposit(invoiceId: string): Promise<void> {
  const response = await fetch(`${gateway.baseUrl}/api/v2/simulate/deposit`, {
    method: 'POST',
    headers: { 'x-api-key': gateway.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ invoiceId }),
  });
  expect(response.status).toBe(200);
}

const FIAT_DEMO_NOTICE = "Demo: a test payment page with the demo provider, and no real money moves. To pay, choose the outcome on the provider's page, or enter any 12-digit UTR when asked for one.";

/** The details an INR checkout asks for when the merchant sent none. */
async function fillInrDetails(page: Page): Promise<void> {
  await page.getByLabel('First name').fill('Asha');
  await page.getByLabel('Last name').fill('Rao');
  await page.getByLabel('Email').fill('asha@example.com');
}

async function openPage(viewport: { width: number; height: number }, permissions: string[] = []): Promise<{ page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport, permissions });
  contexts.push(context);
  const page = await context.newPage();
  return { page, errors: collectPageErrors(page) };
}

describe('the hosted checkout in a browser', () => {
  it('asks a USDT customer for the network first, then shows its one address and QR code; counts down, copies, and returns to redirectUrl after the deposit', async () => {
    const invoice = await createInvoice({ baseCurrency: 'USDT', invoiceStrategy: 'fixed', amount: 25, redirectUrl: site.returnUrl('crypto') });
    const addressOn = (network: string): string => invoice.wallet.addresses.find((entry: { network: string }) => entry.network === network).address;
    const { page, errors } = await openPage(PHONE_VIEWPORT, ['clipboard-read', 'clipboard-write']);
    await page.goto(invoice.link);

    const choice = page.getByRole('list', { name: 'Choose a network' });
    expect(await choice.getByRole('link').allTextContents()).toEqual(['Ethereum (ERC-20)', 'BNB Smart Chain (BEP-20)', 'Tron (TRC-20)']);
    expect(await page.locator('.address').count()).toBe(0);
    expect(await page.locator('img.qr').count()).toBe(0);
    await saveScreenshot(page, 'checkout-crypto-choice-phone');

    // By keyboard: the choices are links, reached and followed as any link is.
    await choice.getByRole('link', { name: 'Tron (TRC-20)' }).focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(`${invoice.link}?network=tron#pay-on-network`);
    expect(await choice.getByRole('link', { name: 'Tron (TRC-20)' }).getAttribute('aria-current')).toBe('true');
    expect(await page.locator('.address').allTextContents()).toEqual([addressOn('tron')]);
    expect(await page.content()).not.toContain(addressOn('ethereum'));
    const qrCode = page.locator('img.qr');
    expect(await qrCode.evaluateAll(areLoadedImages)).toEqual([true]);
    expect(decodeQrPng(await qrCode.screenshot())).toBe(addressOn('tron'));
    // The link jumps to the chosen network's part, so that a phone shows its QR code without scrolling.
    expect(await page.evaluate(`(({ top, bottom }) => top >= 0 && bottom <= innerHeight)(document.querySelector('img.qr').getBoundingClientRect())`)).toBe(true);
    // The server writes "15 min"; the script, if the policy let it run, the exact time left.
    await eventually(async () => /^1[45]:\d\d$/.test((await page.locator('.countdown').textContent()) ?? ''), { what: 'the countdown' });
    await page.getByRole('button', { name: 'Copy address' }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(addressOn('tron'));
    await saveScreenshot(page, 'checkout-crypto-phone');

    const desktop = await openPage(DESKTOP_VIEWPORT);
    await desktop.page.goto(`${invoice.link}?network=tron`);
    await desktop.page.locator('.address').waitFor();
    await saveScreenshot(desktop.page, 'checkout-crypto-desktop');

    await simulateDeposit(invoice.id);
    await page.waitForURL(site.returnUrl('crypto'), { timeout: RETURN_TIMEOUT_MS });
    expect(site.returns).toContain('/return/crypto');
    await saveScreenshot(page, 'checkout-crypto-returned');
    expect([...errors, ...desktop.errors]).toEqual([]);
  });

  it("takes an INR customer from the link straight to its one provider's instructions, and the UTR back to the merchant", async () => {
    const invoice = await createInvoice({ baseCurrency: 'INR', amount: 1000, redirectUrl: site.returnUrl('inr') });
    const { page, errors } = await openPage(PHONE_VIEWPORT);
    await page.goto(invoice.link);

    expect(await page.locator('.demo').textContent()).toBe(FIAT_DEMO_NOTICE);
    await fillInrDetails(page);
    await saveScreenshot(page, 'checkout-inr-details-phone');
    await page.getByRole('button', { name: 'Continue to payment' }).click();

    // The demo provider is the only one serving INR here: nothing to choose.
    await page.getByRole('heading', { name: 'Complete your payment' }).waitFor();
    expect(page.url()).toBe(`${invoice.link}/provider`);
    expect(await page.getByRole('heading', { name: 'Choose a payment provider' }).count()).toBe(0);
    expect(await page.locator('.demo').textContent()).toBe(FIAT_DEMO_NOTICE);
    await page.getByText('demopayments@upi', { exact: true }).waitFor();
    await page.getByRole('heading', { name: 'Transaction information' }).waitFor();
    await page.getByLabel('UTR (12 to 22 letters or digits)').fill(`UPI${randomInt(100_000_000_000, 1_000_000_000_000)}`);
    await saveScreenshot(page, 'checkout-inr-utr-phone');
    await page.getByRole('button', { name: 'Submit' }).click();

    await page.getByRole('heading', { name: 'Confirming your payment' }).waitFor();
    await saveScreenshot(page, 'checkout-inr-waiting-phone');
    await page.waitForURL(site.returnUrl('inr'), { timeout: RETURN_TIMEOUT_MS });
    expect(site.returns).toContain('/return/inr');
    expect(errors).toEqual([]);
  });

  it("takes an INR customer to the provider's instructions without script too", async () => {
    const invoice = await createInvoice({ baseCurrency: 'INR', amount: 1000 });
    const context = await browser.newContext({ viewport: PHONE_VIEWPORT, javaScriptEnabled: false });
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(invoice.link);

    await fillInrDetails(page);
    await page.getByRole('button', { name: 'Continue to payment' }).click();
    await page.getByRole('heading', { name: 'Complete your payment' }).waitFor();
    expect(page.url()).toBe(`${invoice.link}/provider`);
    await page.getByText('demopayments@upi', { exact: true }).waitFor();
  });

  it('shows a BTC invoice without a network choice: its address, with its bitcoin: URI in the QR code and the wallet link', async () => {
    const invoice = await createInvoice({ baseCurrency: 'BTC', amount: 0.001 });
    const { page, errors } = await openPage(PHONE_VIEWPORT);
    await page.goto(invoice.link);

    await page.getByRole('heading', { name: 'Bitcoin' }).waitFor();
    expect(await page.locator('.demo').textContent()).toBe('Demo: a test payment page. The addresses are on test networks: send test coins only, and no real money moves.');
    expect(await page.getByRole('list', { name: 'Choose a network' }).count()).toBe(0);
    expect(await page.locator('.address').allTextContents()).toEqual([invoice.wallet.address]);
    const uri = `bitcoin:${invoice.wallet.address}?amount=0.001`;
    expect(decodeQrPng(await page.locator('img.qr').screenshot())).toBe(uri);
    expect(await page.getByRole('link', { name: 'Open in wallet' }).getAttribute('href')).toBe(uri);
    await saveScreenshot(page, 'checkout-btc-phone');
    expect(errors).toEqual([]);
  });

  it('renders inside an iFrame of another origin', async () => {
    const invoice = await createInvoice({ baseCurrency: 'BTC', amount: 0.001 });
    expect(new URL(site.origin).origin).not.toBe(new URL(invoice.link).origin);
    const { page, errors } = await openPage(DESKTOP_VIEWPORT);
    await page.goto(site.embeddingUrl(invoice.link));

    const checkout = page.frameLocator('iframe');
    await checkout.locator('.address', { hasText: invoice.wallet.address }).waitFor();
    expect(await checkout.locator('img.qr').evaluateAll(areLoadedImages)).toEqual([true]);
    await saveScreenshot(page, 'checkout-in-frame');
    expect(errors).toEqual([]);
  });

  it("is refused in a frame of an origin the merchant's frameAncestors leave out", async () => {
    const stack = await openRuntimeStack(dataDir);
    const now = new Date();
    const { merchant } = await newMerchant({ name: 'Framed shop', frameAncestors: ['https://shop.example'] }, stack.secrets, now);
    const key = newApiKey(merchant.id, 'demo', now);
    try {
      await stack.merchants.createMerchant(merchant);
      await stack.merchants.addKey(key.record);
    } finally {
      stack.close();
    }
    const invoice = await createInvoice({ baseCurrency: 'USDT', amount: 25 }, key.text);
    const { page, errors } = await openPage(DESKTOP_VIEWPORT);
    await page.goto(site.embeddingUrl(`${invoice.link}?network=tron`));

    await eventually(() => errors.find((error) => error.includes('frame-ancestors https://shop.example')), { what: 'the refusal' });
    expect(await page.frameLocator('iframe').locator('.address').count()).toBe(0);
    await saveScreenshot(page, 'checkout-frame-refused');
  });

  it("sends a TRY customer to the provider's page, and once paid there back to the merchant", async () => {
    const invoice = await createInvoice({ baseCurrency: 'TRY', amount: 1000, paymentMethod: 'wallet', customerFullName: 'Ada Lovelace', redirectUrl: site.returnUrl('try') });
    const { page, errors } = await openPage(PHONE_VIEWPORT);
    await page.goto(invoice.link);

    // Direct-open: straight to the provider's own page.
    expect(page.url().startsWith(`${gateway.demoProviderUrl}/pay/pay_`), page.url()).toBe(true);
    await saveScreenshot(page, 'checkout-try-provider-phone');
    await page.getByRole('button', { name: 'Simulate successful payment' }).click();

    await page.waitForURL(site.returnUrl('try'), { timeout: RETURN_TIMEOUT_MS });
    expect(errors).toEqual([]);
  });

  it('renders a payer name holding a script as inert text', async () => {
    const name = '<script>alert(1)</script>';
    const invoice = await createInvoice({ baseCurrency: 'INR', amount: 1000, paymentMethod: 'p2p', customerFirstName: name, customerLastName: 'Rao', customerEmail: 'asha@example.com' });
    const { page, errors } = await openPage(PHONE_VIEWPORT);
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await page.goto(invoice.link);
    expect(page.url()).toBe(`${invoice.link}/provider`);
    await page.getByText(`${name} Rao`, { exact: true }).waitFor();
    await saveScreenshot(page, 'checkout-inr-instructions-phone');
    expect(dialogs).toEqual([]);
    expect(errors).toEqual([]);
  });
});

describe('the hosted checkout where two providers serve INR', () => {
  let providersDataDir: string;
  let partners: PartnerProvider[];
  let twoProviders: GatewayProcess;
  const NAMES = ['Partner Pay', 'Second Pay'];

  beforeAll(async () => {
    providersDataDir = await mkdtemp(join(tmpdir(), 'gateway-checkout-providers-'));
    partners = await Promise.all([startPartnerProvider(), startPartnerProvider()]);
    const methods = [{ currency: 'INR', method: 'p2p', min: '300', max: '49000' }];
    const providers = partners.map(({ url, secret }, index) => ({ id: `partner-${index + 1}`, name: NAMES[index], url, secret, priority: index + 1, methods }));
    twoProviders = await startGatewayProcess({ dataDir: providersDataDir, env: { GATEWAY_PROVIDERS: JSON.stringify(providers) } });
  }, 180_000);

  afterAll(async () => {
    await twoProviders?.stop();
    await Promise.all((partners ?? []).map((partner) => partner.close()));
    if (providersDataDir) await rm(providersDataDir, { recursive: true, force: true });
  });

  it.each([
    ['with script', true, 1],
    ['without script', false, 0],
  ])("asks the INR customer to choose the provider %s, then shows the chosen one's instructions", async (_, javaScriptEnabled, chosen) => {
    const invoice = await createInvoice({ baseCurrency: 'INR', amount: 1000 }, twoProviders.apiKey, twoProviders);
    const context = await browser.newContext({ viewport: PHONE_VIEWPORT, javaScriptEnabled });
    contexts.push(context);
    const page = await context.newPage();
    const errors = collectPageErrors(page);
    await page.goto(invoice.link);

    await fillInrDetails(page);
    await page.getByRole('button', { name: 'Continue to payment' }).click();
    await page.getByRole('heading', { name: 'Choose a payment provider' }).waitFor();
    expect(await page.locator('ul.choices').getByRole('link').allTextContents()).toEqual(NAMES);
    if (javaScriptEnabled) await saveScreenshot(page, 'checkout-inr-providers-phone');
    await page.getByRole('link', { name: NAMES[chosen], exact: true }).click();

    await page.getByRole('heading', { name: 'Complete your payment' }).waitFor();
    await page.getByText('partnerpay@upi', { exact: true }).waitFor();
    // The payment was made at the provider chosen, and only there.
    expect(partners.map((partner) => partner.paymentOf(invoice.id) !== undefined)).toEqual(NAMES.map((_, index) => index === chosen));
    expect(errors).toEqual([]);
  });
});
