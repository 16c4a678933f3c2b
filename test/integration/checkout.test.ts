/**
 * The hosted checkout through the API Gateway emulation, in process: the pages a customer gets at
 * each step, the status route they poll, the forms they post, and the headers that keep the
 * pages self-contained and framed only where the merchant allows.
 */
import { CRYPTO_NETWORKS } from '../../shared/domain/kernel/currencies.js';
import { randomUUID } from 'node:crypto';
import { validateHeaderValue } from 'node:http';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { DATE_TIME_OPTIONS } from '../../shared/checkout/language.js';
import { config } from '../../shared/config.js';
import { buildOpenApiDocument } from '../../shared/openapi.js';
import { documentClient } from '../../shared/store/dynamo.js';
import { DynamoInvoiceStore } from '../../shared/store/invoices.js';
import { DynamoOutboxStore } from '../../shared/store/outbox.js';
import { DynamoTransactionStore } from '../../shared/store/transactions.js';
import { invoke, request, type GatewayResult } from '../support/invoke.js';
import { seedMerchant, type SeededMerchant } from '../support/merchants.js';
import { configuredProvider, payOnDemoProviderPage, settleProviderDecisions } from '../support/providers.js';
import { decodeQrDataUri } from '../support/qr.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SHOP = 'https://shop.example';
const INR_DETAILS = { customerFirstName: 'Asha', customerLastName: 'Rao', customerEmail: 'asha@example.com' };
const VALID_TR_IBAN = 'TR330006100519786457841326';

let merchant: SeededMerchant;
/** Frames allowed from two shop origins, one entry unusable; a static return URL. */
let framedMerchant: SeededMerchant;

beforeAll(async () => {
  [merchant, framedMerchant] = await Promise.all([
    seedMerchant({ name: 'Acme <Books> & "Co"' }),
    seedMerchant({ returnUrl: `${SHOP}/thanks`, frameAncestors: [SHOP, 'https://*.shop.example', 'https://evil.example; script-src *'] }),
  ]);
});

const invoices = () => new DynamoInvoiceStore(documentClient, config().tables);
const ledger = () => new DynamoTransactionStore(documentClient, config().tables);
const outbox = () => new DynamoOutboxStore(documentClient, config().tables.outbox);

async function createInvoice(fields: Record<string, unknown>, owner = merchant) {
  const response = await invoke('create-invoice', {
    apiKey: owner.apiKey,
    body: { orderId: randomUUID(), customerId: `c-${randomUUID()}`, ...fields },
  });
  expect(response.status).toBe(200);
  return response.body.data;
}

const crypto = (fields: Record<string, unknown> = {}, owner = merchant) => createInvoice({ baseCurrency: 'USDT', invoiceStrategy: 'fixed', amount: 25, ...fields }, owner);

const checkoutPath = (invoiceId: string, step = '') => `/checkout/${invoiceId}${step}`;
const checkoutLink = (invoiceId: string, step = '') => `${config().publicBaseUrl}${checkoutPath(invoiceId, step)}`;
const open = (invoiceId: string, step = '') => request('GET', checkoutPath(invoiceId, step));
/** A crypto invoice's page with a network chosen, as its choice's links open it. */
const openOn = (invoiceId: string, network: string) => request('GET', `${checkoutPath(invoiceId)}?network=${network}`);
const postForm = (invoiceId: string, step: string, fields: Record<string, string>) =>
  request('POST', checkoutPath(invoiceId, step), {
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });

const invoiceView = async (invoiceId: string, owner = merchant) => (await invoke('get-invoice', { apiKey: owner.apiKey, pathParameters: { invoiceId } })).body.data;

const simulateDeposit = (invoiceId: string, owner = merchant) => invoke('simulate-deposit', { apiKey: owner.apiKey, body: { invoiceId } });

/** Lets the invoice's lifetime end without the expiry schedule noticing yet. */
const lapse = (invoiceId: string) =>
  documentClient.send(
    new UpdateCommand({
      TableName: config().tables.invoices,
      Key: { id: invoiceId },
      UpdateExpression: 'SET expiresAt = :past',
      ExpressionAttributeValues: { ':past': new Date(Date.now() - 1000).toISOString() },
    }),
  );

/** A fiat invoice's customer pays on the demo provider's page: the checkout sends them there, they choose the outcome, the provider's decision is settled. */
async function payAtProvider(invoiceId: string, outcome: 'confirmed' | 'failed'): Promise<void> {
  const opened = await open(invoiceId, '/provider');
  expect(opened.status).toBe(303);
  const decided = await payOnDemoProviderPage(opened.headers.location!, outcome);
  expect(decided.status).toBe(303);
  // The provider's outcome page then goes on to the checkout by itself.
  const outcomePage = await (await fetch(new URL(decided.headers.get('location')!, opened.headers.location!))).text();
  expect(outcomePage).toContain(`url=${checkoutLink(invoiceId, '/provider')}?from=provider`);
  await settleProviderDecisions();
}

const uniqueUtr = () => `${100_000_000_000 + Math.floor(Math.random() * 899_999_999_999)}`;

const inputNames = (page: string) => [...page.matchAll(/<input\b[^>]*\bname="([^"]+)"/g)].map((match) => match[1]);

/** The page's QR codes: each image's text alternative, and the text read back from its pixels. */
const qrCodesOf = (page: string) => [...page.matchAll(/<img class="qr" src="([^"]+)"[^>]*\balt="([^"]*)">/g)].map(([, src, alt]) => ({ text: decodeQrDataUri(src!), alt: alt! }));

/** The "open in wallet" links' targets. */
const walletLinksOf = (page: string) => [...page.matchAll(/<a class="button secondary" href="((?:ethereum|bitcoin):[^"]+)">/g)].map(([, href]) => href!.replaceAll('&amp;', '&'));

/** The network choice's links: where each goes, its text, and whether it is the current choice. */
const networkChoicesOf = (page: string) =>
  [...page.matchAll(/<li><a href="([^"]+)"( aria-current="true")?><bdi>([^<]+)<\/bdi>/g)].map(([, href, current, name]) => ({ href: href!.replaceAll('&amp;', '&'), name, current: !!current }));

const addressesOf = (page: string) => [...page.matchAll(/<p class="address" dir="ltr">([^<]+)<\/p>/g)].map(([, address]) => address);

