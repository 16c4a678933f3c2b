/**
 * Local payment providers (docs/provider-protocol.md): which provider serves a fiat payment, the limits
 * merchants see, and the port every provider is reached through. Pure.
 */
import type { CreatedPayment, CreatePaymentRequest, ForwardUtrRequest, PaymentInstructions, PayoutRequest, ProviderEvent, ProviderRefundRequest, ProviderStatusAnswer } from './provider-port.js';
import {
  type AmountLimit,
  Decimal,
  decimalsOf,
  FIAT_METHOD_LIMITS,
  type FiatMethod,
  formatAmount,
  INR_DEMO_MIN,
  LOCAL_FIAT_CURRENCIES,
  type LocalFiatCurrency,
  MAX_REQUEST_AMOUNTS,
} from '../kernel/index.js';

/** A provider's secret: the base64 of at least 24 random bytes, with or without `whsec_` in front. */
export function isProviderSecret(text: string): boolean {
  const base64 = text.startsWith('whsec_') ? text.slice('whsec_'.length) : text;
  return /^[A-Za-z0-9+/]+={0,2}$/.test(base64) && Buffer.from(base64, 'base64').length >= 24;
}

/** A method a provider serves, with the payment amounts it takes (in the payment currency). */
export interface ProviderMethod {
  currency: LocalFiatCurrency;
  method: FiatMethod;
  min: string;
  max: string;
  step?: string;
}

/** What routing knows of a provider: no address, no secret. */
export interface ProviderRoute {
  id: string;
  /** What the customer is shown when choosing a provider. */
  name: string;
  /** Lower goes first. */
  priority: number;
  methods: readonly ProviderMethod[];
}

/** The methods of each local currency, the one a request without `paymentMethod` gets first. */
export const CURRENCY_METHODS = Object.fromEntries(LOCAL_FIAT_CURRENCIES.map((currency) => [currency, Object.keys(FIAT_METHOD_LIMITS[currency]) as FiatMethod[]])) as Record<
  LocalFiatCurrency,
  FiatMethod[]
>;

const byPriority = (a: ProviderRoute, b: ProviderRoute) => a.priority - b.priority || a.id.localeCompare(b.id);

/** The providers serving a currency and method, by priority, each with its limit for it. */
export function providersServing(providers: readonly ProviderRoute[], currency: string, method: FiatMethod): Array<{ provider: ProviderRoute; limit: AmountLimit }> {
  return [...providers]
    .sort(byPriority)
    .flatMap((provider) => provider.methods.filter((m) => m.currency === currency && m.method === method).map((m) => ({ provider, limit: { min: m.min, max: m.max, step: m.step } })));
}

/** The methods of `currency` some provider serves, in the currency's order (the default first). */
export function servedMethods(providers: readonly ProviderRoute[], currency: LocalFiatCurrency): FiatMethod[] {
  return CURRENCY_METHODS[currency].filter((method) => providersServing(providers, currency, method).length > 0);
}

export function admits(limit: AmountLimit, amount: Decimal): boolean {
  if (amount.lessThan(limit.min)) return false;
  if (limit.max !== undefined && amount.greaterThan(limit.max)) return false;
  return limit.step === undefined || amount.mod(limit.step).isZero();
}

/** Why no provider admits `amount`, in the words of invoice creation's 422 on `amount`. */
export function limitProblem(amount: Decimal, currency: string, method: FiatMethod, limits: readonly AmountLimit[]): string {
  const show = (value: string) => `${formatAmount(new Decimal(value), decimalsOf(currency))} ${currency}`;
  const label = ` for method ${method}`;
  const lowest = Decimal.min(...limits.map((limit) => limit.min));
  if (amount.lessThan(lowest)) return `amount must be at least ${show(lowest.toFixed())}${label}`;
  const maxima = limits.map((limit) => limit.max);
  if (maxima.every((max) => max !== undefined)) {
    const highest = Decimal.max(...(maxima as string[]));
    if (amount.greaterThan(highest)) return `amount must be at most ${show(highest.toFixed())}${label}`;
  }
  if (limits.length === 1 && limits[0]!.step !== undefined) return `amount must be a multiple of ${limits[0]!.step} ${currency}${label}`;
  const ranges = limits.map((limit) => `${show(limit.min)} to ${limit.max === undefined ? 'any amount' : show(limit.max)}${limit.step ? ` in multiples of ${limit.step}` : ''}`);
  return `amount must be within the limits of a provider${label}: ${ranges.join('; ')}`;
}

