/**
 * What the merchant books (docs/merchant-guide.md#balances) cost, with the services of the
 * functions run in this process against DynamoDB Local (in memory) and the local SQS, the demo
 * provider in its own process taking the payouts:
 * - capacity: a confirmed deposit (TransactionService.recordDeposit, as the simulate-deposit route
 *   calls it) and an accepted withdrawal (FiatService.createWithdrawal) with their balance entries,
 *   beside the same call without them: over a ledger that leaves the posting (its entries and the
 *   balance) out of its TransactWriteItems and a balance reader that reads nothing, which is what
 *   the code wrote before the books. DynamoDB Local bills the items of one TransactWriteItems that
 *   cost the same in one table or index once (two entries for the price of one): the posting's
 *   items are also written one at a time into tables of the same definitions, and counted so;
 * - the hot key: confirmed deposits, each on an invoice of its own, into one merchant's balance
 *   (one item every deposit writes conditionally) beside the same number spread over many
 *   merchants, at a few concurrencies: through one service (one process: its postings to one
 *   balance take turns) and through one service per request in flight, each with a balance store
 *   of its own (Lambda instances: only the write condition decides, losers post again as
 *   BALANCE_RETRY paces them).
 * Nothing is asserted: the figures are printed beside their goals.
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { ensureTable } from '../infra/local/dynamodb.js';
import type { BalancePosting, BalanceReader } from '../shared/domain/ledger/balances.js';
import type { Invoice } from '../shared/domain/invoicing/invoice.js';
import type { Ledger, TransactionService } from '../shared/domain/payments/transaction-service.js';
import type { CommitResult } from '../shared/domain/kernel/retry.js';
import type { TransactItem } from '../shared/store/dynamo.js';
import { TABLES } from '../shared/store/tables.js';
import { CapacityMeter, type MeteredCall } from './capacity-meter.js';
import { startBenchStores } from './bench-stores.js';
import { loadEach, round, type LoadFigures } from './load.js';
import { positiveOption } from './options.js';

export const DESCRIPTION = 'capacity of a deposit and a withdrawal with their balance entries vs without; deposits/s into one balance vs spread over merchants';

interface Options {
  deposits: number;
  concurrency: number[];
  merchants: number;
  samples: number;
}

function parseOptions(args: string[]): Options {
  const { values } = parseArgs({
    args,
    strict: true,
    options: {
      deposits: { type: 'string', default: '200' },
      concurrency: { type: 'string', default: '1,8,32' },
      merchants: { type: 'string', default: '32' },
      samples: { type: 'string', default: '5' },
    },
  });
  return {
    deposits: positiveOption('deposits', values.deposits, true),
    concurrency: values.concurrency.split(',').map((level) => positiveOption('concurrency', level.trim(), true)),
    merchants: positiveOption('merchants', values.merchants, true),
    samples: positiveOption('samples', values.samples, true),
  };
}

/** The merchants' fee: a confirmed deposit posts its amount and its fee, two entries. */
const FEE_PERCENT = '1.5';

const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);

const READS = new Set(['GetItemCommand', 'QueryCommand', 'ScanCommand', 'BatchGetItemCommand', 'TransactGetItemsCommand']);

/** Write and read units of the calls made, and the units of each table (and `table/index`) the TransactWriteItems wrote. */
function unitsOf(calls: MeteredCall[]): { wcu: number; rcu: number; transactByTable: Record<string, number>; calls: string } {
  const transactByTable: Record<string, number> = {};
  for (const call of calls.filter((c) => c.command === 'TransactWriteItemsCommand')) {
    for (const [where, units] of Object.entries(call.byTable)) transactByTable[where] = (transactByTable[where] ?? 0) + units;
  }
  return {
    wcu: sum(calls.filter((c) => !READS.has(c.command)).map((c) => c.capacity)),
    rcu: sum(calls.filter((c) => READS.has(c.command)).map((c) => c.capacity)),
    transactByTable,
    calls: calls.map((c) => `${c.command.replace(/Command$/, '').replace(/Item(s)?$/, '')} ${c.capacity}`).join(', '),
  };
}

