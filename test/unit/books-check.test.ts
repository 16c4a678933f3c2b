/**
 * The books check (docs/operations.md#the-books) over the in-memory ports, on books the services
 * wrote: balanced books show no difference; a balance that is not the sums of its entries, or a
 * transaction without an entry its state calls for, is reported with what differs and holds the
 * merchant's payouts, until an operator clears the hold; a difference gone once the indexes caught
 * up is not, and holds no one.
 */
import { describe, expect, it, vi } from 'vitest';
import { BooksCheck } from '../../shared/domain/books-check.js';
import { entryId } from '../../shared/domain/balances.js';
import { withdrawalRequestSchema } from '../../shared/domain/withdrawals.js';
import { balanceKey } from '../support/memory/balances.js';
import { memoryGateway, type MemoryGateway } from '../support/memory/gateway.js';

/** A merchant with money in: 5000 TRY funded, a TRY deposit confirmed, a withdrawal paid out and one still processing. */
async function booksOfOneMerchant(gateway: MemoryGateway) {
  const merchantId = gateway.merchants.add({ processingFeePercent: '1.5' }).id;
  await gateway.fund(merchantId, 'TRY', '5000');
  const invoice = await gateway.createInvoice(merchantId, { baseCurrency: 'TRY', amount: 700 });
  const deposit = await gateway.transactionService.recordDeposit(merchantId, invoice.id, { source: 'simulated', status: 'confirmed' });
  const withdraw = (amount: string) =>
    gateway.fiatService.createWithdrawal(merchantId, withdrawalRequestSchema.parse({ customerId: 'c-1', amount, currency: 'TRY', cardNumber: '4111111111111111' }));
  const paid = await withdraw('1000');
  await withdraw('200');
  const { reference } = (await gateway.ledger.get(paid.id))!.provider!;
  await gateway.settlement.apply('demo', { kind: 'payout', reference: paid.id, providerReference: reference!, status: 'confirmed' });
  return { merchantId, deposit, paid };
}

const checkOf = (gateway: MemoryGateway, settle = vi.fn(async () => undefined)) =>
  new BooksCheck({ merchants: gateway.merchants, balances: gateway.balances, transactions: gateway.ledger, settle, clock: gateway.clock });

/** A run as the scheduled function names it: the scheduled time, and the invocation's request id. */
const RUN = { at: '2026-06-01T12:00:00Z', id: 'run-1' };

describe('the books check', () => {
  it('finds nothing on books the services wrote', async () => {
    const gateway = memoryGateway();
    await booksOfOneMerchant(gateway);
    await booksOfOneMerchant(gateway);
    const settle = vi.fn(async () => undefined);
    expect(await checkOf(gateway, settle).run(RUN)).toEqual({ merchants: 2, balances: 2, transactions: 6, differences: [], held: [] });
    expect(settle).not.toHaveBeenCalled();
    for await (const merchantId of gateway.merchants.merchantIds()) expect((await gateway.merchants.getMerchant(merchantId))!.booksHold).toBeUndefined();
  });

  it('reports a balance that is not the sums of its entries, with both', async () => {
    const gateway = memoryGateway();
    const { merchantId } = await booksOfOneMerchant(gateway);
    const balance = gateway.balances.balances.get(balanceKey(merchantId, 'TRY'))!;
    gateway.balances.balances.set(balanceKey(merchantId, 'TRY'), { ...balance, available: '1.00' });
    const { differences } = await checkOf(gateway).run(RUN);
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
    const { differences } = await checkOf(gateway).run(RUN);
    expect(differences.filter(({ kind }) => kind === 'missing_entries')).toEqual([
      { kind: 'missing_entries', merchantId, transactionId: deposit.id, type: 'deposit', status: 'confirmed', missing: ['fee'] },
      { kind: 'missing_entries', merchantId, transactionId: paid.id, type: 'withdraw', status: 'confirmed', missing: ['payout'] },
    ]);
    expect(differences.filter(({ kind }) => kind === 'balance')).toHaveLength(1);
  });

  it('reads a merchant whose books differ again after the indexes settle, and reports only what still differs', async () => {
    const gateway = memoryGateway();
    const { merchantId } = await booksOfOneMerchant(gateway);
    const balance = gateway.balances.balances.get(balanceKey(merchantId, 'TRY'))!;
    // An entry the index does not show yet: its balance counts one more than the entries read.
    gateway.balances.balances.set(balanceKey(merchantId, 'TRY'), { ...balance, entryCount: balance.entryCount + 1 });
    const settle = vi.fn(async () => void gateway.balances.balances.set(balanceKey(merchantId, 'TRY'), balance));
    expect(await checkOf(gateway, settle).run(RUN)).toMatchObject({ differences: [], held: [] });
    expect(settle).toHaveBeenCalledOnce();
    expect((await gateway.merchants.getMerchant(merchantId))!.booksHold).toBeUndefined();
  });
});

