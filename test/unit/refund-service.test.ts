/**
 * Refunds (decisions on refunds) over in-memory ports and an EVM network in memory: what may be
 * refunded and how much, what a refund reserves and holds of its deposit, racing refunds of one
 * deposit, approval, and a crypto refund sent and settled as a payout is, adding to its invoice's
 * `refundedAmount`. The real stores and nodes are in test/integration/refunds.test.ts.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { defaultChains } from '../../shared/domain/chains/index.js';
import { InsufficientBalance, Invalid, NotFound } from '../../shared/domain/kernel/errors.js';
import { Decimal } from '../../shared/domain/kernel/index.js';
import type { PayoutSendRequest } from '../../shared/domain/payments/crypto-payout-service.js';
import { PayoutSender, PayoutSettlement } from '../../shared/domain/payments/payout-sending.js';
import { RefundService } from '../../shared/domain/payments/refund-service.js';
import { DEMO_USD_PRICES, StaticRateSource } from '../../shared/domain/rates/rates.js';
import { refundRequestSchema, type RefundTransaction } from '../../shared/domain/transactions/refunds.js';
import { transactionView, type Transaction } from '../../shared/domain/transactions/transactions.js';
import { withdrawalRequestSchema } from '../../shared/domain/transactions/withdrawals.js';
import { entryId } from '../../shared/domain/ledger/balances.js';
import { memoryGateway, refusal } from '../support/memory/gateway.js';
import { memoryProviderRegistry } from '../support/memory/payment-provider.js';
import { ProviderSettlement } from '../../shared/domain/payments/provider-settlement.js';
import { MemoryPayoutChain } from '../support/memory/payout-chain.js';

const CUSTOMER = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const USDT = defaultChains('demo').ethereum.tokens.USDT!.address;
const CONFIRMATIONS = 3;

function setup(merchantFields: { payoutApprovalAboveUsd?: string | null; invoiceCallbacks?: boolean } = {}) {
  const gateway = memoryGateway();
  const merchant = gateway.merchants.add(merchantFields);
  const chain = new MemoryPayoutChain('ethereum');
  chain.fund(null, 10n ** 18n);
  chain.fund(USDT, 10_000n * 10n ** 6n);
  const queued: PayoutSendRequest[] = [];
  const queue = { enqueue: async (request: PayoutSendRequest) => void queued.push(request) };
  const refunds = new RefundService({
    ledger: gateway.ledger,
    balances: gateway.balances,
    merchants: gateway.merchants,
    feesOn: (network) => (network === 'ethereum' ? chain : undefined),
    configuration: () => ({ chains: defaultChains('demo'), payoutFees: {} }),
    rates: new StaticRateSource(DEMO_USD_PRICES),
    queue,
    log: gateway.log,
    stage: 'demo',
    clock: gateway.clock,
    newId: randomUUID,
    invoices: gateway.invoices,
    requests: gateway.requests,
    transactions: gateway.transactionService,
  });
  const sender = new PayoutSender({ records: gateway.ledger, chains: (network) => (network === 'ethereum' ? chain : undefined), metrics: { treasuryShortfall: () => undefined }, clock: gateway.clock });
  const settlement = new PayoutSettlement({
    network: 'ethereum',
    confirmations: CONFIRMATIONS,
    records: gateway.ledger,
    chain,
    queue,
    transactions: gateway.transactionService,
    rates: new StaticRateSource(DEMO_USD_PRICES),
    stuckSeconds: 600,
    handOverSeconds: 120,
    clock: gateway.clock,
  });
  /** A deposit of `amount` USDT on ethereum into a new invoice of 25 USDT: seen on the chain unless `simulated`. */
  const deposit = async (amount: string, options: { status?: 'confirmed' | 'processing'; simulated?: boolean } = {}): Promise<Transaction> => {
    const invoice = await gateway.createInvoice(merchant.id, { baseCurrency: 'USDT', amount: 25 });
    return gateway.transactionService.recordDeposit(merchant.id, invoice.id, {
      source: options.simulated ? 'simulated' : 'chain',
      amount: new Decimal(amount),
      currency: 'USDT',
      network: 'ethereum',
      status: options.status ?? 'confirmed',
      transactionHash: `0x${randomUUID().replace(/-/g, '').padEnd(64, '0')}`,
      ...(options.simulated ? {} : { chain: { blockNumber: 1, blockHash: `0x${'1'.repeat(64)}`, logIndex: 0 } }),
    });
  };
  const refund = (fields: Record<string, unknown>) => refunds.create(merchant.id, refundRequestSchema.parse({ address: CUSTOMER, ...fields }));
  const drain = async () => {
    const outcomes: string[] = [];
    while (queued.length > 0) outcomes.push(await sender.handle(queued.shift()!));
    return outcomes;
  };
  const stored = async (id: string) => (await gateway.ledger.get(id))!;
  const balance = async () => gateway.balances.get(merchant.id, 'USDT');
  return { gateway, merchant, chain, queued, refunds, settlement, deposit, refund, drain, stored, balance };
}

