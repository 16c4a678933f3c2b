/**
 * The day totals of the dashboard's overview (shared/domain/ledger/daily-totals.ts) through the services
 * over in-memory ports: what each write counts, on which UTC day, and the operator's recount from
 * the records. The items DynamoDB holds, and the functions' writes, are tested in
 * test/integration/daily-totals.test.ts.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { movementsOf, post } from '../../shared/domain/ledger/balances.js';
import { countsOfLedgerWrite, DailyTotalsRecount, utcDay } from '../../shared/domain/ledger/daily-totals.js';
import { NotFound } from '../../shared/domain/kernel/errors.js';
import { Decimal } from '../../shared/domain/kernel/money.js';
import type { Transaction } from '../../shared/domain/transactions/transactions.js';
import { memoryGateway, refusal } from '../support/memory/gateway.js';

const [DAY, NEXT_DAY] = ['2026-06-01', '2026-06-02'];

/** A gateway whose clock reads `DAY` noon, and a merchant of its own. */
function setup() {
  const gateway = memoryGateway();
  const merchantId = gateway.merchants.add({ processingFeePercent: '2' }).id;
  const deposit = (invoiceId: string, amount: string, status: Transaction['status'] = 'confirmed') =>
    gateway.transactionService.recordDeposit(merchantId, invoiceId, { source: 'simulated', status, amount: new Decimal(amount) });
  /** Moves the clock to `time` (ISO, later than it reads). */
  const at = (time: string) => gateway.advance((Date.parse(time) - gateway.clock().getTime()) / 1000);
  return { gateway, merchantId, deposit, at };
}

describe('the day totals', () => {
  it('count an invoice on the day it is created, and a deposit its amount (not its fee) on the day it is confirmed, with the invoice it completes', async () => {
    const { gateway, merchantId, deposit, at } = setup();
    const invoice = await gateway.createInvoice(merchantId, { baseCurrency: 'USDT', amount: 25 });
    await deposit(invoice.id, '0.1');
    at(`${DAY}T23:59:59.999Z`);
    await deposit(invoice.id, '0.2');
    const pending = await deposit(invoice.id, '24.7', 'processing');
    await deposit(invoice.id, '3', 'failed');
    expect(await gateway.totals.lastDays(merchantId, [DAY, NEXT_DAY])).toEqual({
      volumes: new Map([['USDT', new Map([[DAY, '0.300000']])]]),
      invoices: new Map([[DAY, { created: 1, completed: 0 }]]),
    });

    at(`${NEXT_DAY}T00:00:00.000Z`);
    await gateway.transactionService.settle(merchantId, pending.id, 'confirmed', { source: 'chain' });
    // Settling it again answers the state it has, and counts nothing more.
    await gateway.transactionService.settle(merchantId, pending.id, 'confirmed', { source: 'chain' });
    expect(await gateway.totals.lastDays(merchantId, [DAY, NEXT_DAY])).toEqual({
      volumes: new Map([
        [
          'USDT',
          new Map([
            [DAY, '0.300000'],
            [NEXT_DAY, '24.700000'],
          ]),
        ],
      ]),
      invoices: new Map([
        [DAY, { created: 1, completed: 0 }],
        [NEXT_DAY, { created: 0, completed: 1 }],
      ]),
    });
  });

  it("count nothing of a withdrawal's entries, nor of an invoice change that does not complete it", () => {
    const merchantId = randomUUID();
    const at = `${DAY}T23:59:59.999Z`;
    const withdrawal = {
      id: randomUUID(),
      merchantId,
      type: 'withdraw',
      status: 'confirmed',
      amount: '100.00',
      currency: 'TRY',
      fees: { processing: '1.00', technical: null },
      updatedAt: at,
    } as Transaction;
    const posting = post(undefined, movementsOf(withdrawal), { merchantId, currency: 'TRY', transactionId: withdrawal.id, at });
    expect(posting.entries.map(({ type }) => type)).toEqual(['payout_reserve', 'payout', 'fee']);
    const canceled = { id: randomUUID(), expected: { status: 'active' as const, paidAmount: '0.00', transactionCount: 0 }, set: { status: 'canceled' as const, cancelReason: 'rejected' as const } };
    expect(countsOfLedgerWrite(withdrawal, posting, canceled)).toEqual([]);
    // A completion counts on the day the invoice completed.
    const completed = { ...canceled, set: { status: 'completed' as const, completedAt: at } };
    expect(countsOfLedgerWrite({ merchantId, updatedAt: `${NEXT_DAY}T00:00:00.000Z` }, undefined, completed)).toEqual([
      { kind: 'invoice', merchantId, day: DAY, invoiceId: canceled.id, event: 'completed' },
    ]);
  });

  it('bucket by the UTC day whatever offset a time is written with', () => {
    expect(utcDay('2026-06-01T23:59:59.999Z')).toBe(DAY);
    expect(utcDay('2026-06-02T00:00:00.000Z')).toBe(NEXT_DAY);
    expect(utcDay('2026-06-02T01:30:00.000+02:00')).toBe(DAY);
  });
});

describe('the recount', () => {
  it('sets the days to what the records count, as the writes counted them, the same on every run', async () => {
    const { gateway, merchantId, deposit, at } = setup();
    const recount = new DailyTotalsRecount({ merchants: gateway.merchants, transactions: gateway.ledger, invoices: gateway.invoices, totals: gateway.totals });
    const paid = await gateway.createInvoice(merchantId, { baseCurrency: 'TRY', amount: 1500 });
    const open = await gateway.createInvoice(merchantId, { baseCurrency: 'USDT', amount: 25 });
    await deposit(paid.id, '1500');
    at(`${NEXT_DAY}T00:00:00.000Z`);
    await deposit(open.id, '0.1');
    await deposit(open.id, '0.2');
    await deposit(open.id, '1', 'failed');
    const counted = await gateway.totals.lastDays(merchantId, [DAY, NEXT_DAY]);
    expect(counted.invoices).toEqual(new Map([[DAY, { created: 2, completed: 1 }]]));

    // As for a merchant whose records predate the totals: none counted.
    await gateway.totals.replace(merchantId, [DAY, NEXT_DAY], []);
    expect(await recount.recount(merchantId, [NEXT_DAY, DAY])).toEqual(counted);
    expect(await recount.recount(merchantId, [DAY, NEXT_DAY])).toEqual(counted);
    // A day outside those recounted keeps what it had.
    expect((await recount.recount(merchantId, [NEXT_DAY])).volumes).toEqual(new Map([['USDT', new Map([[NEXT_DAY, '0.300000']])]]));
    expect(await gateway.totals.lastDays(merchantId, [DAY, NEXT_DAY])).toEqual(counted);
  });

  it('refuses a merchant that does not exist', async () => {
    const { gateway } = setup();
    const recount = new DailyTotalsRecount({ merchants: gateway.merchants, transactions: gateway.ledger, invoices: gateway.invoices, totals: gateway.totals });
    expect(await refusal(recount.recount(randomUUID(), [DAY]))).toEqual(new NotFound('Merchant'));
  });
});
