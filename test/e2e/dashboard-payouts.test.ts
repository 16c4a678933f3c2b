/**
 * The dashboard's payouts page (docs/merchant-guide.md#crypto-payouts) in a real browser (headless
 * Chromium) against the local runtime as `npm start` runs it, its EVM node a Hardhat node with a
 * test USDT: an owner quotes a payout, sees its fees and what arrives, and confirms it with a fresh
 * code of the app; the runtime's payout sender broadcasts it and its chain watcher settles it, linked
 * to the block explorer, the recipient holding exactly the amount. Above the approval threshold a
 * payout waits: a developer's decision and a code used twice are refused, another owner approves
 * one (then sent) and rejects another (its reserve released). axe-core audits the page with
 * payouts listed and the confirmation page.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { createPublicClient, erc20Abi, getAddress, http, parseEther, parseUnits, type Address, type Hex, type PublicClient } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalChain } from '../../infra/chain/local-chain.js';
import { en } from '../../shared/dashboard/i18n/en.js';
import { Decimal } from '../../shared/domain/kernel/money.js';
import { treasuryAddresses } from '../../shared/domain/payouts/index.js';
import { KeyFileTreasurySigner, treasuryKeyDirectory } from '../../shared/signers/key-file-signer.js';
import { accessibilityViolationsAtEveryWidth, launchChromium, NO_VIOLATIONS_AT_ANY_WIDTH, saveScreenshot } from '../support/browser.js';
import { acceptInvitation, csrfOf, DashboardBrowser, demoOwnerOf, freshCode, type OpenPage, type Person, tableRows, unexpected } from '../support/dashboard-browser.js';
import { callApi, startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';
import { merchantCliForTheseTests } from '../support/merchant-cli.js';
import { startChainWithTestToken } from '../support/test-chain.js';
import { eventually } from '../support/wait.js';

/** A payout is settled 2 blocks deep: mined (by the node, at once) and one more, mined by the test. */
const CONFIRMATIONS = 2;
const EXPLORER = 'https://sepolia.etherscan.io/tx/';
/** Where the payouts go: fresh addresses, so that what they hold is what was paid to them. */
const TOKEN_RECIPIENT = getAddress(`0x${randomBytes(20).toString('hex')}`);
const ETHER_RECIPIENT = getAddress(`0x${randomBytes(20).toString('hex')}`);

const cli = merchantCliForTheseTests();

let dataDir: string;
let chain: LocalChain;
let node: PublicClient;
let usdt: Address;
let gateway: GatewayProcess;
let browser: Browser;
let site: DashboardBrowser;
let merchantId: string;

