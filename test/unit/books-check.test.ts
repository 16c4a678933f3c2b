/**
 * The books check (docs/operations.md#the-hourly-check) over the in-memory ports, on books the
 * services wrote: balanced books show no difference; a balance that is not the sums of its
 * entries, or a transaction without an entry its state calls for, is reported with what differs
 * and holds the merchant's payouts, until an operator clears the hold; a difference gone once the
 * indexes caught up is not, and holds no one. Each hourly run reads only what changed since the
 * last, a balance's entries from where the last reading stopped; the full pass reads every
 * merchant's books whole, over as many runs as their budgets take.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { balancesFromEntries, entryId } from '../../shared/domain/ledger/balances.js';
import { BooksCheck, FULL_PASS_EVERY_MS, type BooksCheckReport, type PassStep } from '../../shared/domain/ledger/books-check.js';
import type { WorkBudget } from '../../shared/domain/kernel/work-budget.js';
import { withdrawalRequestSchema } from '../../shared/domain/transactions/withdrawals.js';
import { refundRequestSchema } from '../../shared/domain/transactions/refunds.js';
import { RefundService } from '../../shared/domain/payments/refund-service.js';
import { defaultChains } from '../../shared/domain/chains/index.js';
import { DEMO_USD_PRICES, StaticRateSource } from '../../shared/domain/rates/rates.js';
import { balanceKey } from '../support/memory/balances.js';
import { MemoryBooksCheckState } from '../support/memory/books-check.js';
import { memoryGateway, type MemoryGateway } from '../support/memory/gateway.js';

/** A merchant with money in: 5000 TRY funded, a TRY deposit confirmed, a withdrawal paid out and one still processing. */
async function booksOfOneMerchant(gateway: MemoryGateway) {
  const merchantId = gateway.merchants.add({ processingFeePercent: '1.5' }).id;
  await gateway.fund(merchantId, 'TRY', '5000');
  const deposit = await depositOf(gateway, merchantId);
  const withdraw = (amount: string) => gateway.fiatService.createWithdrawal(merchantId, withdrawalRequestSchema.parse({ customerId: 'c-1', amount, currency: 'TRY', cardNumber: '4111111111111111' }));
  const paid = await withdraw('1000');
  await withdraw('200');
  const { reference } = (await gateway.ledger.get(paid.id))!.provider!;
  await gateway.settlement.apply('demo', { kind: 'payout', reference: paid.id, providerReference: reference!, status: 'confirmed' });
  return { merchantId, deposit, paid };
}

/** A confirmed TRY deposit of 700 on an invoice of its own. */
async function depositOf(gateway: MemoryGateway, merchantId: string) {
  const invoice = await gateway.createInvoice(merchantId, { baseCurrency: 'TRY', amount: 700 });
  return gateway.transactionService.recordDeposit(merchantId, invoice.id, { source: 'simulated', status: 'confirmed' });
}

const checkOf = (gateway: MemoryGateway, state = new MemoryBooksCheckState(), settle = vi.fn(async () => undefined)) =>
  new BooksCheck({ merchants: gateway.merchants, balances: gateway.balances, transactions: gateway.ledger, state, settle, clock: gateway.clock });

/** A run as the scheduled function names it: the scheduled time, and the invocation's request id. */
const RUN = { at: '2026-06-01T12:00:00Z', id: 'run-1' };

const UNLIMITED: WorkBudget = { spent: () => false };

/** A budget spent once it has been asked `steps` times: the run stops at its next step. */
const budgetOf = (steps: number): WorkBudget => {
  let asked = 0;
  return { spent: () => ++asked > steps };
};

/** Sets a stored balance's amounts as a fault or a hand would, leaving its time as it was. */
function tamper(gateway: MemoryGateway, merchantId: string, available: string) {
  const key = balanceKey(merchantId, 'TRY');
  const balance = gateway.balances.balances.get(key)!;
  gateway.balances.balances.set(key, { ...balance, available });
  return balance;
}

