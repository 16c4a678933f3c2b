/**
 * Local-fiat money through its payment provider (docs/merchant-guide.md "Confirming a deposit by
 * UTR", "Withdrawals"): the fiat service's UTR claims and payouts, and the provider's decisions as
 * the provider settlement applies them, over in-memory ports with the provider in memory too.
 * What only the real stores and the provider's own process show is tested in
 * test/integration/fiat.test.ts and provider-events.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { webhookId } from '../../shared/domain/transactions/transaction-callbacks.js';
import { providerPaymentClaimId, utrClaimId, withdrawalOrderClaimId } from '../../shared/domain/chains/claims.js';
import { depositConfirmationRequestSchema } from '../../shared/domain/invoicing/deposit-confirmation.js';
import { AlreadyUsed, Conflict, Gone, InsufficientBalance, Invalid, NotFound, Unavailable } from '../../shared/domain/kernel/errors.js';
import type { Invoice } from '../../shared/domain/invoicing/invoice.js';
import { Decimal } from '../../shared/domain/kernel/money.js';
import type { ProviderOutcome } from '../../shared/domain/payments/provider-settlement.js';
import type { Transaction } from '../../shared/domain/transactions/transactions.js';
import { withdrawalRequestSchema, type WithdrawTransaction } from '../../shared/domain/transactions/withdrawals.js';
import { INVOICE_LIFETIME_SECONDS, memoryGateway, type MemoryGateway, refusal } from '../support/memory/gateway.js';
import { interleave } from '../support/memory/interleave.js';

const UTR = 'ABCDEF123456';
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
const CARD_NUMBER = '4111111111111111';
/** Every detail INR needs to skip the checkout. */
const INR_DETAILS = { paymentMethod: 'p2p', customerFirstName: 'Asha', customerLastName: 'Rao', customerEmail: 'asha@example.com' };
const IBAN_DETAILS = { paymentMethod: 'iban', customerFullName: 'Ayşe Yılmaz', customerEmail: 'ayse@example.com', customerAccount: 'TR330006100519786457841326' };

type UtrDeposit = Transaction & { utr: string; receipt?: { reference: string; extension: string; name: string | null; bytes: number } };

let gateway: MemoryGateway;
let merchantId: string;

function setup() {
  gateway = memoryGateway();
  merchantId = gateway.merchants.add().id;
}

const inrInvoice = (merchant = merchantId, fields: Record<string, unknown> = {}) => gateway.createInvoice(merchant, { baseCurrency: 'INR', amount: 1500, ...fields });

const confirm = (invoice: Invoice, utr = UTR, fields: Record<string, unknown> = {}) =>
  gateway.fiatService.confirmDeposit(invoice.merchantId, depositConfirmationRequestSchema.parse({ invoiceId: invoice.id, utr, ...fields }));

/** The provider's decision on the invoice's payment, as its event or the reconciliation brings it. */
async function decide(invoice: Invoice, status: ProviderOutcome['status'], fields: Partial<ProviderOutcome> = {}): Promise<void> {
  const { providerPayment } = (await gateway.invoices.get(invoice.id))!;
  await gateway.settlement.apply('demo', { kind: 'payment', reference: invoice.id, providerReference: providerPayment!.providerReference, status, ...fields });
}

const stored = async (invoice: Invoice) => (await gateway.invoices.get(invoice.id))!;
const depositsOf = async (invoice: Invoice) => (await gateway.ledger.listByInvoice(invoice.id)) as UtrDeposit[];

