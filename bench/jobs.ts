/**
 * The two jobs that would outgrow one Lambda invocation (docs/operations.md#the-hourly-check,
 * docs/operations.md#reports), at 1,000,000 balance entries (--entries) in DynamoDB Local, each
 * function run in this process as the local runtime runs it (its Lambda context, its route-table
 * grants):
 * - check-books: the first run and the full pass it begins, invocation after invocation until
 *   every merchant is read, as hourly runs would go on with it; then an hourly run after
 *   --changes new deposits, which reads only those;
 * - build-report: a balance entries report of every entry of the first merchant, each invocation
 *   handed the message the one before queued, by the local runtime's queue consumer.
 * For each invocation: its time beside its function's timeout and Lambda's 900 s ceiling, and the
 * capacity units it used as DynamoDB Local reports them (ReturnConsumedCapacity); and, for
 * comparison, what every hourly run read before the check read only the changes. The entries are
 * --merchants merchants' (one by default: one balance of a million entries), a confirmed deposit
 * and its fee each, loaded with BatchWriteItem in parallel into tables holding only the indexes the
 * jobs read. DynamoDB Local's pages of one index partition grow slower as the partition grows (a
 * million small items read page by page in 572 s, 100,000 in 9 s; AWS reads only the page), so
 * one merchant's million entries take it hours: spread them over merchants (--merchants 20) to
 * run it in half an hour. Nothing is asserted.
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { BatchWriteCommand, type BatchWriteCommandOutput, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { movementsOf, post, type Balance } from '../shared/domain/ledger/balances.js';
import { TABLES, type TableDefinition, type TableKey } from '../shared/store/tables.js';
import { startBenchStores } from './bench-stores.js';
import { CapacityMeter, type MeteredCall } from './capacity-meter.js';
import { round } from './load.js';
import { positiveOption } from './options.js';

export const DESCRIPTION = "the books check and the report builder at 1,000,000 balance entries: each invocation's time and capacity units beside Lambda's 900 s";

/** Lambda's longest run. */
const LAMBDA_CEILING_S = 900;

interface Options {
  entries: number;
  merchants: number;
  changes: number;
}

function parseOptions(args: string[]): Options {
  const { values } = parseArgs({
    args,
    strict: true,
    options: { entries: { type: 'string', default: '1000000' }, merchants: { type: 'string', default: '1' }, changes: { type: 'string', default: '1000' } },
  });
  return {
    entries: positiveOption('entries', values.entries, true),
    merchants: positiveOption('merchants', values.merchants, true),
    changes: positiveOption('changes', values.changes, true),
  };
}

/** A table with only the indexes named: the others would only slow the load. */
const withIndexes = (key: TableKey, names: readonly string[]): TableDefinition => ({ ...TABLES[key], indexes: (TABLES[key] as TableDefinition).indexes!.filter(({ name }) => names.includes(name)) });

/** What the jobs read of the loaded tables: the check, the changes and the merchants' transactions and entries by sequence; the report, the entries by merchant. */
const JOB_TABLES: Partial<Record<TableKey, TableDefinition>> = {
  transactions: withIndexes('transactions', ['byMerchant', 'changes']),
  balanceEntries: withIndexes('balanceEntries', ['byMerchant', 'bySequence']),
};

/** The merchants' processing fee: a deposit posts its amount and its fee, two entries. */
const FEE_RATE = 0.015;

const BATCH = 25;
const IN_FLIGHT = 32;

const READS = new Set(['GetItemCommand', 'QueryCommand', 'BatchGetItemCommand']);
const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
const unitsOf = (calls: MeteredCall[]) => ({
  rcu: round(sum(calls.filter((c) => READS.has(c.command)).map((c) => c.capacity)), 1),
  wcu: round(sum(calls.filter((c) => !READS.has(c.command)).map((c) => c.capacity)), 1),
});

type Item = [TableKey, Record<string, unknown>];

