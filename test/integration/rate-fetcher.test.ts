/**
 * The rate fetcher against a ticker on loopback and a rates table of its own in DynamoDB Local:
 * good answers are stored exactly, with their time; a bad answer (garbage, an error status, a
 * timeout, a price that is not a positive decimal) never replaces a stored price.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureTables } from '../../infra/local/dynamodb.js';
import { config } from '../../shared/config.js';
import { refreshRates, type RatePair } from '../../shared/domain/rates/rates.js';
import { Decimal } from '../../shared/domain/kernel/money.js';
import { TickerClient, TickerError } from '../../shared/rates/ticker.js';
import { documentClient, dynamoClient } from '../../shared/store/dynamo.js';
import { DynamoRateStore } from '../../shared/store/rates.js';
import { binancePrice, startTicker, type TickerReply, type TickerServer } from '../support/ticker.js';

const PAIRS: Record<string, RatePair> = {
  BTC: { symbol: 'BTCUSDT', inverse: false },
  ETH: { symbol: 'ETHUSDT', inverse: false },
  TRY: { symbol: 'USDTTRY', inverse: true },
  USDT: { fixed: '1' },
};
const GOOD_PRICES = { BTCUSDT: binancePrice('65000.12345678'), ETHUSDT: binancePrice('3200.5'), USDTTRY: binancePrice('34.5') };
const TIMEOUT_MS = 300;

let ticker: TickerServer;
let store: DynamoRateStore;
let client: TickerClient;
/** The fetcher's clock, moved on by `later()` for every answer: each test's prices are newer than the last test's. */
let now = new Date('2030-01-01T00:00:00.000Z');
const later = (): Date => (now = new Date(now.getTime() + 60_000));

const refresh = () => refreshRates({ fetchQuotes: () => client.fetchQuotes(), save: (quote) => store.save(quote) });

/** What the table holds, as text: price and time by currency. */
async function stored(): Promise<Record<string, { price: string; quotedAt: string }>> {
  const quotes = await store.newest(Object.keys(PAIRS));
  return Object.fromEntries(quotes.map((q) => [q.currency, { price: q.price.toFixed(), quotedAt: q.quotedAt.toISOString() }]));
}

/** Stores the good prices, newer than any before, and returns what the table then holds. */
async function storeGoodPrices() {
  ticker.reply = { prices: GOOD_PRICES };
  later();
  await refresh();
  return stored();
}

beforeAll(async () => {
  const tableName = `gateway-rates-${randomUUID()}`;
  await ensureTables(dynamoClient, { ...config().tables, rates: tableName });
  store = new DynamoRateStore(documentClient, tableName);
  ticker = await startTicker();
  client = new TickerClient({ url: ticker.url, pairs: PAIRS, timeoutMs: TIMEOUT_MS, clock: () => now });
});

afterAll(async () => {
  await ticker?.close();
});

describe('a good answer', () => {
  it("asks once for every ticker-priced symbol, in the ticker's symbols=[…] form, and nothing for fixed prices", async () => {
    const before = ticker.requests.length;
    await storeGoodPrices();
    expect(ticker.requests.slice(before)).toEqual([['BTCUSDT', 'ETHUSDT', 'USDTTRY']]);
  });

  it('stores each USD price exactly, an inverted one to 18 places, with the time it arrived', async () => {
    const prices = await storeGoodPrices();
    const at = now;
    expect(prices).toEqual({
      BTC: { price: '65000.12345678', quotedAt: at.toISOString() },
      ETH: { price: '3200.5', quotedAt: at.toISOString() },
      // 1 / 34.5, half-up at the 18th place.
      TRY: { price: '0.028985507246376812', quotedAt: at.toISOString() },
    });
    const [btc] = await store.newest(['BTC']);
    expect(btc).toMatchObject({ symbol: 'BTCUSDT', symbolPrice: '65000.12345678' });
  });

  it('never replaces a newer stored price with an older one', async () => {
    const before = await storeGoodPrices();
    ticker.reply = { prices: { ...GOOD_PRICES, BTCUSDT: '1.00000000' } };
    // A run that started first and answers last.
    now = new Date(now.getTime() - 1_000);
    const result = await refresh();
    expect(result.outdated.sort()).toEqual(['BTC', 'ETH', 'TRY']);
    expect(await stored()).toEqual(before);
  });
});

