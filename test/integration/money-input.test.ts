/**
 * Amounts as a hostile client sends them, through the API Gateway emulation: JSON texts written
 * by hand so that every number reaches the gateway exactly as typed. An amount is stored as sent
 * (at the currency's precision) or refused with a 422 that names the rule; never changed, never a 5xx.
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { config } from '../../shared/config.js';
import { MAX_REQUEST_AMOUNTS, decimalsOf } from '../../shared/domain/kernel/currencies.js';
import { Decimal } from '../../shared/domain/kernel/money.js';
import { documentClient } from '../../shared/store/dynamo.js';
import { TokenBucketThrottle } from '../../infra/local/throttle.js';
import { createTestGateway, invoke, type GatewayResult } from '../support/invoke.js';
import { seedMerchant, type SeededMerchant } from '../support/merchants.js';

let merchant: SeededMerchant;
// Hundreds of requests under one key as fast as they go: the key's throttle is not what is tested here.
const gateway = createTestGateway({ throttle: new TokenBucketThrottle({ ratePerSecond: 1_000_000, burst: 1_000_000 }) });

beforeAll(async () => {
  merchant = await seedMerchant();
});

/** A JSON object text with `amount` spliced in verbatim. */
const withAmount = (fields: Record<string, unknown>, amountText: string): string => JSON.stringify(fields).replace(/}$/, `,"amount":${amountText}}`);

const createInvoice = (baseCurrency: string, amountText: string, extra: Record<string, unknown> = {}, orderId = `order-${randomUUID()}`) =>
  invoke('create-invoice', {
    gateway,
    apiKey: merchant.apiKey,
    headers: { 'content-type': 'application/json' },
    body: withAmount({ orderId, customerId: `customer-${randomUUID()}`, baseCurrency, ...extra }, amountText),
  });

/** Whether any invoice of the merchant carries `orderId`, read straight from the table. */
async function invoiceExists(orderId: string): Promise<boolean> {
  const { Count } = await documentClient.send(
    new ScanCommand({
      TableName: config().tables.invoices,
      FilterExpression: 'merchantId = :m AND orderId = :o',
      ExpressionAttributeValues: { ':m': merchant.merchant.id, ':o': orderId },
      ConsistentRead: true,
      Select: 'COUNT',
    }),
  );
  return (Count ?? 0) > 0;
}

const createWithdrawal = (amount: unknown) =>
  invoke('create-withdrawal', {
    gateway,
    apiKey: merchant.apiKey,
    body: { customerId: 'cust-1', amount, currency: 'TRY', phoneNumber: '+905551234567', orderId: `w-${randomUUID()}` },
  });

function expect422(response: GatewayResult, field: string, message: RegExp): void {
  expect(response.status).toBe(422);
  expect(response.headers['x-request-id']).toBeTruthy();
  expect(response.body.success).toBe(false);
  expect(response.body.errors[0]).toMatchObject({ code: 'unprocessable_content', field });
  expect(response.body.errors[0].message).toMatch(message);
}

describe('the withdrawal amount, a string', () => {
  it.each([
    ['empty', ''],
    ['a space', ' '],
    ['a NUL character', '\u0000'],
    ['markup', '<script>'],
    ['a lone surrogate', '\ud800'],
    ['a number', 2500],
    ['exponent text', '1e3'],
    ['negative', '-5'],
  ])('%s is a 422 on amount, never a 500', async (_name, amount) => {
    const response = await createWithdrawal(amount);
    expect422(response, 'amount', /amount/);
  });

  it('refuses more places than TRY has, and more than its maximum', async () => {
    expect422(await createWithdrawal('2500.001'), 'amount', /at most 2 decimal places/);
    expect422(await createWithdrawal(`${MAX_REQUEST_AMOUNTS.TRY}.01`), 'amount', /at most 10000000000 TRY/);
  });
});

