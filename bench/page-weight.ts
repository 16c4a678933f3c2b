/**
 * The weight of each hosted checkout page: the local runtime (`npm start` in a temporary data
 * directory) brought to every step a customer can see, each page fetched over HTTP in every
 * language, and its size printed raw and gzipped against the 60 KB budget of a self-contained page.
 * Takes no options.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { LANGUAGE_CODES } from '../shared/checkout/language.js';
import { checkoutDriver, withLanguage } from '../test/support/checkout-pages.js';
import { startGatewayProcess, type GatewayProcess } from '../test/support/gateway-process.js';

export const DESCRIPTION = 'the size of every checkout page in every language, raw and gzipped, against the 60 KB budget';

const BUDGET_BYTES = 60 * 1024;

const kilobytes = (bytes: number): string => `${(bytes / 1024).toFixed(1)}`;

export async function pageWeightBenchmark(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), 'gateway-bench-'));
  let gateway: GatewayProcess | undefined;
  try {
    console.log(`Starting the local runtime in ${dataDir} ...`);
    // The provider waits, so that a submitted UTR stays on its waiting page.
    gateway = await startGatewayProcess({ dataDir, timeoutMs: 120_000, env: { GATEWAY_PROVIDER_DELAY_S: '600' } });
    const checkoutPages = await checkoutDriver(gateway, dataDir).everyCheckoutPage((name) => `https://shop.example/${name}`);
    const pages = { ...checkoutPages, docs: `${gateway.baseUrl}/docs` };

    console.log(`KB per page and language, raw / gzipped (budget ${kilobytes(BUDGET_BYTES)} KB raw):`);
    console.log(`  ${'page'.padEnd(10)} ${LANGUAGE_CODES.map((code) => code.padStart(11)).join(' ')}   max`);
    let heaviest = 0;
    for (const [name, url] of Object.entries(pages)) {
      // /docs is English only.
      const languages = name === 'docs' ? ['en'] : LANGUAGE_CODES;
      const sizes = new Map<string, { raw: number; gzipped: number }>();
      for (const language of languages) {
        const body = Buffer.from(await (await fetch(withLanguage(url, language))).arrayBuffer());
        sizes.set(language, { raw: body.length, gzipped: gzipSync(body).length });
      }
      const max = Math.max(...[...sizes.values()].map((size) => size.raw));
      heaviest = Math.max(heaviest, name === 'docs' ? 0 : max);
      const cells = LANGUAGE_CODES.map((code) => {
        const size = sizes.get(code);
        return (size ? `${kilobytes(size.raw)}/${kilobytes(size.gzipped)}` : '-').padStart(11);
      });
      console.log(`  ${name.padEnd(10)} ${cells.join(' ')}   ${kilobytes(max)}${name !== 'docs' && max >= BUDGET_BYTES ? '  OVER BUDGET' : ''}`);
    }
    console.log(`Heaviest checkout page: ${kilobytes(heaviest)} KB of ${kilobytes(BUDGET_BYTES)} KB.`);
  } finally {
    if (gateway) {
      const code = await gateway.stop();
      console.log(`Runtime stopped (exit code ${code}).`);
    }
    await rm(dataDir, { recursive: true, force: true });
  }
}
