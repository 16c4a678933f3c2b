/**
 * The books' rules (docs/merchant-guide.md#balances), pure and over in-memory ports: which entries
 * each transaction state has, the arithmetic of a posting at the currency's precision, the 402 of
 * a balance that does not cover, and the operator's adjustments and rebuild. DynamoDB's part (one
 * transaction with the state, races) is tested in test/integration/balances.test.ts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BalanceService, type TransactionBooks } from '../../shared/domain/ledger/balance-service.js';
import {
  balanceEntryView,
  balancesFromEntries,
  entryId,
  movementsBetween,
  movementsOf,
  post,
  requireAvailable,
  type Balance,
  type BalanceEntry,
  type BalancePosting,
  type Movement,
} from '../../shared/domain/ledger/balances.js';
import { InsufficientBalance, Invalid, NotFound } from '../../shared/domain/kernel/errors.js';
import { Decimal } from '../../shared/domain/kernel/money.js';
import type { CommitResult } from '../../shared/domain/kernel/retry.js';
import type { Transaction } from '../../shared/domain/transactions/transactions.js';
import { balanceKey, MemoryBalanceStore } from '../support/memory/balances.js';

const MERCHANT = 'merchant-1';
const AT = '2026-03-01T12:00:00.000Z';
let ids = 0;
const newId = () => `00000000-0000-4000-8000-${String(++ids).padStart(12, '0')}`;

function transaction(fields: Partial<Transaction> & Pick<Transaction, 'type' | 'status' | 'amount'>): Transaction {
  return { id: newId(), merchantId: MERCHANT, currency: 'TRY', fees: { processing: '0.00', technical: null }, createdAt: AT, updatedAt: AT, booked: true, ...fields } as Transaction;
}

const shape = (movements: Movement[]) => movements.map(({ type, available, reserved }) => [type, available.toFixed(), reserved.toFixed()]);

describe('the entries of a transaction state', () => {
  it('a confirmed deposit: its amount, then its fee, on available; nothing before or if it fails', () => {
    const deposit = (status: Transaction['status']) => transaction({ type: 'deposit', status, amount: '1000.00', fees: { processing: '15.00', technical: '0.50' } });
    expect(shape(movementsOf(deposit('confirmed')))).toEqual([
      ['deposit', '1000', '0'],
      ['fee', '-15.5', '0'],
    ]);
    expect(movementsOf(deposit('processing'))).toEqual([]);
    expect(movementsOf(deposit('failed'))).toEqual([]);
  });

  it('a withdrawal: its reserve from acceptance, then paid out of reserved, or released', () => {
    const withdrawal = (status: Transaction['status']) => transaction({ type: 'withdraw', status, amount: '100.00', fees: { processing: '1.50', technical: null } });
    expect(shape(movementsOf(withdrawal('processing')))).toEqual([['payout_reserve', '-101.5', '101.5']]);
    expect(shape(movementsOf(withdrawal('confirmed')))).toEqual([
      ['payout_reserve', '-101.5', '101.5'],
      ['payout', '0', '-100'],
      ['fee', '0', '-1.5'],
    ]);
    expect(shape(movementsOf(withdrawal('failed')))).toEqual([
      ['payout_reserve', '-101.5', '101.5'],
      ['payout_release', '101.5', '-101.5'],
    ]);
  });

  it('a fee of nothing is no entry', () => {
    expect(movementsOf(transaction({ type: 'deposit', status: 'confirmed', amount: '5.00' })).map((m) => m.type)).toEqual(['deposit']);
    expect(movementsOf(transaction({ type: 'withdraw', status: 'confirmed', amount: '5.00' })).map((m) => m.type)).toEqual(['payout_reserve', 'payout']);
  });

  it('a state change adds what the previous state had not posted; a transaction recorded before the books posts everything at its first change', () => {
    const processing = transaction({ type: 'withdraw', status: 'processing', amount: '100.00', fees: { processing: '1.00', technical: null } });
    const confirmed = { ...processing, status: 'confirmed' as const };
    expect(movementsBetween(undefined, processing).map((m) => m.type)).toEqual(['payout_reserve']);
    expect(movementsBetween(processing, confirmed).map((m) => m.type)).toEqual(['payout', 'fee']);
    const { booked: _booked, ...legacy } = processing;
    expect(movementsBetween(legacy, confirmed).map((m) => m.type)).toEqual(['payout_reserve', 'payout', 'fee']);
    expect(movementsBetween(legacy, { ...confirmed, status: 'failed' }).map((m) => m.type)).toEqual(['payout_reserve', 'payout_release']);
  });
});

describe('a posting', () => {
  const deposit = transaction({ type: 'deposit', status: 'confirmed', amount: '0.012345678901234567', currency: 'ETH', fees: { processing: '0.000185185183518519', technical: null } });

  it('posts each entry onto the balance before it, at the currency precision, and counts them', () => {
    const before: Balance = { merchantId: MERCHANT, currency: 'ETH', available: '1.000000000000000000', reserved: '0.000000000000000000', entryCount: 4, updatedAt: AT };
    const posting = post(before, movementsOf(deposit), { merchantId: MERCHANT, currency: 'ETH', transactionId: deposit.id, at: AT });
    expect(posting.expected).toEqual({ entryCount: 4, available: '1.000000000000000000', reserved: '0.000000000000000000' });
    expect(posting.balance).toEqual({ ...before, available: '1.012160493717716048', entryCount: 6 });
    expect(posting.entries.map(({ type, availableChange, availableAfter, reservedAfter, sequence }) => [type, availableChange, availableAfter, reservedAfter, sequence])).toEqual([
      ['deposit', '0.012345678901234567', '1.012345678901234567', '0.000000000000000000', 5],
      ['fee', '-0.000185185183518519', '1.012160493717716048', '0.000000000000000000', 6],
    ]);
  });

  it('starts from zero, expecting no balance, when the merchant has none in the currency', () => {
    const posting = post(undefined, movementsOf(deposit), { merchantId: MERCHANT, currency: 'ETH', transactionId: deposit.id, at: AT });
    expect(posting.expected).toBeUndefined();
    expect(posting.balance.entryCount).toBe(2);
  });

  it("derives each entry's id from its transaction and type: the same every time, a version 5 UUID", () => {
    const [first] = post(undefined, movementsOf(deposit), { merchantId: MERCHANT, currency: 'ETH', transactionId: deposit.id, at: AT }).entries;
    expect(first!.id).toBe(entryId(deposit.id, 'deposit'));
    expect(entryId(deposit.id, 'deposit')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set([entryId(deposit.id, 'deposit'), entryId(deposit.id, 'fee'), entryId(newId(), 'deposit')]).size).toBe(3);
  });

  it('always leaves the balance equal to the sums of its entries', () => {
    const movement = fc.record({
      type: fc.constantFrom('deposit', 'fee', 'payout_reserve', 'payout', 'payout_release', 'adjustment' as const),
      available: fc.bigInt({ min: -(10n ** 14n), max: 10n ** 14n }),
      reserved: fc.bigInt({ min: -(10n ** 14n), max: 10n ** 14n }),
    });
    fc.assert(
      fc.property(fc.array(fc.array(movement, { minLength: 1, maxLength: 4 }), { maxLength: 8 }), (postings) => {
        let balance: Balance | undefined;
        const written: BalanceEntry[] = [];
        for (const movements of postings) {
          const posting = post(
            balance,
            movements.map(({ type, available, reserved }) => ({ type, available: new Decimal(available.toString()).div(100), reserved: new Decimal(reserved.toString()).div(100) })),
            { merchantId: MERCHANT, currency: 'INR', transactionId: newId(), at: AT },
          );
          written.push(...posting.entries);
          balance = posting.balance;
        }
        expect(balancesFromEntries(MERCHANT, written, AT)).toEqual(balance ? [balance] : []);
      }),
    );
  });
});

describe('what a merchant sees', () => {
  it('an entry as one signed amount: on available, or on reserved when it leaves available untouched', () => {
    const withdrawal = transaction({ type: 'withdraw', status: 'confirmed', amount: '100.00', fees: { processing: '2.00', technical: null } });
    const { entries } = post(undefined, movementsOf(withdrawal), { merchantId: MERCHANT, currency: 'TRY', transactionId: withdrawal.id, at: AT });
    expect(entries.map(balanceEntryView).map(({ type, amount, availableAfter, reservedAfter }) => [type, amount, availableAfter, reservedAfter])).toEqual([
      ['payout_reserve', '-102.00', '-102.00', '102.00'],
      ['payout', '-100.00', '-102.00', '2.00'],
      ['fee', '-2.00', '-102.00', '0.00'],
    ]);
    expect(Object.keys(balanceEntryView(entries[0]!))).toEqual(['id', 'transactionId', 'type', 'currency', 'amount', 'availableAfter', 'reservedAfter', 'createdAt']);
  });

  it('402 names what is available, at the currency precision', () => {
    const balance: Balance = { merchantId: MERCHANT, currency: 'INR', available: '120.00', reserved: '0.00', entryCount: 1, updatedAt: AT };
    expect(() => requireAvailable(balance, 'INR', new Decimal('120.01'))).toThrow(new InsufficientBalance('120.00', 'INR'));
    expect(() => requireAvailable(balance, 'INR', new Decimal('120.01'))).toThrow('Insufficient balance: 120.00 INR available');
    expect(() => requireAvailable(undefined, 'USDT', new Decimal('1'))).toThrow('Insufficient balance: 0.000000 USDT available');
    expect(() => requireAvailable(balance, 'INR', new Decimal('120'))).not.toThrow();
  });
});

/** The books in memory, with the transactions the rebuild reads and books. */
class MemoryBooks extends MemoryBalanceStore {
  readonly transactions = new Map<string, Transaction>();

