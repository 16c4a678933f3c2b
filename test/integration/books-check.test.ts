/**
 * The books check (docs/operations.md#the-hourly-check) against DynamoDB Local, on tables of its
 * own: the indexes it reads (transactions and balances by when they changed, a balance's entries
 * by sequence), entries asked by key, merchants and a merchant's transactions read on from where a
 * read stopped, its state kept apart from an operator's request; and the check-books function run
 * as its schedule runs it (held to its route-table grants): a first run reads every merchant whole,
 * a later one only what changed, and the admin CLI's full-books-check begins a full pass that finds
 * what no change shows.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TABLE_KEYS, tableEnvVar, type TableKey } from '../../shared/store/tables.js';

// Tables of this file's own: the check reads every merchant and every change of its tables, and
// other files leave books off on purpose in the shared ones. Set before any function module loads.
const tables = Object.fromEntries(TABLE_KEYS.map((key) => [key, `books-check-${randomUUID().slice(0, 8)}-${key}`])) as Record<TableKey, string>;
for (const key of TABLE_KEYS) process.env[tableEnvVar(key)] = tables[key];

const [
  { GetCommand, PutCommand },
  { ensureTables },
  { invoker },
  { scheduledEvent },
  { FUNCTIONS },
  { documentClient, dynamoClient },
  { entryId },
  { DynamoBooksCheckStore },
  { DynamoTransactionStore },
  { fundBalance, testBalanceStore },
  { invoke, loadFunction },
  { testMerchantCli },
  { seedMerchant, testMerchantStore },
] = await Promise.all([
  import('@aws-sdk/lib-dynamodb'),
  import('../../infra/local/dynamodb.js'),
  import('../../infra/local/functions.js'),
  import('../../infra/local/scheduler.js'),
  import('../../shared/routes.js'),
  import('../../shared/store/dynamo.js'),
  import('../../shared/domain/ledger/balances.js'),
  import('../../shared/store/books-check.js'),
  import('../../shared/store/transactions.js'),
  import('../support/balances.js'),
  import('../support/invoke.js'),
  import('../support/merchant-cli.js'),
  import('../support/merchants.js'),
]);

type SeededMerchant = Awaited<ReturnType<typeof seedMerchant>>;

const checkBooks = FUNCTIONS.find((fn) => fn.name === 'check-books')!;
if (checkBooks.kind !== 'schedule') throw new Error('check-books is a scheduled function');
const runScheduled = invoker(loadFunction);

interface Checked {
  checkedTo: string;
  transactions: number;
  balances: number;
  pass: { startedAt: string; merchants: number; finished: boolean } | null;
  differences: number;
  held: number;
}

/** One run of the check, as its schedule runs it now. */
const runCheck = async () => (await runScheduled(checkBooks, scheduledEvent(checkBooks, new Date()))) as Checked;

const transactions = () => new DynamoTransactionStore(documentClient, tables);
const state = () => new DynamoBooksCheckStore(documentClient, tables.booksCheck);

let cli: Awaited<ReturnType<typeof testMerchantCli>>;

beforeAll(async () => {
  await ensureTables(dynamoClient, tables);
  cli = await testMerchantCli();
});

afterAll(async () => {
  await cli?.remove();
});

/** A TRY invoice of the merchant's, paid in full by a simulated deposit: the deposit. */
async function deposit(merchant: SeededMerchant): Promise<{ id: string; amount: string }> {
  const invoice = await invoke('create-invoice', { apiKey: merchant.apiKey, body: { orderId: randomUUID(), customerId: 'c-1', baseCurrency: 'TRY', paymentMethod: 'iban', amount: 700 } });
  expect(invoice.status, JSON.stringify(invoice.body)).toBe(200);
  const paid = await invoke('simulate-deposit', { apiKey: merchant.apiKey, body: { invoiceId: invoice.body.data.id } });
  expect(paid.status, JSON.stringify(paid.body)).toBe(200);
  return paid.body.data;
}

async function gathered<T>(pages: AsyncIterable<T[]>): Promise<T[]> {
  const all: T[] = [];
  for await (const page of pages) all.push(...page);
  return all;
}

const balanceId = (merchant: SeededMerchant) => ({ id: JSON.stringify([merchant.merchant.id, 'TRY']) });

