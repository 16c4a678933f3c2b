/**
 * The dashboard's listings and pages as a phone (375 px) and a desktop (1280 px) show them, in
 * headless Chromium against the local runtime: nothing scrolls sideways, no id or state breaks
 * across lines, a phone's listing of 20 invoices stays short; invoices carry their state and what
 * was paid as badges in words (an invoice paid 75 USDT of 25 is completed and overpaid), amounts at
 * their currency's precision as the API writes them, the invoice page its method, networks,
 * address, fees, net and deposits linked to the explorer the deployment names for the network;
 * "Newer" and "Older" walk a listing's pages both ways. A screenshot of every page at both widths,
 * the sign-in, invitation and refusal pages too, goes under test/artifacts/screenshots/.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LANGUAGE_CODES } from '../../shared/checkout/language.js';
import { en } from '../../shared/dashboard/i18n/en.js';
import { Decimal } from '../../shared/domain/kernel/index.js';
import { accessibilityViolationsAtEveryWidth, AUDIT_VIEWPORTS, launchChromium, NO_VIOLATIONS_AT_ANY_WIDTH, saveScreenshot } from '../support/browser.js';
import { acceptInvitation, DashboardBrowser, demoOwnerOf, type OpenPage, tableRows, unexpected } from '../support/dashboard-browser.js';
import { callApi, startGatewayProcess, type ApiResponse, type GatewayProcess } from '../support/gateway-process.js';

/** The explorer this deployment names for Ethereum, in place of the stage's. */
const EXPLORER = 'https://explorer.example/eth/tx/{hash}';

let dataDir: string;
let gateway: GatewayProcess;
let browser: Browser;
let site: DashboardBrowser;
let owner: OpenPage;

interface MadeInvoice {
  id: string;
  orderId: string;
  customerId: string;
  wallet?: { address: string; networks: string[] };
}

/** Invoices made for these tests, newest last. */
const made: MadeInvoice[] = [];
let overpaid: MadeInvoice;
let partial: MadeInvoice;
let bitcoin: MadeInvoice;
let rupees: MadeInvoice;
/** The overpaying deposit, as the API answers it. */
let deposit: { id: string; amount: string; currency: string; transactionHash: string; fees: { processing: string; technical: string | null } };

const demoApi = (method: 'GET' | 'POST', path: string, body?: unknown): Promise<ApiResponse> => callApi(gateway, method, path, body);

async function newInvoice(fields: { baseCurrency: string; amount: number }): Promise<MadeInvoice> {
  const orderId = `layout-${made.length + 1}-${randomUUID().slice(0, 8)}`;
  const created = await demoApi('POST', '/api/v2/invoices', { orderId, customerId: `customer-${made.length + 1}`, ...fields });
  expect(created.status, created.text).toBe(200);
  made.push(created.body.data);
  return created.body.data;
}

async function pay(invoice: MadeInvoice, amount: number): Promise<ApiResponse> {
  const paid = await demoApi('POST', '/api/v2/simulate/deposit', { invoiceId: invoice.id, amount, network: 'ethereum' });
  expect(paid.status, paid.text).toBe(200);
  return paid;
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'gateway-dashboard-layout-'));
  [browser, gateway] = await Promise.all([launchChromium(), startGatewayProcess({ dataDir, env: { GATEWAY_EXPLORER_ETHEREUM: EXPLORER }, timeoutMs: 180_000 })]);
  site = new DashboardBrowser(browser, gateway.baseUrl);
  // Twenty-one in all, more than a page of the listing's default twenty; the newest four on its first page.
  while (made.length < 17) await newInvoice({ baseCurrency: 'USDT', amount: 12.5 });
  bitcoin = await newInvoice({ baseCurrency: 'BTC', amount: 0.001 });
  // INR's smallest payment in demo is 500.
  rupees = await newInvoice({ baseCurrency: 'INR', amount: 500 });
  partial = await newInvoice({ baseCurrency: 'USDT', amount: 25 });
  await pay(partial, 10);
  overpaid = await newInvoice({ baseCurrency: 'USDT', amount: 25 });
  deposit = (await pay(overpaid, 75)).body.data;
  owner = await site.openPage();
  await site.signIn(owner.page, demoOwnerOf(gateway));
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await gateway?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** The text of the facts' value named `term` on the page. */
const fact = async (page: Page, term: string): Promise<string> =>
  page.locator('dl.facts dt').evaluateAll((terms, wanted) => terms.find((each) => each.textContent === wanted)?.nextElementSibling?.textContent ?? '', term);

