/** Which provider serves a local-fiat payment, and the limits a merchant meets (docs/provider-protocol.md). */
import { CRYPTO_NETWORKS } from '../../shared/domain/kernel/currencies.js';
import { describe, expect, it } from 'vitest';
import { buildInvoice } from '../../shared/domain/invoicing/invoices.js';
import { createInvoiceRequestSchema } from '../../shared/domain/invoicing/invoice-requests.js';
import { Decimal } from '../../shared/domain/kernel/money.js';
import { demoProviderRoute, eligibleProviders, isProviderSecret, servedMethods, type ProviderRoute } from '../../shared/domain/providers/providers.js';
import { DEMO_USD_PRICES, StaticRateSource } from '../../shared/domain/rates/rates.js';
import { Invalid } from '../../shared/domain/kernel/errors.js';
import { asRequestBody } from '../support/request-body.js';

const prices = (await new StaticRateSource(DEMO_USD_PRICES).current()).prices;

const inrProvider = (id: string, priority: number, min: string, max: string, step?: string): ProviderRoute => ({
  id,
  name: id.toUpperCase(),
  priority,
  methods: [{ currency: 'INR', method: 'p2p', min, max, ...(step ? { step } : {}) }],
});

function build(fields: Record<string, unknown>, providers: ProviderRoute[]) {
  const request = createInvoiceRequestSchema.parse(asRequestBody({ orderId: 'o-1', customerId: 'c-1', ...fields }));
  return buildInvoice(request, { id: '00000000-0000-4000-8000-000000000001', merchantId: 'm-1', now: new Date() }, prices, { stage: 'prod', lifetimeSeconds: 900, providers, networks: CRYPTO_NETWORKS });
}

function problems(fields: Record<string, unknown>, providers: ProviderRoute[]) {
  try {
    build(fields, providers);
  } catch (error) {
    if (error instanceof Invalid) return error.problems;
    throw error;
  }
  throw new Error('expected a validation error');
}

describe('routing a payment to a provider', () => {
  const low = inrProvider('low', 2, '100', '1000');
  const high = inrProvider('high', 1, '500', '50000');

  it('lists every provider that admits the amount, by priority', () => {
    expect(eligibleProviders([low, high], 'INR', 'p2p', new Decimal(700))).toEqual({ providers: ['high', 'low'] });
    expect(eligibleProviders([low, high], 'INR', 'p2p', new Decimal(200))).toEqual({ providers: ['low'] });
    expect(build({ baseCurrency: 'INR', amount: 2000 }, [low, high]).providers).toEqual(['high']);
  });

  it('names the lowest minimum and the highest maximum of the providers serving the method', () => {
    expect(problems({ baseCurrency: 'INR', amount: 50 }, [low, high])).toEqual([{ field: 'amount', message: 'amount must be at least 100.00 INR for method p2p' }]);
    expect(problems({ baseCurrency: 'INR', amount: 60000 }, [low, high])).toEqual([{ field: 'amount', message: 'amount must be at most 50000.00 INR for method p2p' }]);
  });

  it("names a provider's step, and every range when the amount falls between them", () => {
    expect(problems({ baseCurrency: 'INR', amount: 1025 }, [inrProvider('steps', 1, '500', '5000', '50')])[0]!.message).toBe('amount must be a multiple of 50 INR for method p2p');
    const gap = [inrProvider('a', 1, '100', '200'), inrProvider('b', 2, '1000', '2000')];
    expect(problems({ baseCurrency: 'INR', amount: 500 }, gap)[0]!.message).toBe('amount must be within the limits of a provider for method p2p: 100.00 INR to 200.00 INR; 1000.00 INR to 2000.00 INR');
  });

  it('refuses a method no provider serves on paymentMethod, and a currency none serves on its own field', () => {
    expect(problems({ baseCurrency: 'INR', amount: 1000, paymentMethod: 'intent' }, [high])[0]).toEqual({
      field: 'paymentMethod',
      message: 'paymentMethod intent is not offered for INR here: one of p2p',
    });
    expect(problems({ baseCurrency: 'TRY', amount: 1000 }, [high])[0]).toMatchObject({ field: 'baseCurrency' });
    expect(problems({ baseCurrency: 'USD', paymentCurrency: 'TRY', amount: 100 }, [high])[0]).toMatchObject({ field: 'paymentCurrency' });
  });

  it('gives a request without paymentMethod the first method some provider serves', () => {
    const walletOnly: ProviderRoute = { id: 'w', name: 'W', priority: 0, methods: [{ currency: 'TRY', method: 'wallet', min: '1000', max: '10000', step: '50' }] };
    expect(servedMethods([walletOnly], 'TRY')).toEqual(['wallet']);
    expect(build({ baseCurrency: 'TRY', amount: 1000 }, [walletOnly]).paymentMethod).toBe('wallet');
  });
});

describe('the demo provider', () => {
  it("serves the limits table's methods but intent, INR from 500, with a deployment's overrides", () => {
    const demo = demoProviderRoute({ AZN: { p2p: { min: '10', max: '8000' } } });
    expect(demo.methods.find((m) => m.currency === 'INR' && m.method === 'p2p')).toEqual({ currency: 'INR', method: 'p2p', min: '500', max: '49000' });
    expect(demo.methods.some((m) => m.method === 'intent')).toBe(false);
    expect(demo.methods.find((m) => m.currency === 'AZN')).toEqual({ currency: 'AZN', method: 'p2p', min: '10', max: '8000' });
    expect(demo.methods.find((m) => m.currency === 'TRY' && m.method === 'wallet')).toEqual({ currency: 'TRY', method: 'wallet', min: '1000', max: '10000', step: '50' });
  });
});

describe("a provider's secret", () => {
  it.each([
    [`whsec_${Buffer.alloc(32, 1).toString('base64')}`, true],
    [Buffer.alloc(24, 7).toString('base64'), true],
    ['A'.repeat(64), true],
    [`whsec_${Buffer.alloc(16, 1).toString('base64')}`, false],
    ['not base64 at all!', false],
    ['', false],
  ])('%s: %s', (secret, valid) => {
    expect(isProviderSecret(secret)).toBe(valid);
  });
});