describe('an answer that is no answer', () => {
  const cases: Array<[string, TickerReply, RegExp]> = [
    ['garbage', { status: 200, body: 'Service temporarily down <html>', contentType: 'text/html' }, /not JSON/],
    ['a 500', { status: 500, body: '{"code":-1001,"msg":"Internal error; unable to process your request. Please try again."}' }, /answered 500/],
    ['Binance refusing a symbol', { status: 400, body: '{"code":-1121,"msg":"Invalid symbol."}' }, /answered 400/],
    ['an object instead of a list', { status: 200, body: '{"symbol":"BTCUSDT","price":"1.00000000"}' }, /not a list of prices/],
    ['JSON null', { status: 200, body: 'null' }, /not a list of prices/],
    ['silence until the timeout', { hang: 'headers' }, new RegExp(`no answer within ${TIMEOUT_MS} ms`)],
    ['a body that stops half way', { hang: 'body' }, new RegExp(`no answer within ${TIMEOUT_MS} ms`)],
  ];

  it.each(cases)('(%s) stores nothing and keeps every stored price', async (_, reply, message) => {
    const before = await storeGoodPrices();
    ticker.reply = reply;
    later();
    const started = Date.now();
    const failure = await refresh().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TickerError);
    expect((failure as Error).message).toMatch(message);
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + 2_000);
    expect(await stored()).toEqual(before);
  });
});

describe('an answer with bad prices', () => {
  const badPrices: Array<[string, unknown]> = [
    ['zero', '0.00000000'],
    ['negative', '-65000.00000000'],
    ['NaN', 'NaN'],
    ['Infinity', 'Infinity'],
    ['an exponent', '6.5e4'],
    ['a JSON number', 65000.1],
    ['null', null],
    ['empty', ''],
    ['digits past any price', '9'.repeat(80)],
  ];

  it.each(badPrices)('(%s) stores the good prices beside it and leaves that one as it was', async (_, price) => {
    const before = await storeGoodPrices();
    ticker.reply = {
      status: 200,
      body: JSON.stringify([
        { symbol: 'BTCUSDT', price },
        { symbol: 'ETHUSDT', price: '3300.00000000' },
        { symbol: 'USDTTRY', price: '35.00000000' },
      ]),
    };
    later();
    const result = await refresh();
    expect(result.stored.sort()).toEqual(['ETH', 'TRY']);
    expect(result.problems).toEqual([expect.stringMatching(/^BTC: BTCUSDT price/)]);
    const after = await stored();
    expect(after.BTC).toEqual(before.BTC);
    expect(after.ETH).toEqual({ price: '3300', quotedAt: now.toISOString() });
    expect(after.TRY?.price).toBe(new Decimal(1).div(35).toDecimalPlaces(18).toFixed());
  });

  it('leaves a symbol that is missing or repeated as it was', async () => {
    const before = await storeGoodPrices();
    later();
    ticker.reply = {
      status: 200,
      body: JSON.stringify([{ symbol: 'ETHUSDT', price: '3300.00000000' }, { symbol: 'ETHUSDT', price: '3301.00000000' }, { symbol: 'USDTTRY', price: '35.00000000' }, { unexpected: true }]),
    };
    const result = await refresh();
    expect(result.stored).toEqual(['TRY']);
    expect(result.problems.sort()).toEqual(['BTC: BTCUSDT is missing from the answer', 'ETH: ETHUSDT is repeated in the answer']);
    const after = await stored();
    expect(after.BTC).toEqual(before.BTC);
    expect(after.ETH).toEqual(before.ETH);
  });

  it('never stores a price whose inverse is zero at 18 places', async () => {
    const before = await storeGoodPrices();
    later();
    ticker.reply = { prices: { ...GOOD_PRICES, USDTTRY: `1${'0'.repeat(20)}` } };
    const result = await refresh();
    expect(result.problems).toEqual([expect.stringMatching(/^TRY: USDTTRY price 1000+ has no inverse within 18 decimal places/)]);
    expect((await stored()).TRY).toEqual(before.TRY);
  });
});