describe('asking for a refund', () => {
  it('refunds what an overpaying customer sent beyond the invoice: the amount and the network fee reserved, the deposit holding it, the refund handed to its network', async () => {
    const { deposit, refund, queued, balance, stored } = setup();
    const paid = await deposit('75');
    const refunded = await refund({ transactionId: paid.id, amount: '50', reason: 'Overpaid' });

    // The memory chain quotes 21,000 gas at 1 gwei, 0.000021 ETH: at 3,200 USDT an ETH, 0.0672 USDT.
    expect(refunded).toMatchObject({ type: 'refund', status: 'processing', refundOf: paid.id, invoiceId: paid.invoiceId, amount: '50.000000', currency: 'USDT', network: 'ethereum' });
    expect(refunded).toMatchObject({ address: CUSTOMER, transactionHash: null, customerId: paid.customerId, reason: 'Overpaid' });
    expect(refunded.fees).toEqual({ processing: '0.000000', technical: '0.067200' });
    expect(await balance()).toMatchObject({ available: '24.932800', reserved: '50.067200' });
    expect((await stored(paid.id)).refundsHeld).toBe('50.000000');
    expect(queued).toEqual([{ kind: 'send', network: 'ethereum', transactionId: refunded.id }]);
    expect(transactionView(refunded, 'secret')).toMatchObject({ type: 'refund', refundOf: paid.id, address: CUSTOMER, usd: '50.00' });
    expect(transactionView(refunded, 'secret')).not.toHaveProperty('reason');
  });

  it('refunds by default what is still refundable, and then nothing more', async () => {
    const { gateway, merchant, deposit, refund, balance } = setup();
    await gateway.fund(merchant.id, 'USDT', '10');
    const paid = await deposit('75');
    await refund({ transactionId: paid.id, amount: '50' });
    expect((await refund({ transactionId: paid.id })).amount).toBe('25.000000');
    const error = (await refusal(refund({ transactionId: paid.id }))) as Invalid;
    expect(error.problems[0]!.field).toBe('amount');
    expect(error.message).toMatch(/Nothing of the deposit is left to refund/);
    expect(await balance()).toMatchObject({ available: '9.865600', reserved: '75.134400' });
  });

  it('refuses a deposit of another merchant as unknown (404), and a refund the balance cannot pay with its fee (402)', async () => {
    const { gateway, deposit, refund, refunds, balance, queued } = setup();
    const paid = await deposit('25');
    const other = gateway.merchants.add();
    expect(await refusal(refunds.create(other.id, refundRequestSchema.parse({ transactionId: paid.id, address: CUSTOMER })))).toBeInstanceOf(NotFound);
    // 25 refunded takes 25.0672 with its fee: 0.0672 more than the deposit left available.
    expect(await refusal(refund({ transactionId: paid.id }))).toBeInstanceOf(InsufficientBalance);
    expect(await balance()).toMatchObject({ available: '25.000000', reserved: '0.000000' });
    expect(queued).toEqual([]);
  });

  it.each([
    ['a deposit still processing', async (s: ReturnType<typeof setup>) => ({ transactionId: (await s.deposit('25', { status: 'processing' })).id }), 'transactionId', /processing deposit/],
    ['a refund', async (s: ReturnType<typeof setup>) => ({ transactionId: (await s.refund({ transactionId: (await s.deposit('75')).id, amount: '1' })).id }), 'transactionId', /is a refund/],
    ['more than is refundable', async (s: ReturnType<typeof setup>) => ({ transactionId: (await s.deposit('75')).id, amount: '75.000001' }), 'amount', /at most 75.000000 USDT/],
    ['too many decimals', async (s: ReturnType<typeof setup>) => ({ transactionId: (await s.deposit('75')).id, amount: '1.0000001' }), 'amount', /decimal places/],
    ['no address', async (s: ReturnType<typeof setup>) => ({ transactionId: (await s.deposit('75')).id, address: undefined }), 'address', /address is required/],
    ['a malformed address', async (s: ReturnType<typeof setup>) => ({ transactionId: (await s.deposit('75')).id, address: '0x1234' }), 'address', /not an address of ethereum/],
  ])('refuses %s on its field, reserving and sending nothing more', async (_case, fieldsOf, field, message) => {
    const s = setup();
    await s.gateway.fund(s.merchant.id, 'USDT', '100');
    const fields = await fieldsOf(s);
    const before = await s.balance();
    const queuedBefore = s.queued.length;
    const error = (await refusal(s.refund(fields))) as Invalid;
    expect(error).toBeInstanceOf(Invalid);
    expect(error.problems[0]!.field).toBe(field);
    expect(error.message).toMatch(message);
    expect(await s.balance()).toEqual(before);
    expect(s.queued).toHaveLength(queuedBefore);
  });

  it('refuses a withdrawal on transactionId', async () => {
    const { gateway, merchant, deposit, refund } = setup();
    await deposit('75');
    await gateway.fund(merchant.id, 'TRY', '5000');
    const withdrawal = await gateway.fiatService.createWithdrawal(
      merchant.id,
      withdrawalRequestSchema.parse({ amount: '100', currency: 'TRY', customerId: 'c-1', cardNumber: '4111111111111111', cardHolderName: 'A B' }),
    );
    const error = (await refusal(refund({ transactionId: withdrawal.id }))) as Invalid;
    expect(error.problems[0]!.field).toBe('transactionId');
    expect(error.message).toMatch(/is a withdraw/);
  });

  it('never refunds more than the deposit brought, however many refunds race on it', async () => {
    const { gateway, merchant, deposit, refund, stored, balance } = setup();
    await gateway.fund(merchant.id, 'USDT', '100');
    const paid = await deposit('75');
    const outcomes = await Promise.allSettled(Array.from({ length: 10 }, () => refund({ transactionId: paid.id, amount: '10' })));
    const accepted = outcomes.filter((outcome): outcome is PromiseFulfilledResult<RefundTransaction> => outcome.status === 'fulfilled');
    expect(accepted).toHaveLength(7);
    expect(outcomes.filter((outcome) => outcome.status === 'rejected').every((outcome) => outcome.reason instanceof Invalid)).toBe(true);
    expect((await stored(paid.id)).refundsHeld).toBe('70.000000');
    expect(await balance()).toMatchObject({ reserved: '70.470400' });
  });
});