/** The badges' words in `scope`, each with its tone. */
const badgesIn = async (scope: ReturnType<Page['locator']>): Promise<string[]> =>
  scope.locator('.badge').evaluateAll((badges) => badges.map((badge) => `${badge.className.replace('badge ', '')}:${badge.textContent}`));

/** The invoice ids of the listing shown, by their links' names. */
const listedIds = async (page: Page): Promise<string[]> =>
  (
    await tableRows(page)
      .locator('a.id')
      .evaluateAll((links) => links.map((link) => link.getAttribute('title') ?? ''))
  ).filter(Boolean);

/**
 * For `page.evaluate`: the ids, states and short codes (a type, a network) of the page that take
 * more than one line (an id or a word broken across lines), each as its text and its height
 * against its line's.
 */
const BROKEN_ACROSS_LINES = `(() => Array.from(document.querySelectorAll('main .badge, main a.id, main td.brief code')).flatMap((element) => {
  const style = getComputedStyle(element);
  const line = parseFloat(style.lineHeight) || parseFloat(style.fontSize) * 1.5;
  const boxes = element.getClientRects();
  const height = element.getBoundingClientRect().height;
  return boxes.length > 1 || height > line * 1.5 + 4 ? [element.textContent + ': ' + boxes.length + ' boxes, ' + height + ' px high for a line of ' + line + ' px'] : [];
}))()`;

/** The page as it is, at both widths: nothing scrolls sideways, no id or state breaks across lines; a screenshot of each. */
async function fitsBothWidths(page: Page, name: string): Promise<void> {
  for (const viewport of AUDIT_VIEWPORTS) {
    const what = `${name} at ${viewport.width} px`;
    await page.setViewportSize(viewport);
    expect(await page.evaluate('document.documentElement.scrollWidth'), what).toBe(viewport.width);
    expect(await page.evaluate(BROKEN_ACROSS_LINES), what).toEqual([]);
    await saveScreenshot(page, `screenshots/dashboard-layout-${name}-${viewport.width}`);
  }
  await page.setViewportSize(AUDIT_VIEWPORTS[1]);
}

/** For `page.evaluate`: the first 25 USDT amount of the page, and whether its digits are drawn left of its code. */
const AMOUNT_DRAWN_LEFT_TO_RIGHT = `(() => {
  const walker = document.createTreeWalker(document.querySelector('main'), NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.textContent;
    const at = text.indexOf('25.000000 USDT');
    if (at < 0) continue;
    const leftOf = (index) => { const range = document.createRange(); range.setStart(node, index); range.setEnd(node, index + 1); return range.getBoundingClientRect().left; };
    return { amount: text.slice(at, at + 14), digitsBeforeCode: leftOf(at) < leftOf(at + 10) };
  }
  return null;
})()`;

