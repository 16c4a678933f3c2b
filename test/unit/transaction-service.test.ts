/**
 * How deposits are counted (docs/merchant-guide.md "How payments are counted", "Invoice
 * lifecycle") through the transaction service over in-memory ports, races with its optimistic
 * retry included. What only DynamoDB shows (the transaction's conditions, the outbox and its
 * queue, 20 writers on one item) is tested in test/integration/transactions.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { webhookId } from '../../shared/domain/transactions/transaction-callbacks.js';
import { Conflict, Gone, Invalid, NotFound } from '../../shared/domain/kernel/errors.js';
import type { Invoice } from '../../shared/domain/invoicing/invoice.js';
import { Decimal } from '../../shared/domain/kernel/money.js';
import type { DepositInput } from '../../shared/domain/payments/transaction-service.js';
import { INVOICE_LIFETIME_SECONDS, memoryGateway, type MemoryGateway, refusal } from '../support/memory/gateway.js';
import { interleave } from '../support/memory/interleave.js';

let gateway: MemoryGateway;
let merchantId: string;

function setup() {
  gateway = memoryGateway();
  merchantId = gateway.merchants.add({ processingFeePercent: '1.5' }).id;
}

const usdtInvoice = () => gateway.createInvoice(merchantId, { baseCurrency: 'USDT', amount: 25 });
const tryInvoice = () => gateway.createInvoice(merchantId, { baseCurrency: 'TRY', amount: 1500 });

/** A deposit the simulation API records: confirmed, in the invoice's currency, unless `input` says otherwise. */
const deposit = (invoice: Invoice, amount: string, input: Partial<DepositInput> = {}) =>
  gateway.transactionService.recordDeposit(invoice.merchantId, invoice.id, { source: 'simulated', status: 'confirmed', amount: new Decimal(amount), ...input });

const stored = async (invoice: Invoice) => (await gateway.invoices.get(invoice.id))!;

/** The callbacks owed, as `webhook-id`s in the order they were handed to the queue. */
const published = () => gateway.callbacks.published;

