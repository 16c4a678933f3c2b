import { Decimal } from './money.js';

/**
 * Currencies, crypto networks and deposit methods with their limits (docs/merchant-guide.md#payment-limits,
 * docs/merchant-guide.md#amounts-and-money).
 */
export const CRYPTO_NETWORKS = ['bitcoin', 'ethereum', 'bsc', 'polygon', 'tron', 'bahamut'] as const;
export type CryptoNetwork = (typeof CRYPTO_NETWORKS)[number];

interface CryptoAsset {
  decimals: number;
  /** Networks that carry the asset, the default first; each with its minimum deposit. */
  networks: Partial<Record<CryptoNetwork, string>>;
}

export const CRYPTO_ASSETS = {
  BTC: { decimals: 8, networks: { bitcoin: '0.000082' } },
  ETH: { decimals: 18, networks: { ethereum: '0.002' } },
  BNB: { decimals: 18, networks: { bsc: '0.001' } },
  POL: { decimals: 18, networks: { polygon: '12' } },
  TRX: { decimals: 6, networks: { tron: '25' } },
  FTN: { decimals: 18, networks: { bahamut: '2' } },
  USDT: { decimals: 6, networks: { ethereum: '5', bsc: '5', tron: '5' } },
  USDC: { decimals: 6, networks: { ethereum: '5', polygon: '5', tron: '5' } },
} as const satisfies Record<string, CryptoAsset>;
export type CryptoAssetCode = keyof typeof CRYPTO_ASSETS;

export const LOCAL_FIAT_CURRENCIES = ['TRY', 'INR', 'PKR', 'AZN'] as const;
export type LocalFiatCurrency = (typeof LOCAL_FIAT_CURRENCIES)[number];

/** Currencies a customer pays in and a merchant holds: the local currencies and the crypto assets. */
export const PAYMENT_CURRENCIES = [...LOCAL_FIAT_CURRENCIES, ...(Object.keys(CRYPTO_ASSETS) as CryptoAssetCode[])] as const;

/** Currencies an invoice may be denominated in without being paid in them. */
export const REFERENCE_CURRENCIES = ['USD', 'EUR'] as const;

export const FIAT_DECIMALS = 2;

export type DepositFamily = 'crypto' | 'fiat';

export const isCryptoAsset = (code: string): code is CryptoAssetCode => Object.hasOwn(CRYPTO_ASSETS, code);
export const isLocalFiat = (code: string): code is LocalFiatCurrency => (LOCAL_FIAT_CURRENCIES as readonly string[]).includes(code);

export function decimalsOf(currency: string): number {
  return isCryptoAsset(currency) ? CRYPTO_ASSETS[currency].decimals : FIAT_DECIMALS;
}

/**
 * The largest amount any request may carry in each currency: worth roughly USD 100 million or more
 * at any plausible rate, far beyond a real payment, and small enough that every amount stays
 * exact through conversion (at most 30 significant digits).
 */
export const MAX_REQUEST_AMOUNTS = {
  USD: '100000000',
  EUR: '100000000',
  TRY: '10000000000',
  INR: '10000000000',
  PKR: '100000000000',
  AZN: '100000000',
  BTC: '10000',
  ETH: '100000',
  BNB: '1000000',
  POL: '1000000000',
  TRX: '1000000000',
  FTN: '100000000',
  USDT: '100000000',
  USDC: '100000000',
} as const satisfies Record<(typeof REFERENCE_CURRENCIES)[number] | LocalFiatCurrency | CryptoAssetCode, string>;

/** Every currency the gateway knows and prices (USD, the unit of prices, included). */
export type PricedCurrency = keyof typeof MAX_REQUEST_AMOUNTS;
export const PRICED_CURRENCIES = Object.keys(MAX_REQUEST_AMOUNTS) as PricedCurrency[];
export const isPricedCurrency = (code: string): code is PricedCurrency => Object.hasOwn(MAX_REQUEST_AMOUNTS, code);

/** The maximum of a currency the gateway knows; undefined for any other code. */
export const maxRequestAmount = (currency: string): string | undefined => (isPricedCurrency(currency) ? MAX_REQUEST_AMOUNTS[currency] : undefined);

export function networksOf(asset: CryptoAssetCode): CryptoNetwork[] {
  return Object.keys(CRYPTO_ASSETS[asset].networks) as CryptoNetwork[];
}

/** The smallest deposit accepted on any of the asset's networks (they share one figure today). */
export function cryptoMinimum(asset: CryptoAssetCode): string {
  const minimums: string[] = Object.values(CRYPTO_ASSETS[asset].networks);
  return Decimal.min(...minimums).toFixed();
}

export function familyOf(currency: string): DepositFamily | undefined {
  if (isCryptoAsset(currency)) return 'crypto';
  if (isLocalFiat(currency)) return 'fiat';
  return undefined;
}

export const FIAT_METHODS = ['wallet', 'bankpay', 'iban', 'p2p', 'intent'] as const;
export type FiatMethod = (typeof FIAT_METHODS)[number];
export type PaymentMethod = FiatMethod | 'crypto';

export interface AmountLimit {
  min: string;
  /** Absent: no maximum. */
  max?: string;
  /** The amount must be a multiple of this. */
  step?: string;
}

/** Methods per local currency with their limits, the default (used when the request names none) first. */
export const FIAT_METHOD_LIMITS: Record<LocalFiatCurrency, Partial<Record<FiatMethod, AmountLimit>>> = {
  TRY: {
    iban: { min: '100', max: '500000' },
    wallet: { min: '1000', max: '10000', step: '50' },
    bankpay: { min: '500', max: '500000', step: '50' },
  },
  INR: {
    p2p: { min: '300', max: '49000' },
    intent: { min: '300', max: '49000' },
  },
  PKR: {
    wallet: { min: '500', max: '1000000' },
  },
  AZN: {
    p2p: { min: '10', max: '5000' },
  },
};

/** INR's minimum in the demo environment (docs/merchant-guide.md#payment-limits: 500 in the demo). */
export const INR_DEMO_MIN = '500';
