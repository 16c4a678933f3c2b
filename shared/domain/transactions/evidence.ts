/**
 * What shows that a transaction's money moved, recorded with the state change it justifies
 * (decisions on receipts): the transfer on chain, the provider's word, or a simulation. A
 * transaction receipt carries it signed; a field absent here was not known when it was written.
 */

/** A transfer on chain: where it is, whom it paid, and how deep it was when it was credited or settled. */
export interface ChainEvidence {
  source: 'chain';
  network: string;
  transactionHash: string;
  blockNumber: number;
  /** Absent only in a payout settled before its block's hash was recorded. */
  blockHash?: string;
  /** An EVM or Tron token transfer's log index; null for a native transfer. Absent for a Bitcoin output, and in a token payout settled before its log was recorded. */
  logIndex?: number | null;
  /** A Bitcoin output's index in its transaction. */
  outputIndex?: number;
  /** The address paid: a deposit address, or a payout's or refund's destination. */
  to: string;
  /** The token's contract; null for the network's own coin. */
  contract: string | null;
  /** Blocks, its own included, on top of the transfer when it was credited or settled. */
  confirmations: number;
}

/** A payment provider's decision: the event that told it (its `webhook-id` and time), or null when a status read did. */
export interface ProviderEvidence {
  source: 'provider';
  providerId: string;
  providerReference: string;
  utr: string | null;
  webhookId: string | null;
  webhookTimestamp: string | null;
}

/** A transaction of the demo's simulation API: no money moved anywhere. */
export interface SimulationEvidence {
  source: 'simulation';
}

export type TransactionEvidence = ChainEvidence | ProviderEvidence | SimulationEvidence;

/** A provider event's authenticated `webhook-id` and its time. */
export interface ProviderEventStamp {
  webhookId: string;
  /** ISO 8601. */
  at: string;
}

/** The provider's evidence of a decision on one of its payments, payouts or refunds. */
export const providerEvidence = (providerId: string, providerReference: string, utr: string | undefined, event: ProviderEventStamp | undefined): ProviderEvidence => ({
  source: 'provider',
  providerId,
  providerReference,
  utr: utr ?? null,
  webhookId: event?.webhookId ?? null,
  webhookTimestamp: event?.at ?? null,
});