const headingsOf = (page: string) => [...page.matchAll(/<h[12]\b[^>]*>([\s\S]*?)<\/h[12]>/g)].map(([, text]) => text!.replace(/<[^>]+>/g, ''));

/** A simulated deposit of less than asked (docs/merchant-guide.md#how-payments-are-counted): the invoice stays open, partly paid. */
async function payPart(invoiceId: string, amount: string): Promise<void> {
  const response = await invoke('simulate-deposit', { apiKey: merchant.apiKey, body: { invoiceId, amount } });
  expect(response.status).toBe(200);
}

function cspOf(response: GatewayResult): Record<string, string> {
  const header = response.headers['content-security-policy'] ?? '';
  return Object.fromEntries(
    header.split(/;\s*/).map((directive) => {
      const [name, ...sources] = directive.split(' ');
      return [name, sources.join(' ')];
    }),
  );
}

/** Whatever in a page would make a browser fetch a script, style, font or image from elsewhere. */
function externalReferences(page: string): string[] {
  return [
    ...page.matchAll(/<link\b(?![^>]*\bhref="data:)[^>]*>/gi),
    ...page.matchAll(/<script\b[^>]*\bsrc=[^>]*>/gi),
    ...page.matchAll(/\b(?:src|srcset|poster|data)="(?!data:)[^"]*"/gi),
    ...page.matchAll(/@import|@font-face|url\(/gi),
  ].map((match) => match[0]);
}

function expectHtmlPage(response: GatewayResult, status: number): string {
  expect(response.status).toBe(status);
  expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
  expect(response.headers['x-request-id']).toMatch(UUID);
  expect(response.headers['cache-control']).toBe('no-store');
  const page = response.body as string;
  expect(externalReferences(page)).toEqual([]);
  return page;
}

const expectRedirect = (response: GatewayResult, location: string) => {
  expect(response.status).toBe(303);
  expect(response.headers.location).toBe(location);
};

describe('GET /checkout/{invoiceId}', () => {
  it('asks for the network of a crypto invoice on several first, each labelled with its token standard, showing no address yet', async () => {
    const invoice = await crypto();
    const page = expectHtmlPage(await open(invoice.id), 200);
    expect(page).toContain('25 USDT');
    expect(page).toContain('Acme &lt;Books&gt; &amp; &quot;Co&quot;');
    expect(invoice.wallet.networks).toEqual(['ethereum', 'bsc', 'tron']);
    expect(headingsOf(page)).toEqual(['Pay with USDT', 'Choose a network']);
    expect(networkChoicesOf(page)).toEqual([
      { href: `${checkoutLink(invoice.id)}?network=ethereum#pay-on-network`, name: 'Ethereum (ERC-20)', current: false },
      { href: `${checkoutLink(invoice.id)}?network=bsc#pay-on-network`, name: 'BNB Smart Chain (BEP-20)', current: false },
      { href: `${checkoutLink(invoice.id)}?network=tron#pay-on-network`, name: 'Tron (TRC-20)', current: false },
    ]);
    expect(page).toContain('<ul class="network-choices" aria-labelledby="network-choice">');
    expect(page).toContain('Send only USDT, and only on the network you choose');
    expect(addressesOf(page)).toEqual([]);
    expect(qrCodesOf(page)).toEqual([]);
    expect(page).toMatch(/data-seconds-left="(89\d|900)"/);
    expect(page).toContain(`data-status-url="${checkoutLink(invoice.id, '/status')}"`);
  });

  it('shows the one address, QR code and copy buttons of the network chosen, the choice marked and still offered', async () => {
    const invoice = await crypto();
    const tron: string = invoice.wallet.addresses.find((entry: { network: string }) => entry.network === 'tron').address;
    const page = expectHtmlPage(await openOn(invoice.id, 'tron'), 200);
    expect(networkChoicesOf(page).map(({ name, current }) => ({ name, current }))).toEqual([
      { name: 'Ethereum (ERC-20)', current: false },
      { name: 'BNB Smart Chain (BEP-20)', current: false },
      { name: 'Tron (TRC-20)', current: true },
    ]);
    expect(headingsOf(page)).toEqual(['Pay with USDT', 'Choose a network', 'Tron (TRC-20)']);
    expect(addressesOf(page)).toEqual([tron]);
    expect(page).toContain(`data-copy="${tron}"`);
    expect(page).toContain('data-copy="25"');
    expect(qrCodesOf(page)).toEqual([{ text: tron, alt: 'QR code of your address on Tron (TRC-20)' }]);
    expect(page).toContain('Send exactly <strong><bdi>25 USDT</bdi></strong> to your address on the <bdi>Tron (TRC-20)</bdi> network.');
    expect(page).toContain('<div class="network" id="pay-on-network">');
  });

  it('takes a network the invoice is not payable on as no choice, and asks for none where there is one network', async () => {
    const invoice = await crypto();
    for (const network of ['polygon', 'nonsense', '']) {
      const page = expectHtmlPage(await openOn(invoice.id, network), 200);
      expect(networkChoicesOf(page).filter((choice) => choice.current)).toEqual([]);
      expect(addressesOf(page)).toEqual([]);
    }

    const btc = await createInvoice({ baseCurrency: 'BTC', amount: 0.0015 });
    const page = expectHtmlPage(await open(btc.id), 200);
    expect(networkChoicesOf(page)).toEqual([]);
    expect(page).not.toContain('class="network-choices"');
    expect(headingsOf(page)).toEqual(['Pay with BTC', 'Bitcoin']);
    expect(addressesOf(page)).toEqual([btc.wallet.address]);
  });

  it('makes a created invoice active, once', async () => {
    const invoice = await crypto();
    expect(invoice.status).toBe('created');
    await open(invoice.id);
    const opened = await invoices().get(invoice.id);
    expect(opened).toMatchObject({ status: 'active' });
    await open(invoice.id);
    expect((await invoices().get(invoice.id))!.updatedAt).toBe(opened!.updatedAt);
    expect(await invoices().activate(invoice.id, new Date())).toBe(false);
  });

  it.each([
    ['an unknown invoice', randomUUID()],
    ['a malformed id', 'not-an-invoice'],
  ])('answers %s with a friendly 404 page', async (_, invoiceId) => {
    const page = expectHtmlPage(await open(invoiceId), 404);
    expect(page).toContain('Payment link not found');
  });

  it('shows a lapsed invoice as expired without activating it, before and after the expiry schedule', async () => {
    const invoice = await crypto();
    await lapse(invoice.id);
    const lapsed = expectHtmlPage(await open(invoice.id), 200);
    expect(lapsed).toContain('This invoice has expired');
    expect(lapsed).not.toContain('class="address"');
    expect(lapsed).toContain('it is still credited to you');
    expect((await invoices().get(invoice.id))!.status).toBe('created');

    expect(await invoices().expire({ id: invoice.id }, new Date())).toBe(true);
    const expired = expectHtmlPage(await open(invoice.id), 200);
    expect(expired).toContain('This invoice has expired');
    expect(expired).toContain('data-status="canceled"');
  });

  it('shows a completed invoice with a link back to its redirectUrl, and no payment instructions', async () => {
    const invoice = await crypto({ redirectUrl: `${SHOP}/orders/1?paid=1&x=<y>` });
    expect((await simulateDeposit(invoice.id)).status).toBe(200);
    const page = expectHtmlPage(await open(invoice.id), 200);
    expect(page).toContain('Payment received');
    expect(page).toContain(`href="${SHOP}/orders/1?paid=1&amp;x=%3Cy%3E"`);
    expect(page).not.toContain('class="address"');
    expect(page).not.toContain('data-status-url="');
  });

  it('sends the customer back to a redirectUrl written in any script, in the form a Location header takes', async () => {
    const invoice = await crypto({ redirectUrl: 'https://магазин.example/sipariş/tamam?ürün=1#ödeme' });
    expect(invoice.redirectUrl).toBe('https://xn--80aairftm.example/sipari%C5%9F/tamam?%C3%BCr%C3%BCn=1#%C3%B6deme');
    expect((await simulateDeposit(invoice.id)).status).toBe(200);
    const response = await open(invoice.id, '/provider');
    expectRedirect(response, invoice.redirectUrl);
    // What Node's HTTP server checks before it writes the header (ERR_INVALID_CHAR otherwise).
    expect(() => validateHeaderValue('location', response.headers.location!)).not.toThrow();
  });

  it("links a completed invoice without redirectUrl to the merchant's static URL, else says the page can be closed", async () => {
    const framed = await crypto({}, framedMerchant);
    await simulateDeposit(framed.id, framedMerchant);
    expect(expectHtmlPage(await open(framed.id), 200)).toContain(`href="${SHOP}/thanks"`);

    const plain = await crypto();
    await simulateDeposit(plain.id);
    expect(expectHtmlPage(await open(plain.id), 200)).toContain('You can close this page.');
  });

  it('escapes what the merchant and the customer supplied', async () => {
    const invoice = await createInvoice({
      orderId: `<img src=x onerror=alert(1)>-${randomUUID()}`,
      baseCurrency: 'INR',
      amount: 1000,
      paymentMethod: 'p2p',
      customerFirstName: '<script>alert(1)</script>',
      customerLastName: 'Rao',
      customerEmail: 'asha@example.com',
    });
    const page = expectHtmlPage(await open(invoice.id, '/provider'), 200);
    expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page).toContain('Order <bdi>&lt;img src=x onerror=alert(1)&gt;');
    expect(page).not.toContain('<script>alert(1)');
    expect(page).not.toContain('<img src=x');
  });
});

describe('the page headers', () => {
  it('carry a strict Content-Security-Policy with a fresh nonce that the inline style and script carry', async () => {
    const invoice = await crypto();
    const first = await open(invoice.id);
    const csp = cspOf(first);
    const nonce = /^'nonce-([A-Za-z0-9+/=]{24})'$/.exec(csp['style-src']!)?.[1];
    expect(nonce).toBeDefined();
    expect(csp).toEqual({
      'default-src': "'none'",
      'img-src': "'self' data:",
      'style-src': `'nonce-${nonce}'`,
      'script-src': `'nonce-${nonce}'`,
      'connect-src': "'self'",
      'form-action': "'self'",
      'frame-ancestors': '*',
      'base-uri': "'none'",
    });
    const page = first.body as string;
    expect(page.match(/<style\b[^>]*>/g)).toEqual([`<style nonce="${nonce}">`]);
    expect(page.match(/<script\b[^>]*>/g)).toEqual([`<script nonce="${nonce}">`]);
    expect(page).not.toMatch(/\sstyle="/);
    expect(first.headers['referrer-policy']).toBe('no-referrer');
    expect(first.headers['x-content-type-options']).toBe('nosniff');

    expect(cspOf(await open(invoice.id))['style-src']).not.toBe(`'nonce-${nonce}'`);
  });

  it("take frame-ancestors from the merchant's settings, leaving out entries that are not sources", async () => {
    const invoice = await crypto({}, framedMerchant);
    expect(cspOf(await open(invoice.id))['frame-ancestors']).toBe('https://shop.example https://*.shop.example');
  });

  it("let forms end at the merchant's return origin", async () => {
    const invoice = await createInvoice({ baseCurrency: 'INR', amount: 1000, paymentMethod: 'p2p', ...INR_DETAILS, redirectUrl: `${SHOP}:8443/done` });
    expect(cspOf(await open(invoice.id, '/provider'))['form-action']).toBe("'self' https://shop.example:8443");
  });

  it('frame the 404 page anywhere: it holds nothing to protect', async () => {
    expect(cspOf(await open(randomUUID()))['frame-ancestors']).toBe('*');
  });
});

describe('GET /checkout/{invoiceId}/status', () => {
  it('answers the status and the return URL, and no other invoice data', async () => {
    const invoice = await crypto({ redirectUrl: `${SHOP}/r` });
    const response = await open(invoice.id, '/status');
    expect(response.status).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.body).toEqual({
      success: true,
      data: { status: 'created', paidAmount: '0.000000', remainingAmount: '25.000000', redirectUrl: `${SHOP}/r` },
    });
    await simulateDeposit(invoice.id);
    expect((await open(invoice.id, '/status')).body).toEqual({
      success: true,
      data: { status: 'completed', paidAmount: '25.000000', remainingAmount: '0.000000', redirectUrl: `${SHOP}/r` },
    });
  });

  it("falls back to the merchant's static URL, and tells a late payment", async () => {
    expect((await open((await crypto({}, framedMerchant)).id, '/status')).body.data).toMatchObject({ status: 'created', redirectUrl: `${SHOP}/thanks` });

    const late = await crypto();
    await lapse(late.id);
    await invoices().expire({ id: late.id }, new Date());
    expect((await open(late.id, '/status')).body.data).toMatchObject({ status: 'canceled', redirectUrl: null });
    await simulateDeposit(late.id);
    expect((await open(late.id, '/status')).body.data).toMatchObject({ status: 'completed', paidLate: true, redirectUrl: null });
  });

  it('answers an unknown or malformed invoice with the not_found envelope', async () => {
    for (const invoiceId of [randomUUID(), 'nope']) {
      const response = await open(invoiceId, '/status');
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ success: false, errors: [{ code: 'not_found', message: 'Invoice not found' }] });
    }
  });
});