describe('invoice amounts with more digits than a double holds', () => {
  it.each([
    ['USDT just below the minimum', 'USDT', '4.99999999999999999999999999999', /at most 6 decimal places/],
    ['BTC just below the minimum', 'BTC', '0.000081999999999999999999999999', /at most 8 decimal places/],
    ['INR just above the maximum', 'INR', '49000.00000000000000000000000001', /at most 2 decimal places/],
    ['ETH with 30 places', 'ETH', '0.123456789012345678901234567890', /at most 18 decimal places/],
    ['USDT with 30 digits', 'USDT', '123456789012345678901234567890', /at most 100000000 USDT/],
    ['1e309', 'USDT', '1e309', /at most 100000000 USDT/],
    ['a 400-digit number', 'USDT', '9'.repeat(400), /at most 100000000 USDT/],
    ['an exponent beyond any range', 'USDT', '1e99999', /out of range/],
    ['a tiny exponent', 'USDT', '5e-99999', /out of range/],
    ['one digit too many for fiat', 'TRY', '1000.001', /at most 2 decimal places/],
  ])('%s is a 422 naming the rule, and no invoice', async (_name, currency, amount, message) => {
    const orderId = `order-${randomUUID()}`;
    const response = await createInvoice(currency, amount, {}, orderId);
    expect422(response, 'amount', message);
    expect(await invoiceExists(orderId)).toBe(false);
  });

  it('keeps exactly what was sent when it fits the precision', async () => {
    const cases: Array<[string, string, string]> = [
      ['ETH', '0.123456789012345678', '0.123456789012345678'],
      ['USDT', '5.000000000000000000000000', '5.000000'],
      ['USDT', '99999999.999999', '99999999.999999'],
      ['BTC', '0.00008200', '0.00008200'],
      ['INR', '48999.99', '48999.99'],
      ['USDT', '2.5e1', '25.000000'],
    ];
    for (const [currency, sent, stored] of cases) {
      const response = await createInvoice(currency, sent);
      expect(response.status).toBe(200);
      expect(response.body.data.amount).toBe(stored);
      expect(response.body.data.paymentAmount).toBe(stored);
    }
  });

  it('refuses a string, a negative and a zero amount', async () => {
    expect422(await createInvoice('USDT', '"25"'), 'amount', /must be a JSON number/);
    expect422(await createInvoice('USDT', '-25'), 'amount', /greater than zero/);
    expect422(await createInvoice('USDT', '0.000'), 'amount', /greater than zero/);
  });
});

describe('simulated deposit amounts', () => {
  it('refuses places beyond the payment currency and values beyond its maximum, as a number or a string', async () => {
    const invoice = await createInvoice('USDT', '25');
    const simulate = (amountText: string) =>
      invoke('simulate-deposit', {
        gateway,
        apiKey: merchant.apiKey,
        headers: { 'content-type': 'application/json' },
        body: withAmount({ invoiceId: invoice.body.data.id }, amountText),
      });
    expect422(await simulate('24.9999999999999999999'), 'amount', /at most 6 decimal places/);
    expect422(await simulate('"24.9999999999999999999"'), 'amount', /at most 6 decimal places/);
    expect422(await simulate('1e309'), 'amount', /at most 100000000 USDT/);
    expect422(await simulate('"<script>"'), 'amount', /decimal number/);
  });
});

describe('unknown properties', () => {
  const names = ['constructor', 'prototype', '__proto__', 'extra'];

  it.each(names)('"%s" is refused by name on invoice creation', async (name) => {
    const response = await createInvoice('USDT', '25', { [name]: { polluted: true } });
    expect422(response, name, new RegExp(`Unknown property "${name}"`));
  });

  it.each(['simulate-deposit', 'simulate-withdrawal', 'create-withdrawal', 'confirm-deposit'] as const)('"constructor" is refused by name on %s', async (route) => {
    const response = await invoke(route, { gateway, apiKey: merchant.apiKey, body: { constructor: 1 } });
    expect(response.status).toBe(422);
    expect(response.body.errors.map((e: { field: string }) => e.field)).toContain('constructor');
  });
});

describe('any decimal text up to 40 digits', () => {
  const currencies = ['USDT', 'BTC', 'ETH', 'TRY', 'INR', 'USD'] as const;
  /** A valid JSON number: no leading zeros, optional fraction. */
  const amountText = fc
    .tuple(fc.integer({ min: 0, max: 20 }), fc.integer({ min: 0, max: 20 }))
    .chain(([integerDigits, fractionDigits]) =>
      fc.tuple(
        integerDigits === 0
          ? fc.constant('0')
          : fc
              .tuple(fc.integer({ min: 1, max: 9 }), fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: integerDigits - 1, maxLength: integerDigits - 1 }))
              .map(([lead, rest]) => `${lead}${rest}`),
        fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: fractionDigits, maxLength: fractionDigits }),
      ),
    )
    .map(([integer, fraction]) => (fraction === '' ? integer : `${integer}.${fraction}`));

  it('is stored exactly as sent at the currency precision, or refused with a 422 on amount', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...currencies), amountText, async (currency, text) => {
        // USD is paid in USDT: the stored amount is the request's, the payment amount converted.
        const response = await createInvoice(currency, text, currency === 'USD' ? { paymentCurrency: 'USDT' } : {});
        if (response.status === 422) {
          expect(response.body.errors[0].field).toBe('amount');
          return;
        }
        expect(response.status).toBe(200);
        const sent = new Decimal(text);
        expect(sent.decimalPlaces()).toBeLessThanOrEqual(decimalsOf(currency));
        expect(response.body.data.amount).toBe(sent.toFixed(decimalsOf(currency)));
      }),
      { numRuns: 150 },
    );
  });
});
