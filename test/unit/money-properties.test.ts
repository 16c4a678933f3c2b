/**
 * Money as properties, against an oracle of plain BigInt fractions that shares no code with
 * decimal.js: conversion at the fixed rate (docs/merchant-guide.md#amounts-and-money: `exchangeRate` half-up at 18 places,
 * `paymentAmount` = `amount` x `exchangeRate` half-up at the payment currency's precision), the
 * limits of every method and asset at and around their edges, and payment accounting (decisions
 * 14: `paidAmount` is the sum of the confirmed deposits).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CRYPTO_ASSETS,
  FIAT_METHOD_LIMITS,
  LOCAL_FIAT_CURRENCIES,
  MAX_REQUEST_AMOUNTS,
  cryptoMinimum,
  decimalsOf,
  type CryptoAssetCode,
  type FiatMethod,
  type LocalFiatCurrency,
  CRYPTO_NETWORKS,
} from '../../shared/domain/kernel/currencies.js';
import { providersServing } from '../../shared/domain/providers/providers.js';
import { buildInvoice, type InvoicePolicy } from '../../shared/domain/invoicing/invoices.js';
import { createInvoiceRequestSchema } from '../../shared/domain/invoicing/invoice-requests.js';
import { invoiceAfterDeposit, type InvoiceAccounting } from '../../shared/domain/invoicing/payments.js';
import { StaticRateSource } from '../../shared/domain/rates/rates.js';
import { Invalid } from '../../shared/domain/kernel/errors.js';
import { STAGES, type Stage } from '../../shared/stage.js';
import { parseJsonBody } from '../../shared/http/json-body.js';
import { stageProviders } from '../support/providers.js';

/** An exact fraction. */
interface Fraction {
  num: bigint;
  den: bigint;
}

const TEN = 10n;

function fraction(text: string): Fraction {
  const [whole, part = ''] = text.split('.');
  return { num: BigInt(`${whole}${part}`), den: TEN ** BigInt(part.length) };
}

const times = (a: Fraction, b: Fraction): Fraction => ({ num: a.num * b.num, den: a.den * b.den });
const over = (a: Fraction, b: Fraction): Fraction => ({ num: a.num * b.den, den: a.den * b.num });
const compare = (a: Fraction, b: Fraction): number => Math.sign(Number(a.num * b.den - b.num * a.den));

/** A non-negative fraction rounded half-up at `places`, as the integer count of 10^-places. */
function halfUpUnits(value: Fraction, places: number): bigint {
  const scaled = value.num * TEN ** BigInt(places);
  const quotient = scaled / value.den;
  return 2n * (scaled - quotient * value.den) >= value.den ? quotient + 1n : quotient;
}

/** `units` x 10^-places written with exactly `places` places. */
function unitsText(units: bigint, places: number): string {
  const digits = units.toString().padStart(places + 1, '0');
  return places === 0 ? digits : `${digits.slice(0, -places)}.${digits.slice(-places)}`;
}

const withoutTrailingZeros = (text: string): string => (text.includes('.') ? text.replace(/\.?0+$/, '') : text);

const PAYMENT_CURRENCIES = [...Object.keys(CRYPTO_ASSETS), ...LOCAL_FIAT_CURRENCIES];
const BASE_CURRENCIES = [...PAYMENT_CURRENCIES, 'USD', 'EUR'];
const NOW = new Date('2026-01-01T00:00:00.000Z');

/** A positive decimal with up to `places` places, between 10^-places and `max`. */
const decimalUpTo = (places: number, max: bigint): fc.Arbitrary<string> => fc.bigInt({ min: 1n, max: max * TEN ** BigInt(places) }).map((units) => withoutTrailingZeros(unitsText(units, places)));

/** USD prices of every currency: anything from a millionth to a million, up to 8 places. */
const priceTable = fc.record(Object.fromEntries(BASE_CURRENCIES.map((code) => [code, decimalUpTo(8, 1_000_000n)])) as Record<string, fc.Arbitrary<string>>);

const policyOf = (stage: Stage): InvoicePolicy => ({ stage, lifetimeSeconds: 900, providers: stageProviders(stage), networks: CRYPTO_NETWORKS });