describe('customer details', () => {
  it('asks for exactly the fields the method still lacks', async () => {
    const iban = await createInvoice({ baseCurrency: 'TRY', amount: 1000 });
    expect(inputNames(expectHtmlPage(await open(iban.id), 200))).toEqual(['customerFullName', 'customerEmail', 'customerAccount']);

    const inr = await createInvoice({ baseCurrency: 'INR', amount: 1000, customerFirstName: 'Asha' });
    expect(inputNames(expectHtmlPage(await open(inr.id), 200))).toEqual(['customerLastName', 'customerEmail']);

    const wallet = await createInvoice({ baseCurrency: 'PKR', amount: 1000 });
    expect(inputNames(expectHtmlPage(await open(wallet.id), 200))).toEqual(['customerFullName']);
  });

  it("shows each problem beside its field, by the creation request's rules, keeping what was typed", async () => {
    const invoice = await createInvoice({ baseCurrency: 'TRY', amount: 1000 });
    const response = await postForm(invoice.id, '/details', { customerFullName: '  ', customerEmail: 'not-an-email', customerAccount: 'TR00 <b>' });
    const page = expectHtmlPage(response, 422);
    expect(page).toContain('<p class="error" id="customerFullName-error">This field is required</p>');
    expect(page).toContain('<p class="error" id="customerEmail-error">Must be a valid email address</p>');
    expect(page).toContain('<p class="error" id="customerAccount-error">Must be a valid IBAN</p>');
    expect(page).toContain('value="TR00 &lt;b&gt;"');
    expect(page).toMatch(/<input id="customerEmail"[^>]* aria-invalid="true" aria-describedby="customerEmail-error">/);
    expect((await invoices().get(invoice.id))!.customer).toEqual({});
  });

  it('stores valid details on the invoice, then sends the customer to the provider', async () => {
    const invoice = await createInvoice({ baseCurrency: 'TRY', amount: 1000 });
    await open(invoice.id);
    const response = await postForm(invoice.id, '/details', {
      customerFullName: ' Ada Lovelace ',
      customerEmail: 'ada@example.com',
      customerAccount: 'tr33 0006 1005 1978 6457 8413 26',
      customerPhone: '0000000000',
    });
    expectRedirect(response, checkoutLink(invoice.id, '/provider'));
    expect((await invoices().get(invoice.id))!.customer).toEqual({ fullName: 'Ada Lovelace', email: 'ada@example.com', account: VALID_TR_IBAN });
    expectRedirect(await open(invoice.id), checkoutLink(invoice.id, '/provider'));
    // Sent again: nothing more to collect.
    expectRedirect(await postForm(invoice.id, '/details', { customerFullName: 'Mallory' }), checkoutLink(invoice.id));
    expect((await invoices().get(invoice.id))!.customer.fullName).toBe('Ada Lovelace');
  });

  it('never overwrites a detail the merchant gave, nor stores any on a closed invoice', async () => {
    const invoice = await createInvoice({ baseCurrency: 'INR', amount: 1000, customerFirstName: 'Asha' });
    expect(await invoices().saveCustomerDetails(invoice.id, { firstName: 'Mallory', lastName: 'Rao' }, new Date())).toBe(false);
    await lapse(invoice.id);
    expect(await invoices().saveCustomerDetails(invoice.id, { lastName: 'Rao' }, new Date())).toBe(false);
    expect((await invoices().get(invoice.id))!.customer).toEqual({ firstName: 'Asha' });
  });

  it('skips straight to the provider for a direct-open invoice, activating it', async () => {
    const invoice = await createInvoice({ baseCurrency: 'TRY', amount: 1000, paymentMethod: 'wallet', customerFullName: 'Ada Lovelace' });
    expect(invoice.directOpen).toBe(true);
    expectRedirect(await open(invoice.id), checkoutLink(invoice.id, '/provider'));
    expect((await invoices().get(invoice.id))!.status).toBe('active');
  });
});

