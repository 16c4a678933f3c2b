export { amountRuleProblem, decimalStringAmount, jsonNumberAmount, numberOrStringAmount } from './amounts.js';
export { listedAs } from './codes.js';
export { heights, mapLimited } from './concurrency.js';
export {
  CRYPTO_ASSETS,
  CRYPTO_NETWORKS,
  cryptoMinimum,
  decimalsOf,
  familyOf,
  FIAT_METHOD_LIMITS,
  FIAT_METHODS,
  INR_DEMO_MIN,
  isCryptoAsset,
  isPricedCurrency,
  LOCAL_FIAT_CURRENCIES,
  MAX_REQUEST_AMOUNTS,
  maxRequestAmount,
  networksOf,
  PAYMENT_CURRENCIES,
  PRICED_CURRENCIES,
} from './currencies.js';
export type { AmountLimit, CryptoAssetCode, CryptoNetwork, DepositFamily, FiatMethod, LocalFiatCurrency, PaymentMethod, PricedCurrency } from './currencies.js';
export { AlreadyUsed, Conflict, DomainError, Gone, Held, InsufficientBalance, Invalid, NotAuthentic, NotFound, TooLarge, Unavailable } from './errors.js';
export type { FieldProblem } from './errors.js';
export { isValidIban } from './iban.js';
export { isUuid } from './identifiers.js';
export type { BusinessMetrics, DepositSource } from './metrics.js';
export { Decimal, formatAmount, formatRate, JsonNumber, parseDecimalText, RATE_DECIMALS, toDecimal } from './money.js';
export { createdRangeInOrder, createdTime, listingFilters, listingOf, mapPage, MAX_PAGE_LIMIT, pageParameters, pageSchema } from './pagination.js';
export type { Listing, Page } from './pagination.js';
export { BALANCE_RETRY, optimisticAttempts } from './retry.js';
export type { CommitResult, RetryPolicy } from './retry.js';
export type { SealedSecret } from './sealed-secret.js';
export { invocationBudget } from './work-budget.js';
export type { WorkBudget } from './work-budget.js';