/** An invoice created from `amount` written as that JSON number text, or the problems that refuse it. */
async function create(amount: string, fields: Record<string, unknown>, table: Record<string, string>, stage: Stage) {
  const { prices } = await new StaticRateSource(table).current();
  const body = JSON.stringify({ orderId: 'o-1', customerId: 'c-1', ...fields }).replace(/^\{/, `{"amount":${amount},`);
  const request = createInvoiceRequestSchema.parse(parseJsonBody(body));
  try {
    return { invoice: buildInvoice(request, { id: '00000000-0000-4000-8000-000000000001', merchantId: 'm-1', now: NOW }, prices, policyOf(stage)) };
  } catch (error) {
    if (error instanceof Invalid) return { problems: error.problems };
    throw error;
  }
}

interface Limit {
  min: string;
  max?: string;
  step?: string;
}

/** The limit the oracle applies: the method's on the stage for local fiat, the asset's minimum for crypto. */
function limitFor(currency: string, stage: Stage, method?: FiatMethod): Limit {
  if (currency in CRYPTO_ASSETS) return { min: cryptoMinimum(currency as CryptoAssetCode) };
  const methods = FIAT_METHOD_LIMITS[currency as LocalFiatCurrency];
  // Each stage's test configuration has one provider per method.
  return providersServing(stageProviders(stage), currency, method ?? (Object.keys(methods)[0] as FiatMethod))[0]!.limit;
}

const withinLimit = (amount: Fraction, limit: Limit): boolean =>
  compare(amount, fraction(limit.min)) >= 0 &&
  (limit.max === undefined || compare(amount, fraction(limit.max)) <= 0) &&
  (limit.step === undefined || over(amount, fraction(limit.step)).num % over(amount, fraction(limit.step)).den === 0n);

describe('conversion at the fixed rate', () => {
  it('paymentAmount is amount x exchangeRate half-up at the payment precision, exchangeRate the price ratio half-up at 18 places; limits apply after it', async () => {
    const scenario = fc.record({
      table: priceTable,
      base: fc.constantFrom(...BASE_CURRENCIES),
      payment: fc.constantFrom(...PAYMENT_CURRENCIES),
      stage: fc.constantFrom(...STAGES),
      // Where in the payment limit the converted amount should land, and how many digits the amount keeps.
      permille: fc.integer({ min: -200, max: 1_200 }),
      keptPlaces: fc.nat({ max: 18 }),
    });

    await fc.assert(
      fc.asyncProperty(scenario, async ({ table, base, payment, stage, permille, keptPlaces }) => {
        const rate = base === payment ? { num: 1n, den: 1n } : over(fraction(table[base]!), fraction(table[payment]!));
        const rateUnits = halfUpUnits(rate, 18);
        const shownRate: Fraction = { num: rateUnits, den: TEN ** 18n };
        if (rateUnits === 0n) return; // A rate under 10^-18 converts nothing; no real pair is that far apart.

        // An amount in the base currency whose conversion lands around the payment limit.
        const limit = limitFor(payment, stage);
        const top = limit.max !== undefined ? fraction(limit.max) : times(fraction(limit.min), { num: 1000n, den: 1n });
        const min = fraction(limit.min);
        const span: Fraction = { num: top.num * min.den - min.num * top.den, den: top.den * min.den };
        const offset = times(span, { num: BigInt(permille), den: 1000n });
        const target: Fraction = { num: min.num * offset.den + offset.num * min.den, den: min.den * offset.den };
        if (target.num <= 0n) return;
        const baseUnits = halfUpUnits(over(target, shownRate), Math.min(decimalsOf(base), keptPlaces));
        if (baseUnits <= 0n) return;
        const amountText = withoutTrailingZeros(unitsText(baseUnits, Math.min(decimalsOf(base), keptPlaces)));
        const amount = fraction(amountText);
        if (compare(amount, fraction(MAX_REQUEST_AMOUNTS[base as keyof typeof MAX_REQUEST_AMOUNTS])) > 0) return;

        const paymentPlaces = decimalsOf(payment);
        const expectedPayment = unitsText(halfUpUnits(times(amount, shownRate), paymentPlaces), paymentPlaces);
        const outcome = await create(amountText, { baseCurrency: base, ...(base === payment ? {} : { paymentCurrency: payment }) }, table, stage);
        const accepted = withinLimit(fraction(expectedPayment), limit);
        if (accepted) {
          expect(outcome.problems, `${amountText} ${base} -> ${payment}`).toBeUndefined();
          expect(outcome.invoice).toMatchObject({
            amount: unitsText((amount.num * TEN ** BigInt(decimalsOf(base))) / amount.den, decimalsOf(base)),
            exchangeRate: withoutTrailingZeros(unitsText(rateUnits, 18)),
            paymentAmount: expectedPayment,
          });
        } else {
          expect(outcome.problems?.[0], `${amountText} ${base} -> ${payment} = ${expectedPayment}, limit ${JSON.stringify(limit)}`).toMatchObject({ field: 'amount' });
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('limits at every edge', () => {
  const fiatRows = STAGES.flatMap((stage) =>
    LOCAL_FIAT_CURRENCIES.flatMap((currency) =>
      (Object.keys(FIAT_METHOD_LIMITS[currency]) as FiatMethod[])
        .filter((method) => !(method === 'intent' && stage === 'demo'))
        .map((method) => ({ stage, currency: currency as string, method: method as FiatMethod | undefined, limit: limitFor(currency, stage, method) })),
    ),
  );
  const cryptoRows = STAGES.flatMap((stage) => Object.keys(CRYPTO_ASSETS).map((currency) => ({ stage, currency, method: undefined, limit: limitFor(currency, stage) })));

  it.each([...fiatRows, ...cryptoRows].map((row) => [`${row.stage} ${row.currency} ${row.method ?? 'crypto'}`, row] as const))(
    '%s: accepted exactly within min, max and step, at and around each edge',
    async (_, { stage, currency, method, limit }) => {
      const places = decimalsOf(currency);
      const ulp: Fraction = { num: 1n, den: TEN ** BigInt(places) };
      const edges = [limit.min, limit.max, limit.step].filter((edge): edge is string => edge !== undefined).map(fraction);
      const near = fc.tuple(fc.constantFrom(...edges), fc.integer({ min: -3, max: 3 }), fc.constantFrom(ulp, ...(limit.step ? [fraction(limit.step)] : []))).map(([edge, k, by]) => ({
        num: edge.num * by.den + BigInt(k) * by.num * edge.den,
        den: edge.den * by.den,
      }));
      const anywhere = fc.bigInt({ min: 1n, max: 2n * halfUpUnits(fraction(limit.max ?? `${Number(limit.min) * 1000}`), places) }).map((units) => ({ num: units, den: TEN ** BigInt(places) }));
      await fc.assert(
        fc.asyncProperty(fc.oneof(near, anywhere), async (value) => {
          if (value.num <= 0n) return;
          const amountText = unitsText(halfUpUnits(value, places), places);
          const outcome = await create(amountText, { baseCurrency: currency, ...(method ? { paymentMethod: method } : {}) }, { USD: '1', EUR: '1.08', [currency]: '1' }, stage);
          if (withinLimit(fraction(amountText), limit)) {
            expect(outcome.problems, `${amountText} ${currency}`).toBeUndefined();
            expect(outcome.invoice?.paymentAmount).toBe(amountText);
          } else {
            expect(outcome.problems?.[0], `${amountText} ${currency}`).toMatchObject({ field: 'amount' });
          }
        }),
        { numRuns: 150 },
      );
    },
  );
});

describe('payment accounting', () => {
  const scenario = fc.record({
    payment: fc.constantFrom(...PAYMENT_CURRENCIES),
    dueUnits: fc.bigInt({ min: 1n, max: 10n ** 12n }),
    deposits: fc.array(
      fc.record({
        share: fc.double({ min: 0, max: 0.8, noNaN: true }),
        extraUnits: fc.bigInt({ min: 0n, max: 1000n }),
        status: fc.constantFrom('confirmed', 'confirmed', 'confirmed', 'failed', 'processing'),
        otherCurrency: fc.oneof({ weight: 6, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
      }),
      { minLength: 1, maxLength: 10 },
    ),
  });

  it('paidAmount is the sum of the confirmed deposits in the payment currency; the invoice completes exactly when it reaches paymentAmount', () => {
    fc.assert(
      fc.property(scenario, ({ payment, dueUnits, deposits }) => {
        const places = decimalsOf(payment);
        const family = payment in CRYPTO_ASSETS ? 'crypto' : 'fiat';
        let invoice: InvoiceAccounting = {
          id: 'inv-1',
          family,
          status: 'active',
          paymentAmount: unitsText(dueUnits, places),
          paymentCurrency: payment,
          paidAmount: unitsText(0n, places),
          paymentStatus: 'unpaid',
          transactionIds: [],
          completedAt: null,
        };
        let paidUnits = 0n;
        const recorded: string[] = [];
        deposits.forEach(({ share, extraUnits, status, otherCurrency }, index) => {
          const units = BigInt(Math.floor(Number(dueUnits) * share)) + extraUnits;
          if (units === 0n) return;
          const currency = otherCurrency ? (payment === 'USDT' ? 'USDC' : 'USDT') : payment;
          const deposit = { id: `tx-${index}`, status: status as 'confirmed' | 'failed' | 'processing', amount: unitsText(units, decimalsOf(currency)), currency };
          const outcome = invoiceAfterDeposit(invoice, deposit, true, NOW);
          if ('refused' in outcome) {
            // Local fiat takes nothing once settled: completed (paid in full) or canceled (rejected).
            expect(family).toBe('fiat');
            expect(invoice.status === 'completed' || invoice.status === 'canceled').toBe(true);
            return;
          }
          recorded.push(deposit.id);
          if (status === 'confirmed' && currency === payment) paidUnits += units;
          const { set, appendTransactionId } = outcome.update;
          invoice = { ...invoice, ...(set as Partial<InvoiceAccounting>), transactionIds: [...invoice.transactionIds, appendTransactionId!] };
        });
        expect(invoice.paidAmount).toBe(unitsText(paidUnits, places));
        expect(invoice.transactionIds).toEqual(recorded);
        expect(invoice.paymentStatus).toBe(paidUnits === 0n ? 'unpaid' : paidUnits < dueUnits ? 'partial' : paidUnits === dueUnits ? 'paid' : 'overpaid');
        if (invoice.status !== 'canceled') expect(invoice.status === 'completed').toBe(paidUnits >= dueUnits);
      }),
      { numRuns: 1_000 },
    );
  });
});
