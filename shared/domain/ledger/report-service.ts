/**
 * Reports over small ports (docs/merchant-guide.md#reports): a request is recorded pending and
 * queued; the builder streams the records into the file a part at a time, never holding them all,
 * and once its invocation's budget is spent hands the rest to the next invocation through the
 * queue (docs/operations.md#reports); a ready report's link is made anew, valid 15 minutes, each
 * time it is read.
 */
import type { BalanceEntry } from './balances.js';
import { Invalid, isUuid, NotFound, Unavailable, type WorkBudget } from '../kernel/index.js';
import {
  entryRow,
  newReport,
  REPORT_LINK_SECONDS,
  reportFileKey,
  reportHeader,
  transactionRow,
  type CreateReportRequest,
  type Report,
  type ReportLease,
  type ReportProgress,
  type ReportUpload,
  type ReportView,
} from './reports.js';
import type { Transaction } from '../transactions/index.js';

export interface ReportStore {
  create(report: Report): Promise<void>;
  get(id: string): Promise<Report | undefined>;
  /** Records a pending report's outcome, its progress and lease gone; false when it was no longer pending (built already). */
  finish(id: string, outcome: Pick<Report, 'status' | 'rows' | 'fileKey' | 'updatedAt'>): Promise<boolean>;
  /** The merchant's newest reports, at most `limit`, newest first. */
  newestOf(merchantId: string, limit: number): Promise<Report[]>;
  /**
   * Takes a pending report to build under `lease`, unless the lease of another invocation runs
   * past `now`: the report as it is then (with its progress), or undefined.
   */
  claim(id: string, lease: ReportLease, now: Date): Promise<Report | undefined>;
  /** Records the report's progress while `lease` is still its own, and gives the lease up when `release`; false when it was not. */
  saveProgress(id: string, progress: ReportProgress, lease: ReportLease, release: boolean): Promise<boolean>;
}

/** How many of a merchant's reports the dashboard lists. */
export const RECENT_REPORTS = 20;

/**
 * S3's least part of a multipart upload but the last: a builder uploads its rows in parts of at
 * least this much, and stops between two (docs/operations.md#reports).
 */
export const REPORT_PART_BYTES = 5 * 2 ** 20;

/**
 * Writes report files where they are kept, privately, in parts that an upload of one invocation
 * may take and another go on with: each part written under its number replaces one written before
 * under it, so that writing a part again never doubles its rows.
 */
