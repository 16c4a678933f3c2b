/**
 * The fiat methods and limits in force on a stage (decisions 4): the configured table with the
 * stage's exceptions, for invoice creation and for the reference that describes it. Pure.
 */
import type { Stage } from '../routes.js';
import { INR_DEMO_MIN, type AmountLimit, type FiatMethod, type LocalFiatCurrency } from './currencies.js';
import { Decimal } from './money.js';

export type FiatLimits = Record<LocalFiatCurrency, Partial<Record<FiatMethod, AmountLimit>>>;

/** `intent` has no demo counterpart. */
export const isMethodOffered = (method: FiatMethod, stage: Stage): boolean => !(method === 'intent' && stage === 'demo');

/** A method's limit on the stage: demo raises INR's minimum. */
export function fiatLimitOn(stage: Stage, limits: FiatLimits, currency: LocalFiatCurrency, method: FiatMethod): AmountLimit | undefined {
  const limit = limits[currency][method];
  if (limit && currency === 'INR' && stage === 'demo') return { ...limit, min: Decimal.max(limit.min, INR_DEMO_MIN).toFixed() };
  return limit;
}

/** The whole table as the stage applies it, without the methods it does not offer. */
export function stageFiatLimits(stage: Stage, limits: FiatLimits): FiatLimits {
  const entries = (Object.keys(limits) as LocalFiatCurrency[]).map((currency) => {
    const methods = (Object.keys(limits[currency]) as FiatMethod[]).filter((method) => isMethodOffered(method, stage));
    return [currency, Object.fromEntries(methods.map((method) => [method, fiatLimitOn(stage, limits, currency, method)]))];
  });
  return Object.fromEntries(entries) as FiatLimits;
}