describe('a crypto refund sent and settled', () => {
  it('is confirmed at depth: the refund paid out of the reserve with its fee, the callback of type refund, the invoice refunded and announced', async () => {
    const { gateway, deposit, refund, drain, chain, settlement, stored, balance } = setup({ invoiceCallbacks: true });
    const paid = await deposit('75');
    const refunded = await refund({ transactionId: paid.id, amount: '50' });
    expect(await drain()).toEqual(['sent']);
    chain.mineBlocks(CONFIRMATIONS);
    expect(await settlement.run()).toMatchObject({ confirmed: 1 });
    expect(chain.received.get(`${CUSTOMER}/${USDT}`)).toBe(50_000_000n);
    const settled = await stored(refunded.id);
    expect(settled).toMatchObject({ status: 'confirmed', transactionHash: expect.stringMatching(/^0x/) });
    expect(await balance()).toMatchObject({ available: '24.932800', reserved: '0.000000' });
    const ofRefund = [...gateway.balances.entries.values()].filter((entry) => entry.transactionId === refunded.id).sort((a, b) => a.sequence - b.sequence);
    const entries = ofRefund.map((entry) => [entry.type, entry.availableChange, entry.reservedChange]);
    expect(entries).toEqual([
      ['refund_reserve', '-50.067200', '50.067200'],
      ['refund', '0.000000', '-50.000000'],
      ['fee', '0.000000', '-0.067200'],
    ]);
    expect(ofRefund[0]!.id).toBe(entryId(refunded.id, 'refund_reserve'));
    expect(await gateway.invoices.get(paid.invoiceId!)).toMatchObject({ refundedAmount: '50.000000', paidAmount: '75.000000', status: 'completed' });
    expect(gateway.ledger.callback(`${refunded.id}:confirmed`)?.payload).toContain('"type":"refund"');
    expect(gateway.ledger.callback(`invoice:${paid.invoiceId}:invoice.refunded:1`)?.payload).toContain('"refundedAmount":"50.000000"');
  });

  it('gives back what it held of its deposit when it fails on chain, releasing the reserve less the network fee spent', async () => {
    const { deposit, refund, drain, chain, settlement, stored, balance } = setup();
    const paid = await deposit('75');
    const refunded = await refund({ transactionId: paid.id, amount: '50' });
    await drain();
    chain.reverting.add((await stored(refunded.id)).transactionHash!);
    chain.mineBlocks(CONFIRMATIONS);
    expect(await settlement.run()).toMatchObject({ failed: 1 });
    expect(await stored(refunded.id)).toMatchObject({ status: 'failed' });
    expect((await stored(paid.id)).refundsHeld).toBe('0.000000');
    expect(await balance()).toMatchObject({ available: '74.932800', reserved: '0.000000' });
  });
});