describe('INR at its provider: the instructions, then the UTR', () => {
  it('goes straight to the one provider that can serve the invoice, shows its instructions and asks for the UTR', async () => {
    const invoice = await createInvoice({ baseCurrency: 'INR', amount: 1000, ...INR_DETAILS });
    const form = expectHtmlPage(await open(invoice.id, '/provider'), 200);
    expect(form).not.toContain('Choose a payment provider');
    expect(form).toContain('<dt>Payee</dt><dd><bdi>Demo Payments</bdi></dd>');
    expect(form).toContain('<dt>UPI ID</dt><dd><bdi>demopayments@upi</bdi>');
    expect(form).toContain('Transaction information');
    expect(form).toContain(`action="${checkoutLink(invoice.id, '/utr')}"`);
    expect(form).toContain('<label for="utr">UTR (12 to 22 letters or digits)</label>');
    expect(form).toMatch(/<input id="utr" name="utr" pattern="\[A-Za-z0-9\]\{12,22\}" minlength="12" maxlength="22"/);
    // p2p has no UPI deep link: that is intent's.
    expect(form).not.toContain('upi://pay');
    const { providerPayment } = (await invoices().get(invoice.id))!;
    expect(providerPayment).toMatchObject({ providerId: 'demo', providerReference: expect.stringMatching(/^pay_/), instructions: { payee: 'Demo Payments' } });
    // The payment is made once: the same page again, or with the provider named as a choice names it, shows the same instructions.
    expect(expectHtmlPage(await open(invoice.id, '/provider'), 200)).toContain(providerPayment!.instructions!.reference);
    expect(expectHtmlPage(await request('GET', `${checkoutPath(invoice.id, '/provider')}?provider=demo`), 200)).toContain(providerPayment!.instructions!.reference);
  });

  it('takes the UTR to the provider, waits for its decision, then returns the customer to the merchant', async () => {
    const invoice = await createInvoice({ baseCurrency: 'INR', amount: 1000, redirectUrl: `${SHOP}/inr` });
    expectRedirect(await postForm(invoice.id, '/details', INR_DETAILS), checkoutLink(invoice.id, '/provider'));
    await request('GET', `${checkoutPath(invoice.id, '/provider')}?provider=demo`);
    const utr = uniqueUtr();
    expectRedirect(await postForm(invoice.id, '/utr', { utr }), checkoutLink(invoice.id, '/provider'));
    const [deposit] = await ledger().listByInvoice(invoice.id);
    expect(deposit).toMatchObject({ type: 'deposit', status: 'processing', amount: '1000.00', currency: 'INR', utr, provider: { id: 'demo', requestedAt: expect.any(String) } });

    const waiting = expectHtmlPage(await open(invoice.id, '/provider'), 200);
    expect(waiting).toContain('Confirming your payment');
    expect(waiting).toContain('data-status="active"');
    // The same UTR again is the same confirmation.
    expectRedirect(await postForm(invoice.id, '/utr', { utr }), checkoutLink(invoice.id, '/provider'));

    await settleProviderDecisions();
    expect((await open(invoice.id, '/status')).body.data).toMatchObject({ status: 'completed', redirectUrl: `${SHOP}/inr` });
    expectRedirect(await open(invoice.id, '/provider'), `${SHOP}/inr`);
  });

  it('shows a UTR problem beside the field: the API rules, and a UTR another invoice used', async () => {
    const first = await createInvoice({ baseCurrency: 'INR', amount: 1000, ...INR_DETAILS });
    const second = await createInvoice({ baseCurrency: 'INR', amount: 1000, ...INR_DETAILS });
    for (const invoice of [first, second]) await request('GET', `${checkoutPath(invoice.id, '/provider')}?provider=demo`);

    const malformed = expectHtmlPage(await postForm(first.id, '/utr', { utr: 'abc' }), 422);
    expect(malformed).toContain('<p class="error" id="utr-error">Must be 12 to 22 letters or digits</p>');
    expect(malformed).toContain('Demo Payments');
    expect(malformed).toContain('value="abc"');

    const utr = uniqueUtr();
    await postForm(first.id, '/utr', { utr });
    const reused = expectHtmlPage(await postForm(second.id, '/utr', { utr }), 422);
    expect(reused).toContain('<p class="error" id="utr-error">This UTR was already used for another payment</p>');
  });

  it('shows the rejection when the provider rejects the UTR', async () => {
    const invoice = await createInvoice({ baseCurrency: 'INR', amount: 1000, ...INR_DETAILS });
    await request('GET', `${checkoutPath(invoice.id, '/provider')}?provider=demo`);
    await postForm(invoice.id, '/utr', { utr: `000${uniqueUtr().slice(3)}` });
    await settleProviderDecisions();
    const page = expectHtmlPage(await open(invoice.id, '/provider'), 200);
    expect(page).toContain('Payment rejected');
    expect(page).not.toContain('<form');
  });

  it('goes straight to the instructions of the first provider for a direct-open invoice', async () => {
    const invoice = await createInvoice({ baseCurrency: 'INR', amount: 1000, paymentMethod: 'p2p', ...INR_DETAILS });
    expect(invoice.directOpen).toBe(true);
    expect(expectHtmlPage(await open(invoice.id, '/provider'), 200)).toContain('<dt>Payee</dt>');
  });
});