/** The demo owner, signed in from the first test to the last. */
let owner: Person;
let ownerBrowser: OpenPage;
/** Another owner and a developer, who join from the operator's invitations. */
let secondOwner: Person;
let secondOwnerBrowser: OpenPage;
let developer: Person;
let developerBrowser: OpenPage;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'gateway-dashboard-payouts-'));
  [browser, chain] = await Promise.all([launchChromium(), startChainWithTestToken()]);
  node = createPublicClient({ transport: http(chain.rpcUrl) });
  usdt = await chain.deployToken({ symbol: 'USDT', decimals: 6, supply: '1000000' });
  gateway = await startGatewayProcess({
    dataDir,
    env: {
      GATEWAY_RPC_ETHEREUM: chain.rpcUrl,
      GATEWAY_TOKENS_ETHEREUM: JSON.stringify({ USDT: usdt }),
      GATEWAY_CONFIRMATIONS_ETHEREUM: String(CONFIRMATIONS),
      GATEWAY_CHAIN_POLL_S: '1',
    },
  });
  site = new DashboardBrowser(browser, gateway.baseUrl);
  owner = demoOwnerOf(gateway);

  // The treasury whose keys the runtime made on its first start, funded on the node as `npm run chain -- node` funds it.
  const treasury = (await treasuryAddresses(new KeyFileTreasurySigner(treasuryKeyDirectory(dataDir)), 'demo')).evm as Address;
  await chain.sendNative({ to: treasury, amount: '10' });
  await chain.sendToken({ to: treasury, amount: '10000', token: usdt });
  // The merchant's money and its payout addresses, as the operator's CLI gives them (active at once: no delay on the demo stage).
  ({ merchantId } = (await callApi(gateway, 'GET', '/api/v2/merchant')).body.data);
  for (const args of [
    ['adjust', '--merchant', merchantId, '--currency', 'USDT', '--amount=500', '--reason', 'Funds for the payouts'],
    ['adjust', '--merchant', merchantId, '--currency', 'ETH', '--amount=1', '--reason', 'Funds for the payouts'],
    ['add-payout-address', '--merchant', merchantId, '--network', 'ethereum', '--address', TOKEN_RECIPIENT, '--label', 'Supplier'],
    ['add-payout-address', '--merchant', merchantId, '--network', 'ethereum', '--address', ETHER_RECIPIENT, '--label', 'Cold wallet'],
  ]) {
    const done = await cli(args, { GATEWAY_DATA_DIR: dataDir });
    expect(done.code, done.err).toBe(0);
  }
  // Joined first: a step or more later, each has two codes to give in a row without waiting for the next step.
  [{ person: secondOwner, opened: secondOwnerBrowser }, { person: developer, opened: developerBrowser }] = await Promise.all([
    invited('ikinci@demo.example', 'owner'),
    invited('gelistirici@demo.example', 'developer'),
  ]);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await gateway?.stop();
  await chain?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

const dashboard = (page: string): string => site.url(page);

interface Balance {
  available: string;
  reserved: string;
}

/** The merchant's balance in `currency`, as the API answers it to the demo key (without trailing zeros). */
async function balanceOf(currency: string): Promise<Balance> {
  const answer = await callApi(gateway, 'GET', '/api/v2/balances');
  expect(answer.status, answer.text).toBe(200);
  const item = (answer.body.data.items as Array<Balance & { currency: string }>).find((entry) => entry.currency === currency);
  return { available: new Decimal(item?.available ?? 0).toString(), reserved: new Decimal(item?.reserved ?? 0).toString() };
}

/** `balance` less `amount`: reserved while `held`, gone once paid out. */
const less = (balance: Balance, amount: Decimal, state: 'held' | 'paid'): Balance => ({
  available: new Decimal(balance.available).minus(amount).toString(),
  reserved: state === 'held' ? new Decimal(balance.reserved).plus(amount).toString() : balance.reserved,
});

/** What a payout takes from the available balance: its amount and both fees. */
const heldFor = (payout: { amount: string; fees: { processing: string; technical: string } }): Decimal => new Decimal(payout.amount).plus(payout.fees.processing).plus(payout.fees.technical);

const payoutOf = async (id: string) => (await callApi(gateway, 'GET', `/api/v2/transaction/${id}`)).body.data;

/** An amount as the page shows it (`1,234.5 USDT`), as a number. */
const shownAmount = (text: string, currency: string): Decimal => {
  const match = new RegExp(`^([\\d,]+(?:\\.\\d+)?) ${currency}$`).exec(text.trim());
  if (!match) throw new Error(`${JSON.stringify(text)} is no amount of ${currency}`);
  return new Decimal(match[1]!.replaceAll(',', ''));
};

/** The confirmation page's facts, term by term. */
async function quoteOn(page: Page): Promise<Record<string, string>> {
  const facts = page.locator('main dl.facts');
  const [terms, values] = await Promise.all([facts.locator('dt').allTextContents(), facts.locator('dd').allTextContents()]);
  return Object.fromEntries(terms.map((term, i) => [term, values[i] ?? '']));
}

