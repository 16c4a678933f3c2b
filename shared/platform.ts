/**
 * Settings of the platform around the functions that the AWS stacks and the local runtime must
 * agree on: one definition, imported by both.
 */

/** Lambda settings for functions whose route-table entry names none. */
export const FUNCTION_DEFAULTS = { timeoutSeconds: 10, memoryMb: 512 } as const;

/** Decisions 12: 50 requests per second per API key, bursts of 100. */
export const PER_KEY_THROTTLE = { ratePerSecond: 50, burst: 100 } as const;

/** Messages of the errors the gateway itself (not a function) answers with. */
export const GATEWAY_MESSAGES = {
  routeNotFound: 'Route not found',
  methodNotAllowed: 'Method not allowed',
  tooManyRequests: 'Too many requests',
  payloadTooLarge: 'Request body too large',
} as const;

/** API Gateway's own ceiling on a request body. */
export const MAX_PAYLOAD_BYTES = 10 * 1024 * 1024;

export const CALLBACK_QUEUE = {
  /** Longer than the callback sender's timeout, so a message is never handled twice at once. */
  visibilityTimeoutSeconds: 60,
  /**
   * A safety net for messages that crash the sender: above the ~28 receives of the 72-hour retry
   * schedule, after which the sender parks a message itself.
   */
  maxReceiveCount: 40,
} as const;