describe("the other local methods, on their provider's page", () => {
  it("sends the customer to the provider's page, made once whatever the visits", async () => {
    const invoice = await createInvoice({ baseCurrency: 'AZN', amount: 100, customerFullName: 'Aysel Mammadova', paymentMethod: 'p2p' });
    const first = await open(invoice.id, '/provider');
    expect(first.status).toBe(303);
    expect(first.headers.location).toMatch(new RegExp(`^${configuredProvider().url}/pay/pay_[0-9a-f]+$`));
    expectRedirect(await open(invoice.id, '/provider'), first.headers.location!);
    const page = await (await fetch(first.headers.location!)).text();
    expect(page).toContain('Simulate successful payment');
  });

  it('records the deposit the provider confirms, with its callback, then returns the customer to the merchant', async () => {
    const invoice = await createInvoice({ baseCurrency: 'TRY', amount: 1000, paymentMethod: 'wallet', customerFullName: 'Ada', redirectUrl: `${SHOP}/try` });
    await payAtProvider(invoice.id, 'confirmed');
    const [deposit] = await ledger().listByInvoice(invoice.id);
    expect(deposit).toMatchObject({ status: 'confirmed', amount: '1000.00', currency: 'TRY', network: null });
    expect(deposit!.senderDetails.senderIban).toMatch(/^TR\d{24}$/);
    expect(await outbox().get(`${deposit!.id}:confirmed`)).toBeDefined();
    expect(await invoiceView(invoice.id)).toMatchObject({ status: 'completed' });
    expectRedirect(await open(invoice.id, '/provider'), `${SHOP}/try`);
  });

  it('records the failed payment: the invoice is canceled as rejected', async () => {
    const invoice = await createInvoice({ baseCurrency: 'PKR', amount: 1000, customerFullName: 'Sana', paymentMethod: 'wallet' });
    await payAtProvider(invoice.id, 'failed');
    expect(await invoiceView(invoice.id)).toMatchObject({ status: 'canceled', cancelReason: 'rejected' });
    expect(expectHtmlPage(await open(invoice.id, '/provider'), 200)).toContain('Payment rejected');
    expect(expectHtmlPage(await open(invoice.id), 200)).toContain('Payment rejected');
  });

  it('shows a customer back from the provider before its decision that it is awaited, with the way back to the payment', async () => {
    const invoice = await createInvoice({ baseCurrency: 'TRY', amount: 1000, paymentMethod: 'wallet', customerFullName: 'Ada' });
    const pageUrl = (await open(invoice.id, '/provider')).headers.location!;
    const back = expectHtmlPage(await request('GET', `${checkoutPath(invoice.id, '/provider')}?from=provider`), 200);
    expect(back).toContain('Confirming your payment');
    expect(back).toContain(`<a class="button secondary" href="${pageUrl}">Back to the payment page</a>`);
  });

  it('sends crypto invoices and invoices lacking details back to the checkout page, making no payment', async () => {
    const cryptoInvoice = await crypto();
    expectRedirect(await open(cryptoInvoice.id, '/provider'), checkoutLink(cryptoInvoice.id));
    const lacking = await createInvoice({ baseCurrency: 'PKR', amount: 1000 });
    expectRedirect(await open(lacking.id, '/provider'), checkoutLink(lacking.id));
    expect((await invoices().get(lacking.id))!.providerPayment).toBeUndefined();
  });
});