describe('confirming a deposit by UTR', () => {
  it("records a processing deposit of the invoice's amount, its payment made at the provider, and forwards the UTR there", async () => {
    setup();
    const invoice = await inrInvoice();
    await confirm(invoice, UTR.toLowerCase());

    const [deposit, ...others] = await depositsOf(invoice);
    expect(others).toEqual([]);
    expect(deposit).toMatchObject({
      type: 'deposit',
      status: 'processing',
      amount: '1500.00',
      currency: 'INR',
      utr: UTR,
      provider: { id: 'demo', reference: 'pay-1', requestedAt: gateway.clock().toISOString() },
    });
    expect(await stored(invoice)).toMatchObject({ status: 'created', paymentStatus: 'unpaid', transactionIds: [deposit!.id], providerPayment: { providerId: 'demo', providerReference: 'pay-1' } });
    expect(gateway.provider.utrs).toEqual([{ providerReference: 'pay-1', webhookId: `utr:${deposit!.id}`, body: { utr: UTR } }]);
    expect(gateway.callbacks.published).toEqual([]);
  });

  it('accepts the same invoice and UTR again, whatever happened since, recording nothing more', async () => {
    setup();
    const invoice = await inrInvoice();
    await confirm(invoice);
    await confirm(invoice);
    await decide(invoice, 'confirmed');
    await confirm(invoice);
    expect(await depositsOf(invoice)).toHaveLength(1);
    expect(gateway.provider.utrs).toHaveLength(1);
  });

  it('refuses a UTR another payment used, of any merchant, and a second UTR for an invoice under review', async () => {
    setup();
    const invoice = await inrInvoice();
    await confirm(invoice);
    const othersInvoice = await inrInvoice(gateway.merchants.add().id);
    expect(await refusal(confirm(othersInvoice))).toEqual(new AlreadyUsed('This UTR was already used for another payment'));
    expect(await refusal(confirm(invoice, 'ZYXWVU654321'))).toEqual(new Conflict('Another UTR is already under review for this invoice'));
    expect(await depositsOf(othersInvoice)).toEqual([]);
    expect(await gateway.ledger.getClaim(utrClaimId('ZYXWVU654321'))).toBeUndefined();
  });

  it("refuses an invoice that takes no UTR: not INR, canceled, completed or another merchant's, recording nothing", async () => {
    setup();
    const tryInvoice = await gateway.createInvoice(merchantId, { baseCurrency: 'TRY', amount: 1500 });
    const expired = await inrInvoice();
    const completed = await inrInvoice();
    await gateway.transactionService.recordDeposit(merchantId, completed.id, { source: 'simulated', status: 'confirmed' });
    const othersInvoice = await inrInvoice(gateway.merchants.add().id);
    gateway.advance(INVOICE_LIFETIME_SECONDS);
    await gateway.sweep();

    expect(await refusal(confirm(tryInvoice))).toEqual(Invalid.of('invoiceId', 'Deposit confirmation by UTR applies to INR invoices only'));
    expect(await refusal(confirm(expired))).toEqual(new Gone('Invoice is canceled (expired) and takes no payment'));
    expect(await refusal(confirm(completed))).toEqual(new Conflict('Invoice is already paid'));
    expect(await refusal(gateway.fiatService.confirmDeposit(merchantId, { invoiceId: othersInvoice.id, utr: UTR }))).toBeInstanceOf(NotFound);
    expect(await gateway.ledger.getClaim(utrClaimId(UTR))).toBeUndefined();
  });

  it('answers unavailable when the provider does not answer before anything is recorded, and takes the UTR once it does', async () => {
    setup();
    const invoice = await inrInvoice();
    gateway.provider.down = true;
    expect(await refusal(confirm(invoice))).toEqual(new Unavailable('The payment provider did not answer; nothing was recorded, retry the request'));
    expect(await depositsOf(invoice)).toEqual([]);
    expect(await gateway.ledger.getClaim(utrClaimId(UTR))).toBeUndefined();

    gateway.provider.down = false;
    await confirm(invoice);
    expect(await depositsOf(invoice)).toHaveLength(1);
  });

  it('accepts a UTR of a payment made already when the provider cannot take it now: the reconciliation sends it again', async () => {
    setup();
    const invoice = await inrInvoice(merchantId, INR_DETAILS);
    gateway.provider.down = true;
    await confirm(invoice);
    const [deposit] = await depositsOf(invoice);
    expect(deposit!.provider).toEqual({ id: 'demo', reference: 'pay-1' });
    expect(await gateway.ledger.awaitingProvider('demo')).toEqual([deposit]);
    expect(gateway.log.warn).toHaveBeenCalledWith('The provider did not take the request; the reconciliation sends it again', expect.objectContaining({ transactionId: deposit!.id }));
  });

  it('keeps the receipt privately with the deposit and sends it with the UTR, but never keeps one for a UTR that turns out taken', async () => {
    setup();
    const receipt = { receipt_file: PNG.toString('base64'), receipt_file_extension: 'png', receipt_file_name: 'transfer.png' };
    const invoice = await inrInvoice();
    await confirm(invoice, UTR, receipt);
    const reference = `memory://receipts/${merchantId}/${invoice.id}/${UTR}.png`;
    expect((await depositsOf(invoice))[0]!.receipt).toEqual({ reference, extension: 'png', name: 'transfer.png', bytes: PNG.length });
    expect(gateway.provider.utrs[0]!.body.receipt).toEqual({ content: receipt.receipt_file, extension: 'png', name: 'transfer.png' });

    expect(await refusal(confirm(await inrInvoice(), UTR, receipt))).toBeInstanceOf(AlreadyUsed);
    expect(gateway.receipts.references).toEqual([reference]);
  });
});