describe('what the books check reads', () => {
  it('finds the transactions and balances written in a window by their `changes` indexes, with what the check needs, and nothing outside it', async () => {
    const merchant = await seedMerchant({ processingFeePercent: '1' });
    const from = new Date().toISOString();
    const paid = await deposit(merchant);
    const to = new Date().toISOString();
    const changed = (await gathered(transactions().changedBetween(from, to))).filter(({ merchantId }) => merchantId === merchant.merchant.id);
    expect(changed).toEqual([{ id: paid.id, merchantId: merchant.merchant.id, type: 'deposit', status: 'confirmed', amount: '700.00', fees: { processing: '7.00', technical: null } }]);
    expect(await gathered(testBalanceStore().changedBetween(from, to))).toContainEqual({ merchantId: merchant.merchant.id, currency: 'TRY' });
    const later = new Date(Date.parse(to) + 1).toISOString();
    expect((await gathered(transactions().changedBetween(later, '9999'))).map(({ id }) => id)).not.toContain(paid.id);
    expect(await gathered(testBalanceStore().changedBetween(later, '9999'))).not.toContainEqual({ merchantId: merchant.merchant.id, currency: 'TRY' });
  });

  it("reads a balance's entries in order of sequence from any one, and the newest's sequence", async () => {
    const merchant = await seedMerchant();
    const key = { merchantId: merchant.merchant.id, currency: 'TRY' };
    expect(await testBalanceStore().newestSequence(key)).toBe(0);
    for (const amount of ['10.00', '20.00', '-5.00', '30.00']) await fundBalance(merchant.merchant.id, 'TRY', amount);
    expect(await testBalanceStore().newestSequence(key)).toBe(4);
    expect(await gathered(testBalanceStore().entriesBySequence(key, 2, 4))).toEqual([
      { sequence: 2, availableChange: '20.00', reservedChange: '0.00' },
      { sequence: 3, availableChange: '-5.00', reservedChange: '0.00' },
      { sequence: 4, availableChange: '30.00', reservedChange: '0.00' },
    ]);
    expect(await gathered(testBalanceStore().entriesBySequence({ ...key, currency: 'INR' }, 1, 4))).toEqual([]);
  });

  it('tells which entries are written, asking by key a hundred at a time', async () => {
    const merchant = await seedMerchant({ processingFeePercent: '1' });
    const paid = await deposit(merchant);
    const real = [entryId(paid.id, 'deposit'), entryId(paid.id, 'fee')];
    const ids = [...Array.from({ length: 150 }, () => randomUUID()), ...real, entryId(paid.id, 'payout')];
    expect(await testBalanceStore().written(ids)).toEqual(new Set(real));
  });

  it("reads the merchants, and a merchant's transactions, on from where a read stopped", async () => {
    const merchants = [await seedMerchant(), await seedMerchant()];
    const listed: Array<{ id: string; createdAt: string }> = [];
    for await (const position of testMerchantStore().directory(null)) listed.push(position);
    const at = listed.findIndex(({ id }) => id === merchants[0]!.merchant.id);
    expect(listed[at]).toEqual({ id: merchants[0]!.merchant.id, createdAt: merchants[0]!.merchant.createdAt });
    const after: string[] = [];
    for await (const { id } of testMerchantStore().directory(listed[at]!)) after.push(id);
    expect(after).toEqual(listed.slice(at + 1).map(({ id }) => id));
    expect(after).toContain(merchants[1]!.merchant.id);

    const paid = [await deposit(merchants[1]!), await deposit(merchants[1]!), await deposit(merchants[1]!)];
    const all = await gathered(transactions().ofMerchant(merchants[1]!.merchant.id, null));
    expect(new Set(all.map(({ id }) => id))).toEqual(new Set(paid.map(({ id }) => id)));
    expect((await gathered(transactions().ofMerchant(merchants[1]!.merchant.id, all[0]!))).map(({ id }) => id)).toEqual(all.slice(1).map(({ id }) => id));
  });

  it("keeps its state apart from an operator's request, and a balance's sums by balance", async () => {
    const store = state();
    await store.saveState({ checkedTo: '2026-06-01T12:00:00.000Z', pass: { startedAt: '2026-06-01T12:00:00.000Z', merchants: 3, merchant: null, step: null } });
    // Asked while the run goes on: the run's next save keeps the request.
    await store.askForPass(new Date('2026-06-01T12:30:00.000Z'));
    await store.saveState({ checkedTo: '2026-06-01T13:00:00.000Z', lastPass: { startedAt: '2026-06-01T12:00:00.000Z', finishedAt: '2026-06-01T13:00:00.000Z' } });
    expect(await store.state()).toEqual({
      checkedTo: '2026-06-01T13:00:00.000Z',
      lastPass: { startedAt: '2026-06-01T12:00:00.000Z', finishedAt: '2026-06-01T13:00:00.000Z' },
      passAskedAt: '2026-06-01T12:30:00.000Z',
    });
    const key = { merchantId: randomUUID(), currency: 'TRY' };
    expect(await store.checkpoint(key)).toBeUndefined();
    await store.saveCheckpoint(key, { sequence: 12, available: '10.50', reserved: '0.00' });
    expect(await store.checkpoint(key)).toEqual({ sequence: 12, available: '10.50', reserved: '0.00' });
    expect(await store.checkpoint({ ...key, currency: 'INR' })).toBeUndefined();
    // This file's check reads the state next: it begins as a first run's.
    await documentClient.send(new PutCommand({ TableName: tables.booksCheck, Item: { id: 'state' } }));
  });
});