describe('refunds waiting for approval, and of simulated deposits', () => {
  it('waits above payoutApprovalAboveUsd, nothing sent; rejected, it fails and its deposit may be refunded again', async () => {
    const { gateway, merchant, deposit, refund, queued, stored, balance } = setup({ payoutApprovalAboveUsd: '20' });
    const paid = await deposit('75');
    const refunded = await refund({ transactionId: paid.id, amount: '50' });
    expect(refunded.status).toBe('pending_approval');
    expect(queued).toEqual([]);
    const { CryptoPayoutService } = await import('../../shared/domain/payments/crypto-payout-service.js');
    const decisions = new CryptoPayoutService({
      ledger: gateway.ledger,
      balances: gateway.balances,
      merchants: gateway.merchants,
      addresses: { list: async () => [] },
      feesOn: () => undefined,
      configuration: () => ({ chains: defaultChains('demo'), payoutFees: {} }),
      rates: new StaticRateSource(DEMO_USD_PRICES),
      queue: { enqueue: async () => undefined },
      callbacks: gateway.callbacks,
      log: gateway.log,
      stage: 'demo',
      clock: gateway.clock,
      newId: randomUUID,
    });
    const rejected = await decisions.decide(merchant.id, refunded.id, 'reject', { email: 'owner@shop.example', step: 1 });
    expect(rejected).toMatchObject({ status: 'failed', decidedBy: 'owner@shop.example' });
    expect((await stored(paid.id)).refundsHeld).toBe('0.000000');
    expect(await balance()).toMatchObject({ available: '75.000000', reserved: '0.000000' });
    await gateway.fund(merchant.id, 'USDT', '1');
    expect((await refund({ transactionId: paid.id })).amount).toBe('75.000000');
  });

  it('refunds a simulated deposit without a network fee or the sender, settled as a simulated withdrawal is', async () => {
    const { gateway, merchant, deposit, refund, queued, balance } = setup();
    const paid = await deposit('25', { simulated: true });
    const refunded = await refund({ transactionId: paid.id });
    expect(refunded).toMatchObject({ status: 'processing', amount: '25.000000', fees: { processing: '0.000000', technical: '0.000000' }, address: CUSTOMER });
    expect(refunded).not.toHaveProperty('payout');
    expect(queued).toEqual([]);
    await gateway.transactionService.settle(merchant.id, refunded.id, 'confirmed', { expectedType: ['withdraw', 'refund'] });
    expect(await balance()).toMatchObject({ available: '0.000000', reserved: '0.000000' });
    expect(await gateway.invoices.get(paid.invoiceId!)).toMatchObject({ refundedAmount: '25.000000' });
  });
});

