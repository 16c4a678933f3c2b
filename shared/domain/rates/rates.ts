/**
 * Exchange rates. An invoice fixes its rates when it is created; later changes of the source
 * never touch an existing invoice. A source is either the fixed demo table or the newest prices a
 * ticker gave (stored by the `fetch-rates` schedule), each with the time it was quoted: a new
 * invoice never converts at a price older than the deployment allows.
 */
import { Decimal, isPricedCurrency, PRICED_CURRENCIES, toDecimal } from '../kernel/index.js';

/** USD value of one unit of each currency the gateway prices. */
export type UsdPrices = Readonly<Record<string, Decimal>>;

/** What a source knows now. */
export interface RateSnapshot {
  /** The newest USD price of each currency priced, however old. */
  prices: UsdPrices;
  /** Currencies the gateway prices whose newest price is older than the source allows, or missing. */
  stale: ReadonlySet<string>;
}

export interface RateSource {
  current(): Promise<RateSnapshot>;
}

/**
 * The demo and local rate table: round, documented figures (docs/merchant-guide.md#the-demo-environment-and-the-simulation-api) so a
 * merchant can predict every converted amount. Not market data.
 */
export const DEMO_USD_PRICES: Readonly<Record<string, string>> = {
  USD: '1',
  EUR: '1.08',
  TRY: '0.03',
  INR: '0.012',
  PKR: '0.0036',
  AZN: '0.59',
  BTC: '65000',
  ETH: '3200',
  BNB: '580',
  POL: '0.5',
  TRX: '0.16',
  FTN: '2.8',
  USDT: '1',
  USDC: '1',
};

const decimalPrices = (table: Readonly<Record<string, string>>): Record<string, Decimal> => Object.fromEntries(Object.entries(table).map(([code, price]) => [code, toDecimal(price)]));

export class StaticRateSource implements RateSource {
  private readonly snapshot: RateSnapshot;

  constructor(table: Readonly<Record<string, string>>) {
    this.snapshot = { prices: decimalPrices(table), stale: new Set() };
  }

  async current(): Promise<RateSnapshot> {
    return this.snapshot;
  }
}

/** Units of `to` per one unit of `from`; 1 when they are the same currency. */
export function crossRate(prices: UsdPrices, from: string, to: string): Decimal | undefined {
  if (from === to) return new Decimal(1);
  const fromPrice = prices[from];
  const toPrice = prices[to];
  if (!fromPrice || !toPrice) return undefined;
  return fromPrice.div(toPrice);
}

/**
 * How a deployment prices a currency live: from a ticker symbol, whose price is the currency's
 * USD price (its inverse when the symbol quotes the currency, e.g. `USDTTRY`), or at a fixed
 * USD price (a stablecoin's peg).
 */
export type RatePair = { symbol: string; inverse: boolean } | { fixed: string };

export const isTickerPair = (pair: RatePair): pair is { symbol: string; inverse: boolean } => 'symbol' in pair;

/** A currency's USD price as a ticker gave it, and when it arrived. */
export interface RateQuote {
  currency: string;
  price: Decimal;
  quotedAt: Date;
  /** The ticker symbol and the price it answered, as written, for whoever checks a rate later. */
  symbol: string;
  symbolPrice: string;
}

export const quoteAgeSeconds = (quote: Pick<RateQuote, 'quotedAt'>, now: Date): number => Math.max(0, (now.getTime() - quote.quotedAt.getTime()) / 1000);

/** The age of the oldest of these currencies' newest quotes; undefined while one of them has none. */
export function oldestQuoteAgeSeconds(quotes: readonly RateQuote[], currencies: readonly string[], now: Date): number | undefined {
  const ages = currencies.map((currency) => quotes.find((quote) => quote.currency === currency)).map((quote) => quote && quoteAgeSeconds(quote, now));
  return ages.some((age) => age === undefined) ? undefined : Math.max(0, ...(ages as number[]));
}

export interface StoredRatesDeps {
  /** The newest stored quote of each of these currencies (none for a currency never quoted). */
  newest(currencies: readonly string[]): Promise<RateQuote[]>;
  pairs: Readonly<Record<string, RatePair>>;
  maxAgeSeconds: number;
  clock: () => Date;
}

/**
 * Live prices: the newest quote of every ticker-priced currency and the fixed ones (USD is 1 by
 * definition). A currency the gateway prices but this deployment does not is missing, so stale.
 */
export class StoredRateSource implements RateSource {
  private readonly fixed: Record<string, Decimal>;
  private readonly quoted: string[];

  constructor(private readonly deps: StoredRatesDeps) {
    const entries = Object.entries(deps.pairs);
    this.fixed = { USD: new Decimal(1), ...Object.fromEntries(entries.flatMap(([code, pair]) => (isTickerPair(pair) ? [] : [[code, toDecimal(pair.fixed)]]))) };
    this.quoted = entries.filter(([, pair]) => isTickerPair(pair)).map(([code]) => code);
  }

  async current(): Promise<RateSnapshot> {
    const quotes = await this.deps.newest(this.quoted);
    const now = this.deps.clock();
    const prices: Record<string, Decimal> = { ...this.fixed };
    const fresh = new Set(Object.keys(this.fixed));
    for (const quote of quotes) {
      prices[quote.currency] = quote.price;
      if (quoteAgeSeconds(quote, now) <= this.deps.maxAgeSeconds) fresh.add(quote.currency);
    }
    return { prices, stale: new Set(PRICED_CURRENCIES.filter((code) => !fresh.has(code))) };
  }
}

/**
 * The currencies that keep an invoice from `base` to `payment` from being priced now: the pair's
 * own when stale (a same-currency invoice converts nothing), and the payment currency and EUR
 * when there is no price at all to value it in USD and EUR. Codes the gateway does not price are
 * left to the invoice rules, which refuse them.
 */
export function unavailableRates({ prices, stale }: RateSnapshot, base: string, payment: string): string[] {
  const pair = base === payment ? [] : [base, payment];
  const unpriced = [...pair.filter((code) => stale.has(code)), ...[payment, 'EUR'].filter((code) => !prices[code])];
  return [...new Set(unpriced.filter(isPricedCurrency))];
}

/** One ticker answer: the quotes it gave, and what it got wrong (a symbol missing, a price unusable). */
export interface TickerQuotes {
  quotes: RateQuote[];
  problems: string[];
}

export interface RateRefreshDeps {
  /** Rejects when the ticker gave no usable answer at all. */
  fetchQuotes(): Promise<TickerQuotes>;
  /** Stores the quote unless a newer one is stored already; false then. */
  save(quote: RateQuote): Promise<boolean>;
}

export interface RateRefresh {
  stored: string[];
  /** Quotes a newer stored one outranked. */
  outdated: string[];
  problems: string[];
}

/** One run of the schedule: each good quote stored; a bad or missing one leaves the stored price as it was. */
export async function refreshRates(deps: RateRefreshDeps): Promise<RateRefresh> {
  const { quotes, problems } = await deps.fetchQuotes();
  const saved = await Promise.all(quotes.map(async (quote) => [quote.currency, await deps.save(quote)] as const));
  return {
    stored: saved.filter(([, stored]) => stored).map(([currency]) => currency),
    outdated: saved.filter(([, stored]) => !stored).map(([currency]) => currency),
    problems,
  };
}
