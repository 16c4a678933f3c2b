/**
 * Exchange rates. An invoice fixes its rates when it is created; later changes of the source
 * never touch an existing invoice.
 */
import { Decimal, toDecimal } from './money.js';

/** USD value of one unit of each currency the gateway prices. */
export type UsdPrices = Readonly<Record<string, Decimal>>;

export interface RateSource {
  usdPrices(): Promise<UsdPrices>;
}

/**
 * The demo and local rate table: round, documented figures (README "Demo exchange rates") so a
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

export class StaticRateSource implements RateSource {
  private readonly prices: UsdPrices;

  constructor(table: Readonly<Record<string, string>>) {
    this.prices = Object.fromEntries(Object.entries(table).map(([code, price]) => [code, toDecimal(price)]));
  }

  async usdPrices(): Promise<UsdPrices> {
    return this.prices;
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