/** Fills New payout on the payouts page and asks for the fees; resolves on the confirmation page. */
async function quote(page: Page, fields: { asset: string; address: Address; amount: string }): Promise<Record<string, string>> {
  await page.goto(dashboard('payouts'));
  await page.getByLabel(en['payouts.asset']).selectOption(fields.asset);
  await page.getByLabel(en['payouts.address']).selectOption(`ethereum:${fields.address}`);
  await page.getByLabel(en['payouts.amount'], { exact: true }).fill(fields.amount);
  await page.getByRole('button', { name: en['payouts.quote'] }).click();
  await page.getByRole('heading', { name: en['payouts.confirmTitle'], level: 1 }).waitFor();
  return quoteOn(page);
}

/** The payout's row among the latest payouts. */
const latestRow = (page: Page, id: string) => tableRows(page, en['payouts.latest']).filter({ has: page.getByRole('link', { name: `Open ${id}`, exact: true }) });
/** The payout's row among those waiting for approval. */
const waitingRow = (page: Page, id: string) => tableRows(page, en['payouts.waiting']).filter({ has: page.getByRole('link', { name: `Open ${id}`, exact: true }) });

/** Id, type, status and amount of the payout's row among the latest payouts, as shown. */
const shownPayout = async (page: Page, id: string) => (await latestRow(page, id).locator('td').allTextContents()).slice(1, 4);

/** The id of the newest payout listed. */
async function newestPayoutId(page: Page): Promise<string> {
  const label =
    (await tableRows(page, en['payouts.latest'])
      .first()
      .getByRole('link', { name: /^Open / })
      .getAttribute('aria-label')) ?? '';
  return label.replace(/^Open /, '');
}

/**
 * The payout's chain transaction as the page links it, once the runtime's sender has broadcast it:
 * its hash, the link to the explorer checked, the payout still processing.
 */
async function sentHash(page: Page, id: string): Promise<Hex> {
  const link = latestRow(page, id).locator(`a[href^="${EXPLORER}"]`);
  await eventually(
    async () => {
      await page.reload();
      return (await link.count()) === 1;
    },
    { timeoutMs: 30_000, intervalMs: 500, what: 'the payout to be sent' },
  );
  const hash = (await payoutOf(id)).transactionHash as Hex;
  expect(hash).toMatch(/^0x[0-9a-f]{64}$/);
  expect([await link.getAttribute('href'), await link.getAttribute('title'), await link.getAttribute('rel')]).toEqual([
    `${EXPLORER}${hash}`,
    en['transaction.explorer'].replace('{hash}', hash),
    'noopener noreferrer',
  ]);
  expect((await shownPayout(page, id))[1]).toBe('processing');
  return hash;
}

/** Mines the block that puts the payout deep enough; resolves once the page shows it confirmed. */
async function settle(page: Page, id: string): Promise<void> {
  await chain.mine(CONFIRMATIONS - 1);
  await eventually(
    async () => {
      await page.reload();
      return (await shownPayout(page, id))[1] === 'confirmed';
    },
    { timeoutMs: 30_000, intervalMs: 500, what: 'the payout to be confirmed' },
  );
}

/** A person the operator invites with the CLI, who joins in a browser of their own and is signed in. */
async function invited(email: string, role: 'owner' | 'developer'): Promise<{ person: Person; opened: OpenPage }> {
  const invitation = await cli(['invite', '--merchant', merchantId, '--email', email, '--role', role, '--json'], { GATEWAY_DATA_DIR: dataDir });
  expect(invitation.code, invitation.err).toBe(0);
  const opened = await site.openPage();
  await opened.page.goto(JSON.parse(invitation.out).link);
  const person = await acceptInvitation(opened.page, email);
  await opened.page.getByRole('link', { name: en['join.continue'] }).click();
  await opened.page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
  return { person, opened };
}