/** Writes the items 25 a request, IN_FLIGHT requests at once, each again with what DynamoDB left unprocessed; how many. */
async function load(client: DynamoDBDocumentClient, tables: Record<TableKey, string>, items: Iterator<Item>, progress: (written: number) => void): Promise<number> {
  let written = 0;
  const nextBatch = (): Item[] => {
    const batch: Item[] = [];
    for (let next = items.next(); !next.done; next = items.next()) {
      batch.push(next.value);
      if (batch.length === BATCH) break;
    }
    return batch;
  };
  const worker = async () => {
    for (let batch = nextBatch(); batch.length > 0; batch = nextBatch()) {
      let requests: NonNullable<ConstructorParameters<typeof BatchWriteCommand>[0]['RequestItems']> | undefined = {};
      for (const [key, item] of batch) (requests[tables[key]] ??= []).push({ PutRequest: { Item: item } });
      while (requests && Object.keys(requests).length > 0) {
        const output: BatchWriteCommandOutput = await client.send(new BatchWriteCommand({ RequestItems: requests }));
        requests = output.UnprocessedItems;
      }
      written += batch.length;
      progress(written);
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  return written;
}

export async function jobsBenchmark(args: string[]): Promise<void> {
  const options = parseOptions(args);
  const stores = await startBenchStores('jobs', { tables: JOB_TABLES });
  const { tables } = stores;
  try {
    const [
      { documentClient, dynamoClient },
      { DynamoMerchantStore },
      { DynamoTransactionStore, transactionItem },
      { DynamoBalanceStore, balanceEntryItem, balanceItem },
      { seededDeposit },
      { invoker, loadHandler },
      { scheduledEvent },
      { startQueueConsumers },
      { localQueueArn, localQueueUrls, localSqsClient },
      { FUNCTIONS },
      { QUEUES },
      { reportQueue, reportService },
      { DynamoReportStore },
      { createReportRequestSchema },
      { Decimal, formatAmount },
    ] = await Promise.all([
      import('../shared/store/dynamo.js'),
      import('../shared/store/merchants.js'),
      import('../shared/store/transactions.js'),
      import('../shared/store/balances.js'),
      import('../test/support/seed-transactions.js'),
      import('../infra/local/functions.js'),
      import('../infra/local/scheduler.js'),
      import('../infra/local/queue-consumer.js'),
      import('../infra/local/sqs.js'),
      import('../shared/routes.js'),
      import('../shared/queue/queues.js'),
      import('../functions/commons/reports.js'),
      import('../shared/store/reports.js'),
      import('../shared/domain/ledger/reports.js'),
      import('../shared/domain/kernel/money.js'),
    ]);
    const meter = new CapacityMeter();
    meter.instrument(dynamoClient);
    const checkBooks = FUNCTIONS.find((fn) => fn.name === 'check-books')!;
    const buildReport = FUNCTIONS.find((fn) => fn.name === 'build-report')!;
    if (checkBooks.kind !== 'schedule' || buildReport.kind !== 'queue') throw new Error('check-books is scheduled and build-report consumes a queue');
    const invoke = invoker(loadHandler);

    // --- Load: a year of each merchant's deposits, ending a day ago, each with its fee and their two entries.
    const now = Date.now();
    const historyFrom = now - 360 * 86_400_000;
    const historyMs = 359 * 86_400_000;
    const depositsPerMerchant = Math.ceil(options.entries / 2 / options.merchants);
    const merchants = Array.from({ length: options.merchants }, (_, m) => ({ id: randomUUID(), createdAt: new Date(historyFrom - 86_400_000 + m).toISOString() }));
    const merchantStore = new DynamoMerchantStore(documentClient, tables);
    for (const { id, createdAt } of merchants) {
      await merchantStore.createMerchant({
        id,
        name: `Jobs bench merchant ${id.slice(0, 8)}`,
        callbackUrl: null,
        sealedCallbackSecret: { algorithm: 'AES-256-GCM', encryptedKey: 'key', iv: 'iv', tag: 'tag', ciphertext: 'secret' },
        processingFeePercent: String(FEE_RATE * 100),
        returnUrl: null,
        frameAncestors: [],
        createdAt,
      });
    }
    const balances = new Map<string, Balance | undefined>();
    /** Deposits of each merchant in turn, the `n`th at `at(n)`, posted onto its balance as the services post them. */
    function* deposits(count: number, at: (n: number) => string): Generator<Item> {
      for (const { id: merchantId } of merchants) {
        for (let n = 0; n < count; n++) {
          const base = seededDeposit(merchantId, n, at(n));
          const transaction = { ...base, fees: { processing: formatAmount(new Decimal(base.amount).times(FEE_RATE), 2), technical: null } };
          const posting = post(balances.get(merchantId), movementsOf(transaction), { merchantId, currency: 'TRY', transactionId: transaction.id, at: transaction.updatedAt });
          balances.set(merchantId, posting.balance);
          yield ['transactions', transactionItem(transaction)];
          for (const entry of posting.entries) yield ['balanceEntries', balanceEntryItem(entry)];
        }
        yield ['balances', balanceItem(balances.get(merchantId)!)];
      }
    }
    const total = depositsPerMerchant * options.merchants * 3 + options.merchants;
    console.log(
      `Loading ${(2 * depositsPerMerchant * options.merchants).toLocaleString('en')} balance entries: ${depositsPerMerchant.toLocaleString('en')} deposits of each of ${options.merchants} merchant(s) with their fees, ${total.toLocaleString('en')} items ...`,
    );
    const loadStarted = performance.now();
    let reported = 0;
    await load(
      documentClient,
      tables,
      deposits(depositsPerMerchant, (n) => new Date(historyFrom + Math.floor((n * historyMs) / depositsPerMerchant)).toISOString()),
      (written) => {
        if (written - reported < 100_000) return;
        reported = written;
        console.log(`  ${written.toLocaleString('en')} items, ${Math.round(written / ((performance.now() - loadStarted) / 1000))} a second`);
      },
    );
    const loadSeconds = (performance.now() - loadStarted) / 1000;
    console.log(`Loaded ${total.toLocaleString('en')} items in ${round(loadSeconds, 1)} s (${Math.round(total / loadSeconds)} a second).`);

    interface Invocation {
      seconds: number;
      rcu: number;
      wcu: number;
      result: Record<string, any>;
    }
    const timed = async (run: () => Promise<unknown>): Promise<Invocation> => {
      const started = performance.now();
      const { result, calls } = await meter.measure(run);
      return { seconds: round((performance.now() - started) / 1000, 1), ...unitsOf(calls), result: result as Record<string, any> };
    };
    const line = (name: string, invocation: Pick<Invocation, 'seconds' | 'rcu' | 'wcu'>, timeout: number) =>
      `  ${name.padEnd(30)}${String(invocation.seconds).padStart(9)}${`${round((100 * invocation.seconds) / LAMBDA_CEILING_S, 1)}%`.padStart(10)}${`${round((100 * invocation.seconds) / timeout, 1)}%`.padStart(12)}${String(invocation.rcu).padStart(12)}${String(invocation.wcu).padStart(8)}`;
    const header = `  ${'invocation'.padEnd(30)}${'seconds'.padStart(9)}${'of 900 s'.padStart(10)}${'of timeout'.padStart(12)}${'RCU'.padStart(12)}${'WCU'.padStart(8)}`;
    const totals = (list: Invocation[]) => ({ seconds: round(sum(list.map((i) => i.seconds)), 1), rcu: round(sum(list.map((i) => i.rcu)), 1), wcu: round(sum(list.map((i) => i.wcu)), 1) });

    // --- check-books: the full pass, then an hourly run.
    console.log(
      `check-books (timeout ${checkBooks.timeoutSeconds} s: ten minutes of work an invocation, then two to finish the step under way): the first run and the full pass it begins, invocation after invocation ...`,
    );
    console.log(header);
    const pass: Invocation[] = [];
    for (let run = 1; run <= 100; run++) {
      const invocation = await timed(() => invoke(checkBooks, scheduledEvent(checkBooks, new Date())));
      pass.push(invocation);
      const { merchants: read, finished } = invocation.result.pass ?? {};
      console.log(`${line(`full pass ${run}`, invocation, checkBooks.timeoutSeconds!)}   ${invocation.result.balances} balances, ${invocation.result.transactions} transactions, ${read} merchants whole`);
      if (finished) break;
    }
    console.log(line('full pass, all invocations', totals(pass), checkBooks.timeoutSeconds!));
    await load(
      documentClient,
      tables,
      deposits(Math.ceil(options.changes / options.merchants), () => new Date().toISOString()),
      () => undefined,
    );
    const hourly = await timed(() => invoke(checkBooks, scheduledEvent(checkBooks, new Date())));
    console.log(`${line(`hourly, ${options.changes} new deposits`, hourly, checkBooks.timeoutSeconds!)}   ${hourly.result.balances} balances, ${hourly.result.transactions} transactions`);

    // --- build-report: every entry of the first merchant, as the queue hands the report on.
    const reportRows = 2 * (depositsPerMerchant + Math.ceil(options.changes / options.merchants));
    console.log(
      `build-report (timeout ${buildReport.timeoutSeconds} s: four minutes of work an invocation, then one to finish the part under way): the first merchant's ${reportRows.toLocaleString('en')} entries ...`,
    );
    console.log(header);
    const reports = new DynamoReportStore(documentClient, tables.reports);
    const { id: reportId } = await reportService({ queue: reportQueue() }).create(
      merchants[0]!.id,
      createReportRequestSchema.parse({ type: 'balance_entries', createdFrom: new Date(historyFrom).toISOString(), createdTo: new Date().toISOString() }),
    );
    const builds: Invocation[] = [];
    const sqs = localSqsClient(process.env.AWS_ENDPOINT_URL_SQS!);
    await new Promise<void>((resolve, reject) => {
      const consumers = startQueueConsumers(
        [{ fn: buildReport, source: { url: localQueueUrls(process.env.AWS_ENDPOINT_URL_SQS!, QUEUES.reports).queueUrl, arn: localQueueArn('reports') }, concurrency: 1 }],
        {
          sqs,
          region: 'us-east-1',
          stopGraceMs: 1_000,
          log: { info: () => undefined, warn: (message: string) => console.log(`  ${message}`), error: (message: string, error?: unknown) => console.log(`  ${message}: ${String(error)}`) },
          invoke: async (fn, event) => {
            const invocation = await timed(() => invoke(fn, event));
            builds.push(invocation);
            const report = await reports.get(reportId);
            console.log(
              `${line(`invocation ${builds.length}`, invocation, buildReport.timeoutSeconds!)}   ${report?.status === 'ready' ? `ready, ${report.rows} rows` : `${report?.progress?.rows ?? 0} rows so far`}`,
            );
            if (report?.status !== 'pending') void consumers.stop().then(() => (report?.status === 'ready' ? resolve() : reject(new Error(`The report is ${report?.status}`))));
            return invocation.result;
          },
        },
      );
    });
    sqs.destroy();
    console.log(line('all invocations', totals(builds), buildReport.timeoutSeconds!));
    console.log(`  ${Math.round(reportRows / totals(builds).seconds)} rows a second; one CSV file, built in ${builds.length} invocation(s).`);

    // What each hourly run read before it read only the changes: every transaction and entry of every merchant, through their merchant's indexes; the first merchant's here.
    const transactions = new DynamoTransactionStore(documentClient, tables);
    const entries = new DynamoBalanceStore(documentClient, tables);
    const merchantId = merchants[0]!.id;
    const before = await timed(async () => {
      for await (const _transaction of transactions.allOf(merchantId));
      for await (const _entry of entries.createdBetween({ merchantId, createdFrom: new Date(0).toISOString(), createdTo: new Date(now + 86_400_000).toISOString(), currency: null }));
    });
    console.log(
      `check-books as it was, for comparison: every run read every transaction and entry of every merchant; the first merchant's ${reportRows.toLocaleString('en')} entries and their transactions:`,
    );
    console.log(line(`hourly, as it was, ${options.merchants === 1 ? 'the merchant' : '1 merchant'}`, before, checkBooks.timeoutSeconds!));
    console.log('Capacity units as DynamoDB Local reports them by the item-size rules; AWS bills the same reads, and a BatchGetItem key it finds no item for as well.');
  } finally {
    await stores.stop();
  }
}
