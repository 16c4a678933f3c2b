/** The ledger's functions: balances and their entries, reports, and the hourly books check. */
import { BOTH, IDEMPOTENCY_RECORDS, type GatewayFunction } from './function-definition.js';

export const LEDGER_FUNCTIONS = [
  {
    kind: 'http',
    name: 'list-balances',
    method: 'GET',
    path: '/api/v2/balances',
    auth: 'apiKey',
    scope: 'read',
    stages: BOTH,
    // Every currency's balance read by key in one batch: consistent with the last posting, and no index to keep.
    tables: { balances: ['BatchGetItem'] },
  },
  {
    kind: 'http',
    name: 'list-balance-entries',
    method: 'GET',
    path: '/api/v2/balance/entries',
    auth: 'apiKey',
    scope: 'read',
    stages: BOTH,
    tables: {},
    queries: { balanceEntries: ['byMerchant', 'byMerchantCurrency', 'byMerchantType', 'byTransaction'] },
  },
  {
    kind: 'http',
    name: 'create-report',
    method: 'POST',
    path: '/api/v2/reports',
    auth: 'apiKey',
    scope: 'reports',
    stages: BOTH,
    // The report is recorded pending, then queued for its builder; one that cannot be queued is failed.
    tables: { reports: ['PutItem', 'UpdateItem'], idempotency: IDEMPOTENCY_RECORDS },
    sendsTo: ['reports'],
  },
  {
    kind: 'http',
    name: 'get-report',
    method: 'GET',
    path: '/api/v2/reports/{reportId}',
    auth: 'apiKey',
    scope: 'read',
    stages: BOTH,
    tables: { reports: ['GetItem'] },
    reportFiles: 'links',
  },
  {
    // Builds a report's CSV file off the request path, streaming its rows into the file a part at a
    // time; a report bigger than one invocation builds is queued again, and the next goes on with it.
    kind: 'queue',
    name: 'build-report',
    queue: 'reports',
    batchSize: 1,
    stages: BOTH,
    tables: { reports: ['GetItem', 'UpdateItem'] },
    queries: { transactions: ['byMerchant'], balanceEntries: ['byMerchant', 'byMerchantCurrency'] },
    reportFiles: 'writes',
    sendsTo: ['reports'],
    // Four minutes of work an invocation, then BUILD_RESERVE_MS (functions/build-report.ts) to finish
    // the part under way and hand the rest on; memory for a part and the rows being read.
    timeoutSeconds: 300,
    memoryMb: 512,
  },
  {
    // The books balance (docs/operations.md#the-hourly-check): per merchant and currency, the entries sum to the balance, and every settled transaction has its entries.
    kind: 'schedule',
    name: 'check-books',
    everySeconds: 3600,
    stages: BOTH,
    // The changes since the last run, then the full pass (every merchant's books) for the time left:
    // balances read by key and their entries in order of sequence from where the last reading
    // stopped (booksCheck keeps where), the entries a transaction calls for asked by key. A
    // merchant whose books differ has its payouts held, on its item (shared/domain/ledger/books-hold.ts).
    tables: { balances: ['GetItem'], balanceEntries: ['BatchGetItem'], merchants: ['UpdateItem'], booksCheck: ['GetItem', 'PutItem', 'UpdateItem'] },
    queries: { merchants: ['directory'], transactions: ['changes', 'byMerchant'], balances: ['changes'], balanceEntries: ['bySequence'] },
    // Ten minutes of work a run, then BOOKS_CHECK_RESERVE_MS (functions/check-books.ts) to finish
    // the step under way and save where the next run goes on.
    timeoutSeconds: 720,
    memoryMb: 512,
  },
] as const satisfies readonly GatewayFunction[];
