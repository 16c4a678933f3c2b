/**
 * The hosted checkout as production runs it: the same path to the providers as the demo's, with
 * nothing on the pages that simulates or says "demo", and no simulation routes. The provider here
 * is the run's (docs/provider-protocol.md: every stage reaches its providers the same way). The functions read
 * the stage when they load, which in this file is first after this.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { functionsForStage } from '../../shared/routes.js';
import { invoke, request } from '../support/invoke.js';
import { seedMerchant } from '../support/merchants.js';
import { configuredProvider } from '../support/providers.js';

vi.stubEnv('STAGE', 'prod');

async function providerStepOf(fields: Record<string, unknown>) {
  const { apiKey } = await seedMerchant();
  const created = await invoke('create-invoice', { apiKey, body: { orderId: randomUUID(), customerId: 'c-1', amount: 1000, ...fields } });
  expect(created.status).toBe(200);
  const invoiceId: string = created.body.data.id;
  const opened = await request('GET', `/checkout/${invoiceId}`);
  expect(opened.status).toBe(303);
  return request('GET', new URL(opened.headers.location!).pathname);
}

/** The page without its style and script, whose class names and code say nothing to the customer. */
const markupOf = (page: string) => page.replace(/<(style|script)\b[^>]*>[\s\S]*?<\/\1>/g, '');

describe('the payment step in production', () => {
  it("sends a TRY wallet customer to the provider's own page", async () => {
    const step = await providerStepOf({ baseCurrency: 'TRY', paymentMethod: 'wallet', customerFullName: 'Ada Lovelace' });
    expect(step.status).toBe(303);
    expect(step.headers.location).toMatch(new RegExp(`^${configuredProvider().url}/pay/`));
  });

  it("shows an INR customer the provider's instructions and the UTR form, and no demo notice of its own", async () => {
    const step = await providerStepOf({ baseCurrency: 'INR', paymentMethod: 'p2p', customerFirstName: 'Asha', customerLastName: 'Rao', customerEmail: 'asha@example.com' });
    expect(step.status).toBe(200);
    const markup = markupOf(step.body as string);
    expect(markup).toContain('<dt>Payee</dt>');
    expect(markup).toContain('<form method="post"');
    expect(markup).not.toContain('class="demo"');
    expect(markup).not.toMatch(/simulat/i);
  });

  it('is served without the simulation routes', () => {
    const names = functionsForStage('prod').map((fn) => fn.name);
    expect(names).toEqual(expect.arrayContaining(['get-checkout', 'get-checkout-status', 'submit-checkout-details', 'get-checkout-provider', 'submit-checkout-utr', 'receive-provider-event']));
    expect(names.filter((name) => name.startsWith('simulate-'))).toEqual([]);
  });
});
