/**
 * What the functions' logs, traces and metrics are named, for the emitters and the stacks'
 * dashboards and alarms alike: one definition, imported by both.
 */

/** The service name of logs, traces and metrics, and the stacks' `service` tag. */
export const SERVICE_NAME = 'payment-gateway';

/** The CloudWatch namespace of the business metrics the functions emit and the stacks plot. */
export const METRICS_NAMESPACE = 'PaymentGateway';

export interface BusinessMetricDefinition {
  name: string;
  unit: 'Count' | 'Milliseconds' | 'Seconds' | 'NoUnit';
  /** The dimension besides `service` and `stage`, when the metric has one. */
  dimension?: string;
}

/** Every business metric, by what it counts or measures: one definition for the emitters and the dashboards. */
export const BUSINESS_METRICS = {
  /** An invoice created (not a replay), by payment method (`crypto` or a fiat method code). */
  invoicesCreated: { name: 'InvoicesCreated', unit: 'Count', dimension: 'method' },
  /** A deposit reaching `confirmed`, by source: `simulated`, `fiat` (a provider's decision) or `chain`. */
  depositsConfirmed: { name: 'DepositsConfirmed', unit: 'Count', dimension: 'source' },
  /** A deposit reaching `failed`, by source. */
  depositsFailed: { name: 'DepositsFailed', unit: 'Count', dimension: 'source' },
  callbacksDelivered: { name: 'CallbacksDelivered', unit: 'Count' },
  /** A delivery attempt that failed and will be retried. */
  callbacksFailed: { name: 'CallbacksFailed', unit: 'Count' },
  /** A callback given up on after its 72-hour window, parked in the dead-letter queue. */
  callbacksParked: { name: 'CallbacksParked', unit: 'Count' },
  /** From the state change a callback announces to its delivery: what a merchant waits. */
  callbackDeliveryLatency: { name: 'CallbackDeliveryLatency', unit: 'Milliseconds' },
  /** After each fetch-rates run, the age of the oldest live price (a price never fetched leaves the run without one). */
  rateAge: { name: 'RateAge', unit: 'Seconds' },
  /** After each reconciliation run, the provider transactions still processing after a day (docs/operations.md#payment-providers): alarmed above zero. */
  providerOverdue: { name: 'ProviderTransactionsOverdue', unit: 'Count' },
  /** Provider calls of a reconciliation run that failed (a provider down, an answer outside the protocol). */
  providerFailures: { name: 'ProviderCallFailures', unit: 'Count' },
  /** After each books check, the differences it found (docs/operations.md#the-books): alarmed above zero. */
  booksDifferences: { name: 'BooksDifferences', unit: 'Count' },
  /**
   * A payout the treasury cannot pay yet: how much of the asset it lacks, in the asset's units, by
   * `asset` (`{network}/{asset}`), and once more without the dimension, which alarms above zero.
   */
  treasuryShortfall: { name: 'TreasuryShortfall', unit: 'NoUnit', dimension: 'asset' },
} as const satisfies Record<string, BusinessMetricDefinition>;

/**
 * What each RPC endpoint of a watched network did in a watcher run (shared/chain/failover-reader.ts),
 * one data point per endpoint and run with the dimensions `network` and `endpoint` (its place in the
 * list, 1 first: never its URL, which may carry a key); and per network and run, whether a call found
 * every endpoint failing (0 or 1), which alarms.
 */
export const CHAIN_RPC_METRICS = {
  answered: { name: 'ChainRpcAnswered', unit: 'Count' },
  failed: { name: 'ChainRpcFailed', unit: 'Count' },
  /** 1 when the endpoint's head trailed the best by more than the network's confirmations. */
  lagging: { name: 'ChainRpcLagging', unit: 'Count' },
  allFailed: { name: 'ChainRpcAllFailed', unit: 'Count' },
} as const satisfies Record<string, Omit<BusinessMetricDefinition, 'dimension'>>;