describe('how payments are counted', () => {
  it('keeps an invoice paid in part open, completes it with the deposit that pays it in full, and calls back each deposit', async () => {
    setup();
    const invoice = await usdtInvoice();
    const first = await deposit(invoice, '10');
    expect(first).toMatchObject({ type: 'deposit', status: 'confirmed', invoiceId: invoice.id, amount: '10.000000', currency: 'USDT', network: 'ethereum', fees: { processing: '0.150000' } });
    expect(await stored(invoice)).toMatchObject({ status: 'created', paidAmount: '10.000000', paymentStatus: 'partial', transactionIds: [first.id], completedAt: null });

    gateway.advance(30);
    const second = await deposit(invoice, '15');
    expect(await stored(invoice)).toMatchObject({
      status: 'completed',
      paidAmount: '25.000000',
      paymentStatus: 'paid',
      transactionIds: [first.id, second.id],
      completedAt: gateway.clock().toISOString(),
      updatedAt: gateway.clock().toISOString(),
    });
    expect(published()).toEqual([webhookId(first.id, 'confirmed'), webhookId(second.id, 'confirmed')]);
    expect(gateway.ledger.callback(webhookId(second.id, 'confirmed'))).toMatchObject({ merchantId, transactionId: second.id });
    expect(gateway.metrics.depositSettled).toHaveBeenCalledTimes(2);
    expect(gateway.metrics.depositSettled).toHaveBeenCalledWith('simulated', 'confirmed');
  });

  it('completes an invoice paid more than asked as overpaid, and records money that arrives on it after', async () => {
    setup();
    const invoice = await usdtInvoice();
    await deposit(invoice, '30');
    expect(await stored(invoice)).toMatchObject({ status: 'completed', paidAmount: '30.000000', paymentStatus: 'overpaid' });
    const late = await deposit(invoice, '5');
    expect(await stored(invoice)).toMatchObject({ status: 'completed', paidAmount: '35.000000', paymentStatus: 'overpaid' });
    expect((await stored(invoice)).transactionIds).toContain(late.id);
  });

  it('records a deposit in another currency on the invoice, valued at the rates of the moment, without ever paying it', async () => {
    setup();
    const invoice = await usdtInvoice();
    const eth = await deposit(invoice, '0.01', { currency: 'ETH' });
    expect(eth).toMatchObject({
      currency: 'ETH',
      amount: '0.010000000000000000',
      network: 'ethereum',
      usd: '32.00',
      info: { exchangeRate: '0.0003125', referenceAmount: '32.000000', referenceCurrency: 'USDT' },
    });
    expect(await stored(invoice)).toMatchObject({ status: 'created', paidAmount: '0.000000', paymentStatus: 'unpaid', transactionIds: [eth.id] });
    expect(published()).toEqual([webhookId(eth.id, 'confirmed')]);
  });

  it('counts a processing deposit for nothing until it is settled confirmed; settling it again answers it again, and a contradiction is a conflict', async () => {
    setup();
    const invoice = await usdtInvoice();
    const pending = await deposit(invoice, '25', { status: 'processing' });
    expect(await stored(invoice)).toMatchObject({ status: 'created', paymentStatus: 'unpaid', transactionIds: [pending.id] });
    expect(published()).toEqual([]);

    const settled = await gateway.transactionService.settle(merchantId, pending.id, 'confirmed', { source: 'chain' });
    expect(settled).toMatchObject({ id: pending.id, status: 'confirmed' });
    expect(await stored(invoice)).toMatchObject({ status: 'completed', paymentStatus: 'paid', transactionIds: [pending.id] });
    expect(await gateway.transactionService.settle(merchantId, pending.id, 'confirmed')).toEqual(settled);
    await expect(gateway.transactionService.settle(merchantId, pending.id, 'failed')).rejects.toThrow(new Conflict('Transaction is already confirmed'));
    expect(published()).toEqual([webhookId(pending.id, 'confirmed')]);
    expect(gateway.metrics.depositSettled).toHaveBeenCalledExactlyOnceWith('chain', 'confirmed');
  });

  it('cancels a local-fiat invoice as rejected when its payment fails with nothing paid on it, and not once something is', async () => {
    setup();
    const unpaid = await tryInvoice();
    const failed = await deposit(unpaid, '1500', { status: 'failed' });
    expect(await stored(unpaid)).toMatchObject({ status: 'canceled', cancelReason: 'rejected', paymentStatus: 'unpaid' });
    expect(published()).toEqual([webhookId(failed.id, 'failed')]);

    const partlyPaid = await tryInvoice();
    await deposit(partlyPaid, '500');
    await deposit(partlyPaid, '1000', { status: 'failed' });
    expect(await stored(partlyPaid)).toMatchObject({ status: 'created', paidAmount: '500.00', paymentStatus: 'partial' });
  });

  it('values a deposit settled for another amount than was recorded anew, fee and all', async () => {
    setup();
    const invoice = await tryInvoice();
    const pending = await deposit(invoice, '1500', { status: 'processing' });
    const settled = await gateway.transactionService.settle(merchantId, pending.id, 'confirmed', { details: { amount: new Decimal('1000') } });
    expect(settled).toMatchObject({ amount: '1000.00', fees: { processing: '15.00' }, usd: '30.00', createdAt: pending.createdAt });
    expect(await stored(invoice)).toMatchObject({ status: 'created', paidAmount: '1000.00', paymentStatus: 'partial' });
  });

  it('records a deposit with a unique id once: recording it again answers the first, whatever the invoice became', async () => {
    setup();
    const invoice = await usdtInvoice();
    const first = await deposit(invoice, '25', { uniqueId: 'chain#ethereum#0xabc#native' });
    expect(await deposit(invoice, '25', { uniqueId: 'chain#ethereum#0xabc#native' })).toEqual(first);
    expect(await stored(invoice)).toMatchObject({ paidAmount: '25.000000', transactionIds: [first.id] });
  });
});

describe('after expiry', () => {
  it('credits crypto to an expired invoice: paid in part it stays canceled as its paidAmount grows, paid in full it completes late', async () => {
    setup();
    const invoice = await usdtInvoice();
    gateway.advance(INVOICE_LIFETIME_SECONDS);
    await gateway.sweep();
    expect(await stored(invoice)).toMatchObject({ status: 'canceled', cancelReason: 'expired' });

    await deposit(invoice, '10');
    expect(await stored(invoice)).toMatchObject({ status: 'canceled', paidAmount: '10.000000', paymentStatus: 'partial' });
    await deposit(invoice, '15');
    expect(await stored(invoice)).toMatchObject({ status: 'completed', paidLate: true, paymentStatus: 'paid' });
  });

  it("takes no new payment of the merchant's on a canceled or completed local-fiat invoice, yet records money a provider reports", async () => {
    setup();
    const expired = await tryInvoice();
    const completed = await tryInvoice();
    await deposit(completed, '1500');
    gateway.advance(INVOICE_LIFETIME_SECONDS);
    await gateway.sweep();

    expect(await refusal(deposit(expired, '1500'))).toEqual(new Gone('Invoice is canceled (expired) and takes no payment'));
    expect(await refusal(deposit(completed, '100'))).toEqual(new Conflict('Invoice is already paid'));
    expect((await stored(expired)).transactionIds).toEqual([]);

    await deposit(expired, '1500', { source: 'fiat', reportedByProvider: true });
    expect(await stored(expired)).toMatchObject({ status: 'completed', paidLate: true, paymentStatus: 'paid' });
  });
});