describe('the books check', () => {
  it('finds nothing on books the services wrote: its first run reads no changes and reads every merchant whole', async () => {
    const gateway = memoryGateway();
    await booksOfOneMerchant(gateway);
    await booksOfOneMerchant(gateway);
    const settle = vi.fn(async () => undefined);
    expect(await checkOf(gateway, undefined, settle).run(RUN, UNLIMITED)).toEqual({
      checkedTo: gateway.clock().toISOString(),
      transactions: 6,
      balances: 2,
      pass: { startedAt: gateway.clock().toISOString(), merchants: 2, finished: true },
      differences: [],
      held: [],
    });
    expect(settle).not.toHaveBeenCalled();
    for await (const { id } of gateway.merchants.directory(null)) expect((await gateway.merchants.getMerchant(id))!.booksHold).toBeUndefined();
  });

  it('reports a balance that is not the sums of its entries, with both', async () => {
    const gateway = memoryGateway();
    const { merchantId } = await booksOfOneMerchant(gateway);
    const balance = tamper(gateway, merchantId, '1.00');
    const { differences } = await checkOf(gateway).run(RUN, UNLIMITED);
    expect(differences).toEqual([
      {
        kind: 'balance',
        merchantId,
        currency: 'TRY',
        balance: { available: '1.00', reserved: balance.reserved, entryCount: balance.entryCount },
        entries: { available: balance.available, reserved: balance.reserved, entryCount: balance.entryCount },
      },
    ]);
  });

  it('reports a transaction without an entry its state calls for, and the balance it no longer adds up to', async () => {
    const gateway = memoryGateway();
    const { merchantId, deposit, paid } = await booksOfOneMerchant(gateway);
    gateway.balances.entries.delete(entryId(paid.id, 'payout'));
    gateway.balances.entries.delete(entryId(deposit.id, 'fee'));
    const { differences } = await checkOf(gateway).run(RUN, UNLIMITED);
    expect(differences.filter(({ kind }) => kind === 'missing_entries')).toEqual([
      { kind: 'missing_entries', merchantId, transactionId: deposit.id, type: 'deposit', status: 'confirmed', missing: ['fee'] },
      { kind: 'missing_entries', merchantId, transactionId: paid.id, type: 'withdraw', status: 'confirmed', missing: ['payout'] },
    ]);
    expect(differences.filter(({ kind }) => kind === 'balance')).toHaveLength(1);
  });

  it('checks refunds as any money out: a confirmed one finds nothing, one missing its refund entry is reported', async () => {
    const gateway = memoryGateway();
    const merchantId = gateway.merchants.add().id;
    const deposit = await depositOf(gateway, merchantId);
    const refunds = new RefundService({
      ledger: gateway.ledger,
      balances: gateway.balances,
      merchants: gateway.merchants,
      feesOn: () => undefined,
      configuration: () => ({ chains: defaultChains('demo'), payoutFees: {} }),
      rates: new StaticRateSource(DEMO_USD_PRICES),
      queue: { enqueue: async () => undefined },
      log: gateway.log,
      stage: 'demo',
      clock: gateway.clock,
      newId: randomUUID,
      invoices: gateway.invoices,
      requests: gateway.requests,
      transactions: gateway.transactionService,
    });
    const refund = await refunds.create(merchantId, refundRequestSchema.parse({ transactionId: deposit.id, amount: '300' }));
    await gateway.transactionService.settle(merchantId, refund.id, 'confirmed', { expectedType: 'refund' });
    expect((await checkOf(gateway).run(RUN, UNLIMITED)).differences).toEqual([]);
    gateway.balances.entries.delete(entryId(refund.id, 'refund'));
    const { differences } = await checkOf(gateway).run(RUN, UNLIMITED);
    expect(differences.filter(({ kind }) => kind === 'missing_entries')).toEqual([
      { kind: 'missing_entries', merchantId, transactionId: refund.id, type: 'refund', status: 'confirmed', missing: ['refund'] },
    ]);
  });

  it('reports a balance behind its entries, as one restored from an older backup than they are', async () => {
    const gateway = memoryGateway();
    const merchantId = gateway.merchants.add().id;
    await gateway.fund(merchantId, 'TRY', '100');
    const older = structuredClone(gateway.balances.balances.get(balanceKey(merchantId, 'TRY'))!);
    await gateway.fund(merchantId, 'TRY', '50');
    gateway.balances.balances.set(balanceKey(merchantId, 'TRY'), older);
    expect((await checkOf(gateway).run(RUN, UNLIMITED)).differences).toEqual([
      { kind: 'balance', merchantId, currency: 'TRY', balance: { available: '100.00', reserved: '0.00', entryCount: 1 }, entries: { available: '150.00', reserved: '0.00', entryCount: 2 } },
    ]);
  });

  it('reads a merchant whose books differ again after the indexes settle, and reports only what still differs', async () => {
    const gateway = memoryGateway();
    const { merchantId } = await booksOfOneMerchant(gateway);
    const balance = gateway.balances.balances.get(balanceKey(merchantId, 'TRY'))!;
    // An entry the index does not show yet: its balance counts one more than the entries read.
    gateway.balances.balances.set(balanceKey(merchantId, 'TRY'), { ...balance, entryCount: balance.entryCount + 1 });
    const settle = vi.fn(async () => void gateway.balances.balances.set(balanceKey(merchantId, 'TRY'), balance));
    expect(await checkOf(gateway, undefined, settle).run(RUN, UNLIMITED)).toMatchObject({ differences: [], held: [] });
    expect(settle).toHaveBeenCalledOnce();
    expect((await gateway.merchants.getMerchant(merchantId))!.booksHold).toBeUndefined();
  });
});