describe('the dashboard on a phone and a desktop', () => {
  it('shows the invoice paid 75 USDT of 25 as completed and overpaid, with its method, networks, address, fees, net, and its deposit linked to the configured explorer', async () => {
    const { page } = owner;
    await page.goto(site.url(`invoices/${overpaid.id}`));
    expect(await badgesIn(page.locator('dl.facts'))).toEqual(['done:completed', 'attention:overpaid']);
    const fees = new Decimal(deposit.fees.processing).plus(deposit.fees.technical ?? 0);
    expect({
      amount: await fact(page, en['list.amount']),
      paid: await fact(page, en['invoice.paid']),
      fee: await fact(page, en['transaction.fee']),
      net: await fact(page, en['transaction.net']),
      refunded: await fact(page, en['invoice.refunded']),
      method: await fact(page, en['invoice.method']),
      address: await fact(page, en['invoice.address']),
      customer: await fact(page, en['list.customerId']),
    }).toEqual({
      amount: '25.000000 USDT',
      paid: '75.000000 USDT',
      fee: `${fees.toFixed(6)} USDT`,
      net: `${new Decimal(75).minus(fees).toFixed(6)} USDT`,
      refunded: '0.000000 USDT',
      method: 'crypto',
      address: overpaid.wallet!.address,
      customer: overpaid.customerId,
    });
    expect((await fact(page, en['invoice.networks'])).trim().split(' ')).toEqual(overpaid.wallet!.networks);

    const deposits = tableRows(page, en['invoice.transactions']);
    expect(await deposits.count()).toBe(1);
    expect(await badgesIn(deposits)).toEqual(['done:confirmed']);
    const hash = deposits.locator(`a[href="${EXPLORER.replace('{hash}', deposit.transactionHash)}"]`);
    expect(await hash.getAttribute('title')).toBe(en['transaction.explorer'].replace('{hash}', deposit.transactionHash));
    await page.getByText(en['invoice.noRefunds']).waitFor();

    await deposits.getByRole('link', { name: `Open ${deposit.id}` }).click();
    await page.getByRole('heading', { name: `Transaction ${deposit.id}` }).waitFor();
    expect(await fact(page, en['transaction.net'])).toBe(`${new Decimal(deposit.amount).minus(fees).toFixed(6)} USDT`);
    const chainLink = page.locator(`dl.facts a[href="${EXPLORER.replace('{hash}', deposit.transactionHash)}"]`);
    expect([await chainLink.textContent(), await chainLink.getAttribute('title')]).toEqual([deposit.transactionHash, en['transaction.explorer'].replace('{hash}', deposit.transactionHash)]);
    expect(unexpected(owner.errors)).toEqual([]);
  });

  it('lists invoices with their customer, state and payment badges, and amounts at their currency precision as the API writes them', async () => {
    const { page } = owner;
    await page.goto(site.url('invoices'));
    const row = (invoice: MadeInvoice) => tableRows(page).filter({ has: page.locator(`a[title="${invoice.id}"]`) });
    const cells = async (invoice: MadeInvoice) => (await row(invoice).locator('td').allTextContents()).slice(3);
    expect(await badgesIn(row(overpaid))).toEqual(['done:completed', 'attention:overpaid']);
    expect(await badgesIn(row(partial))).toEqual(['none:created', 'attention:partially paid']);
    expect(await badgesIn(row(bitcoin))).toEqual(['none:created', 'none:unpaid']);
    expect((await cells(overpaid)).slice(1, 4)).toEqual([overpaid.customerId, '25.000000 USDT', '75.000000 USDT']);
    expect((await cells(partial)).slice(2, 4)).toEqual(['25.000000 USDT', '10.000000 USDT']);
    expect((await cells(bitcoin)).slice(2, 4)).toEqual(['0.00100000 BTC', '0.00000000 BTC']);
    const rupeeApi = await demoApi('GET', `/api/v2/invoices/${rupees.id}`);
    expect((await cells(rupees)).slice(2, 4)).toEqual(['500.00 INR', `${rupeeApi.body.data.paidAmount} ${rupeeApi.body.data.paymentCurrency}`]);
    expect(rupeeApi.body.data.amount).toBe('500.00');
    // A state's badge says it in each language, not only in colour.
    await page.goto(site.url('invoices?lang=tr'));
    expect(await badgesIn(row(overpaid))).toEqual(['done:tamamlandı', 'attention:fazla ödendi']);
    // On a right-to-left page an amount still reads left to right: its digits are drawn before its code.
    await page.goto(site.url('invoices?lang=ur'));
    expect(await page.evaluate(AMOUNT_DRAWN_LEFT_TO_RIGHT)).toEqual({ amount: '25.000000 USDT', digitsBeforeCode: true });
  });

  it('walks the invoices three pages older and back newer, each page the same both ways, the API order kept', async () => {
    const { page } = owner;
    const pages: string[][] = [];
    await page.goto(site.url('invoices?limit=8'));
    expect(await page.getByRole('link', { name: en['list.newer'] }).count()).toBe(0);
    for (;;) {
      pages.push(await listedIds(page));
      const older = page.getByRole('link', { name: en['list.next'] });
      if ((await older.count()) === 0) break;
      await older.click();
      await page.waitForLoadState();
    }
    expect(pages.map((ids) => ids.length)).toEqual([8, 8, 5]);
    const api = await demoApi('GET', '/api/v2/invoices?limit=100');
    expect(pages.flat()).toEqual(api.body.data.items.map((invoice: { id: string }) => invoice.id));
    expect(new Set(pages.flat()).size).toBe(21);

    for (const expected of [pages[1], pages[0]]) {
      await page.getByRole('link', { name: en['list.newer'] }).click();
      await page.waitForLoadState();
      expect(await listedIds(page)).toEqual(expected);
      expect(new URL(page.url()).searchParams.get('limit')).toBe('8');
    }
    expect(await page.getByRole('link', { name: en['list.newer'] }).count()).toBe(0);
    expect(await page.getByRole('link', { name: en['list.next'] }).count()).toBe(1);
    expect(unexpected(owner.errors)).toEqual([]);
  });

  it('fits every page to 375 and 1280 px: nothing scrolls sideways, no id or state breaks across lines, 20 invoices on a phone stay short; a screenshot of each', async () => {
    const { page } = owner;
    const pages: Array<[string, string]> = [
      ['overview', 'overview'],
      ['invoices', 'invoices'],
      ['invoice', `invoices/${overpaid.id}`],
      ['transactions', 'transactions'],
      ['transaction', `transactions/${deposit.id}`],
      ['payouts', 'payouts'],
      ['payout-addresses', 'payout-addresses'],
      ['balances', 'balances'],
      ['callbacks', 'callbacks'],
      ['reports', 'reports'],
      ['settings', 'settings'],
      ['keys', 'keys'],
      ['users', 'users'],
      ['audit', 'audit'],
      ['invoices-ur', 'invoices?lang=ur'],
    ];
    for (const [name, path] of pages) {
      await page.goto(site.url(path));
      await fitsBothWidths(page, name);
    }
    // The listing's twenty invoices, each a card on a phone.
    await page.goto(site.url('invoices'));
    expect(await tableRows(page).count()).toBe(20);
    await page.setViewportSize(AUDIT_VIEWPORTS[0]);
    expect(await page.evaluate('getComputedStyle(document.querySelector("main tbody tr")).display')).toBe('flex');
    // A card is its badges' line, two lines of labelled pairs and its date: seven lines of text at most.
    expect(await tableRows(page).evaluateAll((rows) => Math.max(...rows.map((row) => row.getBoundingClientRect().height)))).toBeLessThan(170);
    expect(await page.evaluate('document.documentElement.scrollHeight')).toBeLessThan(3800);
    expect(unexpected(owner.errors)).toEqual([]);
  });

  it('fits the pages before a session and the refusals too: sign-in, a failed sign-in, an invitation, its recovery codes, a used invitation, not found and not allowed', async () => {
    const email = `layout-${randomUUID().slice(0, 8)}@demo.example`;
    await owner.page.goto(site.url('users'));
    await owner.page.getByLabel('E-mail', { exact: true }).fill(email);
    await owner.page.getByLabel('Role').selectOption('developer');
    await owner.page.getByRole('button', { name: 'Invite', exact: true }).click();
    const link = (await owner.page.getByRole('status').locator('code').textContent()) ?? '';
    expect(link).toMatch(/\/dashboard\/join\/[\w-]{43}$/);

    const visitor = await site.openPage();
    const { page } = visitor;
    await page.goto(site.url('sign-in'));
    await fitsBothWidths(page, 'sign-in');
    const refused = await site.submitSignIn(page, { email, password: 'not the password at all', code: '000000' });
    expect(refused.status()).toBe(401);
    await page.getByText(en['signIn.failed']).waitFor();
    await fitsBothWidths(page, 'sign-in-failed');

    await page.goto(link);
    await page.getByRole('heading', { name: en['join.title'].replace('{merchant}', 'Demo merchant') }).waitFor();
    await fitsBothWidths(page, 'join');
    await acceptInvitation(page, email);
    await fitsBothWidths(page, 'join-recovery-codes');

    // A developer may not read the audit log; an invoice that is not there is not found.
    expect((await page.goto(site.url('audit')))?.status()).toBe(403);
    await page.getByRole('heading', { name: en['error.forbidden'], level: 1 }).waitFor();
    await fitsBothWidths(page, 'error-forbidden');
    expect((await page.goto(site.url(`invoices/${randomUUID()}`)))?.status()).toBe(404);
    await page.getByRole('heading', { name: en['error.notFound'], level: 1 }).waitFor();
    await fitsBothWidths(page, 'error-not-found');

    const stranger = await site.openPage();
    expect((await stranger.page.goto(link))?.status()).toBe(404);
    await stranger.page.getByText(en['join.invalid']).waitFor();
    await fitsBothWidths(stranger.page, 'join-used');
    expect(unexpected(visitor.errors)).toEqual([]);
    expect(unexpected(stranger.errors)).toEqual([]);
    await Promise.all([visitor.context.close(), stranger.context.close()]);
  });

  it('passes axe-core on the listings and the invoice with every kind of badge, at both widths, in every language', async () => {
    const { page } = owner;
    for (const language of LANGUAGE_CODES) {
      for (const path of ['invoices', `invoices/${overpaid.id}`, `invoices/${partial.id}`, 'transactions']) {
        await page.goto(site.url(`${path}?lang=${language}`));
        expect(await accessibilityViolationsAtEveryWidth(page), `${path} in ${language}`).toEqual(NO_VIOLATIONS_AT_ANY_WIDTH);
      }
    }
    expect(unexpected(owner.errors)).toEqual([]);
  }, 180_000);
});
