/**
 * Invoices at live rates: the fetch-rates function reads a ticker on loopback into the rates
 * table, and invoice creation converts at the newest stored price, or answers 503 for a pair
 * whose price is stale or missing while every other pair goes on. The functions read the rate
 * variables when they load, which in this file is first after these lines.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { scheduledEvent } from '../../infra/local/scheduler.js';
import { invoker } from '../../infra/local/functions.js';
import { config } from '../../shared/config.js';
import { Decimal } from '../../shared/domain/kernel/money.js';
import { FUNCTIONS, type ScheduledFunction } from '../../shared/routes.js';
import { documentClient } from '../../shared/store/dynamo.js';
import { DynamoRateStore } from '../../shared/store/rates.js';
import { emfLinesOf, metricOf } from '../support/emf.js';
import { invoke, loadFunction } from '../support/invoke.js';
import { seedMerchant, type SeededMerchant } from '../support/merchants.js';
import { binancePrice, startTicker } from '../support/ticker.js';

const ticker = await startTicker();
vi.stubEnv('GATEWAY_RATES_URL', ticker.url);
vi.stubEnv('GATEWAY_RATE_PAIRS', JSON.stringify({ BTC: 'BTCUSDT', ETH: 'ETHUSDT', TRX: 'TRXUSDT', EUR: 'EURUSDT', USDT: { fixed: '1' } }));
vi.stubEnv('GATEWAY_RATE_MAX_AGE_S', '300');

const fetchRatesFunction = FUNCTIONS.find((fn) => fn.name === 'fetch-rates') as ScheduledFunction;
const fetchRates = () => invoker(loadFunction)(fetchRatesFunction, scheduledEvent(fetchRatesFunction, new Date()));

let merchant: SeededMerchant;

const create = (baseCurrency: string, paymentCurrency: string, orderId = `order-${randomUUID()}`) =>
  invoke('create-invoice', {
    apiKey: merchant.apiKey,
    body: { orderId, customerId: `customer-${randomUUID()}`, baseCurrency, paymentCurrency, amount: baseCurrency === 'TRY' ? 1000 : 250 },
  });

const unavailable = (currency: string) => ({
  success: false,
  errors: [{ code: 'service_unavailable', message: `No current exchange rate for ${currency}; try again shortly` }],
});

beforeAll(async () => {
  merchant = await seedMerchant();
  // ETH was last quoted ten minutes ago, and the ticker now leaves it out; TRX was never quoted.
  await new DynamoRateStore(documentClient, config().tables.rates).save({
    currency: 'ETH',
    price: new Decimal('3100'),
    quotedAt: new Date(Date.now() - 600_000),
    symbol: 'ETHUSDT',
    symbolPrice: '3100.00000000',
  });
  ticker.reply = { prices: { BTCUSDT: binancePrice('65000.5'), EURUSDT: binancePrice('1.0825') } };
  expect(await fetchRates()).toEqual({
    stored: ['BTC', 'EUR'],
    outdated: [],
    problems: ['ETH: ETHUSDT is missing from the answer', 'TRX: TRXUSDT is missing from the answer'],
  });
});

afterAll(async () => {
  await ticker.close();
});

describe('invoice creation at live rates', () => {
  it('converts at the newest stored price of a fresh pair', async () => {
    const response = await create('USD', 'BTC');
    expect(response.status).toBe(200);
    // 1 / 65000.5 to 18 places; 250 times that, half-up at BTC's 8.
    expect(response.body.data).toMatchObject({ amount: '250.00', exchangeRate: '0.00001538449704233', paymentAmount: '0.00384612' });
    // USDT at its fixed dollar.
    expect((await create('USDT', 'BTC')).body.data.exchangeRate).toBe('0.00001538449704233');
  });

  it('answers 503 for a pair whose price is older than the limit, and for that pair only', async () => {
    for (const [base, payment] of [
      ['USD', 'ETH'],
      ['BTC', 'ETH'],
      ['ETH', 'USDT'],
    ]) {
      const response = await create(base!, payment!);
      expect(response.status, `${base} to ${payment}`).toBe(503);
      expect(response.body).toEqual(unavailable('ETH'));
      expect(response.headers['x-request-id']).toBeTruthy();
    }
    expect((await create('USD', 'BTC')).status).toBe(200);
  });

  it('takes a same-currency invoice whatever the age of its price: it converts nothing', async () => {
    const response = await create('ETH', 'ETH');
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ exchangeRate: '1', paymentAmount: '250.000000000000000000' });
  });

  it('answers 503 for a currency never quoted, or not priced live at all', async () => {
    expect((await create('USD', 'TRX')).body).toEqual(unavailable('TRX'));
    // TRY has no pair in this deployment: not even a same-currency invoice can be valued in USD and EUR.
    const fiat = await create('TRY', 'TRY');
    expect(fiat.status).toBe(503);
    expect(fiat.body).toEqual(unavailable('TRY'));
  });

  it('stores nothing on a 503, and converts at the new price once the ticker gives it', async () => {
    const orderId = `order-${randomUUID()}`;
    expect((await create('USD', 'ETH', orderId)).status).toBe(503);
    ticker.reply = { prices: { BTCUSDT: binancePrice('65000.5'), ETHUSDT: binancePrice('3210.25'), EURUSDT: binancePrice('1.0825') } };
    expect(await fetchRates()).toMatchObject({ stored: ['BTC', 'ETH', 'EUR'] });
    const response = await create('USD', 'ETH', orderId);
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ orderId, status: 'created', exchangeRate: '0.000311502219453314', paymentAmount: '0.077875554863328500' });
  });
});

describe('the rates schedule', () => {
  it('reports the age of the oldest live price after each run, and none while one was never fetched', async () => {
    vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
    try {
      // TRX has never been quoted.
      expect(await emfLinesOf(() => fetchRates())).toEqual([]);
      ticker.reply = { prices: { BTCUSDT: binancePrice('65000.5'), ETHUSDT: binancePrice('3210.25'), TRXUSDT: binancePrice('0.2'), EURUSDT: binancePrice('1.0825') } };
      const [rateAge, ...others] = (await emfLinesOf(() => fetchRates())).map(metricOf);
      expect(others).toEqual([]);
      expect(rateAge).toMatchObject({ namespace: 'PaymentGateway', name: 'RateAge', unit: 'Seconds', dimensions: { service: 'payment-gateway', stage: 'demo' } });
      expect(rateAge!.value).toBeLessThan(5);
    } finally {
      vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'true');
    }
  });
});