describe('each hourly run', () => {
  /** Two merchants' books, checked whole by a first run an hour after they were written; an hour later. */
  async function checkedBooks() {
    const gateway = memoryGateway();
    const state = new MemoryBooksCheckState();
    const [busy, quiet] = [await booksOfOneMerchant(gateway), await booksOfOneMerchant(gateway)];
    gateway.advance(3600);
    await checkOf(gateway, state).run(RUN, UNLIMITED);
    gateway.advance(3600);
    return { gateway, state, busy, quiet, check: checkOf(gateway, state) };
  }

  const HOUR_LATER = { at: '2026-06-01T13:00:00Z', id: 'run-2' };

  it('finds a balance tampered with since the last run, and holds its merchant', async () => {
    const { gateway, check, busy } = await checkedBooks();
    await depositOf(gateway, busy.merchantId);
    const balance = tamper(gateway, busy.merchantId, '9000.00');
    const report = await check.run(HOUR_LATER, UNLIMITED);
    expect(report).toMatchObject({ checkedTo: gateway.clock().toISOString(), transactions: 1, balances: 1, pass: null });
    expect(report.differences).toEqual([
      {
        kind: 'balance',
        merchantId: busy.merchantId,
        currency: 'TRY',
        balance: { available: '9000.00', reserved: balance.reserved, entryCount: balance.entryCount },
        entries: { available: balance.available, reserved: balance.reserved, entryCount: balance.entryCount },
      },
    ]);
    expect(report.held.map(({ merchantId }) => merchantId)).toEqual([busy.merchantId]);
  });

  it('finds an entry missing from a transaction changed since the last run', async () => {
    const { gateway, check, busy } = await checkedBooks();
    const deposit = await depositOf(gateway, busy.merchantId);
    gateway.balances.entries.delete(entryId(deposit.id, 'fee'));
    const report = await check.run(HOUR_LATER, UNLIMITED);
    expect(report.differences).toContainEqual({ kind: 'missing_entries', merchantId: busy.merchantId, transactionId: deposit.id, type: 'deposit', status: 'confirmed', missing: ['fee'] });
    expect(report.held).toEqual([{ merchantId: busy.merchantId, hold: expect.objectContaining({ run: HOUR_LATER, transactionIds: [deposit.id], currencies: ['TRY'] }) }]);
  });

  it("reads nothing of a merchant whose books did not change, and a changed balance's entries only from where the last run stopped", async () => {
    const { gateway, check, busy, quiet } = await checkedBooks();
    const before = (await gateway.balances.get(busy.merchantId, 'TRY'))!.entryCount;
    await depositOf(gateway, busy.merchantId);
    const entries = vi.spyOn(gateway.balances, 'entriesBySequence');
    const balances = vi.spyOn(gateway.balances, 'get');
    const transactions = vi.spyOn(gateway.ledger, 'ofMerchant');
    expect(await check.run(HOUR_LATER, UNLIMITED)).toMatchObject({ transactions: 1, balances: 1, differences: [] });
    expect(entries.mock.calls).toEqual([[{ merchantId: busy.merchantId, currency: 'TRY' }, before + 1, before + 2]]);
    expect(balances.mock.calls).toEqual([[busy.merchantId, 'TRY']]);
    expect(transactions).not.toHaveBeenCalled();
    expect(JSON.stringify([entries.mock.calls, balances.mock.calls])).not.toContain(quiet.merchantId);
  });

  it('finds a change made just before the last run began, which its index showed only after', async () => {
    const { gateway, state, check, busy } = await checkedBooks();
    // Stamped four minutes before the cursor, written after the run that moved it.
    gateway.advance(-3600 - 240);
    const deposit = await depositOf(gateway, busy.merchantId);
    gateway.balances.entries.delete(entryId(deposit.id, 'fee'));
    gateway.advance(3600 + 240);
    expect(Date.parse(state.current.checkedTo!) - Date.parse(deposit.updatedAt)).toBe(240_000);
    expect((await check.run(HOUR_LATER, UNLIMITED)).differences).toContainEqual(expect.objectContaining({ kind: 'missing_entries', transactionId: deposit.id }));
  });

  it('catches up after a pause an hour at a time, keeping how far it got when its budget runs out', async () => {
    const { gateway, state, check } = await checkedBooks();
    const cursor = state.current.checkedTo!;
    gateway.advance(5 * 3600);
    // The budget is asked before each hour, each page of changes and each balance.
    const report = await check.run(HOUR_LATER, budgetOf(4));
    const hours = (Date.parse(report.checkedTo) - Date.parse(cursor)) / 3600_000;
    expect(Number.isInteger(hours) && hours >= 1 && hours < 6).toBe(true);
    expect(state.current.checkedTo).toBe(report.checkedTo);
    expect((await check.run(HOUR_LATER, UNLIMITED)).checkedTo).toBe(gateway.clock().toISOString());
  });
});

