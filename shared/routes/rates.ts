/** The rates' functions: the live prices' fetcher. */
import { BOTH, type GatewayFunction } from './function-definition.js';

export const RATES_FUNCTIONS = [
  {
    // Stores the newest price of every currency priced live, so invoices never convert at a stale one.
    kind: 'schedule',
    name: 'fetch-rates',
    everySeconds: 60,
    onlyWithLiveRates: true,
    stages: BOTH,
    // Each price is a conditional put; then all are read back to report the oldest one's age.
    tables: { rates: ['PutItem', 'BatchGetItem'] },
    // The ticker request is bounded by TICKER_TIMEOUT_MS; the writes are a few conditional puts.
    timeoutSeconds: 30,
  },
] as const satisfies readonly GatewayFunction[];