describe('the merchant API description', () => {
  it('leaves the customer-facing checkout out of the OpenAPI document', () => {
    for (const stage of ['demo', 'prod'] as const) {
      const paths = Object.keys(buildOpenApiDocument('https://gateway.example', stage, CRYPTO_NETWORKS).paths);
      expect(paths).toContain('/api/v2/invoices');
      expect(paths.filter((path) => path.startsWith('/checkout'))).toEqual([]);
    }
  });
});

describe("the pages in the customer's language", () => {
  const withLanguage = (invoiceId: string, acceptLanguage: string, step = '') => request('GET', checkoutPath(invoiceId, step), { headers: { 'accept-language': acceptLanguage } });
  const htmlTag = (page: string) => /<html [^>]*>/.exec(page)?.[0];

  it('speak English by default, else the best language of Accept-Language by its q-values, else the one ?lang= names', async () => {
    const invoice = await crypto();
    const english = await open(invoice.id);
    expect(htmlTag(expectHtmlPage(english, 200))).toBe('<html lang="en" dir="ltr">');
    expect(english.headers['content-language']).toBe('en');
    expect(english.headers.vary).toBe('Accept-Language');

    const turkish = await withLanguage(invoice.id, 'de-DE, tr;q=0.8, en;q=0.5');
    expect(htmlTag(expectHtmlPage(turkish, 200))).toBe('<html lang="tr" dir="ltr">');
    expect(turkish.body).toContain('<h1>USDT ile ödeyin</h1>');
    expect(htmlTag((await withLanguage(invoice.id, 'ur-PK,ur;q=0.9')).body)).toBe('<html lang="ur" dir="rtl">');
    expect(htmlTag((await withLanguage(invoice.id, 'hi;q=0.2, az-Latn-AZ;q=0.4')).body)).toBe('<html lang="az" dir="ltr">');
    expect(htmlTag((await withLanguage(invoice.id, 'de, fr;q=0.9')).body)).toBe('<html lang="en" dir="ltr">');

    expect(htmlTag((await request('GET', `${checkoutPath(invoice.id)}?lang=az`, { headers: { 'accept-language': 'tr' } })).body)).toBe('<html lang="az" dir="ltr">');
    expect(htmlTag((await request('GET', `${checkoutPath(invoice.id)}?lang=xx`, { headers: { 'accept-language': 'hi' } })).body)).toBe('<html lang="hi" dir="ltr">');
    expect(htmlTag((await request('GET', `${checkoutPath(randomUUID())}?lang=ur`)).body)).toBe('<html lang="ur" dir="rtl">');
  });

  it('offer every language as a link to the same page, marking the current one', async () => {
    const invoice = await createInvoice({ baseCurrency: 'INR', amount: 1000, customerFirstName: 'Asha', customerLastName: 'Rao', customerEmail: 'asha@example.com' });
    const page = expectHtmlPage(await request('GET', `${checkoutPath(invoice.id, '/provider')}?provider=demo&lang=tr`), 200);
    const links = [...page.matchAll(/<li><a href="([^"]+)" lang="(\w+)" hreflang="\2"( aria-current="true")?>/g)].map(([, href, lang, current]) => ({ href, lang, current: !!current }));
    expect(links).toEqual(['en', 'tr', 'hi', 'ur', 'az'].map((lang) => ({ href: `${checkoutLink(invoice.id, '/provider')}?lang=${lang}`, lang, current: lang === 'tr' })));
    expect(page).toContain('<nav class="languages" aria-label="Dil">');
  });

  it('keep the network chosen when the language changes, and the language when the network does', async () => {
    const invoice = await crypto();
    const page = expectHtmlPage(await request('GET', `${checkoutPath(invoice.id)}?network=tron&lang=az`), 200);
    expect(page).toContain(`<a href="${checkoutLink(invoice.id)}?network=tron&amp;lang=tr" lang="tr" hreflang="tr">`);
    expect(networkChoicesOf(page)[0]!.href).toBe(`${checkoutLink(invoice.id)}?network=ethereum&lang=az#pay-on-network`);
    expect(headingsOf(page)).toEqual(['USDT ilə ödəyin', 'Şəbəkə seçin', 'Tron (TRC-20)']);
  });

  it('carry a language chosen in the URL through links, forms and redirects', async () => {
    const invoice = await createInvoice({ baseCurrency: 'INR', amount: 1000 });
    const form = expectHtmlPage(await request('GET', `${checkoutPath(invoice.id)}?lang=hi`), 200);
    expect(form).toContain(`action="${checkoutLink(invoice.id, '/details')}?lang=hi"`);
    expect(form).toContain('<label for="customerFirstName">पहला नाम</label>');

    const invalid = expectHtmlPage(await postForm(invoice.id, '/details?lang=hi', { customerFirstName: 'Asha', customerLastName: '', customerEmail: 'x' }), 422);
    expect(invalid).toContain('<p class="error" id="customerLastName-error">यह फ़ील्ड आवश्यक है</p>');
    expect(invalid).toContain('<p class="error" id="customerEmail-error">मान्य ईमेल पता होना चाहिए</p>');
    // Reopening the answer of a form in another language reopens the step, not the form's address.
    expect(invalid).toContain(`href="${checkoutLink(invoice.id)}?lang=ur"`);

    expectRedirect(
      await postForm(invoice.id, '/details?lang=hi', { customerFirstName: 'Asha', customerLastName: 'Rao', customerEmail: 'asha@example.com' }),
      `${checkoutLink(invoice.id, '/provider')}?lang=hi`,
    );
    const utrForm = expectHtmlPage(await request('GET', `${checkoutPath(invoice.id, '/provider')}?lang=hi`), 200);
    expect(utrForm).toContain(`action="${checkoutLink(invoice.id, '/utr')}?lang=hi"`);
    expect(utrForm).toContain('<label for="utr">UTR (12 से 22 अक्षर या अंक)</label>');
    expect(expectHtmlPage(await postForm(invoice.id, '/utr?lang=hi', { utr: 'short' }), 422)).toContain('<p class="error" id="utr-error">12 से 22 अक्षर या अंक होने चाहिए</p>');
    expectRedirect(await postForm(invoice.id, '/utr?lang=hi', { utr: uniqueUtr() }), `${checkoutLink(invoice.id, '/provider')}?lang=hi`);

    const direct = await createInvoice({ baseCurrency: 'TRY', amount: 1000, paymentMethod: 'wallet', customerFullName: 'Ada' });
    expectRedirect(await request('GET', `${checkoutPath(direct.id)}?lang=tr`), `${checkoutLink(direct.id, '/provider')}?lang=tr`);
  });

  it('write amounts with the digits of the invoice, grouped as the language groups them, and dates in its words', async () => {
    const pkr = await createInvoice({ baseCurrency: 'PKR', amount: 150000, customerFullName: 'Sana' });
    const amountOf = async (invoiceId: string, lang: string) =>
      /<p class="amount"><bdi>([^<]+)<\/bdi><\/p>/.exec((await request('GET', `${checkoutPath(invoiceId, '/provider')}?from=provider&lang=${lang}`)).body)?.[1];
    expect(await amountOf(pkr.id, 'en')).toBe('150,000.00 PKR');
    expect(await amountOf(pkr.id, 'hi')).toBe('1,50,000.00 PKR');
    expect(await amountOf(pkr.id, 'tr')).toBe('150.000,00 PKR');
    expect(await amountOf(pkr.id, 'az')).toBe('150.000,00 PKR');

    const eth = await createInvoice({ baseCurrency: 'USD', paymentCurrency: 'ETH', amount: 10 });
    const page = (await request('GET', `${checkoutPath(eth.id)}?lang=tr`)).body as string;
    expect(page).toContain('<p class="amount"><bdi>0,003125 ETH</bdi></p>');
    expect(page).toContain('<p class="muted"><bdi>10,00 USD</bdi></p>');
    const expires = new Intl.DateTimeFormat('tr', { ...DATE_TIME_OPTIONS, timeZone: 'UTC' }).format(new Date(eth.expiresAt));
    expect(page).toContain(`Son ödeme zamanı: <time datetime="${eth.expiresAt}">${expires}</time>`);
    expect(expires).toMatch(/^\d{1,2} [A-Za-zÇĞİÖŞÜçğıöşü]+ \d{4} \d\d:\d\d UTC$/);
  });
});

