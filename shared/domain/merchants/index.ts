export { API_KEY_SCOPES, decodeKeyReach, encodeKeyReach, keyRefusal, MAX_ALLOWED_IPS, missingScopeMessage } from './api-key-scopes.js';
export type { ApiKeyScope } from './api-key-scopes.js';
export { ApiKeyService, newApiKeyRequestSchema } from './api-key-service.js';
export type { ApiKeyStore, ApiKeyView, IssuedApiKey, KeyRegistry } from './api-key-service.js';
export { MerchantAccount } from './merchant-account.js';
export {
  authenticatedMerchant,
  digestApiKey,
  digestsEqual,
  isCallbackSecret,
  isFrameAncestorSource,
  isWellFormedApiKey,
  MAX_PAYOUT_ADDRESS_DELAY_SECONDS,
  MAX_PREVIOUS_CALLBACK_SECRETS,
  merchantSettingsRequestSchema,
  merchantUrlProblem,
  merchantViewSchema,
  newApiKey,
  newMerchant,
  normalizedUrl,
  onchainDepositsByDefault,
  payoutAddressDelaySecondsOf,
  previousSecretsAt,
  recordKeyUse,
  rotatedSecretSchema,
  takesOnchainDeposits,
} from './merchants.js';
export type {
  ApiKey,
  BooksCheckRun,
  BooksHold,
  CallbackPause,
  ClearedBooksHold,
  KeyUseRecorder,
  Merchant,
  MerchantProfiles,
  MerchantRead,
  MerchantSettings,
  MerchantView,
  NewMerchantInput,
  RotatedSecret,
  RotatedSecretChanges,
  SecretSealer,
} from './merchants.js';
