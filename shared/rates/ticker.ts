/**
 * Prices from a public exchange ticker in Binance's shape: `GET {url}?symbols=["BTCUSDT",…]`
 * answers `[{ "symbol": "BTCUSDT", "price": "65000.01000000" }, …]`. A deployment maps each
 * currency it prices live to a symbol (`GATEWAY_RATE_PAIRS`); the symbol's price is the
 * currency's USD price, or its inverse. Prices are read as decimal text, never as binary floats.
 */
import { Decimal, formatRate, parseDecimalText, RATE_DECIMALS } from '../domain/kernel/index.js';
import { isTickerPair, type RatePair, type RateQuote, type TickerQuotes } from '../domain/rates/index.js';

/** How long one request may take, answer included; the schedule comes back a minute later. */
export const TICKER_TIMEOUT_MS = 10_000;

/** A ticker answer is a few hundred bytes per symbol: anything near this is not one. */
const MAX_ANSWER_BYTES = 1024 * 1024;

/** Longer decimal text than any real price; refused before it is parsed. */
const MAX_PRICE_CHARACTERS = 64;

/** The ticker gave no usable answer: unreachable, too slow, an error status, or not a ticker's JSON. */
export class TickerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TickerError';
  }
}

export interface TickerSettings {
  url: string;
  pairs: Readonly<Record<string, RatePair>>;
  timeoutMs?: number;
  clock: () => Date;
}

/** `{ currency: symbol }` of the ticker-priced currencies. */
const symbolsOf = (pairs: Readonly<Record<string, RatePair>>) => Object.entries(pairs).flatMap(([currency, pair]) => (isTickerPair(pair) ? [{ currency, ...pair }] : []));

export class TickerClient {
  constructor(private readonly settings: TickerSettings) {}

  /** One request for every ticker-priced currency; rejects with a TickerError when the answer is unusable as a whole. */
  async fetchQuotes(): Promise<TickerQuotes> {
    const { url, pairs, timeoutMs = TICKER_TIMEOUT_MS, clock } = this.settings;
    const symbols = [...new Set(symbolsOf(pairs).map((pair) => pair.symbol))];
    const request = new URL(url);
    request.searchParams.set('symbols', JSON.stringify(symbols));
    let text: string;
    try {
      const response = await fetch(request, { headers: { accept: 'application/json' }, redirect: 'error', signal: AbortSignal.timeout(timeoutMs) });
      text = await response.text();
      if (!response.ok) throw new TickerError(`The ticker answered ${response.status}: ${text.slice(0, 200)}`);
    } catch (error) {
      if (error instanceof TickerError) throw error;
      const reason = error instanceof Error && error.name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : error instanceof Error ? error.message : String(error);
      throw new TickerError(`The ticker could not be read: ${reason}`);
    }
    if (Buffer.byteLength(text) > MAX_ANSWER_BYTES) throw new TickerError(`The ticker's answer is over ${MAX_ANSWER_BYTES} bytes`);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new TickerError(`The ticker's answer is not JSON: ${text.slice(0, 200)}`);
    }
    return quotesFromTicker(body, pairs, clock());
  }
}

/** The USD price a symbol's price text gives, or why it gives none. */
function usdPrice(text: unknown, inverse: boolean): { price: Decimal } | { problem: string } {
  if (typeof text !== 'string') return { problem: `price is ${JSON.stringify(text)}, not decimal text` };
  const parsed = text.length <= MAX_PRICE_CHARACTERS ? parseDecimalText(text, 'decimal') : { problem: 'format' as const };
  if ('problem' in parsed) return { problem: `price ${JSON.stringify(text.slice(0, MAX_PRICE_CHARACTERS))} is not a plain decimal` };
  if (!parsed.value.greaterThan(0)) return { problem: `price ${text} is not positive` };
  // An inverse is kept to the places of every rate; a price too large for them leaves nothing.
  const price = inverse ? new Decimal(formatRate(new Decimal(1).div(parsed.value))) : parsed.value;
  if (price.isZero()) return { problem: `price ${text} has no inverse within ${RATE_DECIMALS} decimal places` };
  return { price };
}

/**
 * The quotes of an answer: one per ticker-priced currency whose symbol came exactly once with a
 * positive decimal price. Throws a TickerError when the answer is not a ticker's list at all.
 */
export function quotesFromTicker(body: unknown, pairs: Readonly<Record<string, RatePair>>, quotedAt: Date): TickerQuotes {
  if (!Array.isArray(body)) throw new TickerError(`The ticker's answer is not a list of prices: ${JSON.stringify(body).slice(0, 200)}`);
  const answered = new Map<string, unknown[]>();
  for (const item of body) {
    if (typeof item !== 'object' || item === null || typeof (item as { symbol?: unknown }).symbol !== 'string') continue;
    const { symbol, price } = item as { symbol: string; price?: unknown };
    answered.set(symbol, [...(answered.get(symbol) ?? []), price]);
  }
  const quotes: RateQuote[] = [];
  const problems: string[] = [];
  for (const { currency, symbol, inverse } of symbolsOf(pairs)) {
    const prices = answered.get(symbol) ?? [];
    if (prices.length !== 1) {
      problems.push(`${currency}: ${symbol} is ${prices.length === 0 ? 'missing from' : 'repeated in'} the answer`);
      continue;
    }
    const result = usdPrice(prices[0], inverse);
    if ('problem' in result) problems.push(`${currency}: ${symbol} ${result.problem}`);
    else quotes.push({ currency, price: result.price, quotedAt, symbol, symbolPrice: prices[0] as string });
  }
  return { quotes, problems };
}
