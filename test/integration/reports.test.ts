/**
 * Reports (docs/merchant-guide.md#reports) against DynamoDB Local: a report of 12,000 transactions,
 * about ten of the store's 1 MB pages, streamed from the store into its file (row count, header,
 * amounts exact, no other merchant's row), on a DynamoDB Local of its own, and a report of its
 * first 5,000 built a part per invocation (docs/operations.md#reports) into the same file byte for
 * byte as at once, though a message is handled twice at once or an invocation dies before it
 * records its part; then, through the route handlers on the run's store, a report built by the
 * queue function and read through its signed link, a balance entries report in one currency, built
 * at once and in turns, and the refusals. The queue between the two functions, and the link served
 * over HTTP, are tested with the local runtime in test/e2e/merchant-tools.test.ts.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureTable, localDynamoClient, startDynamoDbLocal, type DynamoDbLocal } from '../../infra/local/dynamodb.js';
import { randomLocalCredentials } from '../../infra/local/environment.js';
import { lambdaContext } from '../../infra/local/functions.js';
import { config } from '../../shared/config.js';
import { Decimal } from '../../shared/domain/kernel/money.js';
import { ReportService, type BuildAttempt, type ReportRecords } from '../../shared/domain/ledger/report-service.js';
import { createReportRequestSchema, reportHeader } from '../../shared/domain/ledger/reports.js';
import { FUNCTIONS } from '../../shared/routes.js';
import { DynamoBalanceStore } from '../../shared/store/balances.js';
import { documentClient } from '../../shared/store/dynamo.js';
import { FileReportFiles, openLinkedReport, REPORT_LINK_KEY_PURPOSE } from '../../shared/store/report-files.js';
import { DynamoReportStore } from '../../shared/store/reports.js';
import { TABLES } from '../../shared/store/tables.js';
import { DynamoTransactionStore, type TransactionTables } from '../../shared/store/transactions.js';
import { KeyFileDataKeySource } from '../../shared/vault/key-sources.js';
import { fundBalance } from '../support/balances.js';
import { invoke, loadFunction } from '../support/invoke.js';
import { seedMerchant, type SeededMerchant } from '../support/merchants.js';
import { seedTransactions, type SeededTransactions } from '../support/seed-transactions.js';

/** About ten of DynamoDB's 1 MB pages of the merchant's rows (some 860 bytes each), read one after another into one file. */
const ROWS = 12_000;
/**
 * The first rows of the merchant's that the reports built in turns read: enough for many parts of
 * PART_BYTES, where all of them would only repeat the same turns at several times the time.
 */
const ROWS_IN_TURNS = 5_000;
const PART_BYTES = 64 * 1024;
/** The rows are a second apart from here: well in the past, in a range of their own. */
const FROM = new Date(Date.now() - 3 * 86_400_000);

let merchant: SeededMerchant;
let other: SeededMerchant;
let theirs: SeededTransactions;

beforeAll(async () => {
  [merchant, other] = await Promise.all([seedMerchant(), seedMerchant()]);
  theirs = await seedTransactions(documentClient, config().tables.transactions, other.merchant.id, 500, FROM);
}, 60_000);

async function askFor(owner: SeededMerchant, body: Record<string, unknown>): Promise<string> {
  const response = await invoke('create-report', { apiKey: owner.apiKey, body });
  expect(response.status, JSON.stringify(response.body)).toBe(202);
  expect(response.body.data).toEqual({ id: expect.any(String), status: 'pending' });
  return response.body.data.id;
}

/** What the reports queue hands build-report: one message, received for the `receiveCount`th time, in an invocation of its own. */
async function build(reportId: string, receiveCount = 1): Promise<void> {
  const handler = (await loadFunction('build-report'))!;
  const event = {
    Records: [{ messageId: randomUUID(), body: JSON.stringify({ reportId }), attributes: { ApproximateReceiveCount: String(receiveCount) }, eventSource: 'aws:sqs' }],
  } as unknown as SQSEvent;
  expect(await (handler as (event: SQSEvent, context: unknown) => Promise<unknown>)(event, lambdaContext(FUNCTIONS.find(({ name }) => name === 'build-report')!))).toEqual({ batchItemFailures: [] });
}

/** An invocation with its time: once `steps` parts are written when given, it hands the report on. */
const attempt = (steps?: number): BuildAttempt => {
  let asked = 0;
  return { last: false, budget: { spent: () => steps !== undefined && ++asked > steps }, until: new Date(Date.now() + 300_000) };
};