/** The providers that can serve a payment, by priority; the first serves it unless the customer chooses (INR). */
export function eligibleProviders(providers: readonly ProviderRoute[], currency: string, method: FiatMethod, amount: Decimal): { providers: string[] } | { problem: string } {
  const serving = providersServing(providers, currency, method);
  const eligible = serving.filter(({ limit }) => admits(limit, amount)).map(({ provider }) => provider.id);
  return eligible.length > 0
    ? { providers: [...new Set(eligible)] }
    : {
        problem: limitProblem(
          amount,
          currency,
          method,
          serving.map(({ limit }) => limit),
        ),
      };
}

type MethodLimits = Partial<Record<LocalFiatCurrency, Partial<Record<FiatMethod, AmountLimit>>>>;

/** A provider's methods from a table of limits by currency and method, in the shape of the payment limits (docs/merchant-guide.md#payment-limits). */
export function providerMethods(limits: MethodLimits): ProviderMethod[] {
  return LOCAL_FIAT_CURRENCIES.flatMap((currency) =>
    (Object.entries(limits[currency] ?? {}) as Array<[FiatMethod, AmountLimit]>).map(([method, limit]) => ({
      currency,
      method,
      min: limit.min,
      // Section 4 gives every method a maximum; without one the request maximum stays in force.
      max: limit.max ?? MAX_REQUEST_AMOUNTS[currency],
      ...(limit.step ? { step: limit.step } : {}),
    })),
  );
}

export const DEMO_PROVIDER_ID = 'demo';

/**
 * The demo provider (docs/provider-protocol.md): the payment limits with a deployment's overrides, INR's demo
 * minimum, and no `intent`, which has no demo counterpart (docs/merchant-guide.md#deposit-family-currency-and-method).
 */
export function demoProviderRoute(overrides: MethodLimits = {}): ProviderRoute {
  const limits = Object.fromEntries(LOCAL_FIAT_CURRENCIES.map((currency) => [currency, { ...FIAT_METHOD_LIMITS[currency], ...overrides[currency] }]));
  const methods = providerMethods(limits)
    .filter(({ method }) => method !== 'intent')
    .map((m) => (m.currency === 'INR' ? { ...m, min: Decimal.max(m.min, INR_DEMO_MIN).toFixed() } : m));
  return { id: DEMO_PROVIDER_ID, name: 'Demo provider', priority: 0, methods };
}

/** The payment an invoice has at its provider: where its customer goes, or what the customer is told to do. */
export interface ProviderPayment {
  providerId: string;
  providerReference: string;
  createdAt: string;
  redirectUrl?: string;
  instructions?: PaymentInstructions;
}

/** What the gateway sent a provider, to be sent again as it was: the same body under the same `webhook-id`. */
export interface ProviderMessage<Body> {
  webhookId: string;
  body: Body;
}

/**
 * A payment provider (docs/provider-protocol.md), however it is reached: the provider protocol is the first
 * implementation, a partner with an API of its own another. Every call fails by throwing
 * `ProviderUnavailable` when the provider does not answer as it should.
 */
export interface PaymentProvider {
  readonly id: string;
  createPayment(message: ProviderMessage<CreatePaymentRequest>): Promise<CreatedPayment>;
  forwardUtr(providerReference: string, message: ProviderMessage<ForwardUtrRequest>): Promise<void>;
  requestPayout(message: ProviderMessage<PayoutRequest>): Promise<{ providerReference: string }>;
  /** Asks for part or all of a payment to be given back; `ProviderDoesNotRefund` when the provider says it refunds nothing. */
  requestRefund(message: ProviderMessage<ProviderRefundRequest>): Promise<{ providerReference: string }>;
  paymentStatus(providerReference: string): Promise<ProviderStatusAnswer>;
  payoutStatus(providerReference: string): Promise<ProviderStatusAnswer>;
  refundStatus(providerReference: string): Promise<ProviderStatusAnswer>;
  /** The event a request carries, once its signature is checked; `unauthorized` when it is not the provider's, `malformed` when it is no event. */
  readEvent(headers: Record<string, string>, body: string): Promise<{ event: ProviderEvent } | { refused: 'unauthorized' | 'malformed'; reason: string }>;
}

/** A provider that failed, timed out or answered what the protocol does not allow: nothing changed, try again. */
export class ProviderUnavailable extends Error {
  constructor(providerId: string, reason: string) {
    super(`Provider ${providerId} did not answer as expected: ${reason}`);
    this.name = 'ProviderUnavailable';
  }
}

/** A provider that answered it refunds nothing (the protocol's 501): asking again changes nothing. */
export class ProviderDoesNotRefund extends Error {
  constructor(readonly providerId: string) {
    super(`Provider ${providerId} does not refund payments`);
    this.name = 'ProviderDoesNotRefund';
  }
}

/** The providers of a stage by id. */
export interface ProviderRegistry {
  routes: readonly ProviderRoute[];
  get(id: string): PaymentProvider | undefined;
}