describe('the full pass', () => {
  /** Four merchants' books, read whole by a first run an hour after they were written; then a day passes without a change. */
  async function dayOldBooks() {
    const gateway = memoryGateway();
    const state = new MemoryBooksCheckState();
    const books = [];
    for (let n = 0; n < 4; n++) books.push(await booksOfOneMerchant(gateway));
    gateway.advance(3600);
    await checkOf(gateway, state).run(RUN, UNLIMITED);
    gateway.advance(FULL_PASS_EVERY_MS / 1000);
    // Pages of two: a balance's entries and a merchant's transactions take several.
    gateway.balances.pageSize = 2;
    gateway.ledger.pageSize = 2;
    return { gateway, state, books, check: checkOf(gateway, state) };
  }

  it('spans as many runs as their budgets take, each going on where the last stopped, and finds a difference in a balance no run changed', async () => {
    const { gateway, state, books, check } = await dayOldBooks();
    // An old entry changed where no hourly run looks: its balance was not written since.
    const [, , old] = books;
    const entry = gateway.balances.entries.get(entryId(old!.deposit.id, 'deposit'))!;
    gateway.balances.entries.set(entry.id, { ...entry, availableChange: '600.00' });

    const reports: BooksCheckReport[] = [];
    const steps: Array<PassStep | null> = [];
    for (let run = 1; run <= 100; run++) {
      const report = await check.run({ at: `2026-06-02T${String(run).padStart(2, '0')}:00:00Z`, id: `run-${run}` }, budgetOf(3));
      reports.push(report);
      steps.push(structuredClone(state.current.pass?.step ?? null));
      if (report.pass?.finished) break;
    }
    // Runs stopped inside a balance's entries and inside a merchant's transactions, and went on from there.
    expect(steps).toContainEqual(expect.objectContaining({ kind: 'balances', walk: expect.objectContaining({ readTo: expect.any(Number) }) }));
    expect(steps).toContainEqual({ kind: 'transactions', after: expect.objectContaining({ id: expect.any(String) }) });
    expect(reports.length).toBeGreaterThan(4);
    expect(reports.every(({ pass }) => pass?.startedAt === reports[0]!.pass!.startedAt)).toBe(true);
    expect(reports.at(-1)!.pass).toMatchObject({ merchants: 4, finished: true });
    expect(reports.map(({ pass }) => pass!.merchants)).toEqual([...reports.map(({ pass }) => pass!.merchants)].sort((a, b) => a - b));
    // Every balance and transaction read once.
    expect(reports.reduce((sum, { balances }) => sum + balances, 0)).toBe(4);
    expect(reports.reduce((sum, { transactions }) => sum + transactions, 0)).toBe(12);

    const found = reports.flatMap(({ differences }) => differences);
    const { available } = (await gateway.balances.get(old!.merchantId, 'TRY'))!;
    expect(found).toEqual([expect.objectContaining({ kind: 'balance', merchantId: old!.merchantId, entries: expect.objectContaining({ available: (Number(available) - 100).toFixed(2) }) })]);
    const held = reports.flatMap(({ held }) => held);
    expect(held).toEqual([{ merchantId: old!.merchantId, hold: expect.objectContaining({ currencies: ['TRY'], differences: 1 }) }]);
    expect((await gateway.merchants.getMerchant(old!.merchantId))!.booksHold).toEqual(held[0]!.hold);
    expect(state.current.lastPass).toMatchObject({ startedAt: reports[0]!.pass!.startedAt });
    expect(state.current.pass).toBeUndefined();
  });

  it('is not read by the hourly runs, which see only changes: the tampered entry goes unseen until the pass', async () => {
    const { gateway, state, books } = await dayOldBooks();
    state.current.lastPass = { startedAt: gateway.clock().toISOString(), finishedAt: gateway.clock().toISOString() };
    const [old] = books;
    const entry = gateway.balances.entries.get(entryId(old!.deposit.id, 'deposit'))!;
    gateway.balances.entries.set(entry.id, { ...entry, availableChange: '600.00' });
    gateway.advance(3600);
    expect(await checkOf(gateway, state).run(RUN, UNLIMITED)).toMatchObject({ transactions: 0, balances: 0, pass: null, differences: [] });
  });

  it('begins at the next run once an operator asks, and again from the first merchant when one is under way', async () => {
    const { gateway, state, check } = await dayOldBooks();
    const first = await check.run(RUN, budgetOf(4));
    expect(first.pass).toMatchObject({ finished: false, startedAt: gateway.clock().toISOString() });
    gateway.advance(3600);
    await state.askForPass(gateway.clock());
    gateway.advance(60);
    const restarted = await check.run(RUN, budgetOf(4));
    expect(restarted.pass).toMatchObject({ startedAt: gateway.clock().toISOString(), finished: false });
    gateway.advance(3600);
    // Asked once: the pass it began goes on.
    expect((await check.run(RUN, UNLIMITED)).pass).toMatchObject({ startedAt: restarted.pass!.startedAt, merchants: 4, finished: true });
    gateway.advance(3600);
    expect((await check.run(RUN, UNLIMITED)).pass).toBeNull();
  });
});