/** A report's file as built by `service`: one invocation after another, each handing it on after one part, until it is ready; the invocations it took. */
async function builtInTurns(service: ReportService, id: string): Promise<number> {
  for (let turn = 1; turn <= 1000; turn++) {
    const outcome = await service.build(id, attempt(0));
    if (outcome === 'ready') return turn;
    expect(outcome).toBe('continued');
  }
  throw new Error('The report never got built');
}

const getReport = (owner: SeededMerchant, id: string) => invoke('get-report', { apiKey: owner.apiKey, pathParameters: { reportId: id } });

const linkKey = () => new KeyFileDataKeySource(process.env.GATEWAY_KEY_FILE!).derivedKey(REPORT_LINK_KEY_PURPOSE);

/** The file behind a report's link, read line by line as it streams. */
async function* linkedLines(url: string): AsyncGenerator<string> {
  const file = await openLinkedReport(process.env.GATEWAY_REPORTS_DIR!, await linkKey(), url.slice(url.indexOf('/report-files/')), new Date());
  expect(file, 'the link opens its file').toBeDefined();
  yield* linesOf(file!.stream);
}

/** A CSV file's lines, read as it streams. */
const linesOf = (stream: NodeJS.ReadableStream): AsyncIterable<string> => createInterface({ input: stream, crlfDelay: Infinity });

describe(`a report of ${ROWS.toLocaleString('en')} transactions`, () => {
  let store: DynamoDbLocal;
  let client: DynamoDBClient;
  let directory: string;
  let transactions: DynamoTransactionStore;
  let reports: DynamoReportStore;
  let range: Record<string, string>;
  /** The range of the first ROWS_IN_TURNS rows, and the file one invocation built of it. */
  let rangeInTurns: Record<string, string>;
  let once: Buffer;
  const linkKey = randomBytes(32);

  /** The builder over this store, its parts of `partBytes` when given. */
  const serviceOf = (queue: { send(id: string): Promise<void> } = { send: async () => undefined }, partBytes?: number) => {
    const files = new FileReportFiles(directory, async () => linkKey, 'http://127.0.0.1:1');
    const records: ReportRecords = { transactions: (range, after) => transactions.createdBetween(range, after), entries: () => expect.fail('a transactions report reads no entries') };
    return new ReportService({ reports, writer: files, links: files, records, queue, ...(partBytes ? { partBytes } : {}), clock: () => new Date(), newId: randomUUID });
  };

  beforeAll(async () => {
    // A store of its own, in memory: the run's store on disk takes a hundred writes a second. Its
    // transactions table has only the index a report reads; the others would slow the load fourfold.
    const credentials = randomLocalCredentials();
    store = await startDynamoDbLocal({ credentials });
    client = localDynamoClient(store.endpoint, credentials);
    await ensureTable(client, 'transactions', { ...TABLES.transactions, indexes: TABLES.transactions.indexes.filter(({ name }) => name === 'byMerchant') });
    await ensureTable(client, 'reports', TABLES.reports);
    directory = await mkdtemp(join(tmpdir(), 'gateway-reports-'));
  }, 60_000);

  afterAll(async () => {
    client?.destroy();
    await store?.stop();
    if (directory) await rm(directory, { recursive: true, force: true });
  });

  const documents = () => DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });

  it("has every one of the merchant's rows, oldest first, none of another's, amounts exact, read a page at a time", async () => {
    const [mine, another] = await Promise.all([
      seedTransactions(documents(), 'transactions', 'merchant-a', ROWS, FROM),
      seedTransactions(documents(), 'transactions', 'merchant-b', 2_000, new Date(FROM.getTime() + 500)),
    ]);
    transactions = new DynamoTransactionStore(documents(), { transactions: 'transactions' } as TransactionTables);
    reports = new DynamoReportStore(documents(), 'reports');
    range = { type: 'transactions', createdFrom: mine.first, createdTo: mine.last };
    rangeInTurns = { type: 'transactions', createdFrom: mine.first, createdTo: new Date(FROM.getTime() + (ROWS_IN_TURNS - 1) * 1000).toISOString() };
    const queued: string[] = [];
    const service = serviceOf({ send: async (id) => void queued.push(id) });
    const { id } = await service.create('merchant-a', createReportRequestSchema.parse(range));
    expect(queued).toEqual([id]);
    expect(await service.build(id, attempt())).toBe('ready');
    const { url, rows } = await service.view('merchant-a', id);
    expect(rows).toBe(ROWS);

    const file = await openLinkedReport(directory, linkKey, url!.slice(url!.indexOf('/report-files/')), new Date());
    let header: string | undefined;
    let count = 0;
    let total = new Decimal(0);
    let previous = '';
    const foreign: string[] = [];
    for await (const line of linesOf(file!.stream)) {
      if (header === undefined) {
        header = line;
        continue;
      }
      const fields = line.split(',');
      count++;
      if (!mine.ids.has(fields[0]!) || another.ids.has(fields[0]!)) foreign.push(fields[0]!);
      if (fields[1]! < previous) foreign.push(`${fields[0]} out of order`);
      previous = fields[1]!;
      total = total.plus(fields[9]!);
    }
    expect(`${header}\r\n`).toBe(reportHeader('transactions'));
    expect(count).toBe(ROWS);
    expect(foreign).toEqual([]);
    expect(total.toFixed(2)).toBe(mine.total.toFixed(2));
  }, 240_000);

  it('built a part per invocation, each going on after the last row the one before recorded, is the same file byte for byte', async () => {
    const atOnce = serviceOf();
    const whole = await atOnce.create('merchant-a', createReportRequestSchema.parse(rangeInTurns));
    expect(await atOnce.build(whole.id, attempt())).toBe('ready');
    once = await readFile(join(directory, `merchant-a/${whole.id}.csv`));
    const queued: string[] = [];
    const service = serviceOf({ send: async (id) => void queued.push(id) }, PART_BYTES);
    const { id } = await service.create('merchant-a', createReportRequestSchema.parse(rangeInTurns));
    const turns = await builtInTurns(service, id);
    expect(turns).toBeGreaterThanOrEqual(Math.floor(once.length / PART_BYTES));
    // The request's message, then each invocation's that handed it on.
    expect(queued).toEqual(Array(turns).fill(id));
    expect(Buffer.compare(await readFile(join(directory, `merchant-a/${id}.csv`)), once)).toBe(0);
    expect((await service.view('merchant-a', id)).rows).toBe(ROWS_IN_TURNS);
  }, 240_000);

  it('has each row once though SQS hands a message to two invocations at once, or an invocation dies after a part it did not record', async () => {
    const service = serviceOf(undefined, PART_BYTES);
    const { id } = await service.create('merchant-a', createReportRequestSchema.parse(rangeInTurns));
    expect(await service.build(id, attempt(0))).toBe('continued');
    // The message handed on, delivered twice at once: one invocation builds, the other leaves it.
    expect((await Promise.all([service.build(id, attempt(0)), service.build(id, attempt(0))])).sort()).toEqual(['building', 'continued']);
    // An invocation that writes its part and dies before recording it.
    const save = reports.saveProgress.bind(reports);
    reports.saveProgress = async () => {
      throw new Error('The invocation timed out');
    };
    await expect(service.build(id, attempt(0))).rejects.toThrow('The invocation timed out');
    reports.saveProgress = save;
    // SQS delivers its message again once the invocation's time is over.
    await documents().send(
      new UpdateCommand({
        TableName: 'reports',
        Key: { id },
        UpdateExpression: 'SET building.#until = :past',
        ExpressionAttributeNames: { '#until': 'until' },
        ExpressionAttributeValues: { ':past': new Date(0).toISOString() },
      }),
    );
    await builtInTurns(service, id);
    expect(Buffer.compare(await readFile(join(directory, `merchant-a/${id}.csv`)), once)).toBe(0);
  }, 240_000);
});

