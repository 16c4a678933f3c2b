/** The readable reference at /docs: inline code, tables that fit a phone, the limits of the environment serving it. */
import { describe, expect, it } from 'vitest';
import { renderDocsPage } from '../../shared/docs-page.js';
import { buildOpenApiDocument } from '../../shared/openapi.js';
import { request } from '../support/invoke.js';
import { SECTION_FOUR_PROVIDER } from '../support/providers.js';

const textOf = (page: string) => page.replace(/<style>[\s\S]*?<\/style>/, '').replace(/<[^>]+>/g, '');
const limitRow = (page: string, currency: string, method: string) =>
  new RegExp(`<tr><td>${currency}</td><td><code>${method}</code></td><td>([^<]*)</td><td>([^<]*)</td>`).exec(page)?.slice(1);

describe('GET /docs', () => {
  it('writes the descriptions\' code spans as code, leaving no backtick in the text', async () => {
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

    const prod = renderDocsPage(buildOpenApiDocument('https://gateway.example', 'prod'), [SECTION_FOUR_PROVIDER]);
    expect(limitRow(prod, 'INR', 'p2p')).toEqual(['300', '49000']);
    expect(limitRow(prod, 'INR', 'intent')).toEqual(['300', '49000']);
  });
});