describe("the provider's decision on a payment", () => {
  it('confirming a UTR deposit completes the invoice, owes its callback, and ends the wait for the provider', async () => {
    setup();
    const invoice = await inrInvoice();
    await confirm(invoice);
    await decide(invoice, 'confirmed', { senderDetails: { senderAccountNumber: '1234567890' } });

    const [deposit] = await depositsOf(invoice);
    expect(deposit).toMatchObject({ status: 'confirmed', amount: '1500.00', senderDetails: { senderAccountNumber: '1234567890' } });
    expect(await stored(invoice)).toMatchObject({ status: 'completed', paymentStatus: 'paid' });
    expect(gateway.callbacks.published).toEqual([webhookId(deposit!.id, 'confirmed')]);
    expect(await gateway.invoices.awaitingProvider('demo')).toEqual([]);
    expect(await gateway.ledger.awaitingProvider('demo')).toEqual([]);
    expect(gateway.metrics.depositSettled).toHaveBeenCalledExactlyOnceWith('fiat', 'confirmed');
  });

  it('confirming less than asked leaves the invoice open, paid in part', async () => {
    setup();
    const invoice = await inrInvoice();
    await confirm(invoice);
    await decide(invoice, 'confirmed', { amount: '1000.00' });
    expect((await depositsOf(invoice))[0]).toMatchObject({ status: 'confirmed', amount: '1000.00' });
    expect(await stored(invoice)).toMatchObject({ status: 'created', paidAmount: '1000.00', paymentStatus: 'partial' });
  });

  it('refuses at once a UTR for a payment the provider already reported in part, since no retry could change it', async () => {
    setup();
    const invoice = await inrInvoice(merchantId, INR_DETAILS);
    await decide(invoice, 'confirmed', { amount: '1000.00' });
    const [deposit] = await depositsOf(invoice);
    expect(await refusal(confirm(invoice))).toEqual(new Conflict(`The payment provider already reported this invoice's payment as deposit ${deposit!.id}`));
    expect(await depositsOf(invoice)).toHaveLength(1);
  });

  it('rejecting a UTR fails its deposit and cancels the invoice; the UTR is free for another payment, and the rejected invoice and UTR are still accepted', async () => {
    setup();
    const invoice = await inrInvoice();
    await confirm(invoice);
    await decide(invoice, 'failed');
    const [deposit] = await depositsOf(invoice);
    expect(deposit!.status).toBe('failed');
    expect(await stored(invoice)).toMatchObject({ status: 'canceled', cancelReason: 'rejected' });
    expect(gateway.callbacks.published).toEqual([webhookId(deposit!.id, 'failed')]);

    const another = await inrInvoice();
    await confirm(another);
    expect(await depositsOf(another)).toHaveLength(1);
    await confirm(invoice);
    expect(await depositsOf(invoice)).toHaveLength(1);
  });

  it('answers the same decision again with nothing new, and refuses a contradiction as a conflict', async () => {
    setup();
    const invoice = await inrInvoice();
    await confirm(invoice);
    await decide(invoice, 'confirmed');
    await decide(invoice, 'confirmed');
    expect(await refusal(decide(invoice, 'failed'))).toEqual(new Conflict('The payment is already confirmed'));
    expect(await refusal(decide(invoice, 'confirmed', { amount: '1000.00' }))).toEqual(new Conflict('The payment is already confirmed for 1500.00 INR'));
    expect(gateway.callbacks.published).toHaveLength(1);
  });

  it('records money a provider reports for a payment on its own page, even after the invoice expired: it moved', async () => {
    setup();
    const invoice = await gateway.createInvoice(merchantId, { baseCurrency: 'TRY', amount: 1500, ...IBAN_DETAILS });
    gateway.advance(INVOICE_LIFETIME_SECONDS);
    await gateway.sweep();
    await decide(invoice, 'confirmed');

    const [deposit] = await depositsOf(invoice);
    expect(deposit).toMatchObject({ status: 'confirmed', amount: '1500.00' });
    expect(await stored(invoice)).toMatchObject({ status: 'completed', paidLate: true, paymentStatus: 'paid' });
    expect(await gateway.ledger.getClaim(providerPaymentClaimId('demo', 'pay-1'))).toEqual({ id: providerPaymentClaimId('demo', 'pay-1'), owner: { transactionId: deposit!.id, merchantId } });
    expect(await gateway.invoices.awaitingProvider('demo')).toEqual([]);
  });

  it('only ends the wait for a failed payment of an invoice already over, on which nothing was recorded', async () => {
    setup();
    const invoice = await gateway.createInvoice(merchantId, { baseCurrency: 'TRY', amount: 1500, ...IBAN_DETAILS });
    gateway.advance(INVOICE_LIFETIME_SECONDS);
    await gateway.sweep();
    await decide(invoice, 'failed');
    expect(await depositsOf(invoice)).toEqual([]);
    expect(await gateway.invoices.awaitingProvider('demo')).toEqual([]);
    expect(gateway.callbacks.published).toEqual([]);
  });
});

