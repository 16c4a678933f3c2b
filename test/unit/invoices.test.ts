import { describe, expect, it } from 'vitest';
import { Invalid } from '../../shared/domain/kernel/errors.js';
import { CRYPTO_ASSETS, CRYPTO_NETWORKS, FIAT_METHOD_LIMITS, MAX_REQUEST_AMOUNTS, decimalsOf, type CryptoNetwork } from '../../shared/domain/kernel/currencies.js';
import { offeredNetworks } from '../../shared/domain/chains/networks.js';
import { buildInvoice, invoiceWallet, requestHash, type InvoicePolicy } from '../../shared/domain/invoicing/invoices.js';
import { createInvoiceRequestSchema } from '../../shared/domain/invoicing/invoice-requests.js';
import { isValidIban } from '../../shared/domain/kernel/iban.js';
import { Decimal } from '../../shared/domain/kernel/money.js';
import type { ProviderRoute } from '../../shared/domain/providers/providers.js';
import { DEMO_USD_PRICES, StaticRateSource } from '../../shared/domain/rates/rates.js';
import type { Stage } from '../../shared/stage.js';
import { stageProviders } from '../support/providers.js';
import { asRequestBody } from '../support/request-body.js';

const prices = (await new StaticRateSource(DEMO_USD_PRICES).current()).prices;
const NOW = new Date('2026-01-01T00:00:00.000Z');
const policy = (stage: Stage = 'prod'): InvoicePolicy => ({ stage, lifetimeSeconds: 900, providers: stageProviders(stage), networks: CRYPTO_NETWORKS });

function build(fields: Record<string, unknown>, stage: Stage = 'prod') {
  const request = createInvoiceRequestSchema.parse(asRequestBody({ orderId: 'o-1', customerId: 'c-1', ...fields }));
  return buildInvoice(request, { id: '00000000-0000-4000-8000-000000000001', merchantId: 'm-1', now: NOW }, prices, policy(stage));
}

function problems(fields: Record<string, unknown>, stage: Stage = 'prod') {
  try {
    build(fields, stage);
  } catch (error) {
    if (error instanceof Invalid) return error.problems;
    throw error;
  }
  throw new Error('expected a validation error');
}

const unit = (decimals: number) => new Decimal(1).div(new Decimal(10).pow(decimals));

describe('fiat limits, at every edge of every row', () => {
  const rows = Object.entries(FIAT_METHOD_LIMITS).flatMap(([currency, methods]) => Object.entries(methods).map(([method, limit]) => ({ currency, method, ...limit! })));

  it.each(rows)('$currency $method: min $min, max $max, step $step', ({ currency, method, min, max, step }) => {
    const request = (amount: Decimal) => ({ amount: amount.toNumber(), baseCurrency: currency, paymentMethod: method });
    const cent = unit(2);
    expect(build(request(new Decimal(min))).paymentAmount).toBe(new Decimal(min).toFixed(2));
    expect(build(request(new Decimal(max!))).paymentAmount).toBe(new Decimal(max!).toFixed(2));

    const below = problems(request(new Decimal(min).minus(step ?? cent)));
    expect(below[0]).toMatchObject({ field: 'amount' });
    expect(below[0]!.message).toContain(`at least ${new Decimal(min).toFixed(2)}`);

    const above = problems(request(new Decimal(max!).plus(step ?? cent)));
    expect(above[0]).toMatchObject({ field: 'amount' });
    expect(above[0]!.message).toContain(`at most ${new Decimal(max!).toFixed(2)}`);

    if (step) {
      const offStep = problems(request(new Decimal(min).plus(new Decimal(step).div(2))));
      expect(offStep[0]).toMatchObject({ field: 'amount' });
      expect(offStep[0]!.message).toContain(`multiple of ${step}`);
    } else {
      expect(build(request(new Decimal(min).plus(cent))).paymentAmount).toBe(new Decimal(min).plus(cent).toFixed(2));
    }
  });

  it('raises the INR minimum to 500 in demo, for p2p', () => {
    expect(problems({ amount: 499.99, baseCurrency: 'INR' }, 'demo')[0]!.message).toContain('at least 500.00 INR');
    expect(build({ amount: 500, baseCurrency: 'INR' }, 'demo').paymentAmount).toBe('500.00');
    expect(build({ amount: 300, baseCurrency: 'INR' }, 'prod').paymentAmount).toBe('300.00');
  });

  it("takes the configured providers' limits: another provider serving AZN to 8000 takes 6000", () => {
    const request = createInvoiceRequestSchema.parse(asRequestBody({ amount: 6000, baseCurrency: 'AZN', orderId: 'o', customerId: 'c' }));
    const identity = { id: 'i', merchantId: 'm', now: NOW };
    expect(() => buildInvoice(request, identity, prices, policy())).toThrow(Invalid);
    const wide: ProviderRoute = { id: 'azn-wide', name: 'AZN wide', priority: 5, methods: [{ currency: 'AZN', method: 'p2p', min: '10', max: '8000' }] };
    const invoice = buildInvoice(request, identity, prices, { ...policy(), providers: [...policy().providers, wide] });
    expect(invoice.paymentAmount).toBe('6000.00');
    expect(invoice.providers).toEqual(['azn-wide']);
  });
});

