/**
 * The merchant dashboard (docs/merchant-guide.md#dashboard) in a real browser (headless Chromium)
 * against the local runtime as `npm start` runs it, used as its people use it: the demo owner
 * invites a developer and a viewer, who join from their links; money arrives and is followed from
 * the overview to its callbacks; settings, the callback secret, API keys and reports are changed
 * and used against the API; an owner adds payout addresses with fresh codes of the app and removes
 * one; and what must be refused is: a viewer's or a developer's change, a code used twice, a form without its
 * CSRF token or from another site, another merchant's invoice, a wrong sign-in, a locked account,
 * an ended session. Every page is audited by axe-core at 375 and 1280 px in the five languages,
 * without a word left untranslated; screenshots go under test/artifacts/.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Browser, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LANGUAGE_CODES, type Language } from '../../shared/checkout/language.js';
import { en } from '../../shared/dashboard/i18n/en.js';
import { DASHBOARD_CATALOGUES } from '../../shared/dashboard/language.js';
import { SESSION_COOKIE, SESSION_IDLE_SECONDS } from '../../shared/domain/dashboard/dashboard-sessions.js';
import { tokenDigest } from '../../shared/domain/dashboard/dashboard-users.js';
import { totpCode, totpStep } from '../../shared/domain/dashboard/totp.js';
import { accessibilityViolationsAtEveryWidth, AUDIT_VIEWPORTS, launchChromium, NO_VIOLATIONS_AT_ANY_WIDTH, saveScreenshot } from '../support/browser.js';
import { startCallbackReceiver, type CallbackReceiver, type ReceivedCallback } from '../support/callback-receiver.js';
import { DASHBOARD_TEXT, DOCUMENT_LANGUAGE, readableText, untranslatedIn } from '../support/catalogues.js';
import { acceptInvitation, csrfOf, DashboardBrowser, demoOwnerOf, freshCode, type OpenPage, type Person, tableRows, unexpected } from '../support/dashboard-browser.js';
import { callApi, startGatewayProcess, type ApiResponse, type GatewayProcess } from '../support/gateway-process.js';
import { merchantCliForTheseTests } from '../support/merchant-cli.js';
import { decodeQrDataUri } from '../support/qr.js';
import { openRuntimeStack } from '../support/runtime-stack.js';
import { eventually } from '../support/wait.js';

const cli = merchantCliForTheseTests();

let dataDir: string;
let gateway: GatewayProcess;
let browser: Browser;
/** The dashboard of the gateway above, in the browser above. */
let site: DashboardBrowser;
let receiver: CallbackReceiver;

let owner: Person;
let developer: Person;
let viewer: Person;
/** The demo owner's browser, signed in from the first test to the last. */
let ownerBrowser: OpenPage;
/** The developer's and the viewer's browsers, signed in by taking their invitations. */
let developerBrowser: OpenPage;
let viewerBrowser: OpenPage;

/** The demo merchant's invoice, paid by a simulated deposit (the transaction). */
const ORDER_ID = `order-${randomUUID()}`;
const AMOUNT = '37.25';
let invoice: { id: string; orderId: string };
let transaction: { id: string };

/** An order whose callbacks the receiver refuses with a 500: a delivery that keeps failing, for the callbacks page. */
const FAILING_ORDER_ID = `order-failing-${randomUUID()}`;

/** Another merchant, made with the admin CLI: its invoice and transaction, and its owner's invitation. */
let other: { merchantId: string; apiKey: string; invoiceId: string; transactionId: string; joinLink: string };

beforeAll(async () => {
  receiver = await startCallbackReceiver((callback) => (callback.json?.orderId === FAILING_ORDER_ID ? 500 : 200));
  dataDir = await mkdtemp(join(tmpdir(), 'gateway-dashboard-'));
  [browser, gateway] = await Promise.all([
    launchChromium(),
    // Callbacks to the receiver; a revoked key is refused at once rather than after the authorizer's 30 s.
    startGatewayProcess({ dataDir, env: { GATEWAY_DEMO_CALLBACK_URL: receiver.url, GATEWAY_AUTHORIZER_CACHE_S: '0' } }),
  ]);
  site = new DashboardBrowser(browser, gateway.baseUrl);
  owner = demoOwnerOf(gateway);
});