describe('refusals', () => {
  it("knows of no other merchant's invoice or transaction", async () => {
    setup();
    const invoice = await usdtInvoice();
    const recorded = await deposit(invoice, '10');
    const other = gateway.merchants.add().id;
    await expect(gateway.transactionService.recordDeposit(other, invoice.id, { source: 'simulated', status: 'confirmed' })).rejects.toThrow(NotFound);
    await expect(gateway.transactionService.settle(other, recorded.id, 'confirmed')).rejects.toThrow(NotFound);
    await expect(gateway.transactionService.owned(other, recorded.id)).rejects.toThrow(NotFound);
  });

  it.each([
    [{ currency: 'TRY' }, 'currency', "currency must be a crypto currency, like the invoice's USDT"],
    [{ network: 'polygon' as const }, 'network', 'network must be one of ethereum, bsc, tron for USDT'],
    [{ amount: new Decimal('1.0000001') }, 'amount', 'amount must have at most 6 decimal places for USDT'],
  ])('refuses a deposit its invoice cannot take (%o), recording nothing', async (input, field, message) => {
    setup();
    const invoice = await usdtInvoice();
    expect(await refusal(deposit(invoice, '10', input))).toEqual(Invalid.of(field, message));
    expect((await stored(invoice)).transactionIds).toEqual([]);
  });
});

describe('races, decided again on the state the winner left', () => {
  it('counts both of two deposits made on one invoice at once', async () => {
    setup();
    const invoice = await usdtInvoice();
    let winner: { id: string } | undefined;
    interleave(gateway.invoices, 'get', async () => (winner = await deposit(invoice, '10')));
    const loser = await deposit(invoice, '15');
    expect(await stored(invoice)).toMatchObject({ status: 'completed', paidAmount: '25.000000', paymentStatus: 'paid', transactionIds: [winner!.id, loser.id] });
  });

  it('never loses a crypto payment that races the expiry sweep: the invoice completes late', async () => {
    setup();
    const invoice = await usdtInvoice();
    gateway.advance(INVOICE_LIFETIME_SECONDS);
    interleave(gateway.invoices, 'get', () => gateway.sweep());
    await deposit(invoice, '25');
    expect(await stored(invoice)).toMatchObject({ status: 'completed', cancelReason: 'expired', paidLate: true, paymentStatus: 'paid' });
  });

  it('refuses a local-fiat payment that loses its race with the expiry sweep, recording nothing', async () => {
    setup();
    const invoice = await tryInvoice();
    gateway.advance(INVOICE_LIFETIME_SECONDS);
    interleave(gateway.invoices, 'get', () => gateway.sweep());
    expect(await refusal(deposit(invoice, '1500'))).toBeInstanceOf(Gone);
    expect(await stored(invoice)).toMatchObject({ status: 'canceled', cancelReason: 'expired', transactionIds: [] });
  });

  it('lets the first of two settlements of one deposit decide; the other sees its decision', async () => {
    setup();
    const invoice = await usdtInvoice();
    const pending = await deposit(invoice, '25', { status: 'processing' });
    interleave(gateway.ledger, 'get', () => gateway.transactionService.settle(merchantId, pending.id, 'confirmed'));
    await expect(gateway.transactionService.settle(merchantId, pending.id, 'failed')).rejects.toThrow(new Conflict('Transaction is already confirmed'));
    expect(published()).toEqual([webhookId(pending.id, 'confirmed')]);
    expect(await stored(invoice)).toMatchObject({ status: 'completed' });
  });

  it('records a deposit two writers record at once under one unique id once, both answered with it', async () => {
    setup();
    const invoice = await usdtInvoice();
    const transfer = { uniqueId: 'chain#ethereum#0xabc#native' };
    let winner: { id: string } | undefined;
    interleave(gateway.invoices, 'get', async () => (winner = await deposit(invoice, '25', transfer)));
    expect(await deposit(invoice, '25', transfer)).toEqual(winner);
    expect(await stored(invoice)).toMatchObject({ paidAmount: '25.000000', transactionIds: [winner!.id] });
  });
});