describe('crypto minimums', () => {
  const rows = Object.entries(CRYPTO_ASSETS).flatMap(([asset, { decimals, networks }]) => Object.entries(networks).map(([network, min]) => ({ asset, network, min: min as string, decimals })));

  it.each(rows)('$asset on $network: min $min, no maximum', ({ asset, min, decimals }) => {
    const invoice = build({ amount: Number(min), baseCurrency: asset });
    expect(invoice.paymentMethod).toBe('crypto');
    expect(invoice.paymentAmount).toBe(new Decimal(min).toFixed(decimals));
    const below = new Decimal(min).minus(unit(Math.min(decimals, 8)));
    expect(problems({ amount: below.toNumber(), baseCurrency: asset })[0]).toMatchObject({ field: 'amount' });
    const max = MAX_REQUEST_AMOUNTS[asset as keyof typeof MAX_REQUEST_AMOUNTS];
    expect(build({ amount: Number(max), baseCurrency: asset }).paymentAmount).toBe(new Decimal(max).toFixed(decimals));
    expect(problems({ amount: Number(max) + 1, baseCurrency: asset })[0]!.message).toBe(`amount must be at most ${max} ${asset}, the largest amount accepted`);
  });
});

describe('the networks a stage offers', () => {
  const offering = (networks: CryptoNetwork[]) => (fields: Record<string, unknown>) => {
    const request = createInvoiceRequestSchema.parse(asRequestBody({ orderId: 'o-1', customerId: 'c-1', ...fields }));
    return () => buildInvoice(request, { id: '00000000-0000-4000-8000-000000000001', merchantId: 'm-1', now: NOW }, prices, { ...policy(), networks });
  };

  it('refuses a crypto asset no offered network carries, on the field that named it', () => {
    const nothingWatched = offering([]);
    for (const asset of ['BTC', 'USDT', 'TRX']) {
      expect(nothingWatched({ baseCurrency: asset, amount: 100 })).toThrow(
        expect.objectContaining({ problems: [{ field: 'baseCurrency', message: expect.stringMatching(new RegExp(`^baseCurrency ${asset} is taken on no network here`)) }] }),
      );
    }
    expect(offering(['ethereum'])({ baseCurrency: 'USD', paymentCurrency: 'BTC', amount: 100 })).toThrow(
      expect.objectContaining({ problems: [{ field: 'paymentCurrency', message: 'paymentCurrency BTC is taken on no network here (bitcoin not watched)' }] }),
    );
  });

  it('takes an asset some offered network carries, and its wallet names those networks only', () => {
    expect(offering(['tron'])({ baseCurrency: 'USDT', amount: 100 })().paymentCurrency).toBe('USDT');
    const addressOn = (network: CryptoNetwork) => `address-on-${network}`;
    expect(invoiceWallet('USDT', ['tron', 'bitcoin'], addressOn)).toEqual({ address: 'address-on-tron', networks: ['tron'], addresses: [{ network: 'tron', address: 'address-on-tron' }] });
    expect(invoiceWallet('USDT', CRYPTO_NETWORKS, addressOn).networks).toEqual(['ethereum', 'bsc', 'tron']);
  });

  it('offers the watched networks in prod, and every network in demo, where the simulation API pays on any', () => {
    expect(offeredNetworks('prod', [])).toEqual([]);
    expect(offeredNetworks('prod', ['bitcoin', 'tron'])).toEqual(['bitcoin', 'tron']);
    expect(offeredNetworks('demo', [])).toEqual(CRYPTO_NETWORKS);
  });
});