/** A payout asked for through the API with the demo key (no code asked): `pending_approval` above the threshold. */
async function payoutByApi(fields: { amount: string; currency: string; address: Address }): Promise<{ id: string; status: string }> {
  const answer = await callApi(gateway, 'POST', '/api/v2/payouts', { network: 'ethereum', ...fields }, { 'idempotency-key': randomUUID() });
  expect(answer.status, answer.text).toBe(200);
  return answer.body.data;
}

const codeFor = (amount: string): string => en['payouts.codeFor'].replace('{amount}', amount);

describe('the payouts page', () => {
  it('lets an owner quote a USDT payout, see its fees and what arrives, and confirm it with a fresh code; the runtime sends and settles it, linked to the explorer, the recipient holding exactly the amount', async () => {
    ownerBrowser = await site.openPage();
    const { page } = ownerBrowser;
    await site.signIn(page, owner);
    await page.getByRole('link', { name: en['nav.payouts'], exact: true }).click();
    await page.getByRole('heading', { name: en['payouts.title'], level: 1 }).waitFor();
    // The merchant's active payout addresses are offered, by their labels.
    expect(await page.getByLabel(en['payouts.address']).locator('option').allTextContents()).toEqual(expect.arrayContaining([`Supplier: ${TOKEN_RECIPIENT}`, `Cold wallet: ${ETHER_RECIPIENT}`]));
    const before = await balanceOf('USDT');

    const quoted = await quote(page, { asset: 'USDT:ethereum', address: TOKEN_RECIPIENT, amount: '25.5' });
    const networkFee = shownAmount(quoted[en['transaction.networkFee']]!, 'USDT');
    expect(networkFee.greaterThan(0)).toBe(true);
    expect(quoted).toEqual({
      [en['payouts.amount']]: '25.500000 USDT',
      [en['payoutAddresses.network']]: 'ethereum',
      [en['payoutAddresses.address']]: TOKEN_RECIPIENT,
      [en['transaction.processingFee']]: '1.000000 USDT',
      [en['transaction.networkFee']]: quoted[en['transaction.networkFee']],
      [en['payouts.total']]: quoted[en['payouts.total']],
      [en['payouts.arrives']]: '25.500000 USDT',
    });
    const total = shownAmount(quoted[en['payouts.total']]!, 'USDT');
    expect(total.toString()).toBe(new Decimal('26.5').plus(networkFee).toString());
    // Below any threshold (none is set): it is sent once confirmed.
    expect(await page.getByText(en['payouts.waitsNote']).count()).toBe(0);
    // Nothing is reserved by a quote.
    expect(await balanceOf('USDT')).toEqual(before);

    await page.getByLabel(en['payoutAddresses.code']).fill(await freshCode(owner));
    await page.getByRole('button', { name: en['payouts.confirm'] }).click();
    await page.getByRole('status').getByText(en['payouts.requested']).waitFor();
    const id = await newestPayoutId(page);
    expect(await shownPayout(page, id)).toEqual(['withdraw', 'processing', '25.500000 USDT']);
    // Charged as quoted, the amount and both fees held until it is settled.
    expect(await payoutOf(id)).toMatchObject({ type: 'withdraw', network: 'ethereum', address: TOKEN_RECIPIENT, amount: '25.500000', fees: { processing: '1.000000' } });
    expect(heldFor(await payoutOf(id)).toString()).toBe(total.toString());
    expect(await balanceOf('USDT')).toEqual(less(before, total, 'held'));

    const hash = await sentHash(page, id);
    const receipt = await node.getTransactionReceipt({ hash });
    expect([receipt.status, receipt.to && getAddress(receipt.to)]).toEqual(['success', usdt]);
    await settle(page, id);
    expect(await node.readContract({ address: usdt, abi: erc20Abi, functionName: 'balanceOf', args: [TOKEN_RECIPIENT] })).toBe(parseUnits('25.5', 6));
    expect(await payoutOf(id)).toMatchObject({ status: 'confirmed', transactionHash: hash });
    expect(await balanceOf('USDT')).toEqual(less(before, total, 'paid'));
    expect(unexpected(ownerBrowser.errors)).toEqual([]);
  });

  it("holds payouts above the approval threshold for an owner: a developer's decision and a code used twice are refused; another owner approves one, which is sent, and rejects another, whose reserve is released", async () => {
    const { page } = ownerBrowser;
    await page.goto(dashboard('settings'));
    await page.getByLabel(en['settings.payoutApprovalAboveUsd']).fill('10');
    await page.getByRole('button', { name: en['settings.save'] }).click();
    await page.getByRole('status').getByText(en['settings.saved']).waitFor();
    expect((await callApi(gateway, 'GET', '/api/v2/merchant')).body.data.payoutApprovalAboveUsd).toBe('10.00');

    // 0.0125 ETH, 40 USD at the demo's rate: it would wait, the quote says so.
    const etherBefore = await balanceOf('ETH');
    const quoted = await quote(page, { asset: 'ETH:ethereum', address: ETHER_RECIPIENT, amount: '0.0125' });
    expect([quoted[en['payouts.amount']], quoted[en['transaction.processingFee']], quoted[en['payouts.arrives']]]).toEqual([
      '0.012500000000000000 ETH',
      '0.000300000000000000 ETH',
      '0.012500000000000000 ETH',
    ]);
    const etherTotal = shownAmount(quoted[en['payouts.total']]!, 'ETH');
    await page.getByText(en['payouts.waitsNote']).waitFor();
    await page.getByLabel(en['payoutAddresses.code']).fill(await freshCode(owner));
    await page.getByRole('button', { name: en['payouts.confirm'] }).click();
    await page.getByRole('status').getByText(en['payouts.requestedWaiting']).waitFor();
    const approved = await newestPayoutId(page);
    expect(await shownPayout(page, approved)).toEqual(['withdraw', 'awaiting approval', '0.012500000000000000 ETH']);
    expect((await waitingRow(page, approved).locator('td').allTextContents()).slice(1, 4)).toEqual(['0.012500000000000000 ETH', 'ethereum', ETHER_RECIPIENT]);
    expect(await balanceOf('ETH')).toEqual(less(etherBefore, etherTotal, 'held'));

    // Another, through the API: it waits too, its money reserved.
    const tokensBefore = await balanceOf('USDT');
    const rejected = await payoutByApi({ amount: '20', currency: 'USDT', address: TOKEN_RECIPIENT });
    expect(rejected.status).toBe('pending_approval');
    const tokensReserved = less(tokensBefore, heldFor(await payoutOf(rejected.id)), 'held');
    expect(await balanceOf('USDT')).toEqual(tokensReserved);

    // The developer sees what waits, with nothing to decide it with; a decision posted anyway, with a good code, is refused.
    const developerPage = developerBrowser.page;
    await developerPage.goto(dashboard('payouts'));
    expect(await tableRows(developerPage, en['payouts.waiting']).count()).toBe(2);
    expect(await developerPage.getByRole('button', { name: en['payouts.approve'] }).count()).toBe(0);
    expect(await developerPage.getByRole('heading', { name: en['payouts.new'] }).count()).toBe(0);
    const forged = await site.postForm(developerBrowser, `payouts/${approved}/decision`, { csrf: await csrfOf(developerPage), decision: 'approve', code: await freshCode(developer) });
    expect(forged.status).toBe(403);
    expect(forged.text).toContain(en['error.forbiddenBody'].replace('{role}', 'developer'));
    expect((await payoutOf(approved)).status).toBe('pending_approval');

    // The other owner approves the ether payout with a fresh code...
    const otherPage = secondOwnerBrowser.page;
    await otherPage.goto(dashboard('payouts'));
    const code = await freshCode(secondOwner);
    await waitingRow(otherPage, approved).getByLabel(codeFor('0.012500000000000000 ETH')).fill(code);
    await waitingRow(otherPage, approved).getByRole('button', { name: en['payouts.approve'] }).click();
    await otherPage.getByRole('status').getByText(en['payouts.approved']).waitFor();
    expect(await waitingRow(otherPage, approved).count()).toBe(0);
    expect((await shownPayout(otherPage, approved))[1]).toBe('processing');

    // ...and cannot reject the other with the same code: refused, nothing changed.
    await waitingRow(otherPage, rejected.id).getByLabel(codeFor('20.000000 USDT')).fill(code);
    const [refused] = await Promise.all([
      otherPage.waitForResponse((response) => response.request().method() === 'POST'),
      waitingRow(otherPage, rejected.id).getByRole('button', { name: en['payouts.reject'] }).click(),
    ]);
    expect(refused.status()).toBe(422);
    await otherPage.getByRole('alert').getByText(en['problem.code_used']).waitFor();
    expect((await payoutOf(rejected.id)).status).toBe('pending_approval');
    expect(await balanceOf('USDT')).toEqual(tokensReserved);

    // The next code rejects it: failed, its money available again.
    await waitingRow(otherPage, rejected.id)
      .getByLabel(codeFor('20.000000 USDT'))
      .fill(await freshCode(secondOwner));
    await waitingRow(otherPage, rejected.id).getByRole('button', { name: en['payouts.reject'] }).click();
    await otherPage.getByRole('status').getByText(en['payouts.rejected']).waitFor();
    expect(await shownPayout(otherPage, rejected.id)).toEqual(['withdraw', 'failed', '20.000000 USDT']);
    expect(await tableRows(otherPage, en['payouts.waiting']).count()).toBe(0);
    expect((await payoutOf(rejected.id)).status).toBe('failed');
    expect(await balanceOf('USDT')).toEqual(tokensBefore);

    // The approved one is sent and settled: exactly its amount arrives.
    const hash = await sentHash(otherPage, approved);
    const receipt = await node.getTransactionReceipt({ hash });
    expect([receipt.status, receipt.to && getAddress(receipt.to)]).toEqual(['success', ETHER_RECIPIENT]);
    await settle(otherPage, approved);
    expect(await node.getBalance({ address: ETHER_RECIPIENT })).toBe(parseEther('0.0125'));
    expect(await balanceOf('ETH')).toEqual(less(etherBefore, etherTotal, 'paid'));

    // Who decided what, in the audit log; the developer's refused decision is not there.
    await page.goto(dashboard('audit'));
    const entries = await Promise.all((await tableRows(page).all()).slice(0, 3).map(async (row) => (await row.locator('td').allTextContents()).slice(1, 3)));
    expect(entries).toEqual([
      [secondOwner.email, 'payout.rejected'],
      [secondOwner.email, 'payout.approved'],
      [owner.email, 'payout.requested'],
    ]);
    expect([...unexpected(ownerBrowser.errors), ...unexpected(secondOwnerBrowser.errors), ...unexpected(developerBrowser.errors)]).toEqual([]);
  });

  it('passes axe-core at 375 and 1280 px with payouts listed, one waiting for a decision, and on the confirmation page', async () => {
    const waiting = await payoutByApi({ amount: '12', currency: 'USDT', address: TOKEN_RECIPIENT });
    const { page } = ownerBrowser;
    await page.goto(dashboard('payouts'));
    await waitingRow(page, waiting.id).waitFor();
    expect(await tableRows(page, en['payouts.latest']).count()).toBe(4);
    expect(await accessibilityViolationsAtEveryWidth(page)).toEqual(NO_VIOLATIONS_AT_ANY_WIDTH);
    await saveScreenshot(page, 'dashboard-en-payouts');

    await quote(page, { asset: 'USDT:ethereum', address: TOKEN_RECIPIENT, amount: '15' });
    await page.getByText(en['payouts.waitsNote']).waitFor();
    expect(await accessibilityViolationsAtEveryWidth(page)).toEqual(NO_VIOLATIONS_AT_ANY_WIDTH);
    expect(unexpected(ownerBrowser.errors)).toEqual([]);
  });
});

