/** The OpenAPI description of the ledger's routes: balances, their entries and reports, with their examples (shared/routes/route-doc.ts). */
import {
  balanceEntryViewSchema,
  balancesViewSchema,
  createReportRequestSchema,
  listBalanceEntriesQuerySchema,
  REPORT_LINK_SECONDS,
  reportAcceptedSchema,
  reportViewSchema,
  type BalanceEntryView,
  type BalanceView,
  type CreateReportRequest,
  type ReportView,
} from '../domain/ledger/index.js';
import { pageSchema, type Page } from '../domain/kernel/index.js';
import { AUTH_ERRORS, BODY_ERRORS, IDEMPOTENCY_CONFLICT, QUERY_ERRORS, type RouteDocs, EXAMPLE_IDS, PAGE_QUERY_EXAMPLE } from './route-doc.js';
import type { LEDGER_FUNCTIONS } from './ledger.js';

export const balancesExample: { items: BalanceView[] } = {
  items: [
    { currency: 'TRY', available: '8500.00', reserved: '1500.00' },
    { currency: 'USDT', available: '24.500000', reserved: '0.000000' },
  ],
};

export const listBalanceEntriesQueryExample = { currency: 'USDT', type: 'deposit', transactionId: EXAMPLE_IDS.transactionId, ...PAGE_QUERY_EXAMPLE };

/** The deposit of transactionExample and its fee, posted together. */
export const balanceEntryPageExample: Page<BalanceEntryView> = {
  items: [
    {
      id: '0b8f4a52-3c1e-5d7a-9e26-4f1a8c3b7d90',
      transactionId: EXAMPLE_IDS.transactionId,
      type: 'fee',
      currency: 'USDT',
      amount: '-0.500000',
      availableAfter: '24.500000',
      reservedAfter: '0.000000',
      createdAt: '2025-06-01T10:04:12.000Z',
    },
    {
      id: '5d2c7e19-8a4b-5f3c-a1d6-9e0b2f4c6a83',
      transactionId: EXAMPLE_IDS.transactionId,
      type: 'deposit',
      currency: 'USDT',
      amount: '25.000000',
      availableAfter: '25.000000',
      reservedAfter: '0.000000',
      createdAt: '2025-06-01T10:04:12.000Z',
    },
  ],
  nextCursor: null,
};

export const createReportExample: CreateReportRequest = { type: 'transactions', createdFrom: '2025-06-01T00:00:00Z', createdTo: '2025-07-01T00:00:00Z', currency: 'USDT' };

export const reportAcceptedExample = { id: EXAMPLE_IDS.reportId, status: 'pending' as const };

export const reportExample: ReportView = {
  id: EXAMPLE_IDS.reportId,
  type: 'transactions',
  status: 'ready',
  rows: 1284,
  url: `https://reports.example.s3.amazonaws.com/${EXAMPLE_IDS.merchantId}/${EXAMPLE_IDS.reportId}.csv?X-Amz-Expires=900&X-Amz-Signature=…`,
  expiresAt: '2025-07-01T09:15:00.000Z',
};

export const LEDGER_DOCS: RouteDocs<typeof LEDGER_FUNCTIONS> = {
  'list-balances': {
    summary: 'Balances',
    description:
      "The merchant's `available` and `reserved` money in each currency it has had money in. Confirmed deposits credit " +
      '`available` (less their fee); a withdrawal moves its amount and fee from `available` to `reserved` when it is accepted, ' +
      'and takes them out when it is confirmed, or moves them back when it fails. Read consistently: a deposit confirmed a ' +
      'moment ago is in it.',
    tag: 'Balances',
    schemaName: 'ListBalances',
    response: balancesViewSchema,
    responseExample: balancesExample,
    success: 'One balance per currency, by currency code',
    errors: { ...AUTH_ERRORS },
  },
  'list-balance-entries': {
    summary: 'Balance entries',
    description:
      'The entries that moved the balances, newest first, a page at a time: follow `nextCursor` until it is null. Each is ' +
      'written in the same database transaction as the state of the transaction it accounts for, once: `deposit` and `fee` ' +
      'for a confirmed deposit; `payout_reserve` for an accepted withdrawal, then `payout` and `fee` when it is confirmed or ' +
      '`payout_release` when it fails; likewise `refund_reserve`, then `refund` or `refund_release`, for a refund; `adjustment` for a correction by the operator. `amount` is signed; `availableAfter` and ' +
      '`reservedAfter` are the balances right after the entry. Filters combine; each is read from an index of its own.',
    tag: 'Balances',
    schemaName: 'ListBalanceEntries',
    query: listBalanceEntriesQuerySchema,
    queryExample: listBalanceEntriesQueryExample,
    response: pageSchema(balanceEntryViewSchema),
    responseExample: balanceEntryPageExample,
    success: 'A page of balance entries',
    errors: { ...QUERY_ERRORS, ...AUTH_ERRORS },
  },
  'create-report': {
    summary: 'Ask for a report',
    description:
      "A CSV file of the merchant's `transactions` (deposits and withdrawals) or `balance_entries` created in the range " +
      '(both ends inclusive), in one currency when `currency` is given. It is built off the request path: the answer is the ' +
      "report's id, `pending`; read it with `GET /api/v2/reports/{reportId}` until it is `ready`. The file is RFC 4180 " +
      '(UTF-8, CRLF, a header row, one row per record, oldest first, amounts as decimal text) and has no limit on its rows. ' +
      'A range that does not run forwards, is longer than one year, or ends in the future is a 422 naming `createdTo`.',
    tag: 'Reports',
    schemaName: 'CreateReport',
    request: createReportRequestSchema,
    requestExample: createReportExample,
    response: reportAcceptedSchema,
    responseExample: reportAcceptedExample,
    success: 'Recorded and queued for building',
    successStatus: 202,
    errors: { ...BODY_ERRORS, 409: IDEMPOTENCY_CONFLICT, ...AUTH_ERRORS },
  },
  'get-report': {
    summary: 'Retrieve a report',
    description:
      `A report and, once it is \`ready\`, a link to its file valid ${REPORT_LINK_SECONDS / 60} minutes from this answer: ask again for ` +
      "a new one. `failed`: it could not be built; ask for it again. Reports are kept 7 days. Another merchant's report is a 404.",
    tag: 'Reports',
    schemaName: 'GetReport',
    response: reportViewSchema,
    responseExample: reportExample,
    success: 'The report',
    errors: { 404: 'No report of this merchant has this id', ...AUTH_ERRORS },
    notFound: 'Report',
  },
};
