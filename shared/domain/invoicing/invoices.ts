/**
 * Invoices: the record, and the rules that turn a creation request (invoice-requests.ts) into one
 * (deposit family, method, conversion at a fixed rate, limits, direct-open). What the merchant
 * sees of it is in invoice-views.ts. Pure: no I/O, no clock, no randomness of its own.
 */
import { createHash } from 'node:crypto';
import type { Stage } from '../../stage.js';
import {
  type AmountLimit,
  amountRuleProblem,
  type CryptoAssetCode,
  cryptoMinimum,
  type CryptoNetwork,
  Decimal,
  decimalsOf,
  familyOf,
  type FiatMethod,
  type FieldProblem,
  formatAmount,
  formatRate,
  Invalid,
  isCryptoAsset,
  type LocalFiatCurrency,
  maxRequestAmount,
  networksOf,
  type PaymentMethod,
} from '../kernel/index.js';
import { merchantUrlProblem, normalizedUrl } from '../merchants/index.js';
import { noPayments } from './payments.js';
import { CUSTOMER_FIELDS, customerDetails, type CustomerField, type Invoice, type InvoiceWallet } from './invoice.js';
import { eligibleProviders, servedMethods, type ProviderRoute } from '../providers/index.js';
import { crossRate, type UsdPrices } from '../rates/index.js';
import type { CreateInvoiceRequest } from './invoice-requests.js';

export interface InvoicePolicy {
  stage: Stage;
  lifetimeSeconds: number;
  /** The stage's payment providers: which local methods are served, and within which limits. */
  providers: readonly ProviderRoute[];
  /** The crypto networks invoices are offered on (`offeredNetworks`): a crypto asset on none of them is refused. */
  networks: readonly CryptoNetwork[];
}

/** Hash of the request in a canonical form (sorted keys), so field order does not matter. */
export function requestHash(request: unknown): string {
  const canonical = (value: unknown): unknown =>
    value && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(
          Object.keys(value)
            .sort()
            .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
        )
      : value;
  return createHash('sha256')
    .update(JSON.stringify(canonical(request)))
    .digest('hex');
}

function amountProblem(amount: Decimal, currency: string, limit: AmountLimit, method: string): string | undefined {
  const decimals = decimalsOf(currency);
  const show = (value: string) => `${formatAmount(new Decimal(value), decimals)} ${currency}`;
  const label = method === 'crypto' ? '' : ` for method ${method}`;
  if (amount.lessThan(limit.min)) return `amount must be at least ${show(limit.min)}${label}`;
  if (limit.max !== undefined && amount.greaterThan(limit.max)) return `amount must be at most ${show(limit.max)}${label}`;
  if (limit.step !== undefined && !amount.mod(limit.step).isZero()) return `amount must be a multiple of ${limit.step} ${currency}${label}`;
  return undefined;
}

/** Fields the checkout would otherwise collect, per kind of method; with all present the customer skips it. */
const DIRECT_OPEN_FIELDS = {
  INR: ['customerFirstName', 'customerLastName', 'customerEmail'],
  iban: ['customerFullName', 'customerEmail', 'customerAccount'],
  named: ['customerFullName'],
} as const satisfies Record<string, readonly CustomerField[]>;

export type DirectOpenField = (typeof DIRECT_OPEN_FIELDS)[keyof typeof DIRECT_OPEN_FIELDS][number];

export function directOpenFields(method: FiatMethod, currency: LocalFiatCurrency): readonly DirectOpenField[] {
  if (currency === 'INR') return DIRECT_OPEN_FIELDS.INR;
  if (method === 'iban') return DIRECT_OPEN_FIELDS.iban;
  return DIRECT_OPEN_FIELDS.named;
}

/** The direct-open fields a fiat invoice still lacks: what the checkout asks the customer for. */
export function missingCustomerFields(invoice: Pick<Invoice, 'family' | 'paymentMethod' | 'paymentCurrency' | 'customer'>): DirectOpenField[] {
  if (invoice.family !== 'fiat') return [];
  return directOpenFields(invoice.paymentMethod as FiatMethod, invoice.paymentCurrency as LocalFiatCurrency).filter((field) => invoice.customer[CUSTOMER_FIELDS[field]] === undefined);
}

export interface InvoiceIdentity {
  id: string;
  merchantId: string;
  now: Date;
}

/**
 * Applies every creation rule to a schema-valid request and returns the invoice, without its
 * wallet (the caller attaches the customer's permanent address to crypto invoices). Throws a
 * Invalid error listing every problem found.
 */
