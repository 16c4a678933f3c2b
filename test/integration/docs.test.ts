/**
 * The readable reference at /docs: inline code, tables that fit a phone, the limits of the
 * environment serving it; and in headless Chromium, as served with its Content-Security-Policy, at
 * 375 and 1280 px (screenshots under test/artifacts/): nothing wider than a phone, readable columns
 * on a desktop, every example of the OpenAPI document, and the callbacks a merchant receives.
 */
import { CRYPTO_NETWORKS } from '../../shared/domain/kernel/currencies.js';
import { isDeepStrictEqual } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderDocsPage } from '../../shared/docs-page.js';
import { buildOpenApiDocument } from '../../shared/openapi.js';
import { AUDIT_VIEWPORTS, collectPageErrors, launchChromium, saveScreenshot } from '../support/browser.js';
import { request, type GatewayResult } from '../support/invoke.js';
import { SECTION_FOUR_PROVIDER } from '../support/providers.js';

const textOf = (page: string) => page.replace(/<style>[\s\S]*?<\/style>/, '').replace(/<[^>]+>/g, '');
const limitRow = (page: string, currency: string, method: string) => new RegExp(`<tr><td>${currency}</td><td><code>${method}</code></td><td>([^<]*)</td><td>([^<]*)</td>`).exec(page)?.slice(1);

