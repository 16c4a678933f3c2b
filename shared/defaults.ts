/**
 * The default of each setting that the functions, the CDK stacks, the demo provider and the local
 * runtime share, written once: each reads it here, and each setting's environment variable, where
 * one is read, overrides it.
 */
export const DEFAULTS = {
  /** GATEWAY_INVOICE_LIFETIME_S: how long an invoice takes payments before the expiry sweep cancels it. */
  invoiceLifetimeSeconds: 900,
  /** GATEWAY_RETRY_SCALE: multiplies the callback retry schedule and its 72-hour window (tests run it in seconds). */
  callbackRetryScale: 1,
  /** GATEWAY_SECRET_OVERLAP_S: how long a rotated callback secret keeps signing beside the new one. */
  callbackSecretOverlapSeconds: 24 * 3600,
  /** GATEWAY_CHAIN_POLL_S: how often a chain watcher reads its network (locally a run per tick; in AWS within each invocation). */
  chainPollSeconds: 5,
  /** GATEWAY_PAYOUT_STUCK_S: how long a payout's transaction may wait unmined before it is replaced with higher fees. */
  payoutStuckSeconds: 600,
  /** GATEWAY_PROVIDER_DELAY_S: how long the demo provider takes to decide a UTR. */
  demoProviderDelaySeconds: 2,
} as const;