describe('wallet payment URIs', () => {
  it('carry USDT as ERC-20 and BEP-20 token transfers of the amount on the test chains; TRC-20 as the address alone', async () => {
    const invoice = await crypto();
    const [ethereum, bsc, tron] = invoice.wallet.addresses.map((entry: { address: string }) => entry.address);
    const erc20 = `ethereum:0xaA8E23Fb1079EA71e0a56F48a2aA51851D8433D0@11155111/transfer?address=${ethereum}&uint256=25000000`;
    const bep20 = `ethereum:0x337610d27c682E347C9cD60BD4b3b107C9d34dDd@97/transfer?address=${bsc}&uint256=25000000000000000000`;
    const onEthereum = expectHtmlPage(await openOn(invoice.id, 'ethereum'), 200);
    expect(qrCodesOf(onEthereum)).toEqual([{ text: erc20, alt: 'QR code to pay 25 USDT on Ethereum (ERC-20)' }]);
    expect(walletLinksOf(onEthereum)).toEqual([erc20]);
    const onBsc = expectHtmlPage(await openOn(invoice.id, 'bsc'), 200);
    expect(qrCodesOf(onBsc)).toEqual([{ text: bep20, alt: 'QR code to pay 25 USDT on BNB Smart Chain (BEP-20)' }]);
    expect(walletLinksOf(onBsc)).toEqual([bep20]);
    const onTron = expectHtmlPage(await openOn(invoice.id, 'tron'), 200);
    expect(qrCodesOf(onTron)).toEqual([{ text: tron, alt: 'QR code of your address on Tron (TRC-20)' }]);
    expect(onTron).toContain('This QR code holds only the address: enter the amount in your wallet yourself.');
    // Trust Wallet's link would ask for a payment on Tron's main network; the demo's Tron is Nile.
    expect(onTron).not.toContain('link.trustwallet.com');
    expect(onTron).not.toContain('class="button secondary"');
  });

  it('carry native coins by EIP-681 value in wei, bitcoin by BIP-21, and USDC on Polygon', async () => {
    const eth = await createInvoice({ baseCurrency: 'USD', paymentCurrency: 'ETH', amount: 10 });
    expect(qrCodesOf(expectHtmlPage(await open(eth.id), 200)).map((qr) => qr.text)).toEqual([`ethereum:${eth.wallet.address}@11155111?value=3125000000000000`]);

    const btc = await createInvoice({ baseCurrency: 'BTC', amount: 0.0015 });
    const btcPage = expectHtmlPage(await open(btc.id), 200);
    expect(qrCodesOf(btcPage).map((qr) => qr.text)).toEqual([`bitcoin:${btc.wallet.address}?amount=0.0015`]);
    expect(walletLinksOf(btcPage)).toEqual([`bitcoin:${btc.wallet.address}?amount=0.0015`]);

    const usdc = await createInvoice({ baseCurrency: 'USDC', amount: 12.5 });
    expect(networkChoicesOf(expectHtmlPage(await open(usdc.id), 200)).map((choice) => choice.name)).toEqual(['Ethereum (ERC-20)', 'Polygon', 'Tron (TRC-20)']);
    const usdcPage = expectHtmlPage(await openOn(usdc.id, 'polygon'), 200);
    expect(qrCodesOf(usdcPage).map((qr) => qr.text)).toEqual([`ethereum:0x41E94Eb019C0762f9Bfcf9Fb1E58725BfB0e7582@80002/transfer?address=${usdc.wallet.addresses[1].address}&uint256=12500000`]);
  });
});