  async *allOf(merchantId: string) {
    yield* [...this.transactions.values()].filter((t) => t.merchantId === merchantId);
  }
  async transaction(id: string) {
    return this.transactions.get(id);
  }
  async book(found: Transaction, posting: BalancePosting): Promise<CommitResult> {
    const current = this.transactions.get(found.id)!;
    if (current.booked || current.status !== found.status) return 'stale';
    const result = await this.post(posting);
    if (result === 'committed') this.transactions.set(found.id, { ...current, booked: true });
    return result;
  }
}

function booksService(books: MemoryBooks, merchants = [MERCHANT]) {
  const transactions: TransactionBooks = { allOf: (m) => books.allOf(m), get: (id) => books.transaction(id), book: (t, p) => books.book(t, p) };
  return new BalanceService({
    balances: books,
    transactions,
    merchants: { getMerchant: async (id) => (merchants.includes(id) ? ({ id } as never) : undefined), enterDirectory: async () => false, clearPayoutsHold: async () => false },
    clock: () => new Date(AT),
    newId,
  });
}

describe('adjustments', () => {
  it('adds to available with its reason, and refuses what would take available below zero, writing nothing', async () => {
    const books = new MemoryBooks();
    const service = booksService(books);
    await service.adjust(MERCHANT, { currency: 'INR', amount: new Decimal('120'), reason: ' Opening balance ' });
    await expect(service.adjust(MERCHANT, { currency: 'INR', amount: new Decimal('-120.01'), reason: 'Correction' })).rejects.toThrow('Insufficient balance: 120.00 INR available');
    const taken = await service.adjust(MERCHANT, { currency: 'INR', amount: new Decimal('-120'), reason: 'Correction' });
    expect(taken.balance).toMatchObject({ available: '0.00', reserved: '0.00', entryCount: 2 });
    expect([...books.entries.values()].map(({ type, transactionId, availableChange, reason }) => [type, transactionId, availableChange, reason])).toEqual([
      ['adjustment', null, '120.00', 'Opening balance'],
      ['adjustment', null, '-120.00', 'Correction'],
    ]);
  });

  it('decides again on the balance a concurrent posting left', async () => {
    const books = new MemoryBooks();
    const service = booksService(books);
    await service.adjust(MERCHANT, { currency: 'TRY', amount: new Decimal('50'), reason: 'Funds' });
    let raced = false;
    books.beforeWrite = () => {
      if (raced) return;
      raced = true;
      const balance = books.balances.get(balanceKey(MERCHANT, 'TRY'))!;
      books.balances.set(balanceKey(MERCHANT, 'TRY'), { ...balance, available: '10.00', entryCount: balance.entryCount + 1 });
    };
    await expect(service.adjust(MERCHANT, { currency: 'TRY', amount: new Decimal('-50'), reason: 'Too much' })).rejects.toThrow('Insufficient balance: 10.00 TRY available');
  });

  it.each([
    ['a currency the books do not hold', { currency: 'USD' }, 'currency'],
    ['zero', { amount: new Decimal(0) }, 'amount'],
    ['more places than the currency has', { amount: new Decimal('1.001') }, 'amount'],
    ['no reason', { reason: '  ' }, 'reason'],
    ['a reason of 501 characters', { reason: 'x'.repeat(501) }, 'reason'],
  ])('refuses %s, writing nothing', async (_name, change, field) => {
    const books = new MemoryBooks();
    const error = await booksService(books)
      .adjust(MERCHANT, { currency: 'TRY', amount: new Decimal(5), reason: 'Funds', ...change })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Invalid);
    expect((error as Invalid).problems[0]!.field).toBe(field);
    expect(books.entries.size).toBe(0);
  });

  it('refuses an unknown merchant', async () => {
    await expect(booksService(new MemoryBooks()).adjust('nobody', { currency: 'TRY', amount: new Decimal(5), reason: 'Funds' })).rejects.toBeInstanceOf(NotFound);
  });
});