describe('check-books, as its schedule runs it', () => {
  it('reads every merchant whole at its first run, then only what changed; the full pass an operator asks for finds what no change shows', async () => {
    const [busy, quiet] = [await seedMerchant({ processingFeePercent: '1' }), await seedMerchant({ processingFeePercent: '1' })];
    for (const merchant of [busy, quiet]) {
      await fundBalance(merchant.merchant.id, 'TRY', '1000.00');
      await deposit(merchant);
    }
    const first = await runCheck();
    expect(first).toMatchObject({ pass: { finished: true }, differences: 0, held: 0 });
    expect(first.pass!.merchants).toBeGreaterThanOrEqual(2);

    // A change, and the balance it wrote set by hand afterwards: the next run reads it.
    await deposit(busy);
    const { Item: written } = await documentClient.send(new GetCommand({ TableName: tables.balances, Key: balanceId(busy), ConsistentRead: true }));
    await documentClient.send(new PutCommand({ TableName: tables.balances, Item: { ...written, available: '5000.00' } }));
    expect(await runCheck()).toMatchObject({ pass: null, differences: 1, held: 1 });
    expect((await testMerchantStore().getMerchant(busy.merchant.id, { consistent: true }))!.booksHold).toMatchObject({ currencies: ['TRY'], differences: 1 });

    // Put right: the hold stays for a person to clear.
    await documentClient.send(new PutCommand({ TableName: tables.balances, Item: written }));

    // An old entry changed by hand: no change shows it to the hourly runs.
    const [funding] = (await testBalanceStore().entriesIn(quiet.merchant.id, 'TRY')).filter(({ type }) => type === 'adjustment');
    const { Item: entry } = await documentClient.send(new GetCommand({ TableName: tables.balanceEntries, Key: { id: funding!.id }, ConsistentRead: true }));
    await documentClient.send(new PutCommand({ TableName: tables.balanceEntries, Item: { ...entry, availableChange: '900.00' } }));
    expect(await runCheck()).toMatchObject({ pass: null, differences: 0, held: 0 });
    expect((await testMerchantStore().getMerchant(quiet.merchant.id, { consistent: true }))!.booksHold).toBeUndefined();
    expect((await testMerchantStore().getMerchant(busy.merchant.id, { consistent: true }))!.booksHold).toBeDefined();

    const asked = await cli.run(['full-books-check']);
    expect(asked.code, asked.err).toBe(0);
    expect(asked.out).toMatch(
      /^Asked for a full pass of the books check in the local gateway at \S+ at \S+: the next hourly run of check-books begins it, .*\nNo pass is under way\.\nThe last full pass began \S+ and finished \S+\.\n$/,
    );
    const pass = await runCheck();
    expect(pass).toMatchObject({ pass: { finished: true }, differences: 1, held: 1 });
    expect(Date.parse(pass.pass!.startedAt)).toBeGreaterThan(Date.parse(first.pass!.startedAt));
    expect((await testMerchantStore().getMerchant(quiet.merchant.id, { consistent: true }))!.booksHold).toMatchObject({ currencies: ['TRY'], differences: 1 });
    expect(JSON.parse((await cli.run(['full-books-check', '--json'])).out)).toMatchObject({ askedAt: expect.any(String), pass: null, lastPass: { startedAt: pass.pass!.startedAt } });
  });
});
