/**
 * Reports (docs/merchant-guide.md#reports): a merchant's transactions or balance entries over a
 * range of creation times, as one CSV file (RFC 4180, UTF-8, a header row, one row per record,
 * amounts as decimal text) built off the request path. The request's rules, the record a report
 * is kept as, and the file's rows are pure.
 */
import * as z from 'zod';
import { BALANCE_CURRENCIES, balanceEntryView, type BalanceEntry, type BalanceEntryView } from './balances.js';
import { createdTime } from '../kernel/index.js';
import type { Transaction } from '../transactions/index.js';

export const REPORT_TYPES = ['transactions', 'balance_entries'] as const;
export type ReportType = (typeof REPORT_TYPES)[number];

export const REPORT_STATUSES = ['pending', 'ready', 'failed'] as const;
export type ReportStatus = (typeof REPORT_STATUSES)[number];

/** How long a report's link is valid once it is handed out. */
export const REPORT_LINK_SECONDS = 15 * 60;

/** How long a report (its record and its file) is kept after it is asked for. */
export const REPORT_RETENTION_DAYS = 7;

/** The longest range a report covers: one year, to the same time of day and month. */
const endOfLongestRange = (from: Date): Date => {
  const end = new Date(from);
  end.setUTCFullYear(end.getUTCFullYear() + 1);
  return end;
};

export const createReportRequestSchema = z
  .strictObject({
    type: z.enum(REPORT_TYPES).describe('`transactions`: deposits, withdrawals and refunds; `balance_entries`: the lines of the books'),
    createdFrom: createdTime().describe('Records created at or after this time (ISO 8601 date-time with a time zone)'),
    createdTo: createdTime().describe('Records created at or before this time; at most one year after createdFrom, and not in the future'),
    currency: z.enum(BALANCE_CURRENCIES).optional().describe('Only records in this currency'),
  })
  .refine((request) => Date.parse(request.createdFrom) < Date.parse(request.createdTo), { path: ['createdTo'], message: 'createdTo must be after createdFrom' })
  .refine((request) => Date.parse(request.createdTo) <= endOfLongestRange(new Date(request.createdFrom)).getTime(), {
    path: ['createdTo'],
    message: 'A report covers at most one year: createdTo must be at most one year after createdFrom',
  });

export type CreateReportRequest = z.output<typeof createReportRequestSchema>;

/** A report as stored. */
export interface Report {
  id: string;
  merchantId: string;
  type: ReportType;
  status: ReportStatus;
  /** The range, as stored times (UTC, milliseconds). */
  createdFrom: string;
  createdTo: string;
  currency: string | null;
  /** Rows of the file, its header aside; known once it is ready. */
  rows: number | null;
  /** Where the file is kept, once it is ready. */
  fileKey: string | null;
  createdAt: string;
  updatedAt: string;
  /** Epoch seconds after which the record is deleted. */
  expiration: number;
  /** While it is built over several invocations: what its file has so far. */
  progress?: ReportProgress;
  /** The invocation building it, until when: another one handed the same message leaves it alone meanwhile. */
  building?: ReportLease;
}

/** An upload of a file in parts: the store's id of it, and what the store answered for each part written, in order. */
export interface ReportUpload {
  id: string;
  parts: string[];
}

/** How far a report's file is built: the parts uploaded, their rows, and the last record in them. */
export interface ReportProgress {
  /** Rows in the parts uploaded, the header aside. */
  rows: number;
  /** The last record in them, which the next invocation reads on after; null before the first. */
  after: { id: string; createdAt: string } | null;
  upload: ReportUpload;
}

export interface ReportLease {
  /** Which invocation holds it. */
  token: string;
  /** When that invocation ends at the latest. */
  until: string;
}

export const reportViewSchema = z.object({
  id: z.uuid(),
  type: z.enum(REPORT_TYPES),
  status: z.enum(REPORT_STATUSES).describe('`pending` while it is built; `ready` with its link; `failed` if it could not be built (ask again)'),
  rows: z.int().nullable().describe('Rows of the file, its header aside; null until ready'),
  url: z
    .string()
    .nullable()
    .describe(`The CSV file, valid ${REPORT_LINK_SECONDS / 60} minutes from this answer (ask again for a new link); null until ready`),
  expiresAt: z.iso.datetime().nullable().describe('When `url` stops working'),
});

export type ReportView = z.output<typeof reportViewSchema>;

/** The answer to a new report: it is built off the request path. */
export const reportAcceptedSchema = z.object({ id: z.uuid(), status: z.literal('pending') });

/** The report a request asks for, pending. */
export function newReport(merchantId: string, request: CreateReportRequest, id: string, now: Date): Report {
  const at = now.toISOString();
  return {
    id,
    merchantId,
    type: request.type,
    status: 'pending',
    createdFrom: new Date(request.createdFrom).toISOString(),
    createdTo: new Date(request.createdTo).toISOString(),
    currency: request.currency ?? null,
    rows: null,
    fileKey: null,
    createdAt: at,
    updatedAt: at,
    expiration: Math.floor(now.getTime() / 1000) + REPORT_RETENTION_DAYS * 86_400,
  };
}

