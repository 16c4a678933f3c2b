/**
 * The demo provider's one DynamoDB table, apart from the gateway's: its payments, payouts and
 * refunds by provider reference. The CDK construct and the local process both create it from this.
 */
import type { TableDefinition } from '../shared/store/tables.js';

export const DEMO_PROVIDER_TABLE = {
  partitionKey: { name: 'providerReference', type: 'S' },
  ttlAttribute: 'purgeAt',
} as const satisfies TableDefinition;

/** A record is kept this long after it was made: long past any retry of the gateway's or of its events. */
export const RECORD_RETENTION_DAYS = 30;