describe('the rebuild', () => {
  function legacy(books: MemoryBooks, fields: Partial<Transaction> & Pick<Transaction, 'type' | 'status' | 'amount'>): Transaction {
    const { booked: _booked, ...recorded } = transaction(fields);
    books.transactions.set(recorded.id, recorded);
    return recorded;
  }

  it('books every transaction recorded before the books once, then sets each balance to the sums of its entries', async () => {
    const books = new MemoryBooks();
    const service = booksService(books);
    legacy(books, { type: 'deposit', status: 'confirmed', amount: '1000.00', fees: { processing: '10.00', technical: null } });
    legacy(books, { type: 'deposit', status: 'processing', amount: '500.00' });
    legacy(books, { type: 'withdraw', status: 'processing', amount: '100.00', fees: { processing: '1.00', technical: null } });
    legacy(books, { type: 'withdraw', status: 'confirmed', amount: '200.00', fees: { processing: '2.00', technical: null } });
    legacy(books, { type: 'withdraw', status: 'failed', amount: '300.00' });
    await service.adjust(MERCHANT, { currency: 'TRY', amount: new Decimal('5'), reason: 'Goodwill' });

    const report = await service.rebuild(MERCHANT);
    // 5 + (1000 - 10) - (100 + 1) - (200 + 2) available; the processing withdrawal's 101 reserved.
    expect(report).toEqual({ booked: 4, balances: [{ currency: 'TRY', available: '692.00', reserved: '101.00', entries: 9, corrected: false }] });
    expect(await booksService(books).rebuild(MERCHANT)).toEqual({ ...report, booked: 0 });
    expect(books.entries.size).toBe(9);
  });

  it('corrects a balance that is not the sums of its entries', async () => {
    const books = new MemoryBooks();
    const service = booksService(books);
    await service.adjust(MERCHANT, { currency: 'AZN', amount: new Decimal('40'), reason: 'Funds' });
    const balance = books.balances.get(balanceKey(MERCHANT, 'AZN'))!;
    books.balances.set(balanceKey(MERCHANT, 'AZN'), { ...balance, available: '41.00' });
    expect((await service.rebuild(MERCHANT)).balances).toEqual([{ currency: 'AZN', available: '40.00', reserved: '0.00', entries: 1, corrected: true }]);
    expect(books.balances.get(balanceKey(MERCHANT, 'AZN'))).toMatchObject({ available: '40.00', entryCount: 1 });
  });

  it('makes again a balance that was lost while its entries were kept', async () => {
    const books = new MemoryBooks();
    const service = booksService(books);
    await service.adjust(MERCHANT, { currency: 'PKR', amount: new Decimal('700'), reason: 'Funds' });
    books.balances.delete(balanceKey(MERCHANT, 'PKR'));
    expect((await service.rebuild(MERCHANT)).balances).toEqual([{ currency: 'PKR', available: '700.00', reserved: '0.00', entries: 1, corrected: true }]);
    expect(books.balances.get(balanceKey(MERCHANT, 'PKR'))).toMatchObject({ available: '700.00', entryCount: 1 });
  });
});
