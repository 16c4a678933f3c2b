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

/**
 * A JSON number exactly as the client wrote it. Request bodies are parsed with every number kept
 * as its text, so `4.99999999999999999999` is never read as the double `5`. Serialised as that
 * text (e.g. in idempotency fingerprints).
 */
export class JsonNumber {
  constructor(readonly text: string) {}

  toJSON(): string {
    return this.text;
  }
}

/** JSON's number grammar, and the plain decimal strings amounts may also be written as. */
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const DECIMAL_STRING = /^\d+(?:\.\d+)?$/;

/**
 * An exponent this long puts a non-zero value beyond any amount or any precision; refusing it
 * before decimal.js sees it keeps every later step exact and cheap.
 */
const MAX_EXPONENT_DIGITS = 4;

export type DecimalTextResult = { value: Decimal } | { problem: 'format' | 'range' };

/**
 * The exact value of decimal text: a JSON number (`json`) or a plain decimal string (`decimal`).
 * Never throws: bad text is a `format` problem, an absurd exponent a `range` problem.
 */
export function parseDecimalText(text: string, grammar: 'json' | 'decimal'): DecimalTextResult {
  if (!(grammar === 'json' ? JSON_NUMBER : DECIMAL_STRING).test(text)) return { problem: 'format' };
  const exponent = /[eE]([+-]?)(\d+)$/.exec(text)?.[2];
  if (exponent !== undefined && exponent.replace(/^0+/, '').length > MAX_EXPONENT_DIGITS) {
    // Zero is zero whatever its exponent.
    return /[1-9]/.test(text.slice(0, text.search(/[eE]/))) ? { problem: 'range' } : { value: new Decimal(0) };
  }
  return { value: new Decimal(text) };
}
