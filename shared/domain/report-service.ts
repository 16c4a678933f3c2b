/**
 * Reports over small ports (docs/merchant-guide.md#reports): a request is recorded pending and
 * queued; the builder streams the records into the file, row by row, never holding them all; a
 * ready report's link is made anew, valid 15 minutes, each time it is read.
 */
import type { BalanceEntry } from './balances.js';
import { Invalid, NotFound, Unavailable } from './errors.js';
import { isUuid } from './invoice-service.js';
import {
  entryRow,
  newReport,
  REPORT_LINK_SECONDS,
  reportFileKey,
  reportHeader,
  transactionRow,
  type CreateReportRequest,
  type Report,
  type ReportView,
} from './reports.js';
import type { Transaction } from './transactions.js';

export interface ReportStore {
  create(report: Report): Promise<void>;
  get(id: string): Promise<Report | undefined>;
  /** Records a pending report's outcome; false when it was no longer pending (built already). */
  finish(id: string, outcome: Pick<Report, 'status' | 'rows' | 'fileKey' | 'updatedAt'>): Promise<boolean>;
  /** The merchant's newest reports, at most `limit`, newest first. */
  newestOf(merchantId: string, limit: number): Promise<Report[]>;
}

/** How many of a merchant's reports the dashboard lists. */
export const RECENT_REPORTS = 20;

/** Writes report files where they are kept, privately. */
export interface ReportWriter {
  /** Writes the file from its chunks as they come (its size is unknown until the last). */
  write(key: string, chunks: AsyncIterable<string>): Promise<void>;
}

/** Hands out links to report files. */
export interface ReportLinks {
  /** A link that reads the file until `expiresAt`. */
  link(key: string, expiresAt: Date): Promise<string>;
}

/** A range of one merchant's records, oldest first. */
export interface ReportRange {
  merchantId: string;
  createdFrom: string;
  createdTo: string;
  currency: string | null;
}

export interface ReportRecords {
  transactions(range: ReportRange): AsyncIterable<Transaction>;
  entries(range: ReportRange): AsyncIterable<BalanceEntry>;
}

/** Each function is given what it does of reports: asking (the queue), building (records, writer) or reading (links). */
export interface ReportServiceDeps {
  reports: ReportStore;
  /** Hands a report to its builder. */
  queue?: { send(reportId: string): Promise<void> };
  records?: ReportRecords;
  writer?: ReportWriter;
  links?: ReportLinks;
  clock: () => Date;
  newId: () => string;
}

export class ReportService {
  constructor(private readonly deps: ReportServiceDeps) {}

  /** `POST /api/v2/reports`: records the report pending and hands it to the builder. */
  async create(merchantId: string, request: CreateReportRequest): Promise<{ id: string; status: 'pending' }> {
    const now = this.deps.clock();
    if (Date.parse(request.createdTo) > now.getTime()) throw Invalid.of('createdTo', 'createdTo must not be in the future');
    const queue = this.given('queue');
    const report = newReport(merchantId, request, this.deps.newId(), now);
    await this.deps.reports.create(report);
    try {
      await queue.send(report.id);
    } catch (error) {
      // Never built: it says so, rather than stay pending for ever.
      await this.deps.reports.finish(report.id, { status: 'failed', rows: null, fileKey: null, updatedAt: this.deps.clock().toISOString() });
      throw new Unavailable(`Reports cannot be built right now (${String(error)}); try again shortly`);
    }
    return { id: report.id, status: 'pending' };
  }

  /** `GET /api/v2/reports/{id}`: another merchant's report, or an id that is no report's (not a UUID), is not found. */
  async view(merchantId: string, id: string): Promise<ReportView> {
    const report = isUuid(id) ? await this.deps.reports.get(id) : undefined;
    if (!report || report.merchantId !== merchantId) throw new NotFound('Report');
    const { type, status, rows } = report;
    if (status !== 'ready' || !report.fileKey) return { id, type, status, rows, url: null, expiresAt: null };
    const expiresAt = new Date(this.deps.clock().getTime() + REPORT_LINK_SECONDS * 1000);
    return { id, type, status, rows, url: await this.given('links').link(report.fileKey, expiresAt), expiresAt: expiresAt.toISOString() };
  }

  /** The merchant's newest reports, as the dashboard lists them (their files are had through `view`). */
  async recent(merchantId: string): Promise<Array<Pick<Report, 'id' | 'type' | 'status' | 'rows' | 'createdAt'>>> {
    return (await this.deps.reports.newestOf(merchantId, RECENT_REPORTS)).map(({ id, type, status, rows, createdAt }) => ({ id, type, status, rows, createdAt }));
  }

  /**
   * Builds a pending report's file; one built already is left as it is (a message handled twice).
   * A failure is thrown for the queue to try again; at the `lastAttempt` the report is failed first.
   */
  async build(id: string, lastAttempt: boolean): Promise<Report['status'] | 'gone'> {
    const writer = this.given('writer');
    const report = await this.deps.reports.get(id);
    if (!report) return 'gone';
    if (report.status !== 'pending') return report.status;
    const counted = { rows: 0 };
    const fileKey = reportFileKey(report);
    try {
      await writer.write(fileKey, this.rowsOf(report, counted));
    } catch (error) {
      if (lastAttempt) await this.deps.reports.finish(id, { status: 'failed', rows: null, fileKey: null, updatedAt: this.deps.clock().toISOString() });
      throw error;
    }
    await this.deps.reports.finish(id, { status: 'ready', rows: counted.rows, fileKey, updatedAt: this.deps.clock().toISOString() });
    return 'ready';
  }

  private given<Part extends 'queue' | 'records' | 'writer' | 'links'>(part: Part): NonNullable<ReportServiceDeps[Part]> {
    const given = this.deps[part];
    if (!given) throw new Error(`This report service was given no ${part}`);
    return given as NonNullable<ReportServiceDeps[Part]>;
  }

  /** The file's text: the header, then a row per record, counted as they go. */
  private async *rowsOf(report: Report, counted: { rows: number }): AsyncGenerator<string> {
    yield reportHeader(report.type);
    const records = this.given('records');
    const range: ReportRange = { merchantId: report.merchantId, createdFrom: report.createdFrom, createdTo: report.createdTo, currency: report.currency };
    if (report.type === 'transactions') {
      for await (const transaction of records.transactions(range)) {
        counted.rows++;
        yield transactionRow(transaction);
      }
    } else {
      for await (const entry of records.entries(range)) {
        counted.rows++;
        yield entryRow(entry);
      }
    }
  }
}