describe('refunds of fiat deposits', () => {
  /** A TRY deposit of `amount` into an invoice of 1000 TRY paid at the demo provider, as its payment.confirmed event records it. */
  const fiatDeposit = async (s: ReturnType<typeof setup>, amount = '1000.00') => {
    const invoice = await s.gateway.createInvoice(s.merchant.id, { baseCurrency: 'TRY', paymentMethod: 'wallet', amount: 1000 });
    const payment = await s.gateway.requests.paymentFor(invoice);
    await s.gateway.settlement.apply(payment.providerId, { kind: 'payment', reference: invoice.id, providerReference: payment.providerReference, status: 'confirmed', amount, currency: 'TRY' });
    const [deposit] = await s.gateway.ledger.listByInvoice(invoice.id);
    return { invoice, payment, deposit: deposit! };
  };
  const fiatRefund = (s: ReturnType<typeof setup>, fields: Record<string, unknown>) => s.refunds.create(s.merchant.id, refundRequestSchema.parse(fields));
  const tryBalance = (s: ReturnType<typeof setup>) => s.gateway.balances.get(s.merchant.id, 'TRY');

  it('asks the provider that took the payment, with its reference of it, and settles on its refund.confirmed: the refund paid out, the invoice refunded', async () => {
    const s = setup({ invoiceCallbacks: true });
    const { invoice, payment, deposit } = await fiatDeposit(s);
    const refunded = await fiatRefund(s, { transactionId: deposit.id, amount: '250.50', reason: 'Returned item' });
    expect(s.gateway.provider.refunds).toEqual([
      { webhookId: `refund:${refunded.id}`, body: { reference: refunded.id, paymentReference: payment.providerReference, amount: '250.50', currency: 'TRY', reason: 'Returned item' } },
    ]);
    expect(refunded).toMatchObject({ type: 'refund', status: 'processing', refundOf: deposit.id, network: null, fees: { processing: '0.00', technical: null } });
    expect(refunded).not.toHaveProperty('address');
    expect((await s.stored(refunded.id)).provider).toMatchObject({ id: payment.providerId, paymentReference: payment.providerReference, reference: 'rf-1' });
    expect(await tryBalance(s)).toMatchObject({ available: '749.50', reserved: '250.50' });

    await s.gateway.settlement.apply(payment.providerId, { kind: 'refund', reference: refunded.id, providerReference: 'rf-1', status: 'confirmed' });
    expect(await s.stored(refunded.id)).toMatchObject({ status: 'confirmed' });
    expect(await tryBalance(s)).toMatchObject({ available: '749.50', reserved: '0.00' });
    expect(await s.gateway.invoices.get(invoice.id)).toMatchObject({ refundedAmount: '250.50' });
    expect(s.gateway.ledger.callback(`${refunded.id}:confirmed`)?.payload).toContain('"type":"refund"');
    // Applied again, it changes nothing; a refund of another provider's reference is unknown.
    await s.gateway.settlement.apply(payment.providerId, { kind: 'refund', reference: refunded.id, providerReference: 'rf-1', status: 'confirmed' });
    expect(await tryBalance(s)).toMatchObject({ available: '749.50', reserved: '0.00' });
    await expect(s.gateway.settlement.apply(payment.providerId, { kind: 'refund', reference: refunded.id, providerReference: 'rf-9', status: 'failed' })).rejects.toBeInstanceOf(NotFound);
  });

  it('gives the amount back to the deposit and the balance when the provider fails the refund', async () => {
    const s = setup();
    const { payment, deposit } = await fiatDeposit(s);
    const refunded = await fiatRefund(s, { transactionId: deposit.id });
    expect(refunded.amount).toBe('1000.00');
    await s.gateway.settlement.apply(payment.providerId, { kind: 'refund', reference: refunded.id, providerReference: 'rf-1', status: 'failed' });
    expect(await s.stored(refunded.id)).toMatchObject({ status: 'failed' });
    expect((await s.stored(deposit.id)).refundsHeld).toBe('0.00');
    expect(await tryBalance(s)).toMatchObject({ available: '1000.00', reserved: '0.00' });
    expect(s.gateway.ledger.callback(`${refunded.id}:failed`)).toBeDefined();
  });

  it('refuses on transactionId when the provider refunds nothing (501): the refund failed at once, nothing left reserved, no callback', async () => {
    const s = setup();
    const { deposit } = await fiatDeposit(s);
    s.gateway.provider.refunding = false;
    const error = (await refusal(fiatRefund(s, { transactionId: deposit.id, amount: '10' }))) as Invalid;
    expect(error.problems[0]!.field).toBe('transactionId');
    expect(error.message).toMatch(/does not refund payments/);
    expect(await tryBalance(s)).toMatchObject({ available: '1000.00', reserved: '0.00' });
    expect((await s.stored(deposit.id)).refundsHeld).toBe('0.00');
    const [refund] = (await s.gateway.ledger.listByInvoice(deposit.invoiceId!)).filter((transaction) => transaction.type === 'refund');
    expect(refund).toMatchObject({ status: 'failed' });
    expect(s.gateway.ledger.callback(`${refund!.id}:failed`)).toBeUndefined();
  });

  it('keeps a refund the provider did not take for the reconciliation, which sends it again with the same webhook-id', async () => {
    const s = setup();
    const { deposit } = await fiatDeposit(s);
    s.gateway.provider.down = true;
    const refunded = await fiatRefund(s, { transactionId: deposit.id, amount: '100' });
    expect(refunded.status).toBe('processing');
    expect((await s.stored(refunded.id)).provider?.requestedAt).toBeUndefined();
    s.gateway.provider.down = false;
    s.gateway.advance(60);
    const reconciliation = new ProviderSettlement({
      registry: memoryProviderRegistry(s.gateway.provider),
      transactions: s.gateway.transactionService,
      ledger: s.gateway.ledger,
      invoices: s.gateway.invoices,
      resend: { requests: s.gateway.requests, receiptOf: async () => undefined, recipientOf: async () => ({ variant: 'card' }) },
      log: s.gateway.log,
      clock: s.gateway.clock,
    });
    expect(await reconciliation.reconcile()).toMatchObject({ resent: 1 });
    expect(s.gateway.provider.refunds.map((refund) => refund.webhookId)).toEqual([`refund:${refunded.id}`]);
    expect((await s.stored(refunded.id)).provider).toMatchObject({ reference: 'rf-1', requestedAt: expect.any(String) });
  });

  it('takes no address for a fiat deposit, and refunds one without a provider payment (simulated) as the simulation API settles it', async () => {
    const s = setup();
    const { deposit } = await fiatDeposit(s);
    const error = (await refusal(fiatRefund(s, { transactionId: deposit.id, address: CUSTOMER }))) as Invalid;
    expect(error.problems[0]!.field).toBe('address');
    const invoice = await s.gateway.createInvoice(s.merchant.id, { baseCurrency: 'TRY', paymentMethod: 'iban', amount: 500 });
    const simulated = await s.gateway.transactionService.recordDeposit(s.merchant.id, invoice.id, { source: 'simulated', status: 'confirmed' });
    const refunded = await fiatRefund(s, { transactionId: simulated.id, amount: '100' });
    expect(refunded).not.toHaveProperty('provider');
    expect(s.gateway.provider.refunds).toEqual([]);
    await s.gateway.transactionService.settle(s.merchant.id, refunded.id, 'confirmed', { expectedType: ['withdraw', 'refund'] });
    expect(await s.gateway.invoices.get(invoice.id)).toMatchObject({ refundedAmount: '100.00' });
  });
});
