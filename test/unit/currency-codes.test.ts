/**
 * Currencies and networks are enums in the OpenAPI document (and in the client generated from it), while the gateway reads
 * them as it always has: trimmed and in any case, an unknown one refused with the same 422, field and message as before.
 */
import { describe, expect, it } from 'vitest';
import { CRYPTO_NETWORKS, LOCAL_FIAT_CURRENCIES, PAYMENT_CURRENCIES, PRICED_CURRENCIES } from '../../shared/domain/kernel/currencies.js';
import { Invalid } from '../../shared/domain/kernel/errors.js';
import { buildInvoice } from '../../shared/domain/invoicing/invoices.js';
import { createInvoiceRequestSchema } from '../../shared/domain/invoicing/invoice-requests.js';
import { simulateDepositRequestSchema } from '../../shared/domain/invoicing/simulation.js';
import { cryptoPayoutRequestSchema } from '../../shared/domain/payouts/crypto-payouts.js';
import { DEMO_USD_PRICES, StaticRateSource } from '../../shared/domain/rates/rates.js';
import { withdrawalRequestSchema } from '../../shared/domain/transactions/withdrawals.js';
import { apiErrorOf } from '../../shared/http/errors.js';
import { parseOrThrow } from '../../shared/http/validation.js';
import { buildOpenApiDocument } from '../../shared/openapi.js';
import { stageProviders } from '../support/providers.js';
import { asRequestBody } from '../support/request-body.js';

const prices = (await new StaticRateSource(DEMO_USD_PRICES).current()).prices;

/** A create-invoice request as the route reads it: its schema, then the rules of the domain. */
function createInvoice(fields: Record<string, unknown>) {
  const request = parseOrThrow(createInvoiceRequestSchema, asRequestBody({ orderId: 'o-1', customerId: 'c-1', amount: 25, ...fields }));
  return buildInvoice(request, { id: '00000000-0000-4000-8000-000000000001', merchantId: 'm-1', now: new Date('2026-01-01T00:00:00Z') }, prices, {
    stage: 'demo',
    lifetimeSeconds: 900,
    providers: stageProviders('demo'),
    networks: CRYPTO_NETWORKS,
  });
}

/** The answer a refused request gets: its status and error items. */
function refusal(read: () => unknown) {
  try {
    read();
  } catch (error) {
    if (!(error instanceof Invalid)) throw error;
    const { status, items } = apiErrorOf(error)!;
    return { status, items };
  }
  throw new Error('expected the request to be refused');
}

const unprocessable = (field: string, message: string) => ({ status: 422, items: [{ code: 'unprocessable_content', field, message }] });

describe('currency codes in requests', () => {
  it('are read trimmed and in any case, as before', () => {
    expect(createInvoice({ baseCurrency: ' usdt ' })).toMatchObject({ baseCurrency: 'USDT', paymentCurrency: 'USDT' });
    expect(createInvoice({ baseCurrency: 'eur', paymentCurrency: 'Usdt', amount: 20 })).toMatchObject({ baseCurrency: 'EUR', paymentCurrency: 'USDT' });
    expect(parseOrThrow(withdrawalRequestSchema, asRequestBody({ customerId: 'c-1', amount: '500', currency: 'inr', cardNumber: '4111111111111111' })).currency).toBe('INR');
    expect(parseOrThrow(cryptoPayoutRequestSchema, asRequestBody({ amount: '10', currency: 'usdt ', network: 'tron', address: 'T' })).currency).toBe('USDT');
    expect(parseOrThrow(simulateDepositRequestSchema, asRequestBody({ invoiceId: 'i-1', currency: 'btc' })).currency).toBe('BTC');
  });

  it('refuse an unknown code with the 422, field and message they always had', () => {
    expect(refusal(() => createInvoice({ baseCurrency: 'XYZ' }))).toEqual(unprocessable('baseCurrency', 'baseCurrency XYZ is not a supported crypto asset or local currency'));
    expect(refusal(() => createInvoice({ baseCurrency: 'eur' }))).toEqual(unprocessable('baseCurrency', 'baseCurrency EUR is not a supported crypto asset or local currency'));
    expect(refusal(() => createInvoice({ baseCurrency: 'USD', paymentCurrency: 'usd' }))).toEqual(
      unprocessable('paymentCurrency', 'paymentCurrency USD is not a supported crypto asset or local currency'),
    );
    expect(refusal(() => createInvoice({ baseCurrency: 'EURO!' }))).toEqual(unprocessable('baseCurrency', 'baseCurrency: must be a currency code'));
    expect(refusal(() => createInvoice({ baseCurrency: 5 }))).toEqual(unprocessable('baseCurrency', 'baseCurrency: Invalid input: expected string, received JsonNumber'));
    expect(refusal(() => parseOrThrow(withdrawalRequestSchema, asRequestBody({ customerId: 'c-1', amount: '500', currency: 'usdt', cardNumber: '4111111111111111' })))).toEqual(
      unprocessable('currency', 'currency: must be a supported local currency (TRY, INR, PKR, AZN)'),
    );
    expect(refusal(() => parseOrThrow(cryptoPayoutRequestSchema, asRequestBody({ amount: '10', currency: 'inr', network: 'tron', address: 'T' })))).toEqual(
      unprocessable('currency', 'currency: must be a crypto asset (BTC, ETH, BNB, POL, TRX, FTN, USDT, USDC)'),
    );
  });
});

describe('currency codes and networks in the OpenAPI document', () => {
  const { components } = buildOpenApiDocument('https://gateway.example', 'demo', CRYPTO_NETWORKS);
  const schemas = components.schemas as Record<string, { properties: Record<string, any> }>;
  const enumOf = (schema: string, ...path: string[]) => path.reduce((at, key) => at.properties[key], schemas[schema] as any).enum;

  it('are enums of the codes as the gateway writes them, in requests and in answers', () => {
    expect(enumOf('CreateInvoiceRequest', 'baseCurrency')).toEqual(PRICED_CURRENCIES);
    expect(enumOf('CreateInvoiceRequest', 'paymentCurrency')).toEqual(PAYMENT_CURRENCIES);
    expect(enumOf('CreateWithdrawalRequest', 'currency')).toEqual(LOCAL_FIAT_CURRENCIES);
    expect(enumOf('CreatePayoutRequest', 'currency')).toEqual(['BTC', 'ETH', 'BNB', 'POL', 'TRX', 'FTN', 'USDT', 'USDC']);
    expect(enumOf('CreatePayoutRequest', 'network')).toEqual(CRYPTO_NETWORKS);
    expect(enumOf('SimulateDepositRequest', 'currency')).toEqual(PAYMENT_CURRENCIES);
    expect(enumOf('Invoice', 'baseCurrency')).toEqual(PRICED_CURRENCIES);
    expect(enumOf('Invoice', 'paymentCurrency')).toEqual(PAYMENT_CURRENCIES);
    expect(enumOf('Transaction', 'currency')).toEqual(PAYMENT_CURRENCIES);
    expect(enumOf('Transaction', 'network')).toEqual([...CRYPTO_NETWORKS, null]);
    expect(enumOf('Transaction', 'info', 'referenceCurrency')).toEqual(PRICED_CURRENCIES);
    expect(enumOf('Transaction', 'info', 'transactionCurrency')).toEqual(PAYMENT_CURRENCIES);
    expect(enumOf('CallbackPayload', 'currency')).toEqual(PAYMENT_CURRENCIES);
    expect(schemas.ListBalancesResponse!.properties.data.properties.items.items.properties.currency.enum).toEqual(PAYMENT_CURRENCIES);
  });
});