export interface ReportWriter {
  /** Begins a file's upload. */
  begin(key: string): Promise<ReportUpload>;
  /** Writes the upload's next part (number `parts.length + 1`); all but the last are at least REPORT_PART_BYTES. */
  part(key: string, upload: ReportUpload, body: string): Promise<ReportUpload>;
  /** Makes the file of the parts, in order. */
  complete(key: string, upload: ReportUpload): Promise<void>;
  /** Gives the upload up, its parts with it. */
  abort(key: string, upload: ReportUpload): Promise<void>;
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

/** A record's place in the range: the records after it are read on from there. */
export type RecordAfter = ReportProgress['after'];

export interface ReportRecords {
  transactions(range: ReportRange, after: RecordAfter): AsyncIterable<Transaction>;
  entries(range: ReportRange, after: RecordAfter): AsyncIterable<BalanceEntry>;
}

/** Each function is given what it does of reports: asking (the queue), building (records, writer, the queue to go on) or reading (links). */
export interface ReportServiceDeps {
  reports: ReportStore;
  /** Hands a report to its builder. */
  queue?: { send(reportId: string): Promise<void> };
  records?: ReportRecords;
  writer?: ReportWriter;
  links?: ReportLinks;
  /** The size of a part, REPORT_PART_BYTES unless a test or a bench wants more of them. */
  partBytes?: number;
  clock: () => Date;
  newId: () => string;
}

/** One invocation's go at a report: the queue's last try or not, the work it may do, and when it ends at the latest. */
export interface BuildAttempt {
  last: boolean;
  budget: WorkBudget;
  until: Date;
}

/**
 * What a build came to: the report's status, `continued` when the next invocation goes on with it,
 * `building` when another invocation holds it, `gone` when there is no such report.
 */
export type BuildOutcome = Report['status'] | 'continued' | 'building' | 'gone';

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
   * Builds a pending report's file, going on from where an earlier invocation stopped: reads the
   * records after the last one uploaded, and uploads them a part at a time, recording after each
   * part how far the file is; once `attempt.budget` is spent, records that, and hands the report
   * to the next invocation through the queue. One built already is left as it is (a message
   * handled twice), and so is one another invocation holds. A failure is thrown for the queue to
   * try again from the last part recorded; at the `last` attempt the report is failed first.
   */
  async build(id: string, attempt: BuildAttempt): Promise<BuildOutcome> {
    const writer = this.given('writer');
    const report = await this.deps.reports.get(id);
    if (!report) return 'gone';
    if (report.status !== 'pending') return report.status;
    const lease: ReportLease = { token: this.deps.newId(), until: attempt.until.toISOString() };
    const claimed = await this.deps.reports.claim(id, lease, this.deps.clock());
    if (!claimed) return 'building';
    const fileKey = reportFileKey(report);
    let progress = claimed.progress;
    try {
      if (!progress) {
        // Recorded at once: an attempt after a failure goes on with the same upload, and the last one gives it up.
        progress = { rows: 0, after: null, upload: await writer.begin(fileKey) };
        if (!(await this.deps.reports.saveProgress(id, progress, lease, false))) return 'building';
      }
      const partBytes = this.deps.partBytes ?? REPORT_PART_BYTES;
      // The header opens the first part.
      let part = progress.upload.parts.length === 0 ? [reportHeader(report.type)] : [];
      let bytes = part.reduce((sum, text) => sum + Buffer.byteLength(text), 0);
      let { rows, after } = progress;
      for await (const { row, position } of this.rowsOf(report, progress.after)) {
        part.push(row);
        bytes += Buffer.byteLength(row);
        rows++;
        after = position;
        if (bytes < partBytes) continue;
        progress = { rows, after, upload: await writer.part(fileKey, progress.upload, part.join('')) };
        [part, bytes] = [[], 0];
        const handOver = attempt.budget.spent();
        if (!(await this.deps.reports.saveProgress(id, progress, lease, handOver))) return 'building';
        if (handOver) {
          // Given up first: the next invocation, which may begin at once, takes the report.
          await this.given('queue').send(id);
          return 'continued';
        }
      }
      const upload = part.length > 0 || progress.upload.parts.length === 0 ? await writer.part(fileKey, progress.upload, part.join('')) : progress.upload;
      await writer.complete(fileKey, upload);
      await this.deps.reports.finish(id, { status: 'ready', rows, fileKey, updatedAt: this.deps.clock().toISOString() });
      return 'ready';
    } catch (error) {
      if (attempt.last) {
        await this.deps.reports.finish(id, { status: 'failed', rows: null, fileKey: null, updatedAt: this.deps.clock().toISOString() });
        if (progress) await writer.abort(fileKey, progress.upload);
      }
      throw error;
    }
  }

  private given<Part extends 'queue' | 'records' | 'writer' | 'links'>(part: Part): NonNullable<ReportServiceDeps[Part]> {
    const given = this.deps[part];
    if (!given) throw new Error(`This report service was given no ${part}`);
    return given as NonNullable<ReportServiceDeps[Part]>;
  }

  /** A row per record after `after`, with the record's place, as the records are read. */
  private async *rowsOf(report: Report, after: RecordAfter): AsyncGenerator<{ row: string; position: NonNullable<RecordAfter> }> {
    const records = this.given('records');
    const range: ReportRange = { merchantId: report.merchantId, createdFrom: report.createdFrom, createdTo: report.createdTo, currency: report.currency };
    if (report.type === 'transactions') {
      for await (const transaction of records.transactions(range, after)) yield { row: transactionRow(transaction), position: { id: transaction.id, createdAt: transaction.createdAt } };
    } else {
      for await (const entry of records.entries(range, after)) yield { row: entryRow(entry), position: { id: entry.id, createdAt: entry.createdAt } };
    }
  }
}
