/**
 * The rules of live exchange rates: which prices are stale, which invoices they stop, and how a
 * deployment states its pairs. The ticker itself is tested against a server in
 * test/integration/rate-fetcher.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { parseRatesConfig } from '../../shared/config.js';
import { PRICED_CURRENCIES } from '../../shared/domain/kernel/currencies.js';
import { Decimal } from '../../shared/domain/kernel/money.js';
import { DEMO_USD_PRICES, StaticRateSource, StoredRateSource, unavailableRates, type RatePair, type RateQuote } from '../../shared/domain/rates/rates.js';

const NOW = new Date('2025-01-01T12:00:00.000Z');
const secondsAgo = (seconds: number) => new Date(NOW.getTime() - seconds * 1000);
const quote = (currency: string, price: string, quotedAt: Date): RateQuote => ({ currency, price: new Decimal(price), quotedAt, symbol: `${currency}USDT`, symbolPrice: price });

const PAIRS: Record<string, RatePair> = {
  BTC: { symbol: 'BTCUSDT', inverse: false },
  ETH: { symbol: 'ETHUSDT', inverse: false },
  EUR: { symbol: 'EURUSDT', inverse: false },
  USDT: { fixed: '1' },
};

function storedSource(quotes: RateQuote[], maxAgeSeconds = 300) {
  const asked: string[][] = [];
  const source = new StoredRateSource({
    newest: async (currencies) => {
      asked.push([...currencies]);
      return quotes.filter((q) => currencies.includes(q.currency));
    },
    pairs: PAIRS,
    maxAgeSeconds,
    clock: () => NOW,
  });
  return { source, asked };
}

describe('stored live prices', () => {
  it('are the newest quote of each ticker-priced currency, the fixed prices and USD at 1, asked for the ticker-priced ones only', async () => {
    const { source, asked } = storedSource([quote('BTC', '65000.5', secondsAgo(10)), quote('ETH', '3100.25', secondsAgo(20)), quote('EUR', '1.0825', secondsAgo(30))]);
    const { prices, stale } = await source.current();
    expect(asked).toEqual([['BTC', 'ETH', 'EUR']]);
    expect(Object.fromEntries(Object.entries(prices).map(([code, price]) => [code, price.toFixed()]))).toEqual({
      USD: '1',
      USDT: '1',
      BTC: '65000.5',
      ETH: '3100.25',
      EUR: '1.0825',
    });
    // Every currency the gateway prices and this deployment does not is stale: it has no price.
    expect([...stale].sort()).toEqual(PRICED_CURRENCIES.filter((code) => !['USD', 'USDT', 'BTC', 'ETH', 'EUR'].includes(code)).sort());
  });

  it('are stale once older than the limit, and still the newest price known', async () => {
    const { source } = storedSource([quote('BTC', '65000', secondsAgo(300)), quote('ETH', '3100', secondsAgo(301)), quote('EUR', '1.08', secondsAgo(0))]);
    const { prices, stale } = await source.current();
    expect(stale.has('BTC')).toBe(false);
    expect(stale.has('ETH')).toBe(true);
    expect(prices.ETH?.toFixed()).toBe('3100');
  });

  it('are missing, so stale, for a currency never quoted', async () => {
    const { source } = storedSource([quote('EUR', '1.08', NOW)]);
    const { prices, stale } = await source.current();
    expect(prices.BTC).toBeUndefined();
    expect(stale.has('BTC')).toBe(true);
  });
});

describe('an invoice that needs prices', () => {
  const snapshot = { prices: { USD: new Decimal(1), EUR: new Decimal('1.08'), BTC: new Decimal(65000), ETH: new Decimal(3100) }, stale: new Set(['ETH', 'TRY', 'INR']) };

  it('waits for a stale price of its pair, naming it', () => {
    expect(unavailableRates(snapshot, 'USD', 'ETH')).toEqual(['ETH']);
    expect(unavailableRates(snapshot, 'ETH', 'BTC')).toEqual(['ETH']);
  });

  it('goes ahead when its pair is fresh, whatever else is stale', () => {
    expect(unavailableRates(snapshot, 'USD', 'BTC')).toEqual([]);
    expect(unavailableRates(snapshot, 'EUR', 'BTC')).toEqual([]);
  });

  it('converts nothing within one currency, so a stale price of it is no obstacle, while no price at all is', () => {
    expect(unavailableRates(snapshot, 'ETH', 'ETH')).toEqual([]);
    // Its USD and EUR values need some price of INR.
    expect(unavailableRates(snapshot, 'INR', 'INR')).toEqual(['INR']);
  });

  it('needs some price of EUR, to value it in EUR', () => {
    const withoutEur = { prices: { USD: new Decimal(1), BTC: new Decimal(65000) }, stale: new Set(['EUR']) };
    expect(unavailableRates(withoutEur, 'BTC', 'BTC')).toEqual(['EUR']);
  });

  it('leaves codes the gateway does not price to the invoice rules', () => {
    expect(unavailableRates(snapshot, 'GBP', 'BTC')).toEqual([]);
  });

  it('never waits on the fixed demo table', async () => {
    const demo = await new StaticRateSource(DEMO_USD_PRICES).current();
    for (const base of PRICED_CURRENCIES) for (const payment of PRICED_CURRENCIES) expect(unavailableRates(demo, base, payment)).toEqual([]);
  });
});

describe('the rate variables', () => {
  const url = 'https://data-api.binance.vision/api/v3/ticker/price';

  it('are the fixed demo table when unset', () => {
    expect(parseRatesConfig({})).toEqual({ kind: 'static' });
  });

  it('read symbols, inverted symbols and fixed prices, with a five-minute limit by default', () => {
    const rates = parseRatesConfig({ GATEWAY_RATES_URL: url, GATEWAY_RATE_PAIRS: '{"BTC":"BTCUSDT","TRY":{"symbol":"USDTTRY","inverse":true},"USDT":{"fixed":"1"}}' });
    expect(rates).toEqual({
      kind: 'live',
      url,
      pairs: { BTC: { symbol: 'BTCUSDT', inverse: false }, TRY: { symbol: 'USDTTRY', inverse: true }, USDT: { fixed: '1' } },
      maxAgeSeconds: 300,
    });
    expect(parseRatesConfig({ GATEWAY_RATES_URL: url, GATEWAY_RATE_PAIRS: '{"BTC":"BTCUSDT"}', GATEWAY_RATE_MAX_AGE_S: '90' })).toMatchObject({ maxAgeSeconds: 90 });
  });

  it.each([
    ['a URL without pairs', { GATEWAY_RATES_URL: url }, /GATEWAY_RATE_PAIRS: GATEWAY_RATES_URL and GATEWAY_RATE_PAIRS go together/],
    ['pairs without a URL', { GATEWAY_RATE_PAIRS: '{"BTC":"BTCUSDT"}' }, /go together/],
    ['pairs that are not JSON', { GATEWAY_RATES_URL: url, GATEWAY_RATE_PAIRS: '{BTC:BTCUSDT}' }, /GATEWAY_RATE_PAIRS: must be JSON/],
    ['a price for USD, the unit', { GATEWAY_RATES_URL: url, GATEWAY_RATE_PAIRS: '{"USD":"USDUSDT","BTC":"BTCUSDT"}' }, /GATEWAY_RATE_PAIRS/],
    ['a currency the gateway does not price', { GATEWAY_RATES_URL: url, GATEWAY_RATE_PAIRS: '{"GBP":"GBPUSDT"}' }, /GATEWAY_RATE_PAIRS/],
    ['a symbol that is not one', { GATEWAY_RATES_URL: url, GATEWAY_RATE_PAIRS: '{"BTC":"btc/usdt"}' }, /GATEWAY_RATE_PAIRS/],
    ['a fixed price of zero', { GATEWAY_RATES_URL: url, GATEWAY_RATE_PAIRS: '{"BTC":"BTCUSDT","USDT":{"fixed":"0.00"}}' }, /GATEWAY_RATE_PAIRS/],
    ['fixed prices alone', { GATEWAY_RATES_URL: url, GATEWAY_RATE_PAIRS: '{"USDT":{"fixed":"1"}}' }, /must price at least one currency from a ticker symbol/],
    ['a URL that is not http(s)', { GATEWAY_RATES_URL: 'ftp://example.com/ticker', GATEWAY_RATE_PAIRS: '{"BTC":"BTCUSDT"}' }, /GATEWAY_RATES_URL/],
    ['a limit of zero', { GATEWAY_RATES_URL: url, GATEWAY_RATE_PAIRS: '{"BTC":"BTCUSDT"}', GATEWAY_RATE_MAX_AGE_S: '0' }, /GATEWAY_RATE_MAX_AGE_S/],
  ])('refuse %s at load', (_, env, message) => {
    expect(() => parseRatesConfig(env)).toThrow(message);
    expect(() => parseRatesConfig(env)).toThrow(/^Invalid environment: /);
  });
});
