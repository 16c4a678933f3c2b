export {
  busyRetrySeconds,
  DELIVERIES_PER_URL,
  DELIVERY_HOLD_SECONDS,
  FIRST_PAUSE_SECONDS,
  PAUSE_AFTER_TIMEOUTS,
  pauseAfterTimeout,
  pauseDecision,
  pausedRetrySeconds,
  pausedUntil,
} from './callback-pause.js';
export type { PauseChange } from './callback-pause.js';
export {
  callbackDelivery,
  callbackDeliverySchema,
  DELIVERY_TIMEOUT_MS,
  deliveryFailed,
  retryDelaySeconds,
  signCallback,
  signingSecrets,
  storeFailureRetrySeconds,
  testCallbackResultSchema,
  windowClosed,
} from './callbacks.js';
export type { CallbackDelivery, CallbackEntry, CallbackRecord, CallbackSecretOpener, Deliver, DeliveryAttempt, DeliveryResult, SignedCallback } from './callbacks.js';
