/**
 * A real browser for end-to-end tests of the hosted checkout: Debian's Chromium, headless, driven
 * by playwright-core; screenshots under test/artifacts/; accessibility audits with axe-core; and a
 * merchant's site on another origin that customers return to and that embeds the checkout in a frame.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type ConsoleMessage, type Page } from 'playwright-core';
import { escapeHtml } from '../../shared/http/html.js';

export const CHROMIUM_PATH = '/usr/bin/chromium';

/** No sandbox (CI runs as root), and nothing that reaches out to the network by itself. */
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

const ARTIFACTS_DIR = fileURLToPath(new URL('../artifacts/', import.meta.url));

export const PHONE_VIEWPORT = { width: 320, height: 640 };
export const DESKTOP_VIEWPORT = { width: 1280, height: 800 };

/** Fails, rather than skips, when Chromium is missing: a browser test that did not run passed nothing. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`The browser tests need Chromium at ${CHROMIUM_PATH}, which is missing: apt-get install chromium`);
  }
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
}

/** Saves the whole page, or with `fullPage: false` what the viewport shows (quicker on a long page), as test/artifacts/{name}.png. */
export async function saveScreenshot(page: Page, name: string, { fullPage = true } = {}): Promise<void> {
  await mkdir(ARTIFACTS_DIR, { recursive: true });
  await page.screenshot({ path: `${ARTIFACTS_DIR}${name}.png`, fullPage });
}

/** The page's console errors and uncaught exceptions (a refused script or style shows up here), as they come. */
export function collectPageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (message: ConsoleMessage) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  return errors;
}

export interface MerchantSite {
  /** `http://127.0.0.1:{port}`: another origin than the gateway's `http://localhost:{port}`. */
  origin: string;
  /** The customer's way back to the shop, as `redirectUrl` or a return URL. */
  returnUrl(name: string): string;
  /** Paths (with query) of the return pages customers arrived at, in order. */
  readonly returns: string[];
  /** A shop page that shows `src` in an iframe. */
  embeddingUrl(src: string): string;
  close(): Promise<void>;
}

export async function startMerchantSite(): Promise<MerchantSite> {
  const returns: string[] = [];
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://shop');
    const page = (title: string, body: string) =>
      response
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title><link rel="icon" href="data:,"></head><body>${body}</body></html>`);
    if (url.pathname.startsWith('/return/')) {
      returns.push(`${url.pathname}${url.search}`);
      page('Back at the shop', '<h1>Back at the shop</h1><p>Thank you for your order.</p>');
    } else if (url.pathname === '/embed') {
      page('Checkout in a frame', `<h1>The shop</h1><iframe src="${escapeHtml(url.searchParams.get('src'))}" title="Checkout" width="360" height="760"></iframe>`);
    } else {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    returns,
    returnUrl: (name) => `${origin}/return/${name}`,
    embeddingUrl: (src) => `${origin}/embed?src=${encodeURIComponent(src)}`,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

/**
 * For `evaluateAll` over images, run in the page (so self-contained): whether each finished loading
 * into something with a size, which a refused or broken source does not.
 */
export const areLoadedImages = (images: unknown[]): boolean[] =>
  images.map((image) => {
    const { complete, naturalWidth } = image as { complete: boolean; naturalWidth: number };
    return complete && naturalWidth > 0;
  });

/** The widths every page is audited at: a common phone and a desktop. */
export const AUDIT_VIEWPORTS = [
  { width: 375, height: 812 },
  { width: 1280, height: 800 },
] as const;

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  /** Selectors of the offending elements. */
  targets: string[];
}

/**
 * Runs axe-core's default rules (WCAG 2.x A and AA, and best practices) on the page as served.
 * The pages' Content-Security-Policy only lets scripts with the response's nonce run, so axe is
 * not added as a script tag: its source is evaluated through the DevTools protocol, which the
 * policy does not govern, and the page keeps its real policy while it is audited.
 */
export async function accessibilityViolations(page: Page): Promise<AxeViolation[]> {
  // Once per document: a page audited again (at another width) has it still.
  if (!(await page.evaluate('typeof axe === "object" && typeof axe.run === "function"'))) await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    // Violations only: axe then keeps one node of each passing or inapplicable rule rather than all.
    const { violations } = await (globalThis as unknown as { axe: { run(options: object): Promise<{ violations: any[] }> } }).axe.run({ resultTypes: ['violations'] });
    return violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact,
      help: violation.help,
      targets: violation.nodes.map((node: { target: string[] }) => node.target.join(' ')),
    }));
  });
}

/** axe's findings on the page at each of AUDIT_VIEWPORTS, by width; the page is left at the last width. */
export async function accessibilityViolationsAtEveryWidth(page: Page): Promise<Record<number, AxeViolation[]>> {
  const found: Record<number, AxeViolation[]> = {};
  for (const viewport of AUDIT_VIEWPORTS) {
    await page.setViewportSize(viewport);
    found[viewport.width] = await accessibilityViolations(page);
  }
  return found;
}

/** What `accessibilityViolationsAtEveryWidth` finds on a page without a problem. */
export const NO_VIOLATIONS_AT_ANY_WIDTH: Readonly<Record<number, AxeViolation[]>> = Object.fromEntries(AUDIT_VIEWPORTS.map(({ width }) => [width, []]));
