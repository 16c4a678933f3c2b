/**
 * Reports (docs/merchant-guide.md#reports): a merchant's transactions or balance entries over a
 * range of creation times, as one CSV file (RFC 4180, UTF-8, a header row, one row per record,
 * amounts as decimal text) built off the request path. The request's rules, the record a report
 * is kept as, and the file's rows are pure.
 */
import * as z from 'zod';
import { BALANCE_CURRENCIES, balanceEntryView, type BalanceEntry } from './balances.js';
import { createdTime } from './pagination.js';
import type { Transaction } from './transactions.js';

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
    type: z.enum(REPORT_TYPES).describe('`transactions`: deposits and withdrawals; `balance_entries`: the lines of the books'),
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
}

export const reportViewSchema = z.object({
  id: z.uuid(),
  type: z.enum(REPORT_TYPES),
  status: z.enum(REPORT_STATUSES).describe('`pending` while it is built; `ready` with its link; `failed` if it could not be built (ask again)'),
  rows: z.int().nullable().describe('Rows of the file, its header aside; null until ready'),
  url: z.string().nullable().describe(`The CSV file, valid ${REPORT_LINK_SECONDS / 60} minutes from this answer (ask again for a new link); null until ready`),
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

/** One CSV record, CRLF-terminated (RFC 4180). */
export const csvRecord = (fields: ReadonlyArray<string | number | null | undefined>): string => `${fields.map(csvField).join(',')}\r\n`;

const TRANSACTION_COLUMNS = [
  'id',
  'createdAt',
  'updatedAt',
  'type',
  'status',
  'invoiceId',
  'orderId',
  'customerId',
  'currency',
  'amount',
  'processingFee',
  'technicalFee',
  'network',
  'transactionHash',
  'usd',
  'eur',
] as const;

const ENTRY_COLUMNS = ['id', 'createdAt', 'transactionId', 'type', 'currency', 'amount', 'availableAfter', 'reservedAfter', 'reason'] as const;

export const transactionRow = (t: Transaction): string =>
  csvRecord([t.id, t.createdAt, t.updatedAt, t.type, t.status, t.invoiceId, t.orderId, t.customerId, t.currency, t.amount, t.fees.processing, t.fees.technical, t.network, t.transactionHash, t.usd, t.eur]);

export function entryRow(entry: BalanceEntry): string {
  const view = balanceEntryView(entry);
  return csvRecord([view.id, view.createdAt, view.transactionId, view.type, view.currency, view.amount, view.availableAfter, view.reservedAfter, entry.reason]);
}

/** The header row of a report's file. */
export const reportHeader = (type: ReportType): string => csvRecord(type === 'transactions' ? TRANSACTION_COLUMNS : ENTRY_COLUMNS);