describe('a partial payment', () => {
  it('shows what was paid and what remains, asks the wallets for the rest, and tells the status poll', async () => {
    const invoice = await crypto();
    await open(invoice.id);
    await payPart(invoice.id, '10.000000');
    const page = expectHtmlPage(await open(invoice.id), 200);
    expect(page).toContain('<p>Paid so far: <strong><bdi>10 USDT</bdi></strong></p>');
    expect(page).toContain('<p>Still to pay: <strong><bdi>15 USDT</bdi></strong></p>');
    expect(page).toContain('Part of your payment has arrived. Send the remaining <strong><bdi>15 USDT</bdi></strong> to complete it.');
    expect(page).toContain('data-status="active" data-paid="10.000000"');
    const onEthereum = expectHtmlPage(await openOn(invoice.id, 'ethereum'), 200);
    expect(onEthereum).toContain('data-copy="15"');
    expect(qrCodesOf(onEthereum).map((qr) => qr.text)).toEqual([expect.stringMatching(/&uint256=15000000$/)]);
    expect((await open(invoice.id, '/status')).body.data).toEqual({ status: 'active', paidAmount: '10.000000', remainingAmount: '15.000000', redirectUrl: null });

    const urdu = (await request('GET', `${checkoutPath(invoice.id)}?lang=ur`)).body as string;
    expect(urdu).toContain('<p>اب تک ادا شدہ: <strong><bdi>10 USDT</bdi></strong></p>');
  });

  it('is not shown before anything arrives', async () => {
    const page = expectHtmlPage(await open((await crypto()).id), 200);
    expect(page).not.toContain('class="progress"');
    expect(page).toContain('data-paid="0.000000"');
  });
});

describe('every page of the demo', () => {
  it('says that it is a demo, and how paying works there: on test networks for crypto, at the demo provider for fiat', async () => {
    const cryptoInvoice = await crypto();
    const details = await createInvoice({ baseCurrency: 'TRY', amount: 1000 });
    const provider = await createInvoice({ baseCurrency: 'AZN', amount: 100, customerFullName: 'Aysel', paymentMethod: 'p2p' });
    const instructions = await createInvoice({ baseCurrency: 'INR', amount: 1000, ...INR_DETAILS });
    const paid = await crypto();
    await simulateDeposit(paid.id);
    const expired = await crypto();
    await lapse(expired.id);
    const noticeOf = (page: GatewayResult) => /<p class="demo">([^<]*)<\/p>/.exec(page.body)?.[1];
    for (const page of [await open(cryptoInvoice.id), await open(paid.id), await open(expired.id)]) {
      expect(noticeOf(page)).toBe('Demo: a test payment page. The addresses are on test networks: send test coins only, and no real money moves.');
    }
    for (const page of [await open(details.id), await open(provider.id, '/provider?from=provider'), await open(instructions.id, '/provider')]) {
      expect(noticeOf(page)).toBe(
        'Demo: a test payment page with the demo provider, and no real money moves. To pay, choose the outcome on the provider&#39;s page, or enter any 12-digit UTR when asked for one.',
      );
    }
    expect(noticeOf(await open(randomUUID()))).toBe('Demo: a test payment page. No real money moves.');
  });
});

describe('the end states', () => {
  const rejected = async (fields: Record<string, unknown>, owner = merchant) => {
    const invoice = await createInvoice({ baseCurrency: 'PKR', amount: 1000, customerFullName: 'Sana', paymentMethod: 'wallet', ...fields }, owner);
    await payAtProvider(invoice.id, 'failed');
    return invoice;
  };

  it("offer the way back to the shop on a rejected payment: the invoice's redirectUrl, else the merchant's return URL", async () => {
    const withRedirect = await rejected({ redirectUrl: `${SHOP}/order/7` });
    const page = expectHtmlPage(await open(withRedirect.id, '/provider'), 200);
    expect(page).toContain('Payment rejected');
    expect(page).toContain(`<a class="button" href="${SHOP}/order/7">Return to Acme &lt;Books&gt; &amp; &quot;Co&quot;</a>`);

    const withReturnUrl = await rejected({}, framedMerchant);
    expect(expectHtmlPage(await open(withReturnUrl.id), 200)).toContain(`<a class="button" href="${SHOP}/thanks">`);

    const neither = expectHtmlPage(await open((await rejected({})).id), 200);
    expect(neither).not.toContain('class="button"');
    expect(neither).toContain('You can close this page.');
  });

  it('offer the way back on an expired invoice, in the language chosen', async () => {
    const invoice = await crypto({ redirectUrl: `${SHOP}/order/8` });
    await lapse(invoice.id);
    const page = expectHtmlPage(await request('GET', `${checkoutPath(invoice.id)}?lang=az`), 200);
    expect(page).toContain('<h1>Bu fakturanın müddəti bitib</h1>');
    expect(page).toContain(`<a class="button" href="${SHOP}/order/8">Acme &lt;Books&gt; &amp; &quot;Co&quot; saytına qayıt</a>`);
  });
});

describe('the weight of a page', () => {
  const BUDGET_BYTES = 60 * 1024;

  it('stays under 60 KB for every page in every language', async () => {
    const usdt = await crypto();
    const partial = await crypto();
    await payPart(partial.id, '5.000000');
    const details = await createInvoice({ baseCurrency: 'TRY', amount: 1000 });
    const inr = await createInvoice({ baseCurrency: 'INR', amount: 1000, ...INR_DETAILS });
    const instructions = await createInvoice({ baseCurrency: 'INR', amount: 1000, paymentMethod: 'p2p', ...INR_DETAILS });
    const waiting = await createInvoice({ baseCurrency: 'AZN', amount: 100, customerFullName: 'Aysel', paymentMethod: 'p2p' });
    const paid = await crypto();
    await simulateDeposit(paid.id);
    const expired = await crypto();
    await lapse(expired.id);
    const rejected = await createInvoice({ baseCurrency: 'PKR', amount: 1000, customerFullName: 'Sana', paymentMethod: 'wallet' });
    await payAtProvider(rejected.id, 'failed');
    const targets = [
      checkoutPath(usdt.id),
      checkoutPath(partial.id),
      checkoutPath(details.id),
      checkoutPath(inr.id, '/provider'),
      checkoutPath(instructions.id, '/provider'),
      `${checkoutPath(waiting.id, '/provider')}?from=provider`,
      checkoutPath(paid.id),
      checkoutPath(expired.id),
      checkoutPath(rejected.id),
      checkoutPath(randomUUID()),
    ];
    for (const lang of ['en', 'tr', 'hi', 'ur', 'az']) {
      for (const target of targets) {
        const response = await request('GET', `${target}${target.includes('?') ? '&' : '?'}lang=${lang}`);
        expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
        expect(response.rawBody.length, `${target} in ${lang}`).toBeLessThan(BUDGET_BYTES);
      }
    }
  });
});