describe('family, method and conversion', () => {
  it('derives the family from paymentCurrency, else baseCurrency', () => {
    expect(build({ amount: 100, baseCurrency: 'USD', paymentCurrency: 'USDT' }).family).toBe('crypto');
    expect(build({ amount: 100, baseCurrency: 'EUR', paymentCurrency: 'TRY' }).family).toBe('fiat');
    expect(build({ amount: 1000, baseCurrency: 'TRY' }).paymentMethod).toBe('iban');
    expect(problems({ amount: 100, baseCurrency: 'USD' })[0]).toMatchObject({ field: 'baseCurrency' });
    expect(problems({ amount: 100, baseCurrency: 'USD', paymentCurrency: 'GBP' })[0]).toMatchObject({ field: 'paymentCurrency' });
  });

  it('converts at the fixed rate, half-up at the payment precision, and checks limits after conversion', () => {
    const invoice = build({ amount: 100, baseCurrency: 'USD', paymentCurrency: 'INR' });
    expect(invoice.exchangeRate).toBe('83.333333333333333333');
    expect(invoice.paymentAmount).toBe('8333.33');
    expect(invoice.paymentAmount).toBe(new Decimal(invoice.amount).mul(invoice.exchangeRate).toDecimalPlaces(2).toFixed(2));

    const btc = build({ amount: 100, baseCurrency: 'USD', paymentCurrency: 'BTC' });
    expect(btc.exchangeRate).toBe('0.000015384615384615');
    expect(btc.paymentAmount).toBe('0.00153846');

    // 3 USD is 250 INR: under the INR minimum although 3 is a fine USD figure.
    expect(problems({ amount: 3, baseCurrency: 'USD', paymentCurrency: 'INR' })[0]!.message).toContain('at least 300.00 INR');
    expect(build({ amount: 1000, baseCurrency: 'TRY' }).exchangeRate).toBe('1');
  });

  it('refuses more decimal places than the base currency has', () => {
    expect(problems({ amount: 100.001, baseCurrency: 'TRY' })[0]).toMatchObject({ field: 'amount' });
    expect(build({ amount: 0.12345678, baseCurrency: 'BTC' }).amount).toBe('0.12345678');
  });

  it('checks paymentMethod against the currency and the stage', () => {
    expect(problems({ amount: 1000, baseCurrency: 'TRY', paymentMethod: 'p2p' })[0]).toMatchObject({ field: 'paymentMethod' });
    expect(problems({ amount: 10, baseCurrency: 'USDT', paymentMethod: 'iban' })[0]).toMatchObject({ field: 'paymentMethod' });
    expect(build({ amount: 1000, baseCurrency: 'INR', paymentMethod: 'intent' }).paymentMethod).toBe('intent');
    expect(problems({ amount: 1000, baseCurrency: 'INR', paymentMethod: 'intent' }, 'demo')[0]).toMatchObject({ field: 'paymentMethod' });
  });

  it('accepts https redirect URLs, http only outside prod, and nothing else', () => {
    expect(build({ amount: 10, baseCurrency: 'USDT', redirectUrl: 'https://shop.example/back' }).redirectUrl).toBe('https://shop.example/back');
    expect(build({ amount: 10, baseCurrency: 'USDT', redirectUrl: 'http://shop.example/back' }, 'demo').redirectUrl).toBe('http://shop.example/back');
    expect(problems({ amount: 10, baseCurrency: 'USDT', redirectUrl: 'http://shop.example/back' })[0]).toMatchObject({ field: 'redirectUrl' });
    expect(problems({ amount: 10, baseCurrency: 'USDT', redirectUrl: 'javascript:alert(1)' }, 'demo')[0]).toMatchObject({ field: 'redirectUrl' });
    expect(problems({ amount: 10, baseCurrency: 'USDT', redirectUrl: '/relative' }, 'demo')[0]).toMatchObject({ field: 'redirectUrl' });
  });

  it('lists every problem, the first one first', () => {
    const items = problems({ amount: 1, baseCurrency: 'TRY', paymentMethod: 'p2p', redirectUrl: 'ftp://x' });
    expect(items.map((i) => i.field)).toEqual(['paymentMethod', 'redirectUrl']);
  });
});