describe('a transactions report', () => {
  it("is built by the queue function from the merchant's rows only, and linked for 15 minutes", async () => {
    const id = await askFor(other, { type: 'transactions', createdFrom: theirs.first, createdTo: theirs.last });
    expect((await getReport(other, id)).body.data).toMatchObject({ status: 'pending', rows: null, url: null });
    await build(id);
    const { body } = await getReport(other, id);
    expect(body.data).toMatchObject({ id, type: 'transactions', status: 'ready', rows: 500 });
    expect(Date.parse(body.data.expiresAt) - Date.now()).toBeGreaterThan(14 * 60_000);
    const ids: string[] = [];
    for await (const line of linkedLines(body.data.url)) ids.push(line.split(',')[0]!);
    expect(ids[0]).toBe('id');
    expect(new Set(ids.slice(1))).toEqual(theirs.ids);
  });

  it("is another merchant's to nobody: a 404", async () => {
    const id = await askFor(merchant, { type: 'transactions', createdFrom: theirs.first, createdTo: theirs.last });
    const response = await getReport(other, id);
    expect(response.status).toBe(404);
    expect(response.body.errors[0]).toMatchObject({ code: 'not_found', message: 'Report not found' });
    expect((await getReport(other, randomUUID())).status).toBe(404);
  });

  it('has a link that works only as it was given, and not after it expires', async () => {
    const id = await askFor(other, { type: 'transactions', createdFrom: theirs.first, createdTo: theirs.last });
    await build(id);
    const { url, rows } = (await getReport(other, id)).body.data;
    expect(rows).toBe(500);
    const target = url.slice(url.indexOf('/report-files/'));
    const key = await linkKey();
    const opened = await openLinkedReport(process.env.GATEWAY_REPORTS_DIR!, key, target, new Date());
    expect(opened?.bytes).toBeGreaterThan(500 * 100);
    opened?.stream.destroy();
    expect(await openLinkedReport(process.env.GATEWAY_REPORTS_DIR!, randomBytes(32), target, new Date())).toBeUndefined();
    expect(await openLinkedReport(process.env.GATEWAY_REPORTS_DIR!, key, target.replace(other.merchant.id, merchant.merchant.id), new Date())).toBeUndefined();
    expect(
      await openLinkedReport(
        process.env.GATEWAY_REPORTS_DIR!,
        key,
        target.replace(/expires=(\d+)/, (_match: string, expires: string) => `expires=${Number(expires) + 60}`),
        new Date(),
      ),
    ).toBeUndefined();
    expect(await openLinkedReport(process.env.GATEWAY_REPORTS_DIR!, key, target, new Date(Date.now() + 16 * 60_000))).toBeUndefined();
  });
});