describe("a refund from a deposit's page", () => {
  it('lets an owner refund a deposit with a fresh code, the refundable amount filled in; the refund is listed on the deposit and its invoice, and a developer sees no form', async () => {
    const invoice = (await callApi(gateway, 'POST', '/api/v2/invoices', { orderId: randomUUID(), customerId: 'refund-customer', baseCurrency: 'USDT', amount: 8 })).body.data;
    const deposit = (await callApi(gateway, 'POST', '/api/v2/simulate/deposit', { invoiceId: invoice.id, network: 'ethereum' })).body.data;
    const { page } = ownerBrowser;
    await page.goto(dashboard(`transactions/${deposit.id}`));
    await page.getByRole('heading', { name: en['refunds.new'] }).waitFor();
    expect(await page.getByText(en['refunds.none']).count()).toBe(1);
    const amount = page.getByLabel(`${en['refunds.amount']} (USDT)`);
    expect(await amount.inputValue()).toBe('8.000000');
    expect(await accessibilityViolationsAtEveryWidth(page)).toEqual(NO_VIOLATIONS_AT_ANY_WIDTH);

    // More than the deposit brought: refused beside the amount, nothing written.
    await amount.fill('8.5');
    await page.getByLabel(en['refunds.address'].replace('{network}', 'ethereum')).fill(TOKEN_RECIPIENT);
    await page.getByLabel(en['payoutAddresses.code']).fill(await freshCode(owner));
    await page.getByRole('button', { name: en['refunds.submit'], exact: true }).click();
    await page.locator('#field-amount-problem').waitFor();
    expect((await callApi(gateway, 'GET', `/api/v2/transactions?type=refund&invoiceId=${invoice.id}`)).body.data.items).toEqual([]);

    await page.getByLabel(`${en['refunds.amount']} (USDT)`).fill('5');
    await page.getByLabel(en['refunds.reason']).fill('Returned');
    await page.getByLabel(en['payoutAddresses.code']).fill(await freshCode(owner));
    await page.getByRole('button', { name: en['refunds.submit'], exact: true }).click();
    await page.getByRole('status').getByText(en['refunds.requested']).waitFor();
    const [refund] = (await callApi(gateway, 'GET', `/api/v2/transactions?type=refund&invoiceId=${invoice.id}`)).body.data.items;
    expect(refund).toMatchObject({ type: 'refund', status: 'processing', refundOf: deposit.id, amount: '5.000000', address: TOKEN_RECIPIENT });
    expect(await tableRows(page, en['refunds.title']).count()).toBe(1);
    // What is left is filled in next.
    expect(await page.getByLabel(`${en['refunds.amount']} (USDT)`).inputValue()).toBe('3.000000');

    expect((await callApi(gateway, 'POST', '/api/v2/simulate/withdrawal', { transactionId: refund.id, status: 'confirmed' })).status).toBe(200);
    await page.goto(dashboard(`invoices/${invoice.id}`));
    // The deposit among its transactions, the refund among its refunds.
    expect([await tableRows(page, en['invoice.transactions']).count(), await tableRows(page, en['refunds.title']).count()]).toEqual([1, 1]);
    await saveScreenshot(page, 'dashboard-en-invoice-refunded');

    await developerBrowser.page.goto(dashboard(`transactions/${deposit.id}`));
    await developerBrowser.page.getByRole('heading', { name: en['refunds.title'] }).waitFor();
    expect(await developerBrowser.page.getByRole('heading', { name: en['refunds.new'] }).count()).toBe(0);
    expect(unexpected(ownerBrowser.errors)).toEqual([]);
  });
});
