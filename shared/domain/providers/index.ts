export { PAYOUT_VARIANTS, PROVIDER_EVENT_TYPES, PROVIDER_STATUSES } from './provider-port.js';
export type {
  CreatedPayment,
  CreatePaymentRequest,
  ForwardUtrRequest,
  PaymentInstructions,
  PayoutRequest,
  ProviderCustomer,
  ProviderEvent,
  ProviderRefundRequest,
  ProviderStatusAnswer,
  SenderDetails,
} from './provider-port.js';
export { CURRENCY_METHODS, demoProviderRoute, eligibleProviders, isProviderSecret, providersServing, ProviderDoesNotRefund, ProviderUnavailable, servedMethods } from './providers.js';
export type { PaymentProvider, ProviderMessage, ProviderMethod, ProviderPayment, ProviderRegistry, ProviderRoute } from './providers.js';
