/**
 * Live exchange rates of a stage: the ticker the fetch-rates schedule reads and how each currency
 * is priced from it. The functions get them as GATEWAY_RATES_URL, GATEWAY_RATE_PAIRS and
 * GATEWAY_RATE_MAX_AGE_S, validated at synthesis by the same parser as at their cold start.
 */
import { parseRatesConfig } from '../../shared/config.js';
import type { RatePair } from '../../shared/domain/rates/index.js';

export interface LiveRates {
  url: string;
  pairs: Readonly<Record<string, RatePair>>;
  maxAgeSeconds: number;
}

/**
 * Binance's public market-data endpoint, with every currency it lists: USDT-quoted symbols taken
 * as USD prices, TRY from USDT/TRY inverted, USDT itself at one dollar. INR, PKR, AZN and FTN are
 * not listed there: a stage prices them only with pairs of its own (context `ratePairs`), and
 * until then answers 503 for invoices that need their price.
 */
export const DEFAULT_LIVE_RATES: LiveRates = {
  url: 'https://data-api.binance.vision/api/v3/ticker/price',
  pairs: {
    BTC: { symbol: 'BTCUSDT', inverse: false },
    ETH: { symbol: 'ETHUSDT', inverse: false },
    BNB: { symbol: 'BNBUSDT', inverse: false },
    POL: { symbol: 'POLUSDT', inverse: false },
    TRX: { symbol: 'TRXUSDT', inverse: false },
    USDC: { symbol: 'USDCUSDT', inverse: false },
    EUR: { symbol: 'EURUSDT', inverse: false },
    TRY: { symbol: 'USDTTRY', inverse: true },
    USDT: { fixed: '1' },
  },
  maxAgeSeconds: 300,
};

/** A pair as the functions read it, in its shortest form: a symbol whose price is the USD price stands alone. */
const shortestPair = (pair: RatePair): RatePair | string => ('symbol' in pair && !pair.inverse ? pair.symbol : pair);

/** The functions' variables for these rates; none for the fixed demo table. */
export function liveRatesEnvironment(rates: LiveRates | undefined): Record<string, string> {
  if (!rates) return {};
  // Shortest: every function is given them, and a function's environment holds 4 KB.
  const pairs = Object.fromEntries(Object.entries(rates.pairs).map(([currency, pair]) => [currency, shortestPair(pair)]));
  const environment = { GATEWAY_RATES_URL: rates.url, GATEWAY_RATE_PAIRS: JSON.stringify(pairs), GATEWAY_RATE_MAX_AGE_S: String(rates.maxAgeSeconds) };
  // Fails synthesis as the functions would fail their cold start.
  parseRatesConfig(environment);
  return environment;
}