export function buildInvoice(request: CreateInvoiceRequest, identity: InvoiceIdentity, prices: UsdPrices, policy: InvoicePolicy): Invoice {
  const problems: FieldProblem[] = [];
  const problem = (field: string, message: string) => problems.push({ field, message });

  const familyField = request.paymentCurrency !== undefined ? 'paymentCurrency' : 'baseCurrency';
  const paymentCurrency = request.paymentCurrency ?? request.baseCurrency;
  const family = familyOf(paymentCurrency);
  if (!family) problem(familyField, `${familyField} ${paymentCurrency} is not a supported crypto asset or local currency`);

  const baseDecimals = decimalsOf(request.baseCurrency);
  const amount = request.amount;
  const amountRule = amountRuleProblem(amount, request.baseCurrency);
  if (amountRule) problem('amount', amountRule);

  const exchangeRate = crossRate(prices, request.baseCurrency, paymentCurrency);
  if (family && !exchangeRate) problem('baseCurrency', `No exchange rate from ${request.baseCurrency} to ${paymentCurrency}`);

  let method: PaymentMethod | undefined;
  if (family === 'crypto') {
    if (offeredNetworksOf(paymentCurrency as CryptoAssetCode, policy.networks).length === 0) {
      problem(familyField, `${familyField} ${paymentCurrency} is taken on no network here (${networksOf(paymentCurrency as CryptoAssetCode).join(', ')} not watched)`);
    } else if (request.paymentMethod !== undefined && request.paymentMethod !== 'crypto') {
      problem('paymentMethod', `paymentMethod ${request.paymentMethod} is not available for ${paymentCurrency}`);
    } else method = 'crypto';
  } else if (family === 'fiat') {
    const currency = paymentCurrency as LocalFiatCurrency;
    // The methods some provider serves, the default first.
    const methods = servedMethods(policy.providers, currency);
    const requested = request.paymentMethod;
    if (methods.length === 0) problem(familyField, `${familyField} ${currency} is served by no payment provider here`);
    else if (requested === undefined) method = methods[0];
    else if (requested === 'crypto' || !methods.includes(requested)) {
      problem('paymentMethod', `paymentMethod ${requested} is not offered for ${currency} here: one of ${methods.join(', ')}`);
    } else method = requested;
  }

  const redirectUrlRule = request.redirectUrl === undefined ? undefined : merchantUrlProblem(request.redirectUrl, policy.stage);
  if (redirectUrlRule) problem('redirectUrl', `redirectUrl ${redirectUrlRule}`);

  const paymentDecimals = decimalsOf(paymentCurrency);
  const paymentAmount = exchangeRate ? amount.mul(exchangeRate.toDecimalPlaces(18)).toDecimalPlaces(paymentDecimals) : undefined;
  let providers: string[] | undefined;
  if (paymentAmount && method && !amountRule) {
    let message: string | undefined;
    if (method === 'crypto') message = amountProblem(paymentAmount, paymentCurrency, { min: cryptoMinimum(paymentCurrency as CryptoAssetCode) }, method);
    else {
      const routing = eligibleProviders(policy.providers, paymentCurrency, method, paymentAmount);
      if ('problem' in routing) message = routing.problem;
      else providers = routing.providers;
    }
    if (message) problem('amount', message);
    // The converted amount is a payment like any other: the payment currency's maximum applies.
    const max = maxRequestAmount(paymentCurrency);
    if (!message && max !== undefined && paymentAmount.greaterThan(max)) {
      problem('amount', `amount converts to ${formatAmount(paymentAmount, paymentDecimals)} ${paymentCurrency}, more than ${max} ${paymentCurrency}, the largest amount accepted`);
    }
  }

  if (problems.length > 0 || !family || !method || !exchangeRate || !paymentAmount) throw new Invalid(problems);

  const directOpen =
    family === 'fiat' && request.paymentMethod !== undefined && directOpenFields(method as FiatMethod, paymentCurrency as LocalFiatCurrency).every((field) => request[field] !== undefined);

  const createdAt = identity.now.toISOString();
  const usdRate = crossRate(prices, paymentCurrency, 'USD');
  const eurRate = crossRate(prices, paymentCurrency, 'EUR');
  if (!usdRate || !eurRate) throw new Error(`Rate table lacks USD or EUR for ${paymentCurrency}`);

  return {
    id: identity.id,
    merchantId: identity.merchantId,
    status: 'created',
    family,
    amount: formatAmount(amount, baseDecimals),
    baseCurrency: request.baseCurrency,
    paymentCurrency,
    paymentAmount: formatAmount(paymentAmount, paymentDecimals),
    exchangeRate: formatRate(exchangeRate),
    usdRate: formatRate(usdRate),
    eurRate: formatRate(eurRate),
    paymentMethod: method,
    directOpen,
    customerId: request.customerId,
    orderId: request.orderId,
    applicationId: request.applicationId ?? null,
    redirectUrl: request.redirectUrl === undefined ? null : normalizedUrl(request.redirectUrl),
    displayCurrencies: request.displayCurrencies ?? null,
    invoiceStrategy: 'fixed',
    customer: customerDetails(request),
    ...(providers ? { providers } : {}),
    requestHash: requestHash(request),
    ...noPayments(paymentCurrency),
    expiresAt: new Date(identity.now.getTime() + policy.lifetimeSeconds * 1000).toISOString(),
    createdAt,
    updatedAt: createdAt,
  };
}

/** The asset's networks among those offered. */
const offeredNetworksOf = (asset: CryptoAssetCode, offered: readonly CryptoNetwork[]): CryptoNetwork[] => networksOf(asset).filter((network) => offered.includes(network));

/** The offered networks a crypto invoice may be paid on, each with the customer's address there. */
export function invoiceWallet(asset: string, offered: readonly CryptoNetwork[], addressOn: (network: CryptoNetwork) => string): InvoiceWallet {
  if (!isCryptoAsset(asset)) throw new Error(`${asset} is not a crypto asset`);
  const networks = offeredNetworksOf(asset, offered);
  if (networks.length === 0) throw new Error(`${asset} is offered on no network`);
  const addresses = networks.map((network) => ({ network, address: addressOn(network) }));
  return { address: addresses[0]!.address, networks, addresses };
}