/** Where a report's file is kept: under its merchant, by its id. */
export const reportFileKey = (report: Pick<Report, 'merchantId' | 'id'>): string => `${report.merchantId}/${report.id}.csv`;

/** A CSV field as RFC 4180 writes it: quoted when it holds a comma, a quote or a line break, quotes doubled. */
export function csvField(value: string | number | null | undefined): string {
  const text = value === null || value === undefined ? '' : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** What a spreadsheet takes for the start of a formula (OWASP, "CSV Injection"). */
const FORMULA_START = /^[=+\-@\t\r]/;

/** The gateway's own decimal text: a spreadsheet reads it as the number it is, a negative one included. */
const DECIMAL = /^-?\d+(\.\d+)?$/;

/**
 * A text cell a spreadsheet shows as text: one that starts as a formula does (`=HYPERLINK(…)`,
 * `+1`, `-2+3`, `@SUM(…)`, a tab or a carriage return) gets a leading `'`, as OWASP's CSV-injection
 * guidance says, and a spreadsheet opening the file shows it without running it.
 */
export const neutralizedText = (text: string): string => (FORMULA_START.test(text) ? `'${text}` : text);

/**
 * A column of a report: its header and its cell of a row. Every cell is text, neutralized, but an
 * `amount` column's: the gateway's decimals stay numbers (a negative entry is `-10.00`), and any
 * value there that is not a decimal is neutralized all the same.
 */
interface Column<Row> {
  name: string;
  cell: (row: Row) => string | null | undefined;
  amount?: true;
}

const cellText = <Row>(column: Column<Row>, row: Row): string => {
  const value = column.cell(row) ?? '';
  return column.amount && DECIMAL.test(value) ? value : neutralizedText(value);
};

/** One CSV record, CRLF-terminated (RFC 4180). */
const csvRecord = (fields: readonly string[]): string => `${fields.map(csvField).join(',')}\r\n`;

const TRANSACTION_COLUMNS: ReadonlyArray<Column<Transaction>> = [
  { name: 'id', cell: (t) => t.id },
  { name: 'createdAt', cell: (t) => t.createdAt },
  { name: 'updatedAt', cell: (t) => t.updatedAt },
  { name: 'type', cell: (t) => t.type },
  { name: 'status', cell: (t) => t.status },
  { name: 'invoiceId', cell: (t) => t.invoiceId },
  { name: 'orderId', cell: (t) => t.orderId },
  { name: 'customerId', cell: (t) => t.customerId },
  { name: 'currency', cell: (t) => t.currency },
  { name: 'amount', cell: (t) => t.amount, amount: true },
  { name: 'processingFee', cell: (t) => t.fees.processing, amount: true },
  { name: 'technicalFee', cell: (t) => t.fees.technical, amount: true },
  { name: 'network', cell: (t) => t.network },
  { name: 'transactionHash', cell: (t) => t.transactionHash },
  { name: 'usd', cell: (t) => t.usd, amount: true },
  { name: 'eur', cell: (t) => t.eur, amount: true },
];

/** A balance entry as a report shows it: as listed, and the operator's reason of an adjustment. */
type EntryRow = BalanceEntryView & Pick<BalanceEntry, 'reason'>;

const ENTRY_COLUMNS: ReadonlyArray<Column<EntryRow>> = [
  { name: 'id', cell: (entry) => entry.id },
  { name: 'createdAt', cell: (entry) => entry.createdAt },
  { name: 'transactionId', cell: (entry) => entry.transactionId },
  { name: 'type', cell: (entry) => entry.type },
  { name: 'currency', cell: (entry) => entry.currency },
  { name: 'amount', cell: (entry) => entry.amount, amount: true },
  { name: 'availableAfter', cell: (entry) => entry.availableAfter, amount: true },
  { name: 'reservedAfter', cell: (entry) => entry.reservedAfter, amount: true },
  { name: 'reason', cell: (entry) => entry.reason },
];

const rowOf = <Row>(columns: ReadonlyArray<Column<Row>>, row: Row): string => csvRecord(columns.map((column) => cellText(column, row)));

export const transactionRow = (transaction: Transaction): string => rowOf(TRANSACTION_COLUMNS, transaction);

export const entryRow = (entry: BalanceEntry): string => rowOf(ENTRY_COLUMNS, { ...balanceEntryView(entry), reason: entry.reason });

/** The header row of a report's file. */
export const reportHeader = (type: ReportType): string => csvRecord((type === 'transactions' ? TRANSACTION_COLUMNS : ENTRY_COLUMNS).map((column) => column.name));