afterAll(async () => {
  await browser?.close();
  await gateway?.stop();
  await receiver?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

const withLanguage = (url: string, language: Language): string => `${url}${url.includes('?') ? '&' : '?'}lang=${language}`;

/** A dashboard page's URL, in a language chosen with `?lang=` when given. */
const dashboard = (page: string, language?: Language): string => (language ? withLanguage(`${gateway.baseUrl}/dashboard/${page}`, language) : `${gateway.baseUrl}/dashboard/${page}`);

/** The owner invites someone on the users page; resolves to the link shown to hand on. */
async function invite(email: string, role: 'developer' | 'viewer'): Promise<string> {
  const { page } = ownerBrowser;
  await page.goto(dashboard('users'));
  await page.getByLabel('E-mail', { exact: true }).fill(email);
  await page.getByLabel('Role').selectOption(role);
  await page.getByRole('button', { name: 'Invite', exact: true }).click();
  const notice = page.getByRole('status');
  await expect(notice.textContent()).resolves.toContain(`Send ${email} this link; it works once, until `);
  const link = (await notice.locator('code').textContent()) ?? '';
  expect(link).toMatch(new RegExp(`^${gateway.baseUrl}/dashboard/join/[\\w-]{43}$`));
  return link;
}

/**
 * Takes an invitation in a fresh browser as its person does: a too-common password first, then a
 * good one, the TOTP key read off the page (which its QR code carries too), the recovery codes.
 */
async function takeInvitation(link: string, email: string, role: string): Promise<{ person: Person; opened: OpenPage }> {
  const opened = await site.openPage();
  const { page } = opened;
  await page.goto(link);
  await page.getByRole('heading', { name: 'Join Demo merchant' }).waitFor();
  await page.getByText(`You are invited to the dashboard of Demo merchant as ${role}, with the e-mail ${email}.`).waitFor();
  const shownKey = async () => /^Key: ([A-Z2-7]{32})$/.exec((await page.locator('main .mono').textContent()) ?? '')?.[1];
  const totpKey = (await shownKey())!;
  expect(totpKey).toBeDefined();
  const uri = new URL(decodeQrDataUri((await page.getByRole('img', { name: 'QR code of the authenticator key' }).getAttribute('src')) ?? ''));
  expect([uri.protocol, uri.host, uri.pathname]).toEqual(['otpauth:', 'totp', `/Payment%20Gateway:${encodeURIComponent(email)}`]);
  expect(Object.fromEntries(uri.searchParams)).toEqual({ secret: totpKey, issuer: 'Payment Gateway', algorithm: 'SHA1', digits: '6', period: '30' });

  // With the code of the step the app shows, which a refused form does not take.
  await page.getByLabel(en['join.password']).fill('password1234');
  await page.getByLabel(en['join.passwordAgain']).fill('password1234');
  await page.getByLabel('Code from the app').fill(totpCode(totpKey, totpStep(new Date())));
  await page.getByRole('button', { name: 'Join', exact: true }).click();
  const password = page.getByLabel(en['join.password']);
  await expect(page.locator('#field-password-problem').textContent()).resolves.toBe(en['problem.too_common']);
  expect(await password.getAttribute('aria-invalid')).toBe('true');
  expect(await password.getAttribute('aria-describedby')).toBe('field-password-problem');
  expect(await page.getByRole('alert').textContent()).toBe(en['problem.summary']);
  // The same key again: the app the person set up keeps working.
  expect(await shownKey()).toBe(totpKey);

  const person = await acceptInvitation(page, email);
  expect(person.totpKey).toBe(totpKey);
  const { recoveryCodes } = person;
  expect(recoveryCodes).toHaveLength(10);
  for (const code of recoveryCodes) expect(code).toMatch(/^[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$/);
  await saveScreenshot(page, `dashboard-join-recovery-codes-${role}`, { fullPage: false });
  await page.getByRole('link', { name: 'Continue to the dashboard' }).click();
  await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
  await page.getByText(`Signed in as ${email} (${role})`).waitFor();

  // Shown once: the link is spent, and nothing shows the codes again.
  const again = await page.goto(link);
  expect(again?.status()).toBe(404);
  await page.getByText(en['join.invalid']).waitFor();
  expect(await page.content()).not.toContain(recoveryCodes[0]);
  return { person, opened };
}

const demoApi = (method: 'GET' | 'POST' | 'PATCH', path: string, body?: unknown): Promise<ApiResponse> => callApi(gateway, method, path, body);

/** The audit log's entries as the owner sees them: who, what, on what. */
async function auditEntries(): Promise<string[][]> {
  const { page } = ownerBrowser;
  await page.goto(dashboard('audit'));
  const rows = page.locator('main tbody tr');
  return Promise.all(Array.from({ length: await rows.count() }, async (_, i) => (await rows.nth(i).locator('td').allTextContents()).slice(1)));
}

const verifiesWith = (secret: string, callback: ReceivedCallback): boolean => {
  try {
    new Webhook(secret).verify(callback.body, Object.fromEntries(['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => [name, String(callback.headers[name] ?? '')])));
    return true;
  } catch {
    return false;
  }
};

/** The transaction's row in its callback log: the delivery's state, attempts and last answer. */
async function deliveryRow(page: Page, webhookId: string): Promise<{ state: string; attempts: string; lastAnswer: string } | undefined> {
  const row = tableRows(page, 'Callbacks').filter({ hasText: webhookId });
  if ((await row.count()) !== 1) return undefined;
  const [, state = '', attempts = '', lastAnswer = ''] = await row.locator('td').allTextContents();
  return { state, attempts, lastAnswer };
}

/**
 * Resends the transaction's callback from its page: a notice, the receiver gets it again, and the
 * callback log shows its delivery once more. Resolves to the delivery the receiver got.
 */
async function resendFromTransactionPage(page: Page): Promise<ReceivedCallback> {
  const before = receiver.received.length;
  await page.goto(dashboard(`transactions/${transaction.id}`));
  // The deposit's callback, delivered when the deposit was confirmed: its one row in the log.
  const { webhookId } = await receiver.waitForDelivery((callback) => callback.json?.orderId === ORDER_ID);
  const attempts = Number((await eventually(() => deliveryRow(page, webhookId), { what: 'the delivery in the callback log' })).attempts);
  await page.getByRole('button', { name: 'Resend the callback' }).click();
  await page.getByRole('status').getByText(en['callbacks.resent']).waitFor();
  expect(new URL(page.url()).searchParams.get('done')).toBe('resent');
  const delivered = await receiver.waitForDelivery((callback) => receiver.received.indexOf(callback) >= before && callback.webhookId === webhookId);
  const row = await eventually(
    async () => {
      await page.reload();
      const shown = await deliveryRow(page, webhookId);
      return shown?.state === 'delivered' && shown.attempts === String(attempts + 1) && shown;
    },
    { what: 'the resent delivery in the callback log' },
  );
  expect(row.lastAnswer).toMatch(/^200 · /);
  return delivered;
}

describe('the dashboard', () => {
  it('signs the demo owner in: the session cookie is HttpOnly, SameSite=Strict, under /dashboard; the pages load no script and refuse frames', async () => {
    ownerBrowser = await site.openPage();
    const { page, context } = ownerBrowser;
    // /dashboard asks for a sign-in.
    await page.goto(`${gateway.baseUrl}/dashboard`);
    expect(page.url()).toBe(dashboard('sign-in'));
    const answer = await site.signIn(page, owner);
    expect(answer.status()).toBe(303);
    const setCookie = (await answer.headerValue('set-cookie')) ?? '';
    expect(setCookie.split('; ').slice(1).sort()).toEqual(['HttpOnly', `Max-Age=${SESSION_IDLE_SECONDS}`, 'Path=/dashboard', 'SameSite=Strict']);
    expect((await context.cookies()).map(({ name, httpOnly, sameSite, path }) => ({ name, httpOnly, sameSite, path }))).toEqual([
      { name: SESSION_COOKIE, httpOnly: true, sameSite: 'Strict', path: '/dashboard' },
    ]);
    expect(await page.evaluate('document.cookie')).toBe('');

    const overview = await page.goto(dashboard('overview'));
    const headers = overview!.headers();
    const policy = Object.fromEntries(headers['content-security-policy']!.split('; ').map((directive) => [directive.split(' ')[0], directive.split(' ').slice(1).join(' ')]));
    expect(policy).toMatchObject({ 'default-src': "'none'", 'form-action': "'self'", 'frame-ancestors': "'none'", 'base-uri': "'none'" });
    expect(Object.keys(policy).filter((name) => name.startsWith('script-src'))).toEqual([]);
    expect(policy['style-src']).toMatch(/^'nonce-[\w+/=]+'$/);
    expect(headers).toMatchObject({ 'x-frame-options': 'DENY', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' });
    expect(await page.locator('script').count()).toBe(0);
    expect(unexpected(ownerBrowser.errors)).toEqual([]);
  });

  it('lets the owner invite a developer and a viewer, who join from their links: a too-common password refused beside its field, TOTP enrolled from the key and QR code shown, recovery codes shown once', async () => {
    const [developerLink, viewerLink] = [await invite('deniz@demo.example', 'developer'), await invite('ayse@demo.example', 'viewer')];
    const joined = await Promise.all([takeInvitation(developerLink, 'deniz@demo.example', 'developer'), takeInvitation(viewerLink, 'ayse@demo.example', 'viewer')]);
    [{ person: developer, opened: developerBrowser }, { person: viewer, opened: viewerBrowser }] = joined;

    await ownerBrowser.page.goto(dashboard('users'));
    const users = tableRows(ownerBrowser.page);
    const listed = await Promise.all((await users.all()).map(async (row) => (await row.locator('td').allTextContents()).slice(0, 3)));
    // The owner first; the others in the order they joined, which was at once.
    expect(listed[0]).toEqual(['owner@demo.example', 'owner', 'yes']);
    expect(listed.slice(1).sort()).toEqual([
      ['ayse@demo.example', 'viewer', 'yes'],
      ['deniz@demo.example', 'developer', 'yes'],
    ]);
    expect((await auditEntries()).slice(0, 4)).toEqual(
      expect.arrayContaining([
        ['deniz@demo.example', 'user.joined', 'developer'],
        ['ayse@demo.example', 'user.joined', 'viewer'],
        ['owner@demo.example', 'user.invited', 'deniz@demo.example (developer)'],
        ['owner@demo.example', 'user.invited', 'ayse@demo.example (viewer)'],
      ]),
    );
    expect([...unexpected(developerBrowser.errors), ...unexpected(viewerBrowser.errors)]).toEqual([]);
  });

  it("shows a simulated deposit on the overview: the balance, the USDT chart with its axis, days and the day's bar, its description and table with the exact amount, the invoices created and completed", async () => {
    const created = await demoApi('POST', '/api/v2/invoices', { orderId: ORDER_ID, customerId: 'customer-dashboard', baseCurrency: 'USDT', amount: Number(AMOUNT) });
    expect(created.status, created.text).toBe(200);
    invoice = created.body.data;
    const deposit = await demoApi('POST', '/api/v2/simulate/deposit', { invoiceId: invoice.id });
    expect(deposit.status, deposit.text).toBe(200);
    transaction = deposit.body.data;

    const { page } = ownerBrowser;
    const today = new Date().toISOString().slice(0, 10);
    const chart = page.getByRole('img', { name: 'Confirmed deposits per day in USDT' });
    await eventually(
      async () => {
        await page.goto(dashboard('overview'));
        return (await chart.count()) === 1 && (await page.locator('.stat', { hasText: 'Completed' }).locator('b').textContent()) === '1';
      },
      { what: 'the deposit on the overview' },
    );
    const balances = page.locator('section', { has: page.getByRole('heading', { name: 'Balances' }) });
    expect(await balances.locator('thead th').allTextContents()).toEqual(['Currency', 'Available', 'Reserved']);
    // Amounts at the currency's precision, as the API writes them.
    expect(await tableRows(page, 'Balances').first().locator('th, td').allTextContents()).toEqual(['USDT', `${AMOUNT}0000 USDT`, '0.000000 USDT']);
    expect(await chart.locator('desc').textContent()).toBe(`${AMOUNT}0000 USDT in 30 days. The best day was ${today}, with ${AMOUNT}0000 USDT.`);
    // The currency named above its own chart, a y axis of round values in USDT from zero, a day named every week down to today.
    const usdt = page.locator('.volume', { has: page.getByRole('heading', { name: 'USDT', level: 3 }) });
    expect(await usdt.count()).toBe(1);
    expect(await chart.locator('text.unit').textContent()).toBe('USDT');
    expect(await chart.locator('text.tick').allTextContents()).toEqual(['0', '10', '20', '30', '40']);
    const shortDay = (day: string) => new Intl.DateTimeFormat('en', { day: 'numeric', month: 'short', timeZone: 'UTC' }).format(new Date(`${day}T00:00:00Z`));
    const days = await chart.locator('text.day').allTextContents();
    expect(days).toHaveLength(5);
    expect(days.at(-1)).toBe(shortDay(today));
    const bars = chart.locator('rect.bar');
    expect(await bars.count()).toBe(30);
    expect(await bars.last().locator('title').textContent()).toBe(`${shortDay(today)}: ${AMOUNT}0000 USDT`);
    expect(Number(await bars.last().getAttribute('height'))).toBeGreaterThan(0);
    // The same days as a table, behind a summary that opens without script.
    await usdt.getByText('USDT per day as a table').click();
    const dayRows = usdt.locator('details tbody tr');
    expect(await dayRows.count()).toBe(30);
    expect(await dayRows.last().locator('th, td').allTextContents()).toEqual([shortDay(today), `${AMOUNT}0000 USDT`]);
    expect(await dayRows.first().locator('td').textContent()).toBe('0.000000 USDT');
    expect(await page.locator('.stat', { hasText: 'Created' }).locator('b').textContent()).toBe('1');
    expect(unexpected(ownerBrowser.errors)).toEqual([]);
  });

  it('finds the invoice by its order id, opens it, its transaction, and resends the callback: a notice, then the delivery in the callback log', async () => {
    const { page } = ownerBrowser;
    await page.goto(dashboard('invoices'));
    await page.getByLabel('Order id').fill(ORDER_ID);
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL((url) => url.searchParams.get('orderId') === ORDER_ID);
    expect(await tableRows(page).count()).toBe(1);
    await page.getByRole('link', { name: `Open ${invoice.id}` }).click();
    await page.getByRole('heading', { name: `Invoice ${invoice.id}` }).waitFor();
    await page.getByRole('definition').filter({ hasText: ORDER_ID }).waitFor();
    expect(await tableRows(page, 'Its transactions').count()).toBe(1);
    await page.getByRole('link', { name: `Open ${transaction.id}` }).click();
    await page.getByRole('heading', { name: `Transaction ${transaction.id}` }).waitFor();

    const resent = await resendFromTransactionPage(page);
    expect(resent.json.id).toBe(transaction.id);
    expect(verifiesWith(gateway.callbackSecret, resent)).toBe(true);
    expect(unexpected(ownerBrowser.errors)).toEqual([]);
  });

  it('refuses a bad callback URL beside its field in Turkish, saves a good one, and rotates the callback secret: shown once, then signing the callbacks', async () => {
    const tr = DASHBOARD_CATALOGUES.tr;
    const { page } = ownerBrowser;
    await page.goto(dashboard('settings', 'tr'));
    const callbackUrl = page.getByLabel(tr['settings.callbackUrl']);
    await callbackUrl.fill('ftp://shop.example/callbacks');
    await page.getByRole('button', { name: tr['settings.save'] }).click();
    await expect(page.locator('#field-callbackUrl-problem').textContent()).resolves.toBe(tr['problem.url']);
    expect(await callbackUrl.getAttribute('aria-invalid')).toBe('true');
    expect(await callbackUrl.getAttribute('aria-describedby')).toBe('field-callbackUrl-problem');
    expect(await page.getByRole('alert').textContent()).toBe(tr['problem.summary']);
    expect(await callbackUrl.inputValue()).toBe('ftp://shop.example/callbacks');
    expect((await demoApi('GET', '/api/v2/merchant')).body.data.callbackUrl).toBe(receiver.url);
    await saveScreenshot(page, 'dashboard-tr-settings-refused', { fullPage: false });

    const saved = `${receiver.url}/saved`;
    await callbackUrl.fill(saved);
    await page.getByRole('button', { name: tr['settings.save'] }).click();
    await page.getByRole('status').getByText(tr['settings.saved']).waitFor();
    expect(await callbackUrl.inputValue()).toBe(saved);
    expect((await demoApi('GET', '/api/v2/merchant')).body.data.callbackUrl).toBe(saved);

    await page.getByRole('button', { name: tr['settings.rotate'] }).click();
    const notice = page.getByRole('status');
    await expect(notice.textContent()).resolves.toContain(tr['settings.newSecret']);
    const secret = (await notice.locator('code').textContent()) ?? '';
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(secret).not.toBe(gateway.callbackSecret);
    await page.goto(dashboard('settings', 'tr'));
    expect(await page.content()).not.toContain(secret);

    const callback = await resendFromTransactionPage(page);
    expect(callback.path).toBe('/callbacks/saved');
    expect(verifiesWith(secret, callback)).toBe(true);
    expect((await demoApi('GET', '/api/v2/merchant')).status).toBe(200);
    expect(unexpected(ownerBrowser.errors)).toEqual([]);
  });

  it("lets the developer create a named API key, shown once, within the developer's scopes, which the API serves; once revoked on the keys page the API refuses it", async () => {
    const { page } = developerBrowser;
    const name = 'pos-terminal-7';
    await page.goto(dashboard('keys'));
    // A developer may give only the scopes of what a developer may do: no payouts, no reports.
    const offered = page.locator('main input[type=checkbox][name^=scope-]');
    const choices = await Promise.all((await offered.all()).map(async (box) => [await box.getAttribute('name'), await box.isChecked()]));
    expect(choices).toEqual([
      ['scope-read', true],
      ['scope-payments', true],
      ['scope-settings', true],
    ]);
    await page.getByLabel('Name', { exact: true }).fill(name);
    await page.getByLabel('Allowed addresses').fill('127.0.0.1\n::1');
    await page.getByRole('button', { name: 'Create a key' }).click();
    const notice = page.getByRole('status');
    await expect(notice.textContent()).resolves.toContain('Your new key, shown only now:');
    const apiKey = (await notice.locator('code').textContent()) ?? '';
    expect(apiKey).toMatch(/^gw_demo_[0-9A-Za-z]{32}$/);
    const row = tableRows(page).filter({ hasText: name });
    const cells = await row.locator('td').allTextContents();
    expect([cells[2], cells[3], cells[6]]).toEqual(['read, payments, settings', '127.0.0.1, ::1', 'active']);

    const withKey = { baseUrl: gateway.baseUrl, apiKey };
    const balances = await callApi(withKey, 'GET', '/api/v2/balances');
    expect(balances.status, balances.text).toBe(200);
    expect(balances.body.data.items).toEqual([{ currency: 'USDT', available: '37.250000', reserved: '0.000000' }]);
    // What the developer may not do in the dashboard, the key may not do through the API: nothing is reserved or asked for.
    const payout = await callApi(withKey, 'POST', '/api/v2/withdrawal', { customerId: 'c-1', amount: '10', currency: 'USDT', cardNumber: '4111111111111111' }, { 'idempotency-key': randomUUID() });
    expect([payout.status, payout.body.errors]).toEqual([403, [{ code: 'forbidden', message: 'This API key lacks the scope payouts' }]]);
    const report = await callApi(withKey, 'POST', '/api/v2/reports', { type: 'transactions', createdFrom: '2026-01-01T00:00:00Z', createdTo: '2026-01-02T00:00:00Z' }, { 'idempotency-key': randomUUID() });
    expect([report.status, report.body.errors]).toEqual([403, [{ code: 'forbidden', message: 'This API key lacks the scope reports' }]]);
    expect((await callApi(withKey, 'GET', '/api/v2/balances')).body.data).toEqual(balances.body.data);

    // A form forged with a scope the page does not offer is refused, and makes no key.
    const keysBefore = await tableRows(page).count();
    const forged = await site.postForm(developerBrowser, 'keys', { csrf: await csrfOf(page), name: 'forged', 'scope-read': 'on', 'scope-payouts': 'on' });
    expect(forged.status).toBe(422);
    await page.goto(dashboard('keys'));
    expect(await tableRows(page).count()).toBe(keysBefore);
    expect(await page.content()).not.toContain('forged');

    expect(await page.content()).not.toContain(apiKey);
    await page.getByRole('button', { name: `Revoke ${name}` }).click();
    await page.getByRole('status').getByText('The key is revoked: the API refuses it from now on.').waitFor();
    expect((await row.locator('td').allTextContents())[6]).toMatch(/^revoked /);
    const refused = await eventually(
      async () => {
        const answer = await callApi(withKey, 'GET', '/api/v2/balances');
        return answer.status === 401 && answer;
      },
      { what: 'the revoked key to be refused' },
    );
    expect(refused.body.errors[0].code).toBe('unauthorized');
    expect(unexpected(developerBrowser.errors)).toEqual([]);
  });

  it('lets the owner add a payout address with a fresh code, pending for the delay then active, and remove one; a code used once, bad input and a developer are refused, writing nothing', async () => {
    const { page } = ownerBrowser;
    const EVM = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
    const TRON = 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7';
    const { merchantId } = (await demoApi('GET', '/api/v2/merchant')).body.data;
    const delay = await cli(['set-payout-address-delay', '--merchant', merchantId, '--seconds', '4'], { GATEWAY_DATA_DIR: dataDir });
    expect(delay.code, delay.err).toBe(0);
    const listed = async () => (await demoApi('GET', '/api/v2/payout-addresses')).body.data.items as Array<{ id: string; network: string; address: string; status: string; label: string | null }>;
    const auditBefore = await auditEntries();

    await page.goto(dashboard('payout-addresses'));
    await page.getByText('A new address becomes active 4 seconds after it is added.').waitFor();
    const fill = async (fields: { network: string; address: string; label?: string; code: string }) => {
      await page.getByLabel('Network').selectOption(fields.network);
      await page.getByLabel('Address', { exact: true }).fill(fields.address);
      await page.getByLabel('Label (optional)').fill(fields.label ?? '');
      await page.getByLabel(en['payoutAddresses.code']).fill(fields.code);
      const [answer] = await Promise.all([page.waitForResponse((response) => response.request().method() === 'POST'), page.getByRole('button', { name: 'Add the address' }).click()]);
      await page.waitForLoadState();
      return answer.status();
    };
    const problemOf = async (name: string) => page.locator(`#field-${name}-problem`).textContent();

    // Refused beside their fields, taking no code: the code the app shows now is the one that adds the address after.
    const code = await freshCode(owner);
    expect(await fill({ network: 'ethereum', address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAe', code })).toBe(422);
    expect(await problemOf('address')).toBe(en['problem.not_an_address']);
    expect(await page.getByLabel('Address', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    expect(await fill({ network: 'ethereum', address: TRON, code })).toBe(422);
    expect(await problemOf('address')).toBe(en['problem.not_an_address']);
    // The browser asks for the code itself; a form sent without it anyway is refused beside the field.
    expect(await page.getByLabel(en['payoutAddresses.code']).getAttribute('required')).not.toBeNull();
    const noCode = await site.postForm(ownerBrowser, 'payout-addresses', { csrf: await csrfOf(page), network: 'ethereum', address: EVM, code: '' });
    expect(noCode.status).toBe(422);
    expect(noCode.text).toContain(`<p class="error" id="field-code-problem">${en['problem.code_required']}</p>`);
    expect(await fill({ network: 'ethereum', address: EVM, code: String((Number(code) + 1) % 1_000_000).padStart(6, '0') })).toBe(422);
    expect(await problemOf('code')).toBe(en['problem.code_wrong']);
    expect(await page.getByRole('alert').textContent()).toBe(en['problem.summary']);
    const unknownNetwork = await site.postForm(ownerBrowser, 'payout-addresses', { csrf: await csrfOf(page), network: 'solana', address: EVM, code });
    expect(unknownNetwork.status).toBe(422);
    expect(await listed()).toEqual([]);

    expect(await fill({ network: 'ethereum', address: EVM.toLowerCase(), label: 'Hazine', code })).toBe(303);
    await page.getByRole('status').getByText(en['payoutAddresses.added']).waitFor();
    const row = tableRows(page, 'The addresses').filter({ hasText: 'Hazine' });
    expect((await row.locator('td').allTextContents()).slice(0, 4)).toEqual(['Hazine', 'ethereum', EVM, 'pending']);
    expect(await listed()).toEqual([expect.objectContaining({ network: 'ethereum', address: EVM, label: 'Hazine', status: 'pending' })]);

    // The same code for another address: taken already, said so, nothing written.
    expect(await fill({ network: 'tron', address: TRON, code })).toBe(422);
    expect(await problemOf('code')).toBe(en['problem.code_used']);
    expect(await listed()).toHaveLength(1);

    await eventually(
      async () => {
        await page.reload();
        return (await row.locator('td').nth(3).textContent()) === 'active';
      },
      { what: 'the address to be active' },
    );
    expect((await listed())[0]?.status).toBe('active');

    // Another address with the app's next code, removed at once.
    expect(await fill({ network: 'tron', address: TRON, code: await freshCode(owner) })).toBe(303);
    expect((await listed()).map(({ network }) => network)).toEqual(['tron', 'ethereum']);
    await page.getByRole('button', { name: `Remove ${TRON}` }).click();
    await page.getByRole('status').getByText(en['payoutAddresses.removed']).waitFor();
    expect((await listed()).map(({ address }) => address)).toEqual([EVM]);
    expect((await auditEntries()).slice(0, 3)).toEqual([
      [owner.email, 'payout_address.removed', `tron ${TRON}`],
      [owner.email, 'payout_address.added', `tron ${TRON}`],
      [owner.email, 'payout_address.added', `ethereum ${EVM} (Hazine)`],
    ]);

    // The threshold of payouts that wait for an owner, set on the settings page.
    await page.goto(dashboard('settings'));
    await page.getByLabel(en['settings.payoutApprovalAboveUsd']).fill('1500');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').getByText(en['settings.saved']).waitFor();
    expect((await demoApi('GET', '/api/v2/merchant')).body.data.payoutApprovalAboveUsd).toBe('1500.00');

    // A developer reads the addresses, and can neither add nor remove one, nor change the threshold.
    const developerPage = developerBrowser.page;
    await developerPage.goto(dashboard('payout-addresses'));
    expect(await tableRows(developerPage, 'The addresses').count()).toBe(1);
    expect(await developerPage.locator('main form[method=post]').count()).toBe(0);
    const developerCsrf = await csrfOf(developerPage);
    const added = await site.postForm(developerBrowser, 'payout-addresses', { csrf: developerCsrf, network: 'tron', address: TRON, code: totpCode(developer.totpKey, totpStep(new Date())) });
    const removed = await site.postForm(developerBrowser, `payout-addresses/${(await listed())[0]!.id}/remove`, { csrf: developerCsrf });
    expect([added.status, removed.status]).toEqual([403, 403]);
    await developerPage.goto(dashboard('settings'));
    expect(await developerPage.getByLabel(en['settings.payoutApprovalAboveUsd']).isDisabled()).toBe(true);
    const settingsBefore = (await demoApi('GET', '/api/v2/merchant')).body.data;
    const developerSettings = await site.postForm(developerBrowser, 'settings', {
      csrf: developerCsrf,
      callbackUrl: settingsBefore.callbackUrl,
      returnUrl: '',
      frameAncestors: '*',
      payoutApprovalAboveUsd: '1',
    });
    expect(developerSettings.status).toBe(303);
    expect((await demoApi('GET', '/api/v2/merchant')).body.data.payoutApprovalAboveUsd).toBe('1500.00');
    expect((await listed()).map(({ address }) => address)).toEqual([EVM]);
    // Two additions, a removal, the owner's settings and the developer's, which left the threshold be.
    expect((await auditEntries()).length - auditBefore.length).toBe(5);
    expect([...unexpected(ownerBrowser.errors), ...unexpected(developerBrowser.errors)]).toEqual([]);
  });

  it("builds a report asked for today's transactions, and downloads it once ready as CSV", async () => {
    const { page, context } = ownerBrowser;
    const today = new Date().toISOString().slice(0, 10);
    await page.goto(dashboard('reports'));
    await page.getByLabel('Kind').selectOption('transactions');
    await page.getByLabel('From (UTC day)').fill(today);
    await page.getByLabel('To (UTC day, included)').fill(today);
    await page.getByRole('button', { name: 'Request', exact: true }).click();
    await page.getByRole('status').getByText(en['reports.requested']).waitFor();
    const download = page.getByRole('link', { name: 'Download' });
    await eventually(
      async () => {
        await page.reload();
        return (await download.count()) === 1;
      },
      { what: 'the report to be ready' },
    );
    expect((await tableRows(page, 'Your reports').first().locator('td').allTextContents()).slice(0, 3)).toEqual(['Transactions', 'ready', '1']);
    const file = await context.request.get((await download.getAttribute('href'))!);
    expect(file.status()).toBe(200);
    expect(file.headers()['content-type']).toMatch(/^text\/csv/);
    const lines = (await file.text()).trim().split('\n');
    expect(lines[0]).toMatch(/^id,createdAt,updatedAt,type,status,/);
    expect(lines.slice(1).map((line) => line.split(',')[0])).toEqual([transaction.id]);
    expect(unexpected(ownerBrowser.errors)).toEqual([]);
  });

  it('shows the balances and the statement at the currency precision, narrows the statement by type, currency and day, and asks for its CSV report', async () => {
    const { page, context } = ownerBrowser;
    const today = new Date().toISOString().slice(0, 10);
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    await page.goto(dashboard('balances'));
    await page.getByRole('heading', { name: 'Balances', level: 1 }).waitFor();
    expect(await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Balances' }).getAttribute('aria-current')).toBe('page');
    expect(await tableRows(page, 'Balances').first().locator('th, td').allTextContents()).toEqual(['USDT', `${AMOUNT}0000 USDT`, '0.000000 USDT']);
    const statement = tableRows(page, 'Statement');
    const entry = ['deposit', `${AMOUNT}0000 USDT`, `${AMOUNT}0000 USDT`, '0.000000 USDT', transaction.id.slice(0, 8)];
    expect(await statement.count()).toBe(1);
    expect((await statement.first().locator('td').allTextContents()).slice(1)).toEqual(entry);
    expect(await statement.first().getByRole('link').getAttribute('href')).toBe(dashboard(`transactions/${transaction.id}`));

    // Each filter narrows it, in the page's URL, as the API's query does.
    const filtered = async (choose: () => Promise<unknown>, expected: Record<string, string>): Promise<string[][]> => {
      await page.goto(dashboard('balances'));
      await choose();
      await page.getByRole('button', { name: 'Apply' }).click();
      await page.waitForURL((url) => Object.entries(expected).every(([name, value]) => url.searchParams.get(name) === value));
      return Promise.all((await statement.all()).map(async (row) => (await row.locator('td').allTextContents()).slice(1)));
    };
    expect(await filtered(() => page.getByLabel('Type').selectOption('fee'), { type: 'fee' })).toEqual([]);
    expect(await page.getByText('Nothing matches.').count()).toBe(1);
    expect(await filtered(() => page.getByLabel('Type').selectOption('deposit'), { type: 'deposit' })).toEqual([entry]);
    expect(await filtered(() => page.getByLabel('Currency').selectOption('BTC'), { currency: 'BTC' })).toEqual([]);
    expect(await filtered(() => page.getByLabel('To (UTC day, included)').fill(yesterday), { createdTo: yesterday })).toEqual([]);
    expect(await filtered(() => page.getByLabel('From (UTC day)').fill(today), { createdFrom: today })).toEqual([entry]);

    // The report of the entries shown: the statement's days and currency, as a CSV file on the reports page.
    await page.goto(dashboard(`balances?currency=USDT&createdFrom=${today}`));
    await page.getByRole('button', { name: 'Request these entries as a CSV report' }).click();
    await page.getByRole('status').getByText(en['reports.requested']).waitFor();
    const newest = tableRows(page, 'Your reports').first();
    await eventually(
      async () => {
        await page.reload();
        return (await newest.locator('td').nth(1).textContent()) === 'ready';
      },
      { what: 'the balance entries report to be ready' },
    );
    expect((await newest.locator('td').allTextContents()).slice(0, 3)).toEqual(['Balance entries', 'ready', '1']);
    const file = await context.request.get((await newest.getByRole('link', { name: 'Download' }).getAttribute('href'))!);
    expect(file.headers()['content-type']).toMatch(/^text\/csv/);
    const lines = (await file.text()).trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain(transaction.id);
    expect(lines[1]).toContain(`,${AMOUNT}0000,`);
    expect(unexpected(ownerBrowser.errors)).toEqual([]);
  });

  it('lists every callback delivery newest first on the callbacks page, only the failed ones when asked, and resends one from there', async () => {
    const { page } = ownerBrowser;
    // A second deposit, whose callback the receiver refuses: the newest delivery, and a failed one.
    const created = await demoApi('POST', '/api/v2/invoices', { orderId: FAILING_ORDER_ID, customerId: 'customer-dashboard', baseCurrency: 'USDT', amount: 5 });
    expect(created.status, created.text).toBe(200);
    const failing = (await demoApi('POST', '/api/v2/simulate/deposit', { invoiceId: created.body.data.id })).body.data as { id: string };
    const delivered = `${transaction.id}:confirmed`;
    const refused = `${failing.id}:confirmed`;
    await eventually(() => receiver.byWebhookId(refused).length > 0, { what: 'the refused callback at the receiver' });
    const rows = tableRows(page);
    const shown = async (): Promise<string[][]> => Promise.all((await rows.all()).map(async (row) => (await row.locator('td').allTextContents()).slice(1, 6)));
    const listed = await eventually(
      async () => {
        await page.goto(dashboard('callbacks'));
        const all = await shown();
        return all.some(([, id, , attempts]) => id === refused && attempts !== '0') && all;
      },
      { what: 'the refused delivery on the callbacks page' },
    );
    const ids = listed.map(([, id]) => id);
    expect(ids.indexOf(refused)).toBe(0);
    expect(ids).toContain(delivered);
    const [subject, , state, , lastAnswer] = listed[0]!;
    expect(subject).toBe(`Transaction ${failing.id.slice(0, 8)}`);
    // Retried, or parked once its attempts ran out: failed either way.
    expect(['pending', 'parked']).toContain(state);
    expect(lastAnswer).toMatch(/^500 · /);
    expect(listed.find(([, id]) => id === delivered)!.slice(2, 3)).toEqual(['delivered']);
    expect(await rows.first().getByRole('link').getAttribute('href')).toBe(dashboard(`transactions/${failing.id}`));

    // Only the failed: the refused one, not the delivered.
    await page.getByLabel('Deliveries').selectOption('failed');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL((url) => url.searchParams.get('show') === 'failed');
    expect((await shown()).map(([, id]) => id)).toEqual([refused]);

    // Resent from the page: back on it with a notice, and the receiver gets the delivered callback again.
    await page.goto(dashboard('callbacks'));
    const before = receiver.received.length;
    await rows.filter({ hasText: delivered }).getByRole('button', { name: 'Resend the callback' }).click();
    await page.getByRole('status').getByText(en['callbacks.resent']).waitFor();
    expect(new URL(page.url()).pathname).toBe('/dashboard/callbacks');
    await receiver.waitForDelivery((callback) => receiver.received.indexOf(callback) >= before && callback.webhookId === delivered);
    expect(unexpected(ownerBrowser.errors)).toEqual([]);
  });

  it('shows a viewer no form for a change, and refuses the changes it posts with its own CSRF token: 403, and nothing changed', async () => {
    const { page } = viewerBrowser;
    const changeControls = page.locator('main form[method=post]').locator('button, input:not([type=hidden]), select, textarea').and(page.locator(':enabled'));
    for (const path of ['overview', 'balances', 'callbacks', 'settings', 'keys', 'users', 'reports', 'payout-addresses', `invoices/${invoice.id}`, `transactions/${transaction.id}`]) {
      await page.goto(dashboard(path));
      expect(await changeControls.count(), path).toBe(0);
    }
    expect(await page.getByRole('link', { name: 'Audit log' }).count()).toBe(0);
    expect((await page.goto(dashboard('audit')))?.status()).toBe(403);

    const csrf = await csrfOf(page);
    const merchantBefore = (await demoApi('GET', '/api/v2/merchant')).body.data;
    const auditBefore = await auditEntries();
    const changes: Array<[string, Record<string, string>]> = [
      ['settings', { callbackUrl: 'https://attacker.example/callbacks', returnUrl: '', frameAncestors: '' }],
      ['settings/rotate-secret', {}],
      ['keys', { name: 'viewer-key' }],
      ['users', { email: 'mallory@demo.example', role: 'owner' }],
      ['users/deniz%40demo.example/remove', {}],
      ['payout-addresses', { network: 'tron', address: 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7', code: '123456' }],
      ['reports', { type: 'transactions', createdFrom: '2026-01-01', createdTo: '2026-01-02' }],
      [`transactions/${transaction.id}/resend`, {}],
      [`invoices/${invoice.id}/resend`, {}],
    ];
    for (const [path, form] of changes) {
      const answer = await site.postForm(viewerBrowser, path, { csrf, ...form });
      expect(answer.status, path).toBe(403);
      expect(answer.text, path).toContain('Your role (viewer) does not allow this. Ask an owner.');
    }
    expect((await demoApi('GET', '/api/v2/merchant')).body.data).toEqual(merchantBefore);
    expect(await auditEntries()).toEqual(auditBefore);
    expect(unexpected(viewerBrowser.errors)).toEqual([]);
  });

  it('works without JavaScript: the viewer signs in with a recovery code and filters the invoices', async () => {
    const opened = await site.openPage({ javaScriptEnabled: false });
    const { page } = opened;
    await site.signIn(page, viewer, viewer.recoveryCodes.shift());
    await page.getByRole('link', { name: 'Invoices' }).click();
    await page.getByLabel('Order id').fill(ORDER_ID);
    await page.getByLabel('Status').selectOption('completed');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL((url) => url.searchParams.get('orderId') === ORDER_ID);
    expect(await tableRows(page).count()).toBe(1);
    await page.getByLabel('Status').selectOption('canceled');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByText('Nothing matches.').waitFor();
    expect(unexpected(opened.errors)).toEqual([]);
    await opened.context.close();
  });

  it('says only that the sign-in failed, to a wrong password, a wrong code, an unknown address and a locked account; five failures lock even the right password out', async () => {
    const opened = await site.openPage();
    const { page } = opened;
    const attempt = async (fields: { email: string; password: string; code: string }) => {
      const answer = await site.submitSignIn(page, fields);
      expect(page.url()).toBe(dashboard('sign-in'));
      // biome-ignore lint/performance/useDomNodeTextContent: Playwright's Locator.innerText(), the text as rendered, not the DOM property
      return { status: answer.status(), main: await page.locator('main').innerText(), email: await page.getByLabel('E-mail', { exact: true }).inputValue() };
    };
    const failed = (email: string) => ({ status: 401, main: expect.stringContaining(en['signIn.failed']), email });
    // A code the app shows now, not taken by these attempts (they fail before it counts).
    const currentCode = () => totpCode(viewer.totpKey, Math.max(totpStep(new Date()), viewer.lastStep + 1));
    const wrongCode = () => String((Number(currentCode()) + 500_000) % 1_000_000).padStart(6, '0');

    const answers = [
      await attempt({ email: viewer.email, password: `${viewer.password}x`, code: currentCode() }),
      await attempt({ email: viewer.email, password: viewer.password, code: wrongCode() }),
      await attempt({ email: 'nobody@demo.example', password: viewer.password, code: currentCode() }),
    ];
    expect(answers).toEqual([failed(viewer.email), failed(viewer.email), failed('nobody@demo.example')]);
    // Told apart by nothing but the address kept in its field.
    expect(new Set(answers.map(({ main }) => main)).size).toBe(1);
    await saveScreenshot(page, 'dashboard-en-sign-in-failed', { fullPage: false });

    for (let failure = 3; failure <= 5; failure++) await attempt({ email: viewer.email, password: `wrong-${failure}-${viewer.password}`, code: currentCode() });
    const locked = await attempt({ email: viewer.email, password: viewer.password, code: currentCode() });
    expect(locked).toEqual({ ...failed(viewer.email), main: answers[0]!.main });
    const lockedByRecovery = await attempt({ email: viewer.email, password: viewer.password, code: viewer.recoveryCodes[0]! });
    expect(lockedByRecovery.main).toBe(answers[0]!.main);
    expect((await auditEntries())[0]).toEqual(['ayse@demo.example', 'user.locked', '']);
    expect(unexpected(opened.errors)).toEqual([]);
    await opened.context.close();
  });

  it('ends a session 12 hours after its last page: the next page asks for a sign-in, saying the session has ended', async () => {
    const { page, context } = developerBrowser;
    const token = (await context.cookies()).find(({ name }) => name === SESSION_COOKIE)!.value;
    const stack = await openRuntimeStack(dataDir);
    try {
      await stack.documentClient.send(
        new UpdateCommand({
          TableName: stack.info.tables.dashboardSessions,
          Key: { id: tokenDigest(token) },
          UpdateExpression: 'SET lastSeenAt = :seen',
          ConditionExpression: 'attribute_exists(id)',
          ExpressionAttributeValues: { ':seen': new Date(Date.now() - (SESSION_IDLE_SECONDS + 60) * 1000).toISOString() },
        }),
      );
    } finally {
      stack.close();
    }
    await page.goto(dashboard('keys'));
    expect(page.url()).toBe(dashboard('sign-in?reason=expired'));
    await page.getByText('Your session has ended. Sign in again.').waitFor();
    expect(await context.cookies()).toEqual([]);
  });

  it('signs the developer out everywhere: a session in another browser ends too', async () => {
    const { page } = developerBrowser;
    await site.signIn(page, developer);
    const elsewhere = await site.openPage();
    await site.signIn(elsewhere.page, developer, developer.recoveryCodes.shift());
    await page.getByRole('button', { name: 'Sign out everywhere' }).click();
    await page.getByText('You are signed out.').waitFor();
    expect(page.url()).toBe(dashboard('sign-in?reason=signed-out'));
    await elsewhere.page.goto(dashboard('overview'));
    expect(elsewhere.page.url()).toBe(dashboard('sign-in?reason=expired'));
    await elsewhere.page.getByText('Your session has ended. Sign in again.').waitFor();
    expect((await auditEntries())[0]).toEqual(['deniz@demo.example', 'user.signed_out_everywhere', '']);
    expect([...unexpected(developerBrowser.errors), ...unexpected(elsewhere.errors)]).toEqual([]);
    await elsewhere.context.close();
  });

  it('refuses a form without its CSRF token, and one posted from another site, with a 403 page: nothing changed', async () => {
    const { page } = ownerBrowser;
    const before = (await demoApi('GET', '/api/v2/merchant')).body.data;
    await page.goto(dashboard('settings'));
    await page.evaluate(`document.querySelector('main form[action="${dashboard('settings')}"] input[name=csrf]').remove()`);
    await page.getByLabel('Return URL (empty: none)').fill('https://shop.example/csrf');
    const [answer] = await Promise.all([page.waitForResponse((response) => response.request().method() === 'POST'), page.getByRole('button', { name: 'Save' }).click()]);
    expect(answer.status()).toBe(403);
    await page.getByRole('heading', { name: 'This form has expired' }).waitFor();

    const crossSite = await site.postForm(
      ownerBrowser,
      'settings',
      { csrf: await csrfOf(page), returnUrl: 'https://shop.example/cross-site' },
      { origin: 'https://attacker.example', 'sec-fetch-site': 'cross-site' },
    );
    expect(crossSite.status).toBe(403);
    expect(crossSite.text).toContain(en['error.csrfBody']);
    expect((await demoApi('GET', '/api/v2/merchant')).body.data).toEqual(before);
    expect(unexpected(ownerBrowser.errors)).toEqual([]);
  });

  it("answers another merchant's invoice and transaction, typed into the URL, as not found; the operator's invitation link opens", async () => {
    const created = await cli(['create', '--name', 'Other shop', '--json'], { GATEWAY_DATA_DIR: dataDir });
    expect(created.code, created.err).toBe(0);
    const { merchantId, apiKey } = JSON.parse(created.out) as { merchantId: string; apiKey: string };
    const withKey = { baseUrl: gateway.baseUrl, apiKey };
    const made = await callApi(withKey, 'POST', '/api/v2/invoices', { orderId: `other-${randomUUID()}`, customerId: 'other-customer', baseCurrency: 'USDT', amount: 5 });
    expect(made.status, made.text).toBe(200);
    const paid = await callApi(withKey, 'POST', '/api/v2/simulate/deposit', { invoiceId: made.body.data.id });
    expect(paid.status, paid.text).toBe(200);
    const invited = await cli(['invite', '--merchant', merchantId, '--email', 'sahip@other.example', '--role', 'owner', '--json'], { GATEWAY_DATA_DIR: dataDir });
    expect(invited.code, invited.err).toBe(0);
    other = { merchantId, apiKey, invoiceId: made.body.data.id, transactionId: paid.body.data.id, joinLink: JSON.parse(invited.out).link };

    const { page } = ownerBrowser;
    for (const path of [`invoices/${other.invoiceId}`, `transactions/${other.transactionId}`]) {
      const answer = await page.goto(dashboard(path));
      expect(answer?.status(), path).toBe(404);
      await page.getByRole('heading', { name: 'Not found' }).waitFor();
      expect(await page.content()).not.toContain(made.body.data.orderId);
    }
    await page.goto(dashboard(`transactions?invoiceId=${other.invoiceId}`));
    await page.getByText('Nothing matches.').waitFor();

    const anonymous = await site.openPage();
    expect((await anonymous.page.goto(other.joinLink))?.status()).toBe(200);
    await anonymous.page.getByRole('heading', { name: 'Join Other shop' }).waitFor();
    // The other shop's owner joins...
    await acceptInvitation(anonymous.page, 'sahip@other.example');
    await anonymous.context.close();
    // A link still to be taken, for the pages' audit below.
    const pending = await cli(['invite', '--merchant', merchantId, '--email', 'gozlemci@other.example', '--role', 'viewer', '--json'], { GATEWAY_DATA_DIR: dataDir });
    expect(pending.code, pending.err).toBe(0);
    other.joinLink = JSON.parse(pending.out).link;

    // ...and inviting that address here is answered as inviting an unknown one: nothing tells this merchant of another's people.
    const [known, unknown] = [await invite('sahip@other.example', 'viewer'), await invite(`nobody-${randomUUID().slice(0, 8)}@other.example`, 'viewer')];
    expect([known, unknown].map((link) => link.replace(/[\w-]{43}$/, 'TOKEN'))).toEqual([`${gateway.baseUrl}/dashboard/join/TOKEN`, `${gateway.baseUrl}/dashboard/join/TOKEN`]);
    // An address of the merchant's own users is refused beside its field.
    await page.goto(dashboard('users'));
    await page.getByLabel('E-mail', { exact: true }).fill(developer.email);
    await page.getByRole('button', { name: 'Invite', exact: true }).click();
    await expect(page.locator('#field-email-problem').textContent()).resolves.toBe(en['problem.taken']);
  });

  // Every page, at two widths, in five languages, each audited: minutes on a busy two-core machine.
  it('passes axe-core on every page at 375 and 1280 px in every language, Urdu right to left, without an untranslated word or a console error', async () => {
    /** The API's own words, which no language translates: identifiers, statuses and types shown as code, and offered as the listings' filters. */
    const data = 'code, .mono, form.inline option:not([value=""])';
    const pages: Array<{ name: string; url: string; signedIn: boolean; status?: number; ignore?: string }> = [
      { name: 'sign-in', url: dashboard('sign-in'), signedIn: false },
      { name: 'join', url: other.joinLink, signedIn: false },
      { name: 'overview', url: dashboard('overview'), signedIn: true },
      { name: 'balances', url: dashboard('balances'), signedIn: true },
      { name: 'callbacks', url: dashboard('callbacks'), signedIn: true },
      { name: 'invoices', url: dashboard('invoices'), signedIn: true },
      { name: 'invoice', url: dashboard(`invoices/${invoice.id}`), signedIn: true },
      { name: 'transactions', url: dashboard('transactions'), signedIn: true },
      { name: 'transaction', url: dashboard(`transactions/${transaction.id}`), signedIn: true },
      { name: 'payouts', url: dashboard('payouts'), signedIn: true },
      { name: 'payout-addresses', url: dashboard('payout-addresses'), signedIn: true },
      { name: 'reports', url: dashboard('reports'), signedIn: true },
      { name: 'settings', url: dashboard('settings'), signedIn: true },
      { name: 'keys', url: dashboard('keys'), signedIn: true },
      { name: 'users', url: dashboard('users'), signedIn: true },
      // Who did what to whom, as recorded: e-mails, and the subjects written when it was done.
      { name: 'audit', url: dashboard('audit'), signedIn: true, ignore: 'main td:nth-child(2), main td:nth-child(4)' },
      { name: 'not-found', url: dashboard(`invoices/${randomUUID()}`), signedIn: true, status: 404 },
    ];
    const screenshots = new Set(['overview', 'balances', 'callbacks', 'invoice', 'settings']);

    const anonymous = await site.openPage();
    ownerBrowser.errors.splice(0);
    for (const language of LANGUAGE_CODES) {
      for (const { name, url, signedIn, status = 200, ignore } of pages) {
        const what = `${name} in ${language}`;
        const { page, errors } = signedIn ? ownerBrowser : anonymous;
        const answer = await page.goto(withLanguage(url, language));
        expect(answer?.status(), what).toBe(status);
        expect(await page.evaluate(DOCUMENT_LANGUAGE), what).toEqual(language === 'ur' ? { lang: 'ur', dir: 'rtl', direction: 'rtl' } : { lang: language, dir: 'ltr', direction: 'ltr' });
        expect(untranslatedIn(await page.evaluate<string>(readableText([data, ignore].filter(Boolean).join(', '))), language, DASHBOARD_TEXT), what).toEqual([]);
        expect(await accessibilityViolationsAtEveryWidth(page), what).toEqual(NO_VIOLATIONS_AT_ANY_WIDTH);
        // Nothing scrolls the page sideways (a wide table scrolls in its own frame), at either width, either way of writing.
        for (const viewport of [...AUDIT_VIEWPORTS].reverse()) {
          await page.setViewportSize(viewport);
          expect(await page.evaluate('document.scrollingElement.scrollWidth'), `${what} at ${viewport.width} px`).toBeLessThanOrEqual(viewport.width);
        }
        if (screenshots.has(name) && (name === 'overview' || language === 'en' || language === 'ur')) {
          for (const viewport of AUDIT_VIEWPORTS) {
            await page.setViewportSize(viewport);
            await saveScreenshot(page, `dashboard-${language}-${name}-${viewport.width}`);
          }
        }
        // The browser reports the not-found page's own 404 status; nothing else may go wrong.
        expect(errors.splice(0), what).toEqual(status === 404 ? ['Failed to load resource: the server responded with a status of 404 (Not Found)'] : []);
      }
    }
    await anonymous.context.close();
  }, 600_000);
});
