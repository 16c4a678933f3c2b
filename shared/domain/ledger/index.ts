export { BalanceService } from './balance-service.js';
export type { AdjustmentRequest } from './balance-service.js';
export {
  BALANCE_CURRENCIES,
  BALANCE_ENTRY_TYPES,
  balanceEntryView,
  balanceEntryViewSchema,
  balancesViewSchema,
  heldFor,
  listBalanceEntriesQuerySchema,
  requireAvailable,
  writeWithEntries,
} from './balances.js';
export type { Balance, BalanceEntry, BalanceEntryFilters, BalanceEntryView, BalancePosting, BalanceReader, BalanceView, ListBalanceEntriesQuery } from './balances.js';
export { BooksCheck } from './books-check.js';
export type { BalanceKey, BooksCheckState, BooksCheckStore, CheckedTransaction, EntrySums, RecordPosition, SequencedEntry } from './books-check.js';
export { payingMerchant } from './books-hold.js';
export type { BooksHolds } from './books-hold.js';
export { countOfNewInvoice, countsOfLedgerWrite, DailyTotalsRecount } from './daily-totals.js';
export type { DailyCount, DailyTotals, DailyTotalsStore, DayTotals } from './daily-totals.js';
export { ReportService } from './report-service.js';
export type { ReportLinks, ReportRange, ReportServiceDeps, ReportStore, ReportWriter } from './report-service.js';
export { createReportRequestSchema, REPORT_LINK_SECONDS, REPORT_RETENTION_DAYS, REPORT_TYPES, reportAcceptedSchema, reportViewSchema } from './reports.js';
export type { CreateReportRequest, Report, ReportLease, ReportProgress, ReportUpload, ReportView } from './reports.js';
