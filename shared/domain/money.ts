/** Decimal arithmetic for money: never binary floats, half-up rounding at a currency's precision. */
import { Decimal as BaseDecimal } from 'decimal.js';

export const Decimal = BaseDecimal.clone({ precision: 64, rounding: BaseDecimal.ROUND_HALF_UP, toExpNeg: -100, toExpPos: 100 });
export type Decimal = InstanceType<typeof Decimal>;

/** Exchange rates are kept to 18 decimal places, the finest precision of any asset. */
export const RATE_DECIMALS = 18;

export const toDecimal = (value: string | number): Decimal => new Decimal(value);

/** Half-up at `decimals` places, written with exactly that many places: `1000.00`, `0.00153846`. */
export const formatAmount = (value: Decimal, decimals: number): string => value.toDecimalPlaces(decimals).toFixed(decimals);

/** Half-up at `decimals` places, without trailing zeros: rates such as `34.5` or `0.000015384615384615`. */
export const formatRate = (value: Decimal): string => value.toDecimalPlaces(RATE_DECIMALS).toFixed();

export const decimalPlaces = (value: Decimal): number => value.decimalPlaces();

/**
 * A JSON number as the merchant wrote it. `String(n)` is the shortest text that reads back as the
 * same double, so `0.1` stays `0.1` rather than its binary expansion.
 */
export const fromJsonNumber = (value: number): Decimal => new Decimal(String(value));