describe('a merchant whose books differ', () => {
  it('has its payouts held, with the run and what it found: how many differences, the balances off, the transactions missing entries', async () => {
    const gateway = memoryGateway();
    const { merchantId, deposit, paid } = await booksOfOneMerchant(gateway);
    const fine = await booksOfOneMerchant(gateway);
    const balance = gateway.balances.balances.get(balanceKey(merchantId, 'TRY'))!;
    gateway.balances.balances.set(balanceKey(merchantId, 'TRY'), { ...balance, available: '9000.00' });
    gateway.balances.entries.delete(entryId(paid.id, 'payout'));
    gateway.balances.entries.delete(entryId(deposit.id, 'fee'));
    const hold = { heldAt: gateway.clock().toISOString(), run: RUN, differences: 3, currencies: ['TRY'], transactionIds: [deposit.id, paid.id] };
    expect((await checkOf(gateway).run(RUN)).held).toEqual([{ merchantId, hold }]);
    expect((await gateway.merchants.getMerchant(merchantId))!.booksHold).toEqual(hold);
    expect((await gateway.merchants.getMerchant(fine.merchantId))!.booksHold).toBeUndefined();
  });

  it('keeps the first hold through later runs, whether they find the books off or balanced: only an operator clears it', async () => {
    const gateway = memoryGateway();
    const { merchantId } = await booksOfOneMerchant(gateway);
    const balance = gateway.balances.balances.get(balanceKey(merchantId, 'TRY'))!;
    gateway.balances.balances.set(balanceKey(merchantId, 'TRY'), { ...balance, available: '9000.00' });
    await checkOf(gateway).run(RUN);
    const first = (await gateway.merchants.getMerchant(merchantId))!.booksHold!;

    gateway.advance(3600);
    const later = await checkOf(gateway).run({ at: '2026-06-01T13:00:00Z', id: 'run-2' });
    expect(later.held).toEqual([{ merchantId, hold: first }]);
    gateway.balances.balances.set(balanceKey(merchantId, 'TRY'), balance);
    gateway.advance(3600);
    expect(await checkOf(gateway).run({ at: '2026-06-01T14:00:00Z', id: 'run-3' })).toMatchObject({ differences: [], held: [] });
    expect((await gateway.merchants.getMerchant(merchantId))!.booksHold).toEqual(first);
  });

  it('names at most ten of the transactions missing entries, and counts them all', async () => {
    const gateway = memoryGateway();
    const merchantId = gateway.merchants.add().id;
    const deposits = [];
    for (let i = 0; i < 12; i++) {
      const invoice = await gateway.createInvoice(merchantId, { baseCurrency: 'TRY', amount: 700 });
      deposits.push(await gateway.transactionService.recordDeposit(merchantId, invoice.id, { source: 'simulated', status: 'confirmed' }));
    }
    for (const { id } of deposits) gateway.balances.entries.delete(entryId(id, 'deposit'));
    const [held] = (await checkOf(gateway).run(RUN)).held;
    expect(held!.hold).toMatchObject({ differences: 13, currencies: ['TRY'] });
    expect(held!.hold.transactionIds).toHaveLength(10);
    expect(deposits.map(({ id }) => id)).toEqual(expect.arrayContaining(held!.hold.transactionIds));
  });
});
