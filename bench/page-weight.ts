/**
 * The weight of each hosted checkout page and each dashboard page: the local runtime (`npm start`
 * in a temporary data directory) brought to every step a customer can see, and its demo owner
 * signed in with a paid invoice to show, each page fetched over HTTP in every language, and its
 * size printed raw and gzipped against its budget: 60 KB for a checkout page, 100 KB for a
 * dashboard page (self-contained both: one inline style, no other request). Takes no options.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { LANGUAGE_CODES } from '../shared/checkout/language.js';
import { checkoutDriver, withLanguage } from '../test/support/checkout-pages.js';
import { signInOwner } from '../test/support/dashboard-session.js';
import { callApi, startGatewayProcess, type GatewayProcess } from '../test/support/gateway-process.js';

export const DESCRIPTION = 'the size of every checkout and dashboard page in every language, raw and gzipped, against the 60 KB and 100 KB budgets';

const BUDGET_BYTES = 60 * 1024;
const DASHBOARD_BUDGET_BYTES = 100 * 1024;

/** The dashboard's pages (under /dashboard/) with a paid invoice of the demo merchant to show. */
async function dashboardPages(gateway: GatewayProcess): Promise<Record<string, string>> {
  const created = await callApi(gateway, 'POST', '/api/v2/invoices', { amount: 100, baseCurrency: 'USDT', paymentCurrency: 'USDT', customerId: 'weigh', orderId: 'weigh-1' });
  const invoice = created.body.data as { id: string };
  const paid = await callApi(gateway, 'POST', '/api/v2/simulate/deposit', { invoiceId: invoice.id, amount: 100 });
  const transaction = paid.body.data as { id: string };
  const pages = ['overview', 'invoices', `invoices/${invoice.id}`, 'transactions', `transactions/${transaction.id}`, 'payouts', 'reports', 'settings', 'keys', 'users', 'audit'];
  return Object.fromEntries(pages.map((page) => [page.split('/')[0] + (page.includes('/') ? '/:id' : ''), `${gateway.baseUrl}/dashboard/${page}`]));
}

interface PageSet {
  pages: Record<string, string>;
  budget: number;
  headers?: Record<string, string>;
}

const kilobytes = (bytes: number): string => `${(bytes / 1024).toFixed(1)}`;

export async function pageWeightBenchmark(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), 'gateway-bench-'));
  let gateway: GatewayProcess | undefined;
  try {
    console.log(`Starting the local runtime in ${dataDir} ...`);
    // The provider waits, so that a submitted UTR stays on its waiting page.
    gateway = await startGatewayProcess({ dataDir, timeoutMs: 120_000, env: { GATEWAY_PROVIDER_DELAY_S: '600' } });
    const checkoutPages = await checkoutDriver(gateway, dataDir).everyCheckoutPage((name) => `https://shop.example/${name}`);
    const sets: Record<string, PageSet> = {
      checkout: { pages: { ...checkoutPages, docs: `${gateway.baseUrl}/docs` }, budget: BUDGET_BYTES },
      dashboard: { pages: await dashboardPages(gateway), budget: DASHBOARD_BUDGET_BYTES, headers: { cookie: await signInOwner(gateway) } },
    };
    for (const [setName, { pages, budget, headers }] of Object.entries(sets)) {
      console.log(`${setName}: KB per page and language, raw / gzipped (budget ${kilobytes(budget)} KB raw):`);
      console.log(`  ${'page'.padEnd(16)} ${LANGUAGE_CODES.map((code) => code.padStart(11)).join(' ')}   max`);
      let heaviest = 0;
      for (const [name, url] of Object.entries(pages)) {
        // /docs is English only.
        const languages = name === 'docs' ? ['en'] : LANGUAGE_CODES;
        const sizes = new Map<string, { raw: number; gzipped: number }>();
        for (const language of languages) {
          const answer = await fetch(withLanguage(url, language), { headers, redirect: 'manual' });
          if (setName === 'dashboard' && answer.status !== 200) throw new Error(`${name} answered ${answer.status}`);
          const body = Buffer.from(await answer.arrayBuffer());
          sizes.set(language, { raw: body.length, gzipped: gzipSync(body).length });
        }
        const max = Math.max(...[...sizes.values()].map((size) => size.raw));
        heaviest = Math.max(heaviest, name === 'docs' ? 0 : max);
        const cells = LANGUAGE_CODES.map((code) => {
          const size = sizes.get(code);
          return (size ? `${kilobytes(size.raw)}/${kilobytes(size.gzipped)}` : '-').padStart(11);
        });
        console.log(`  ${name.padEnd(16)} ${cells.join(' ')}   ${kilobytes(max)}${name !== 'docs' && max >= budget ? '  OVER BUDGET' : ''}`);
      }
      console.log(`Heaviest ${setName} page: ${kilobytes(heaviest)} KB of ${kilobytes(budget)} KB.`);
    }
  } finally {
    if (gateway) {
      const code = await gateway.stop();
      console.log(`Runtime stopped (exit code ${code}).`);
    }
    await rm(dataDir, { recursive: true, force: true });
  }
}