describe('a merchant whose books differ', () => {
  it('has its payouts held, with the run and what it found: how many differences, the balances off, the transactions missing entries', async () => {
    const gateway = memoryGateway();
    const { merchantId, deposit, paid } = await booksOfOneMerchant(gateway);
    const fine = await booksOfOneMerchant(gateway);
    tamper(gateway, merchantId, '9000.00');
    gateway.balances.entries.delete(entryId(paid.id, 'payout'));
    gateway.balances.entries.delete(entryId(deposit.id, 'fee'));
    const hold = { heldAt: gateway.clock().toISOString(), run: RUN, differences: 3, currencies: ['TRY'], transactionIds: [deposit.id, paid.id] };
    expect((await checkOf(gateway).run(RUN, UNLIMITED)).held).toEqual([{ merchantId, hold }]);
    expect((await gateway.merchants.getMerchant(merchantId))!.booksHold).toEqual(hold);
    expect((await gateway.merchants.getMerchant(fine.merchantId))!.booksHold).toBeUndefined();
  });

  it('keeps the first hold through later runs, whether they find the books off or balanced: only an operator clears it', async () => {
    const gateway = memoryGateway();
    const state = new MemoryBooksCheckState();
    const { merchantId } = await booksOfOneMerchant(gateway);
    tamper(gateway, merchantId, '9000.00');
    await checkOf(gateway, state).run(RUN, UNLIMITED);
    const first = (await gateway.merchants.getMerchant(merchantId))!.booksHold!;

    gateway.advance(3600);
    // Still off, and changed since: the next run finds it again.
    await depositOf(gateway, merchantId);
    const later = await checkOf(gateway, state).run({ at: '2026-06-01T13:00:00Z', id: 'run-2' }, UNLIMITED);
    expect(later.differences).toHaveLength(1);
    expect(later.held).toEqual([{ merchantId, hold: first }]);
    gateway.advance(3600);
    // Put right as rebuild-balances does: the sums of its entries.
    const [rebuilt] = balancesFromEntries(merchantId, await gateway.balances.entriesIn(merchantId, 'TRY'), gateway.clock().toISOString());
    gateway.balances.balances.set(balanceKey(merchantId, 'TRY'), rebuilt!);
    expect(await checkOf(gateway, state).run({ at: '2026-06-01T14:00:00Z', id: 'run-3' }, UNLIMITED)).toMatchObject({ balances: 1, differences: [], held: [] });
    expect((await gateway.merchants.getMerchant(merchantId))!.booksHold).toEqual(first);
  });

  it('names at most ten of the transactions missing entries, and counts them all', async () => {
    const gateway = memoryGateway();
    const merchantId = gateway.merchants.add().id;
    const deposits = [];
    for (let i = 0; i < 12; i++) deposits.push(await depositOf(gateway, merchantId));
    for (const { id } of deposits) gateway.balances.entries.delete(entryId(id, 'deposit'));
    const [held] = (await checkOf(gateway).run(RUN, UNLIMITED)).held;
    expect(held!.hold).toMatchObject({ differences: 13, currencies: ['TRY'] });
    expect(held!.hold.transactionIds).toHaveLength(10);
    expect(deposits.map(({ id }) => id)).toEqual(expect.arrayContaining(held!.hold.transactionIds));
  });
});