/** The outcomes of a ledger's writes: each one not committed is a posting made and written again. */
interface WriteCounts {
  committed: number;
  stale: number;
  contended: number;
}

/**
 * The ledger, its writes seen: each outcome counted in `counts`, each posting kept in `postings`,
 * or every posting left out (`withoutPostings`: the transaction's write as it was before the books).
 */
function observed(ledger: Ledger, seen: { counts?: WriteCounts; postings?: BalancePosting[]; withoutPostings?: boolean }): Ledger {
  const write = async <O extends { posting?: BalancePosting }>(options: O, commit: (options: O) => Promise<CommitResult>) => {
    if (options.posting) seen.postings?.push(options.posting);
    const result = await commit(seen.withoutPostings ? { ...options, posting: undefined } : options);
    if (seen.counts) seen.counts[result]++;
    return result;
  };
  return {
    get: (id) => ledger.get(id),
    getClaim: (id) => ledger.getClaim(id),
    insert: (transaction, options) => write(options, (given) => ledger.insert(transaction, given)),
    transition: (next, from, options) => write(options, (given) => ledger.transition(next, from, given)),
  };
}

export async function booksBenchmark(args: string[]): Promise<void> {
  const options = parseOptions(args);
  const stores = await startBenchStores('books-bench', { demoProvider: true });
  const { tables } = stores;
  try {
    const [
      { dynamoClient, documentClient },
      { createTestGateway, invoke },
      { seedMerchant },
      { fundBalance },
      { TokenBucketThrottle },
      { DynamoBalanceStore, postingWrites },
      { DynamoTransactionStore },
      { transactionStore, balanceStore },
      { transactionServiceOver },
      { fiatServiceWith },
      { simulatedChainHash, simulatedSenderDetails },
      { withdrawalRequestSchema },
    ] = await Promise.all([
      import('../shared/store/dynamo.js'),
      import('../test/support/invoke.js'),
      import('../test/support/merchants.js'),
      import('../test/support/balances.js'),
      import('../infra/local/throttle.js'),
      import('../shared/store/balances.js'),
      import('../shared/store/transactions.js'),
      import('../functions/commons/stores.js'),
      import('../functions/commons/transactions.js'),
      import('../functions/commons/fiat.js'),
      import('../shared/domain/invoicing/simulation.js'),
      import('../shared/domain/transactions/withdrawals.js'),
    ]);
    const meter = new CapacityMeter();
    meter.instrument(dynamoClient);
    const gateway = createTestGateway({ throttle: new TokenBucketThrottle({ ratePerSecond: 1_000_000, burst: 1_000_000 }) });

    // The services as the functions wire them (functions/commons), over the ledger and balances given.
    const fiatServiceOver = (ledger: Ledger, balances: BalanceReader) => fiatServiceWith(undefined, { ledger, balances });

    /** USDT invoices of the merchant, made through the create-invoice route, 8 at a time. */
    const createInvoices = async (apiKey: string, count: number): Promise<string[]> => {
      const ids: string[] = [];
      const made = await loadEach(count, 8, async (i) => {
        const created = await invoke('create-invoice', { gateway, apiKey, body: { orderId: `books-${randomUUID()}`, customerId: `books-${i % 4}`, baseCurrency: 'USDT', amount: 25 } });
        if (created.status !== 200) throw new Error(`create-invoice answered ${created.status}: ${JSON.stringify(created.body)}`);
        ids.push(created.body.data.id);
        return true;
      });
      if (made.failures > 0) throw new Error(`${made.failures} of ${count} invoices could not be made`);
      return ids;
    };

    /** A confirmed deposit of the whole invoice, as the simulate-deposit route records it. */
    const deposit = async (service: TransactionService, merchantId: string, invoiceId: string) => {
      const invoice: Invoice = await service.ownedInvoice(merchantId, invoiceId);
      const network = invoice.wallet?.networks[0];
      return service.recordDeposit(
        merchantId,
        invoice.id,
        { source: 'simulated', status: 'confirmed', network, transactionHash: network ? simulatedChainHash(network) : null, senderDetails: simulatedSenderDetails(invoice) },
        invoice,
      );
    };

    // --- 1. Capacity with and without the entries.
    console.log('1. DynamoDB capacity of a deposit and a withdrawal, with their balance entries and without ...');
    const shop = await seedMerchant({ name: 'Books bench shop', processingFeePercent: FEE_PERCENT });
    const m = shop.merchant.id;
    await fundBalance(m, 'TRY', '1000000.00');
    // The postings the writes with entries carried, to price their items one by one.
    const postings: BalancePosting[] = [];
    const capturing = observed(transactionStore, { postings });
    const withEntries = { deposits: transactionServiceOver(capturing, balanceStore), payouts: fiatServiceOver(capturing, balanceStore) };
    const noRead: BalanceReader = { get: async () => undefined };
    // Enough to pay out, without a read: before the books a withdrawal was not checked against a balance.
    const richNoRead: BalanceReader = {
      get: async (merchantId, currency) => ({ merchantId, currency, available: '1000000.00', reserved: '0.00', entryCount: 0, updatedAt: new Date().toISOString() }),
    };
    const leavingOut = observed(transactionStore, { withoutPostings: true });
    const without = { deposits: transactionServiceOver(leavingOut, noRead), payouts: fiatServiceOver(leavingOut, richNoRead) };

    // DynamoDB Local bills a TransactWriteItems per table (and index) as though its items of equal
    // units were one item: a posting's items are also written here, unconditionally, into tables of
    // their own of the same definitions, together and one at a time, each in a TransactWriteItems.
    const pricing: Record<string, string> = { [tables.balances]: `${tables.balances}-pricing`, [tables.balanceEntries]: `${tables.balanceEntries}-pricing` };
    await ensureTable(dynamoClient, pricing[tables.balances]!, TABLES.balances);
    await ensureTable(dynamoClient, pricing[tables.balanceEntries]!, TABLES.balanceEntries);
    const transactUnits = async (items: TransactItem[]) => {
      const { ConsumedCapacity } = await documentClient.send(new TransactWriteCommand({ TransactItems: items, ReturnConsumedCapacity: 'INDEXES' }));
      return sum((ConsumedCapacity ?? []).map((c) => c.CapacityUnits ?? 0));
    };
    // New items each time (an id of the same length): a Put that changes nothing writes no index.
    const newId = (id: string) => randomUUID().replace(/-/g, '').repeat(4).slice(0, id.length);
    const pricePosting = async (posting: BalancePosting) => {
      const puts = () => postingWrites(tables, posting).map(({ Put }): TransactItem => ({ Put: { TableName: pricing[Put!.TableName!]!, Item: { ...Put!.Item, id: newId(String(Put!.Item!.id)) } } }));
      const alone = await Promise.all(puts().map((put) => transactUnits([put])));
      return { items: alone.length, together: await transactUnits(puts()), alone: sum(alone), balance: alone.at(-1)! };
    };

    const depositInvoices = await createInvoices(shop.apiKey, 2 * options.samples + 1);
    // Loads the modules and opens the connections: not counted.
    await deposit(withEntries.deposits, m, depositInvoices.pop()!);
    const payout = () => withdrawalRequestSchema.parse({ customerId: 'books-payee', amount: '250.00', currency: 'TRY', phoneNumber: '+905551234567' });
    const operations: Array<{ name: string; with: () => Promise<unknown>; without: () => Promise<unknown> }> = [
      {
        name: 'confirmed deposit (recordDeposit)',
        with: () => deposit(withEntries.deposits, m, depositInvoices.pop()!),
        without: () => deposit(without.deposits, m, depositInvoices.pop()!),
      },
      {
        name: 'withdrawal accepted (createWithdrawal)',
        with: () => withEntries.payouts.createWithdrawal(m, payout()),
        without: () => without.payouts.createWithdrawal(m, payout()),
      },
    ];
    const booksShare = (byTable: Record<string, number>) => {
      const parts = Object.entries(byTable).filter(([where]) => where.startsWith(tables.balances) || where.startsWith(tables.balanceEntries));
      return { units: sum(parts.map(([, units]) => units)), parts: parts.map(([where, units]) => `${where} ${units}`).join(', ') };
    };
    type Priced = Awaited<ReturnType<typeof pricePosting>>;
    type WithRun = ReturnType<typeof unitsOf> & { reported: number; posting: Priced };
    const capacityRows: Array<{ name: string; with: WithRun; without: ReturnType<typeof unitsOf> }> = [];
    for (const operation of operations) {
      const runs = { with: [] as WithRun[], without: [] as ReturnType<typeof unitsOf>[] };
      for (let i = 0; i < options.samples; i++) {
        postings.length = 0;
        const units = unitsOf((await meter.measure(operation.with)).calls);
        if (postings.length !== 1) throw new Error(`${operation.name} wrote ${postings.length} postings, not one`);
        const posting = await pricePosting(postings[0]!);
        // The write's units with the posting's items counted one by one.
        runs.with.push({ ...units, reported: units.wcu, wcu: units.wcu - booksShare(units.transactByTable).units + posting.alone, posting });
        runs.without.push(unitsOf((await meter.measure(operation.without)).calls));
      }
      // The run of median write units, each way.
      const typical = <T extends { wcu: number }>(list: T[]) => [...list].sort((a, b) => a.wcu - b.wcu)[Math.floor(list.length / 2)]!;
      capacityRows.push({ name: operation.name, with: typical(runs.with), without: typical(runs.without) });
    }

    // --- 2. The hot key.
    console.log(`2. ${options.deposits} confirmed deposits into one merchant's balance vs over ${options.merchants} merchants, at concurrency ${options.concurrency.join(', ')} ...`);
    const hot = await seedMerchant({ name: 'Books bench hot merchant', processingFeePercent: FEE_PERCENT });
    const spread = await Promise.all(Array.from({ length: options.merchants }, (_, i) => seedMerchant({ name: `Books bench merchant ${i}`, processingFeePercent: FEE_PERCENT })));
    type Mode = 'one process' | 'instances';
    type Spread = 'one merchant' | 'merchants';
    interface HotRow {
      concurrency: number;
      mode: Mode;
      over: Spread;
      figures: LoadFigures;
      counts: WriteCounts;
      posted: number;
      errors: string[];
    }
    const hotRows: HotRow[] = [];
    // The deposit path warmed up on other invoices first: the first measured row is not the slower for it.
    const warmUp = await createInvoices(shop.apiKey, 16);
    await loadEach(warmUp.length, 8, async (i) => {
      await deposit(transactionServiceOver(transactionStore, new DynamoBalanceStore(documentClient, tables)), m, warmUp[i]!);
      return true;
    });
    const entryCount = async (merchantIds: string[]) => sum(await Promise.all(merchantIds.map(async (id) => (await balanceStore.get(id, 'USDT'))?.entryCount ?? 0)));
    for (const concurrency of options.concurrency) {
      for (const over of ['one merchant', 'merchants'] as Spread[]) {
        for (const mode of ['one process', 'instances'] as Mode[]) {
          // Invoices first, round-robin over the merchants: not timed.
          const owners = over === 'one merchant' ? [hot] : spread;
          const perOwner = await Promise.all(owners.map((owner, o) => createInvoices(owner.apiKey, Math.ceil((options.deposits - o) / owners.length))));
          const targets = Array.from({ length: options.deposits }, (_, i) => ({
            merchantId: owners[i % owners.length]!.merchant.id,
            invoiceId: perOwner[i % owners.length]![Math.floor(i / owners.length)]!,
          }));
          const counts: WriteCounts = { committed: 0, stale: 0, contended: 0 };
          // One process: one service and one balance store, as one container wires them. Instances:
          // one of each per request in flight, each serving one request at a time.
          const fresh = () => transactionServiceOver(observed(new DynamoTransactionStore(documentClient, tables), { counts }), new DynamoBalanceStore(documentClient, tables));
          const idle = Array.from({ length: mode === 'instances' ? concurrency : 1 }, fresh);
          const errors: string[] = [];
          const before = await entryCount(owners.map((owner) => owner.merchant.id));
          const result = await loadEach(options.deposits, concurrency, async (i) => {
            const service = mode === 'instances' ? idle.pop()! : idle[0]!;
            try {
              await deposit(service, targets[i]!.merchantId, targets[i]!.invoiceId);
              return true;
            } catch (error) {
              errors.push(error instanceof Error ? `${error.name}: ${error.message}` : String(error));
              return false;
            } finally {
              if (mode === 'instances') idle.push(service);
            }
          });
          const posted = (await entryCount(owners.map((owner) => owner.merchant.id))) - before;
          hotRows.push({ concurrency, mode, over, figures: result, counts, posted, errors });
          console.log(`   concurrency ${concurrency}, ${over}, ${mode}: ${result.rps} deposits/s, ${result.failures} failed`);
        }
      }
    }

    // --- Figures.
    console.log('');
    console.log('1. DynamoDB capacity units per operation (median of %d runs each way; ReturnConsumedCapacity: INDEXES on every call)', options.samples);
    console.log(`${'operation'.padEnd(40)}${'WCU with'.padStart(10)}${'WCU without'.padStart(13)}${'diff'.padStart(7)}${'RCU with'.padStart(10)}${'RCU without'.padStart(13)}${'diff'.padStart(7)}`);
    for (const row of capacityRows) {
      console.log(
        `${row.name.padEnd(40)}${String(row.with.wcu).padStart(10)}${String(row.without.wcu).padStart(13)}${String(round(row.with.wcu - row.without.wcu)).padStart(7)}` +
          `${String(row.with.rcu).padStart(10)}${String(row.without.rcu).padStart(13)}${String(round(row.with.rcu - row.without.rcu)).padStart(7)}`,
      );
    }
    for (const row of capacityRows) {
      const share = booksShare(row.with.transactByTable);
      const { posting } = row.with;
      console.log(`  ${row.name}: ${posting.items - 1} ${posting.items === 2 ? 'entry' : 'entries'} and the balance`);
      console.log(`    calls with entries:    ${row.with.calls}`);
      console.log(`    calls without entries: ${row.without.calls}`);
      console.log(
        `    the entries and the balance: ${posting.alone} WCU counted one by one (the balance ${posting.balance}); DynamoDB Local reported ${share.units} of the write with them ` +
          `(${share.parts}), and ${posting.together} for the same items in one TransactWriteItems of their own`,
      );
    }
    console.log('  "without": the same service call over a ledger that leaves the posting (entry Puts and the balance Put) out of its');
    console.log('  TransactWriteItems and a balance reader that reads nothing, as the code wrote before the books; run for real, not subtracted.');
    console.log('  Units as DynamoDB Local computes them by the item-size rules (a transactional write is 2 WCU per KB per item, on the table and');
    console.log('  each index it writes), except that in one TransactWriteItems it counts items of equal units in one table or index once;');
    console.log('  "WCU with" counts each of the posting\'s items (priced alone in tables of the same definitions), as AWS bills every item.');
    console.log('  DynamoDB Local enforces no throughput, so nothing here shows a limit.');
    console.log('');
    console.log('');
    console.log(`2. ${options.deposits} confirmed deposits, each on its own invoice: into one merchant's USDT balance, or round-robin over ${options.merchants} merchants`);
    console.log('  one process: one service and balance store, as the local runtime serves every request (postings to one balance take turns);');
    console.log('  instances: a service and balance store per request in flight, as Lambda serves one request per instance (only the write condition decides)');
    console.log(
      `${'concurrency'.padStart(11)}  ${'deposits into'.padEnd(14)}${'mode'.padEnd(13)}${'dep/s'.padStart(8)}${'p50 ms'.padStart(9)}${'p95 ms'.padStart(9)}${'writes'.padStart(8)}${'lost'.padStart(6)}${'conflict'.padStart(10)}${'errors'.padStart(8)}${'entries'.padStart(9)}  vs previous level`,
    );
    for (const row of hotRows) {
      const previous = hotRows.filter((other) => other.mode === row.mode && other.over === row.over && other.concurrency < row.concurrency).at(-1);
      const trend = !previous
        ? ''
        : `${round(row.figures.rps / previous.figures.rps)}x dep/s, ${round(row.figures.p95 / previous.figures.p95)}x p95` +
          (row.figures.failures > 0 ? ': refuses' : row.figures.rps < previous.figures.rps * 0.9 ? ': fell' : row.figures.rps < previous.figures.rps * 1.1 ? ': stopped growing' : '');
      const label = row.over === 'one merchant' ? 'one merchant' : `${options.merchants} merchants`;
      const mode = row.mode === 'instances' ? `${row.concurrency} instance${row.concurrency === 1 ? '' : 's'}` : row.mode;
      console.log(
        `${String(row.concurrency).padStart(11)}  ${label.padEnd(14)}${mode.padEnd(13)}${String(row.figures.rps).padStart(8)}${String(row.figures.p50).padStart(9)}${String(row.figures.p95).padStart(9)}` +
          `${String(row.counts.committed + row.counts.stale + row.counts.contended).padStart(8)}${String(row.counts.stale).padStart(6)}${String(row.counts.contended).padStart(10)}${String(row.figures.failures).padStart(8)}${String(row.posted).padStart(9)}  ${trend}`,
      );
    }
    const distinct = [...new Set(hotRows.flatMap((row) => row.errors))].slice(0, 5);
    if (distinct.length > 0) console.log(`  errors seen: ${distinct.join(' | ')}`);
    console.log('  writes: TransactWriteItems of the deposits; lost: the balance had moved since it was read (a condition failed); conflict: another');
    console.log('  transaction held an item (TransactionConflict); each lost or conflicting write is a posting made and written again (BALANCE_RETRY).');
    console.log(`  entries: balance entries the deposits posted, a deposit and a fee entry each (the merchants charge ${FEE_PERCENT}%).`);
    if (hotRows.every((row) => row.counts.contended === 0)) {
      console.log('  DynamoDB Local reported no TransactionConflict: on AWS a transaction overlapping another on the balance is cancelled with one, and posted again the same way.');
    }
    const fastest = (rows: HotRow[]) => rows.reduce((top, row) => (row.figures.rps > top.figures.rps ? row : top), rows[0]!);
    const described = (row: HotRow) => `${row.figures.rps} deposits/s (concurrency ${row.concurrency}, p95 ${row.figures.p95} ms)`;
    const into = (over: Spread, mode?: Mode) => hotRows.filter((row) => row.over === over && (mode === undefined || row.mode === mode));
    console.log(`  one balance: at most ${described(fastest(into('one merchant', 'one process')))} through one process, ${described(fastest(into('one merchant', 'instances')))} through instances;`);
    console.log(`  spread over ${options.merchants} merchants: ${described(fastest(into('merchants')))}, this machine's ceiling for the same work.`);
    const balanceUnits = capacityRows[0]!.with.posting.balance;
    console.log(`  On AWS a balance is one item, and an item is never split over partitions: at ${balanceUnits} WCU a deposit on it (its transactional write) the 1,000 WCU/s`);
    console.log(`  a partition takes allows at most ${Math.floor(1000 / balanceUnits)} deposits/s into one balance, and since each posting reads the balance its write is conditional on,`);
    console.log('  the writes to it are serialized: one read and one transaction round trip per deposit, whatever the concurrency.');
    documentClient.destroy();
  } finally {
    await stores.stop();
  }
}