describe('a balance entries report', () => {
  it('in one currency: its entries only, with their signed amounts, balances after and reasons', async () => {
    const owner = await seedMerchant();
    const from = new Date(Date.now() - 1000).toISOString();
    await fundBalance(owner.merchant.id, 'INR', '120.50');
    await fundBalance(owner.merchant.id, 'TRY', '99');
    await fundBalance(owner.merchant.id, 'INR', '-20.25');
    const id = await askFor(owner, { type: 'balance_entries', createdFrom: from, createdTo: new Date().toISOString(), currency: 'INR' });
    await build(id);
    const { url, rows } = (await getReport(owner, id)).body.data;
    expect(rows).toBe(2);
    const lines: string[] = [];
    for await (const line of linkedLines(url)) lines.push(line);
    expect(lines.map((line) => line.split(',').slice(3))).toEqual([
      ['type', 'currency', 'amount', 'availableAfter', 'reservedAfter', 'reason'],
      ['adjustment', 'INR', '120.50', '120.50', '0.00', 'Funds for the test'],
      ['adjustment', 'INR', '-20.25', '100.25', '0.00', 'Funds for the test'],
    ]);

    // The same report a row per invocation: each goes on after the entry the one before recorded.
    const entries = new DynamoBalanceStore(documentClient, config().tables);
    const files = new FileReportFiles(process.env.GATEWAY_REPORTS_DIR!, linkKey, 'http://127.0.0.1:1');
    const service = new ReportService({
      reports: new DynamoReportStore(documentClient, config().tables.reports),
      writer: files,
      records: { transactions: () => expect.fail('an entries report reads no transactions'), entries: (range, after) => entries.createdBetween(range, after) },
      queue: { send: async () => undefined },
      partBytes: 1,
      clock: () => new Date(),
      newId: randomUUID,
    });
    const again = await askFor(owner, { type: 'balance_entries', createdFrom: from, createdTo: new Date().toISOString(), currency: 'INR' });
    // Two rows a part each, and the invocation that finds no more.
    expect(await builtInTurns(service, again)).toBe(3);
    const built = await readFile(join(process.env.GATEWAY_REPORTS_DIR!, `${owner.merchant.id}/${again}.csv`), 'utf8');
    expect(
      built
        .split('\r\n')
        .slice(0, 3)
        .map((line) => line.split(',').slice(3).join(',')),
    ).toEqual(lines.map((line) => line.split(',').slice(3).join(',')));
  });
});

describe('bad input: a 422 naming the field', () => {
  const now = Date.now();
  const at = (offsetMs: number) => new Date(now + offsetMs).toISOString();
  it.each([
    ['a range that is not a range', { createdFrom: at(-1000), createdTo: at(-2000) }, 'createdTo'],
    ['a range over one year', { createdFrom: at(-367 * 86_400_000), createdTo: at(-1000) }, 'createdTo'],
    ['a range that ends in the future', { createdFrom: at(-86_400_000), createdTo: at(3_600_000) }, 'createdTo'],
    ['no range', { createdFrom: undefined }, 'createdFrom'],
    ['an unknown type', { type: 'payouts' }, 'type'],
    ['an unknown currency', { currency: 'XYZ' }, 'currency'],
  ])('%s', async (_name, fields, field) => {
    const response = await invoke('create-report', { apiKey: merchant.apiKey, body: { type: 'transactions', createdFrom: at(-86_400_000), createdTo: at(-1000), ...fields } });
    expect(response.status).toBe(422);
    expect(response.body.success).toBe(false);
    expect(response.body.errors[0]).toMatchObject({ code: 'unprocessable_content', field });
  });
});