describe('withdrawals', () => {
  const withdrawal = (fields: Record<string, unknown> = {}) =>
    withdrawalRequestSchema.parse({ customerId: 'customer-1', amount: '1500.50', currency: 'TRY', cardNumber: '4111 1111 1111 1111', ...fields });

  /** A merchant with 5000 TRY to pay out of. */
  async function funded() {
    setup();
    await gateway.fund(merchantId, 'TRY', '5000');
  }
  const balance = async (merchant = merchantId) => gateway.balances.get(merchant, 'TRY');
  const entryTypes = async (transactionId: string) => (await gateway.balanceService.entries(merchantId, { transactionId, limit: 100 })).items.map(({ type, amount }) => [type, amount]).reverse();

  it('records a processing payout with the card number sealed for it, which only the request to the provider carries in clear', async () => {
    await funded();
    const created = await gateway.fiatService.createWithdrawal(merchantId, withdrawal());
    const payout = (await gateway.ledger.get(created.id)) as WithdrawTransaction;
    expect(payout).toMatchObject({ type: 'withdraw', status: 'processing', amount: '1500.50', currency: 'TRY', invoiceId: null, recipient: { variant: 'card', maskedCardNumber: '411111******1111' } });
    expect(JSON.stringify(payout)).not.toContain(CARD_NUMBER);
    expect(gateway.vault.open(payout.recipient.sealedCardNumber!, payout.id)).toBe(CARD_NUMBER);
    expect(gateway.provider.payouts).toEqual([
      expect.objectContaining({
        webhookId: `payout:${payout.id}`,
        body: expect.objectContaining({ reference: payout.id, recipient: expect.objectContaining({ variant: 'card', cardNumber: CARD_NUMBER }) }),
      }),
    ]);
    expect(payout.provider).toEqual({ id: 'demo', reference: 'po-1', requestedAt: gateway.clock().toISOString() });
  });

  it('takes an orderId once per merchant', async () => {
    await funded();
    await gateway.fiatService.createWithdrawal(merchantId, withdrawal({ orderId: 'payout-1' }));
    expect(await refusal(gateway.fiatService.createWithdrawal(merchantId, withdrawal({ orderId: 'payout-1' })))).toEqual(new AlreadyUsed('A withdrawal with this orderId already exists'));
    const other = gateway.merchants.add().id;
    await gateway.fund(other, 'TRY', '2000');
    await gateway.fiatService.createWithdrawal(other, withdrawal({ orderId: 'payout-1' }));
    expect(gateway.provider.payouts).toHaveLength(2);
  });

  it('records a payout the provider cannot take now, for the reconciliation to send again', async () => {
    await funded();
    gateway.provider.down = true;
    const created = await gateway.fiatService.createWithdrawal(merchantId, withdrawal());
    expect((await gateway.ledger.get(created.id))!.provider).toEqual({ id: 'demo' });
    expect(await gateway.ledger.awaitingProvider('demo')).toHaveLength(1);
    expect(gateway.log.warn).toHaveBeenCalledWith('The provider did not take the request; the reconciliation sends it again', expect.objectContaining({ transactionId: created.id }));
  });

  it('reserves its amount and fee from available, and refuses, writing nothing, what available does not cover', async () => {
    await funded();
    const created = await gateway.fiatService.createWithdrawal(merchantId, withdrawal({ amount: '3000' }));
    const { available, reserved } = (await balance())!;
    const held = new Decimal('3000').plus(created.fees.processing).plus(created.fees.technical ?? 0);
    expect([available, reserved]).toEqual([new Decimal('5000').minus(held).toFixed(2), held.toFixed(2)]);
    expect(await entryTypes(created.id)).toEqual([['payout_reserve', held.neg().toFixed(2)]]);

    const before = await balance();
    expect(await refusal(gateway.fiatService.createWithdrawal(merchantId, withdrawal({ amount: '3000', orderId: 'too-much' })))).toEqual(new InsufficientBalance(available, 'TRY'));
    expect((await refusal(gateway.fiatService.createWithdrawal(gateway.merchants.add().id, withdrawal()))).message).toBe('Insufficient balance: 0.00 TRY available');
    expect(await balance()).toEqual(before);
    expect(await gateway.ledger.getClaim(withdrawalOrderClaimId(merchantId, 'too-much'))).toBeUndefined();
    expect(gateway.provider.payouts).toHaveLength(1);
  });

  it('pays out of reserved once confirmed, or gives the reserve back once failed', async () => {
    await funded();
    const paid = await gateway.fiatService.createWithdrawal(merchantId, withdrawal({ amount: '1000' }));
    const returned = await gateway.fiatService.createWithdrawal(merchantId, withdrawal({ amount: '2000' }));
    const settle = async ({ id }: Transaction, status: 'confirmed' | 'failed') =>
      gateway.settlement.apply('demo', { kind: 'payout', reference: id, providerReference: (await gateway.ledger.get(id))!.provider!.reference!, status });
    await settle(paid, 'confirmed');
    await settle(returned, 'failed');

    const fee = new Decimal(paid.fees.processing).plus(paid.fees.technical ?? 0);
    expect(await balance()).toMatchObject({ available: new Decimal('4000').minus(fee).toFixed(2), reserved: '0.00' });
    expect(await entryTypes(paid.id)).toEqual([['payout_reserve', new Decimal('-1000').minus(fee).toFixed(2)], ['payout', '-1000.00'], ...(fee.isZero() ? [] : [['fee', fee.neg().toFixed(2)]])]);
    const held = new Decimal('2000')
      .plus(returned.fees.processing)
      .plus(returned.fees.technical ?? 0)
      .toFixed(2);
    expect(await entryTypes(returned.id)).toEqual([
      ['payout_reserve', `-${held}`],
      ['payout_release', held],
    ]);
  });

  it('never takes available below zero when withdrawals race each other and a deposit', async () => {
    await funded();
    const invoice = await gateway.createInvoice(merchantId, { baseCurrency: 'TRY', amount: 700 });
    const other = gateway.anotherProcess();
    // The first withdrawal decides on the balance, then another process's withdrawal and deposit commit before it writes.
    interleave(gateway.balances, 'get', () =>
      Promise.allSettled([
        other.fiatService.createWithdrawal(merchantId, withdrawal({ amount: '2000' })),
        other.transactionService.recordDeposit(merchantId, invoice.id, { source: 'simulated', status: 'confirmed' }),
      ]),
    );
    const racing = await Promise.allSettled(Array.from({ length: 4 }, () => gateway.fiatService.createWithdrawal(merchantId, withdrawal({ amount: '2000' }))));
    const { available, reserved } = (await balance())!;
    expect(new Decimal(available).isNegative()).toBe(false);
    const accepted = (await gateway.balanceService.entries(merchantId, { type: 'payout_reserve', limit: 100 })).items;
    const refused = racing.filter((outcome) => outcome.status === 'rejected');
    expect(refused.every(({ reason }) => reason instanceof InsufficientBalance)).toBe(true);
    expect(new Decimal(reserved).toFixed(2)).toBe(accepted.reduce((sum, entry) => sum.minus(entry.amount), new Decimal(0)).toFixed(2));
    const { items } = await gateway.balanceService.entries(merchantId, { limit: 100 });
    const sum = items.reduce((total, entry) => total.plus(entry.amount), new Decimal(0));
    // Every entry's amount is on available except a payout's and a withdrawal fee's; none is settled here, so entries sum to available + reserved less the reserves.
    expect(sum.toFixed(2)).toBe(new Decimal(available).toFixed(2));
  });
});

describe('races, decided by the claims', () => {
  it('accepts twin confirmations of one invoice and UTR made at once, recording one deposit', async () => {
    setup();
    const invoice = await inrInvoice();
    interleave(gateway.invoices, 'get', () => confirm(invoice));
    await confirm(invoice);
    expect(await depositsOf(invoice)).toHaveLength(1);
  });

  it('gives a UTR confirmed for two invoices at once to the first; the other is refused as already used', async () => {
    setup();
    const [first, second] = [await inrInvoice(), await inrInvoice()];
    interleave(gateway.invoices, 'get', () => confirm(first));
    expect(await refusal(confirm(second))).toBeInstanceOf(AlreadyUsed);
    expect(await depositsOf(first)).toHaveLength(1);
    expect(await depositsOf(second)).toEqual([]);
  });

  it('puts the first of two UTRs confirmed for one invoice at once under review; the other is a conflict', async () => {
    setup();
    const invoice = await inrInvoice();
    interleave(gateway.invoices, 'get', () => confirm(invoice, UTR));
    expect(await refusal(confirm(invoice, 'ZYXWVU654321'))).toBeInstanceOf(Conflict);
    expect((await depositsOf(invoice)).map((deposit) => deposit.utr)).toEqual([UTR]);
  });
});
