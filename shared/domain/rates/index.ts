export { crossRate, DEMO_USD_PRICES, isTickerPair, oldestQuoteAgeSeconds, refreshRates, StaticRateSource, StoredRateSource, unavailableRates } from './rates.js';
export type { RatePair, RateQuote, RateRefresh, RateSource, TickerQuotes, UsdPrices } from './rates.js';
