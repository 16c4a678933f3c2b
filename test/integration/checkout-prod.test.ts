/**
 * The hosted checkout as production runs it: there is no provider integration to simulate, so the
 * provider page shows the customer the instructions state, and the demo provider's routes are not
 * deployed. The functions read the stage when they load, which in this file is first after this.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { functionsForStage } from '../../shared/routes.js';
import { invoke, request } from '../support/invoke.js';
import { seedMerchant } from '../support/merchants.js';

vi.stubEnv('STAGE', 'prod');

async function providerPageOf(fields: Record<string, unknown>): Promise<string> {
  const { apiKey } = await seedMerchant();
  const created = await invoke('create-invoice', { apiKey, body: { orderId: randomUUID(), customerId: 'c-1', amount: 1000, ...fields } });
  expect(created.status).toBe(200);
  const invoiceId: string = created.body.data.id;
  const opened = await request('GET', `/checkout/${invoiceId}`);
  expect(opened.status).toBe(303);
  const provider = await request('GET', new URL(opened.headers.location!).pathname);
  expect(provider.status).toBe(200);
  return provider.body as string;
}

describe('the provider page in production', () => {
  it.each([
    ['a TRY wallet payment', { baseCurrency: 'TRY', paymentMethod: 'wallet', customerFullName: 'Ada Lovelace' }],
    ['an INR payment', { baseCurrency: 'INR', paymentMethod: 'p2p', customerFirstName: 'Asha', customerLastName: 'Rao', customerEmail: 'asha@example.com' }],
  ])('shows %s as with the provider, offering no simulation', async (_, fields) => {
    const page = await providerPageOf(fields);
    expect(page).toContain('Complete your payment');
    expect(page).toContain('data-status-url="');
    expect(page).not.toContain('<form');
    const markup = page.replace(/<(style|script)\b[^>]*>[\s\S]*?<\/\1>/g, '');
    expect(markup).not.toMatch(/simulat|demo/i);
  });

  it('is served without the demo provider routes', () => {
    const names = functionsForStage('prod').map((fn) => fn.name);
    expect(names).toEqual(expect.arrayContaining(['get-checkout', 'get-checkout-status', 'submit-checkout-details', 'get-checkout-provider']));
    expect(names).not.toContain('submit-checkout-utr');
    expect(names).not.toContain('simulate-checkout-payment');
  });
});