describe('GET /docs', () => {
  it("writes the descriptions' code spans as code, leaving no backtick in the text", async () => {
    const page = (await request('GET', '/docs')).body as string;
    expect(page).toContain('a 422 on <code>invoiceId</code>');
    expect(page).toContain('(<code>paidLate</code>)');
    expect(textOf(page)).not.toContain('`');
  });

  it('puts every table in a box of its own that scrolls on a narrow screen and can be reached by keyboard', async () => {
    const page = (await request('GET', '/docs')).body as string;
    const tables = page.match(/<table>/g)!.length;
    expect(tables).toBeGreaterThan(10);
    expect(page.match(/<div class="table" role="region" aria-label="[^"]+" tabindex="0"><table>/g)).toHaveLength(tables);
  });

  it('shows the limits of the environment serving it: demo takes INR from 500 and has no intent', async () => {
    const page = (await request('GET', '/docs')).body as string;
    expect(limitRow(page, 'INR', 'p2p')).toEqual(['500', '49000']);
    expect(limitRow(page, 'INR', 'intent')).toBeUndefined();
    expect(limitRow(page, 'TRY', 'wallet')).toEqual(['1000', '10000']);

    const prod = renderDocsPage(buildOpenApiDocument('https://gateway.example', 'prod', CRYPTO_NETWORKS), [SECTION_FOUR_PROVIDER]);
    expect(limitRow(prod, 'INR', 'p2p')).toEqual(['300', '49000']);
    expect(limitRow(prod, 'INR', 'intent')).toEqual(['300', '49000']);
  });

  it('shows named examples, each under its name', () => {
    const doc = buildOpenApiDocument('https://gateway.example', 'demo', CRYPTO_NETWORKS);
    const body = (doc.paths['/api/v2/invoices']!.post as { requestBody: { content: Record<string, Record<string, unknown>> } }).requestBody.content['application/json']!;
    body.examples = { crypto: { summary: 'In USDT', value: body.example }, fiat: { value: { amount: 1000, baseCurrency: 'INR' } } };
    delete body.example;
    const page = renderDocsPage(doc, [SECTION_FOUR_PROVIDER]);
    expect(page).toContain('<p>Example request body (In USDT):</p><pre>{\n  &quot;orderId&quot;');
    expect(page).toContain('<p>Example request body (fiat):</p><pre>{\n  &quot;amount&quot;: 1000,\n  &quot;baseCurrency&quot;: &quot;INR&quot;\n}</pre>');
  });
});

const [PHONE, DESKTOP] = AUDIT_VIEWPORTS;

/** Narrower than this, a column of a desktop table is squeezed (the 33 px columns /docs once had). */
const MIN_DESKTOP_COLUMN_PX = 48;

/** Every example the OpenAPI document gives: of parameters, request bodies and answers, the callbacks' too. */
function documentExamples(openApi: { paths: unknown; components: { callbacks: unknown } }): unknown[] {
  const found: unknown[] = [];
  const visit = (node: unknown): void => {
    if (node === null || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (key === 'example') found.push(value);
      else if (key === 'examples') found.push(...Object.values(value as Record<string, { value: unknown }>).map((example) => example.value));
      else visit(value);
    }
  };
  visit([openApi.paths, openApi.components.callbacks]);
  return found;
}

interface TableLayout {
  label: string;
  /** A field table: a column of notes. */
  hasNotes: boolean;
  /** Its rows laid out as blocks rather than as table rows. */
  reflowed: boolean;
  columns: number[];
  /** Wider than its box, which then scrolls. */
  overflows: boolean;
}

/** Run in the page: a `TableLayout` of each table. */
const TABLE_LAYOUT = `Array.from(document.querySelectorAll('.table')).map((box) => ({
  label: box.getAttribute('aria-label'),
  hasNotes: box.querySelector('td.text') !== null,
  reflowed: getComputedStyle(box.querySelector('tr')).display !== 'table-row',
  columns: Array.from(box.querySelector('tr').cells).map((cell) => Math.round(cell.getBoundingClientRect().width)),
  overflows: box.scrollWidth > box.clientWidth,
}))`;

/** Run in the page: column headers and field names that the layout broke over more than one line. */
const BROKEN_WORDS = `Array.from(document.querySelectorAll('th, td:first-child > code')).filter((element) => {
  const range = document.createRange();
  range.selectNodeContents(element);
  return new Set(Array.from(range.getClientRects()).map((rect) => Math.round(rect.top))).size > 1;
}).map((element) => element.textContent)`;

/** Run in the page: the level-2 heading that the element of this id sits under. */
const sectionOf = (id: string) => `(() => {
  let element = document.getElementById(${JSON.stringify(id)});
  while (element && element.tagName !== 'H2') element = element.previousElementSibling;
  return element?.textContent;
})()`;

/** The page's first screen and its callbacks, as {name}.png and {name}-callbacks.png: the whole page would take seconds. */
async function saveScreenshots(page: Page, name: string): Promise<void> {
  await saveScreenshot(page, name, { fullPage: false });
  await page.evaluate(`document.getElementById('callbacks').scrollIntoView()`);
  await saveScreenshot(page, `${name}-callbacks`, { fullPage: false });
}

describe('GET /docs in a browser', () => {
  let browser: Browser;
  let served: GatewayResult;
  /** The OpenAPI document as served. */
  let openApi: any;
  /** The page at 375 and at 1280 px, each with its errors (a style the policy refused among them) as they come. */
  let phone: { page: Page; errors: string[] };
  let desktop: { page: Page; errors: string[] };

  /** The page as the gateway answered it, headers and all. */
  async function openDocs(viewport: { width: number; height: number }): Promise<{ page: Page; errors: string[] }> {
    const page = await browser.newPage({ viewport });
    const errors = collectPageErrors(page);
    await page.route('http://localhost/docs', (route) => route.fulfill({ status: served.status, headers: served.headers, body: served.rawBody }));
    await page.goto('http://localhost/docs');
    return { page, errors };
  }

  beforeAll(async () => {
    [browser, served, { body: openApi }] = await Promise.all([launchChromium(), request('GET', '/docs'), request('GET', '/api/v2/openapi.json')]);
    [phone, desktop] = await Promise.all([openDocs(PHONE), openDocs(DESKTOP)]);
  });

  afterAll(async () => {
    await browser?.close();
  });

  it('keeps its strict Content-Security-Policy: no script, nothing refused', () => {
    expect(served.headers['content-security-policy']).toBe("default-src 'none'; style-src 'unsafe-inline'");
    expect(served.body).not.toMatch(/<script/i);
    expect([...phone.errors, ...desktop.errors]).toEqual([]);
  });

  it('fits a 375 px phone: nothing overflows the page, a field table reflows to a block per row', async () => {
    const { page } = phone;
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(PHONE.width);
    const fieldTables = (await page.evaluate<TableLayout[]>(TABLE_LAYOUT)).filter(({ hasNotes }) => hasNotes);
    expect(fieldTables.length).toBeGreaterThan(20);
    expect(fieldTables.filter(({ reflowed, overflows }) => !reflowed || overflows)).toEqual([]);
    await saveScreenshots(page, 'docs-page-375');
  });

  it(`gives every column at 1280 px at least ${MIN_DESKTOP_COLUMN_PX} px, headers and field names on one line, no table scrolling`, async () => {
    const { page } = desktop;
    const tables = await page.evaluate<TableLayout[]>(TABLE_LAYOUT);
    expect(tables.length).toBeGreaterThan(20);
    expect(tables.filter(({ reflowed, columns, overflows }) => reflowed || overflows || Math.min(...columns) < MIN_DESKTOP_COLUMN_PX)).toEqual([]);
    expect(await page.evaluate(BROKEN_WORDS)).toEqual([]);
    await saveScreenshots(page, 'docs-page-1280');
  });

  it('shows every example of the OpenAPI document, an object as indented JSON', async () => {
    const examples = documentExamples(openApi);
    expect(examples.length).toBeGreaterThan(50);
    const blocks = await desktop.page.locator('pre').allTextContents();
    const values = await desktop.page.locator('td code').allTextContents();
    const parsed = blocks.map((text) => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        return text;
      }
    });
    const shown = (example: unknown) => (typeof example === 'object' ? parsed.some((block) => isDeepStrictEqual(block, example)) : [...blocks, ...values].includes(String(example)));
    expect(examples.filter((example) => !shown(example))).toEqual([]);
    expect(blocks.filter((text) => text.startsWith('{') && text !== '{}' && !text.startsWith('{\n  "'))).toEqual([]);
  });

  it.each([
    ['TransactionCallback', 'CallbackPayload'],
    ['InvoiceEvent', 'InvoiceEvent'],
  ])('describes, under Callbacks, the callback a merchant receives (%s): where it goes, its signature headers, its payload', async (name, payload) => {
    const { page } = desktop;
    const [url, callback] = Object.entries(openApi.components.callbacks[name] as Record<string, { post: { operationId: string } }>)[0]!;
    expect(await page.evaluate(sectionOf(callback.post.operationId))).toBe('Callbacks');
    const title = `POST ${url} (${callback.post.operationId})`;
    const headers = await page
      .getByRole('region', { name: `${title}: headers` })
      .locator('td:first-child')
      .allTextContents();
    expect(headers).toEqual(['webhook-id', 'webhook-timestamp', 'webhook-signature']);
    const payloadFields = await page
      .getByRole('region', { name: `${title}: request body` })
      .locator('td:first-child')
      .allTextContents();
    expect(payloadFields).toEqual(Object.keys(openApi.components.schemas[payload].properties));
  });
});
