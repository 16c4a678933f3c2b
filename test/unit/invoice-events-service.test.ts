/**
 * Invoice events (docs/merchant-guide.md#invoice-events) as the transaction service and the expiry
 * sweep write them over in-memory ports: off unless the merchant turned them on, each written with
 * the change it announces, numbered per invoice and event, and handed to the queue with it.
 */
import { describe, expect, it } from 'vitest';
import { webhookId } from '../../shared/domain/transactions/transaction-callbacks.js';
import type { Invoice } from '../../shared/domain/invoicing/invoice.js';
import { invoiceEventBodySchema } from '../../shared/domain/invoicing/invoice-events.js';
import { Decimal } from '../../shared/domain/kernel/money.js';
import type { DepositInput } from '../../shared/domain/payments/transaction-service.js';
import { INVOICE_LIFETIME_SECONDS, memoryGateway } from '../support/memory/gateway.js';

function setup(invoiceCallbacks: boolean) {
  const gateway = memoryGateway();
  const merchantId = gateway.merchants.add({ invoiceCallbacks }).id;
  const usdtInvoice = () => gateway.createInvoice(merchantId, { baseCurrency: 'USDT', amount: 25 });
  const deposit = (invoice: Invoice, amount: string, input: Partial<DepositInput> = {}) =>
    gateway.transactionService.recordDeposit(merchantId, invoice.id, { source: 'simulated', status: 'confirmed', amount: new Decimal(amount), ...input });
  /** The invoice events owed, in the order they were handed to the queue. */
  const events = () => gateway.callbacks.published.filter((id) => id.startsWith('invoice:'));
  const body = (id: string) => invoiceEventBodySchema.parse(JSON.parse((gateway.ledger.callback(id) ?? gateway.invoices.announced.get(id))!.payload));
  return { gateway, merchantId, usdtInvoice, deposit, events, body };
}

describe('invoice events', () => {
  it('are not sent to a merchant that did not turn them on: its transaction callbacks alone', async () => {
    const { gateway, usdtInvoice, deposit, events } = setup(false);
    const invoice = await usdtInvoice();
    const first = await deposit(invoice, '10');
    const second = await deposit(invoice, '15');
    gateway.advance(INVOICE_LIFETIME_SECONDS + 1);
    await usdtInvoice();
    gateway.advance(INVOICE_LIFETIME_SECONDS + 1);
    await gateway.sweep();
    expect(events()).toEqual([]);
    expect(gateway.callbacks.published).toEqual([webhookId(first.id, 'confirmed'), webhookId(second.id, 'confirmed')]);
  });

  it('announce each partial payment, numbered, then the payment in full, each with the invoice as it left it', async () => {
    const { gateway, usdtInvoice, deposit, events, body } = setup(true);
    const invoice = await usdtInvoice();
    const first = await deposit(invoice, '10');
    const second = await deposit(invoice, '5');
    const third = await deposit(invoice, '10');
    expect(events()).toEqual([`invoice:${invoice.id}:invoice.partially_paid:1`, `invoice:${invoice.id}:invoice.partially_paid:2`, `invoice:${invoice.id}:invoice.paid:1`]);
    // Each with the transaction callback it came with, handed to the queue in the same call.
    expect(gateway.callbacks.published).toEqual([webhookId(first.id, 'confirmed'), events()[0], webhookId(second.id, 'confirmed'), events()[1], webhookId(third.id, 'confirmed'), events()[2]]);
    expect(body(events()[1]!)).toMatchObject({
      callbackType: 'invoice',
      event: 'invoice.partially_paid',
      invoice: { id: invoice.id, status: 'created', paidAmount: '15.000000', paymentStatus: 'partial' },
    });
    expect(body(events()[2]!).invoice).toMatchObject({ status: 'completed', paidAmount: '25.000000', paymentStatus: 'paid', transactionIds: [first.id, second.id, third.id] });
    expect((await gateway.invoices.get(invoice.id))!.invoiceEvents).toEqual({ 'invoice.partially_paid': 2, 'invoice.paid': 1 });
  });

  it('announce nothing for a deposit that is still processing, and the payment once it is confirmed', async () => {
    const { gateway, usdtInvoice, deposit, events } = setup(true);
    const invoice = await usdtInvoice();
    const pending = await deposit(invoice, '25', { status: 'processing' });
    expect(events()).toEqual([]);
    await gateway.transactionService.settle(invoice.merchantId, pending.id, 'confirmed');
    expect(events()).toEqual([`invoice:${invoice.id}:invoice.paid:1`]);
  });

  it('announce an expiry with the sweep that cancels the invoice, and a payment after it as paid late', async () => {
    const { gateway, usdtInvoice, deposit, events, body } = setup(true);
    const invoice = await usdtInvoice();
    gateway.advance(INVOICE_LIFETIME_SECONDS + 1);
    await gateway.sweep();
    await gateway.sweep();
    expect(events()).toEqual([`invoice:${invoice.id}:invoice.expired:1`]);
    expect(body(events()[0]!).invoice).toMatchObject({ status: 'canceled', cancelReason: 'expired', paymentStatus: 'unpaid' });

    await deposit(invoice, '25');
    expect(events()).toEqual([`invoice:${invoice.id}:invoice.expired:1`, `invoice:${invoice.id}:invoice.paid_late:1`]);
    expect(body(events()[1]!).invoice).toMatchObject({ status: 'completed', paidLate: true });
  });
});
