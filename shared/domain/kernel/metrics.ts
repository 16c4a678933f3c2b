/**
 * The business events the gateway counts, as a port: the domain says what happened, an adapter
 * (shared/observability/metrics.ts) turns it into CloudWatch metrics.
 */
import type { PaymentMethod } from './currencies.js';

/** Where a deposit's outcome comes from: the simulation API or the demo checkout, a payment provider's decision, or the chain. */
export type DepositSource = 'simulated' | 'fiat' | 'chain';

export interface BusinessMetrics {
  invoiceCreated(method: PaymentMethod): void;
  depositSettled(source: DepositSource, status: 'confirmed' | 'failed'): void;
  /** `latencyMs`: since the state change the callback announces. */
  callbackDelivered(latencyMs: number): void;
  /** An attempt failed; another follows. */
  callbackFailed(): void;
  callbackParked(): void;
  /** The oldest live price's age after a rates run. */
  rateAge(seconds: number): void;
  /** After a reconciliation run: provider transactions processing for over a day, and provider calls that failed. */
  reconciled(report: { overdue: number; failures: number }): void;
  /** After a books check: the differences it found. */
  booksChecked(differences: number): void;
  /** A payout waits: the treasury holds `short` too little of `asset` on `network`, in the asset's units. */
  treasuryShortfall(network: string, asset: string, short: number): void;
}
