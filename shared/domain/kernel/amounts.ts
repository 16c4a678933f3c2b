/**
 * Amounts in requests (docs/merchant-guide.md#amounts-and-money): read from the exact text the client sent, never through a
 * binary float, and never rounded or otherwise changed. An amount that is not a positive decimal
 * within its currency's precision and maximum is refused with a 422 saying which rule it breaks.
 * Nothing here throws on bad input.
 */
import * as z from 'zod';
import { MAX_REQUEST_AMOUNTS, decimalsOf, maxRequestAmount } from './currencies.js';
import { type Decimal, JsonNumber, parseDecimalText } from './money.js';

const RANGE_MESSAGE = 'is out of range: not a finite amount';

/** Text to an exact positive Decimal, or an issue on `ctx` and `z.NEVER`. */
function positiveDecimal(text: string, grammar: 'json' | 'decimal', ctx: z.RefinementCtx): Decimal {
  const parsed = parseDecimalText(text, grammar);
  if ('problem' in parsed) {
    ctx.addIssue({ code: 'custom', message: parsed.problem === 'range' ? RANGE_MESSAGE : 'must be a decimal number' });
    return z.NEVER;
  }
  if (!parsed.value.greaterThan(0)) {
    ctx.addIssue({ code: 'custom', message: 'must be greater than zero' });
    return z.NEVER;
  }
  return parsed.value;
}

const DECIMAL_STRING_SCHEMA = { type: 'string', pattern: '^\\d+(\\.\\d+)?$' } as const;

const AMOUNT_RULES =
  "Read exactly as written, never rounded: at most the currency's decimal places (fiat 2, BTC 8, TRX/USDT/USDC 6, ETH/BNB/POL/FTN 18) " +
  `and at most its maximum (${Object.entries(MAX_REQUEST_AMOUNTS)
    .map(([currency, max]) => `${currency} ${max}`)
    .join(', ')}); anything else is a 422 naming the rule.`;

type AmountForm = 'number' | 'string';

const EXPECTED: Record<string, string> = {
  number: 'a JSON number, not a string',
  string: 'a decimal number written as a string',
  'number,string': 'a number or a decimal string',
};

/**
 * An amount written as a JSON number, as a decimal string, or either (`forms`), parsed to its
 * exact Decimal. `about` leads its description in the API document.
 */
function amountSchema(forms: readonly AmountForm[], about: string) {
  const schemas = forms.map((form) => (form === 'number' ? { type: 'number' } : DECIMAL_STRING_SCHEMA));
  return z
    .unknown()
    .transform((value, ctx) => {
      if (value instanceof JsonNumber && forms.includes('number')) return positiveDecimal(value.text, 'json', ctx);
      if (typeof value === 'string' && forms.includes('string')) return positiveDecimal(value, 'decimal', ctx);
      // No message for a missing value: it is reported as required.
      ctx.addIssue({ code: 'invalid_type', expected: 'number', input: value, ...(value === undefined ? {} : { message: `must be ${EXPECTED[forms.join(',')]}` }) });
      return z.NEVER;
    })
    .meta({ ...(schemas.length === 1 ? schemas[0] : { anyOf: schemas }), description: `${about}. ${AMOUNT_RULES}` });
}

/** A JSON number, as the merchant guide types `amount` (docs/merchant-guide.md#amounts-and-money); a string is refused. */
export const jsonNumberAmount = (about: string) => amountSchema(['number'], about);

/** A decimal written as a string (`"1500.50"`), as the withdrawal takes every field. */
export const decimalStringAmount = (about: string) => amountSchema(['string'], about);

export const numberOrStringAmount = (about: string) => amountSchema(['number', 'string'], about);

/**
 * The rule an amount in `currency` breaks, as a message naming the precision or the maximum; undefined
 * when it keeps both. Limits of a payment method (minimums, steps) are checked where they apply.
 */
export function amountRuleProblem(amount: Decimal, currency: string, field = 'amount'): string | undefined {
  const decimals = decimalsOf(currency);
  if (amount.decimalPlaces() > decimals) return `${field} must have at most ${decimals} decimal places for ${currency}`;
  const max = maxRequestAmount(currency);
  if (max !== undefined && amount.greaterThan(max)) return `${field} must be at most ${max} ${currency}, the largest amount accepted`;
  return undefined;
}