describe('direct open', () => {
  const tryBase = { amount: 1000, baseCurrency: 'TRY' };
  const inrBase = { amount: 1000, baseCurrency: 'INR', paymentMethod: 'p2p' };

  it('needs the method and every field the method collects', () => {
    expect(build({ ...tryBase, paymentMethod: 'wallet', customerFullName: 'Ada Lovelace' }).directOpen).toBe(true);
    expect(build({ ...tryBase, paymentMethod: 'bankpay', customerFullName: 'Ada Lovelace' }).directOpen).toBe(true);
    expect(build({ ...tryBase, paymentMethod: 'wallet' }).directOpen).toBe(false);
    expect(build({ ...tryBase, customerFullName: 'Ada Lovelace' }).directOpen).toBe(false);
    const iban = { ...tryBase, paymentMethod: 'iban', customerFullName: 'Ada', customerEmail: 'ada@example.com' };
    expect(build(iban).directOpen).toBe(false);
    expect(build({ ...iban, customerAccount: 'TR33 0006 1005 1978 6457 8413 26' }).directOpen).toBe(true);
    expect(build({ ...inrBase, customerFirstName: 'Ada', customerLastName: 'L' }).directOpen).toBe(false);
    expect(build({ ...inrBase, customerFirstName: 'Ada', customerLastName: 'L', customerEmail: 'a@example.com' }).directOpen).toBe(true);
    expect(build({ amount: 10, baseCurrency: 'USDT', paymentMethod: 'crypto' }).directOpen).toBe(false);
  });
});

describe('request fields', () => {
  const base = { amount: 1000, baseCurrency: 'TRY', orderId: 'o', customerId: 'c' };
  const fieldsOf = (body: Record<string, unknown>) => {
    const result = createInvoiceRequestSchema.safeParse(asRequestBody(body));
    return result.success ? [] : result.error.issues.map((i) => i.path.join('.'));
  };

  it.each([
    ['amount as a string', { amount: '1000' }, 'amount'],
    ['negative amount', { amount: -1 }, 'amount'],
    ['zero amount', { amount: 0 }, 'amount'],
    ['missing orderId', { orderId: undefined }, 'orderId'],
    ['empty customerId', { customerId: '' }, 'customerId'],
    ['numeric customerId', { customerId: 42 }, 'customerId'],
    ['phone of 9 digits', { customerPhone: '123456789' }, 'customerPhone'],
    ['phone with a plus', { customerPhone: '+123456789' }, 'customerPhone'],
    ['bad email', { customerEmail: 'not-an-email' }, 'customerEmail'],
    ['bad IBAN check digits', { customerAccount: 'TR330006100519786457841327' }, 'customerAccount'],
    ['unknown strategy', { invoiceStrategy: 'floating' }, 'invoiceStrategy'],
    ['unknown method', { paymentMethod: 'cash' }, 'paymentMethod'],
    ['bad currency code', { baseCurrency: 'T1' }, 'baseCurrency'],
  ])('%s -> 422 on the field', (_name, change, field) => {
    expect(fieldsOf({ ...base, ...change })).toContain(field);
  });

  it('accepts a 10-digit phone and a valid IBAN', () => {
    expect(fieldsOf({ ...base, customerPhone: '9876543210', customerAccount: 'GB82 WEST 1234 5698 7654 32' })).toEqual([]);
  });

  it('checks IBANs with mod 97', () => {
    expect(isValidIban('DE89370400440532013000')).toBe(true);
    expect(isValidIban('DE89370400440532013001')).toBe(false);
    expect(isValidIban('XX')).toBe(false);
  });

  it('hashes requests regardless of key order', () => {
    expect(requestHash({ a: 1, b: { c: 2, d: 3 } })).toBe(requestHash({ b: { d: 3, c: 2 }, a: 1 }));
    expect(requestHash({ a: 1 })).not.toBe(requestHash({ a: 2 }));
  });
});

describe('the invoice record', () => {
  it('starts created with a 15-minute lifetime, decimal strings and fixed reference rates', () => {
    const invoice = build({ amount: 1000, baseCurrency: 'TRY', applicationId: 'app' });
    expect(invoice).toMatchObject({ status: 'created', amount: '1000.00', paymentCurrency: 'TRY', applicationId: 'app', redirectUrl: null });
    expect(invoice.expiresAt).toBe('2026-01-01T00:15:00.000Z');
    expect(invoice.usdRate).toBe('0.03');
    expect(invoice.eurRate).toBe('0.027777777777777778');
    expect(decimalsOf('TRY')).toBe(2);
  });
});
