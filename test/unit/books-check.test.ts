/**
 * The books check (docs/operations.md#the-books) over the in-memory ports, on books the services
 * wrote: balanced books show no difference; a balance that is not the sums of its entries, or a
 * transaction without an entry its state calls for, is reported with what differs; a difference
 * gone once the indexes caught up is not.
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
  new BooksCheck({ merchants: gateway.merchants, balances: gateway.balances, transactions: gateway.ledger, settle });

describe('the books check', () => {
  it('finds nothing on books the services wrote', async () => {
    const gateway = memoryGateway();
    await booksOfOneMerchant(gateway);
    await booksOfOneMerchant(gateway);
    const settle = vi.fn(async () => undefined);
    expect(await checkOf(gateway, settle).run()).toEqual({ merchants: 2, balances: 2, transactions: 6, differences: [] });
    expect(settle).not.toHaveBeenCalled();
  });

  it('reports a balance that is not the sums of its entries, with both', async () => {
    const gateway = memoryGateway();
    const { merchantId } = await booksOfOneMerchant(gateway);
    const balance = gateway.balances.balances.get(balanceKey(merchantId, 'TRY'))!;
    gateway.balances.balances.set(balanceKey(merchantId, 'TRY'), { ...balance, available: '1.00' });
    const { differences } = await checkOf(gateway).run();
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
    const { differences } = await checkOf(gateway).run();
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
    expect((await checkOf(gateway, settle).run()).differences).toEqual([]);
    expect(settle).toHaveBeenCalledOnce();
  });
});
