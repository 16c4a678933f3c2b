/**
 * The reconciliation with the providers (docs/provider-protocol.md) over in-memory ports, on a fixed clock:
 * what it asks about and when, what it sends again, what it counts as overdue, and that one
 * provider's failure leaves the others' items reconciled. The events route and the whole path
 * through real processes are tested in test/integration/provider-events.test.ts and
 * test/e2e/providers.test.ts.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { providerPaymentClaimId } from '../../shared/domain/chains/claims.js';
import type { Invoice } from '../../shared/domain/invoicing/invoice.js';
import { Decimal } from '../../shared/domain/kernel/money.js';
import { ProviderSettlement, RECONCILIATION_POLICY } from '../../shared/domain/payments/provider-settlement.js';
import { ProviderUnavailable, type PaymentProvider, type ProviderRoute } from '../../shared/domain/providers/providers.js';
import type { Transaction } from '../../shared/domain/transactions/transactions.js';
import type { ProviderStatusAnswer } from '../../shared/domain/providers/provider-port.js';

const NOW = new Date('2026-11-24T12:00:00Z');
const ago = (seconds: number) => new Date(NOW.getTime() - seconds * 1000).toISOString();
const MINUTE = 60;
const HOUR = 3600;

interface World {
  transactions: Transaction[];
  invoices: Invoice[];
  /** Status answers by provider reference; anything else is pending. */
  answers: Record<string, ProviderStatusAnswer>;
  /** Providers that do not answer. */
  down: string[];
}

function withdrawal(providerId: string, fields: { createdAgo: number; requestedAgo?: number; reference?: string }): Transaction {
  return {
    id: randomUUID(),
    merchantId: 'm-1',
    type: 'withdraw',
    status: 'processing',
    amount: '500.00',
    currency: 'TRY',
    createdAt: ago(fields.createdAgo),
    provider: { id: providerId, reference: fields.reference, requestedAt: fields.requestedAgo === undefined ? undefined : ago(fields.requestedAgo) },
  } as Transaction;
}

function utrDeposit(providerId: string, fields: { createdAgo: number; requestedAgo?: number }): Transaction {
  return {
    id: randomUUID(),
    merchantId: 'm-1',
    type: 'deposit',
    status: 'processing',
    amount: '1500.00',
    currency: 'INR',
    utr: 'ABCDEF123456',
    createdAt: ago(fields.createdAgo),
    provider: { id: providerId, reference: 'pay-utr', requestedAt: fields.requestedAgo === undefined ? undefined : ago(fields.requestedAgo) },
  } as unknown as Transaction;
}

function invoiceWithPayment(providerId: string, fields: { paymentAgo: number; expiresAgo?: number; providerReference: string }): Invoice {
  return {
    id: randomUUID(),
    merchantId: 'm-1',
    status: fields.expiresAgo === undefined ? 'active' : 'canceled',
    expiresAt: fields.expiresAgo === undefined ? ago(-15 * MINUTE) : ago(fields.expiresAgo),
    paymentCurrency: 'TRY',
    paymentAmount: '1000.00',
    providerPayment: { providerId, providerReference: fields.providerReference, createdAt: ago(fields.paymentAgo) },
  } as Invoice;
}

function setup(world: World) {
  const routes: ProviderRoute[] = [
    { id: 'psp', name: 'PSP', priority: 1, methods: [] },
    { id: 'other', name: 'Other', priority: 2, methods: [] },
  ];
  const asked: string[] = [];
  const status = (providerId: string) => async (reference: string) => {
    asked.push(`${providerId} ${reference}`);
    if (world.down.includes(providerId)) throw new ProviderUnavailable(providerId, 'connection refused');
    return world.answers[reference] ?? { status: 'pending' as const };
  };
  const provider = (id: string) => ({ id, paymentStatus: status(id), payoutStatus: status(id) }) as unknown as PaymentProvider;
  const deps = {
    registry: { routes, get: (id: string) => (routes.some((route) => route.id === id) ? provider(id) : undefined) },
    transactions: { recordDeposit: vi.fn(async () => ({}) as Transaction), settle: vi.fn(async () => ({}) as Transaction) },
    ledger: {
      get: async (id: string) => world.transactions.find((transaction) => transaction.id === id),
      getClaim: async () => undefined,
      awaitingProvider: async (id: string) => world.transactions.filter((transaction) => transaction.provider?.id === id && transaction.status === 'processing'),
    },
    invoices: {
      get: async (id: string) => world.invoices.find((invoice) => invoice.id === id),
      awaitingProvider: async (id: string) => world.invoices.filter((invoice) => invoice.providerPayment?.providerId === id),
      stopAwaitingProvider: vi.fn(async () => {}),
    },
    resend: {
      requests: { forwardUtr: vi.fn(async () => {}), requestPayout: vi.fn(async () => ({ providerReference: 'po-new' })) },
      receiptOf: vi.fn(async () => undefined),
      recipientOf: vi.fn(async () => ({ variant: 'phone', phoneNumber: '+905551112233' }) as never),
    },
    log: { warn: vi.fn() },
    clock: () => NOW,
  };
  return { settlement: new ProviderSettlement(deps as never), deps, asked };
}

describe('the reconciliation', () => {
  it('asks about a payout 10 minutes after the provider took it, not before, and settles what the provider decided', async () => {
    const due = withdrawal('psp', { createdAgo: 20 * MINUTE, requestedAgo: RECONCILIATION_POLICY.askAfterSeconds, reference: 'po-due' });
    const early = withdrawal('psp', { createdAgo: 20 * MINUTE, requestedAgo: RECONCILIATION_POLICY.askAfterSeconds - 1, reference: 'po-early' });
    const { settlement, deps, asked } = setup({ transactions: [due, early], invoices: [], answers: { 'po-due': { status: 'confirmed' } }, down: [] });
    const report = await settlement.reconcile();
    expect(asked).toEqual(['psp po-due']);
    // Settled by reading its status: the evidence names no event.
    const evidence = { source: 'provider', providerId: 'psp', providerReference: 'po-due', utr: null, webhookId: null, webhookTimestamp: null };
    expect(deps.transactions.settle).toHaveBeenCalledExactlyOnceWith('m-1', due.id, 'confirmed', { expectedType: 'withdraw', details: { evidence } });
    expect(report).toEqual({ asked: 1, settled: 1, resent: 0, overdue: 0, failures: 0 });
  });

  it("asks about an invoice's payment after 10 minutes: a confirmed answer is a deposit of the amount the provider reports", async () => {
    const due = invoiceWithPayment('psp', { paymentAgo: 11 * MINUTE, providerReference: 'pay-due' });
    const early = invoiceWithPayment('psp', { paymentAgo: 2 * MINUTE, providerReference: 'pay-early' });
    const answers: World['answers'] = { 'pay-due': { status: 'confirmed', amount: '900.00', senderDetails: { senderIban: 'TR330006100519786457841326' } } };
    const { settlement, deps, asked } = setup({ transactions: [], invoices: [due, early], answers, down: [] });
    const report = await settlement.reconcile();
    expect(asked).toEqual(['psp pay-due']);
    expect(deps.transactions.recordDeposit).toHaveBeenCalledExactlyOnceWith(
      'm-1',
      due.id,
      {
        source: 'fiat',
        status: 'confirmed',
        amount: new Decimal('900.00'),
        currency: 'TRY',
        senderDetails: answers['pay-due']!.senderDetails,
        evidence: { source: 'provider', providerId: 'psp', providerReference: 'pay-due', utr: null, webhookId: null, webhookTimestamp: null },
        uniqueId: providerPaymentClaimId('psp', 'pay-due'),
        reportedByProvider: true,
      },
      due,
    );
    expect(report).toMatchObject({ asked: 1, settled: 1 });
  });

  it("asks about a UTR deposit with its invoice's payment, never on its own", async () => {
    const deposit = utrDeposit('psp', { createdAgo: 30 * MINUTE, requestedAgo: 30 * MINUTE });
    const { settlement, asked } = setup({ transactions: [deposit], invoices: [], answers: {}, down: [] });
    expect(await settlement.reconcile()).toEqual({ asked: 0, settled: 0, resent: 0, overdue: 0, failures: 0 });
    expect(asked).toEqual([]);
  });

  it('sends a UTR or a payout the provider never took again, from 30 seconds after it was made', async () => {
    const utr = utrDeposit('psp', { createdAgo: RECONCILIATION_POLICY.resendAfterSeconds });
    const payout = withdrawal('psp', { createdAgo: 5 * MINUTE });
    const fresh = utrDeposit('psp', { createdAgo: RECONCILIATION_POLICY.resendAfterSeconds - 1 });
    const { settlement, deps } = setup({ transactions: [utr, payout, fresh], invoices: [], answers: {}, down: [] });
    const report = await settlement.reconcile();
    expect(deps.resend.requests.forwardUtr).toHaveBeenCalledExactlyOnceWith(utr, undefined);
    expect(deps.resend.receiptOf).toHaveBeenCalledExactlyOnceWith(utr);
    expect(deps.resend.requests.requestPayout).toHaveBeenCalledExactlyOnceWith(payout, { variant: 'phone', phoneNumber: '+905551112233' });
    expect(report).toMatchObject({ resent: 2, asked: 0 });
  });

  it('counts each transaction still processing after 24 hours as overdue, on every run, whatever its provider answers', async () => {
    const stale = withdrawal('psp', { createdAgo: 25 * HOUR, requestedAgo: 25 * HOUR, reference: 'po-stale' });
    const neverTaken = utrDeposit('psp', { createdAgo: 24 * HOUR + 1 });
    const recent = withdrawal('psp', { createdAgo: 23 * HOUR, requestedAgo: 23 * HOUR, reference: 'po-recent' });
    const { settlement } = setup({ transactions: [stale, neverTaken, recent], invoices: [], answers: {}, down: [] });
    expect(await settlement.reconcile()).toMatchObject({ overdue: 2, asked: 2, settled: 0, resent: 1 });
    expect(await settlement.reconcile()).toMatchObject({ overdue: 2 });
  });

  it('stops asking about the payment of an invoice closed over a day ago that its provider never decided', async () => {
    const closed = invoiceWithPayment('psp', { paymentAgo: 26 * HOUR, expiresAgo: 24 * HOUR + 1, providerReference: 'pay-closed' });
    const recentlyClosed = invoiceWithPayment('psp', { paymentAgo: 2 * HOUR, expiresAgo: HOUR, providerReference: 'pay-recent' });
    const { settlement, deps } = setup({ transactions: [], invoices: [closed, recentlyClosed], answers: {}, down: [] });
    expect(await settlement.reconcile()).toMatchObject({ asked: 2, settled: 0 });
    expect(deps.invoices.stopAwaitingProvider).toHaveBeenCalledExactlyOnceWith(closed.id);
  });

  it("counts and logs a provider that does not answer, and still reconciles the other provider's items", async () => {
    const atOther = withdrawal('other', { createdAgo: HOUR, requestedAgo: HOUR, reference: 'po-other' });
    const atOtherInvoice = invoiceWithPayment('other', { paymentAgo: HOUR, providerReference: 'pay-other' });
    const atPsp = withdrawal('psp', { createdAgo: HOUR, requestedAgo: HOUR, reference: 'po-psp' });
    const { settlement, deps } = setup({ transactions: [atOther, atPsp], invoices: [atOtherInvoice], answers: { 'po-psp': { status: 'failed' } }, down: ['other'] });
    const report = await settlement.reconcile();
    expect(report).toEqual({ asked: 3, settled: 1, resent: 0, overdue: 0, failures: 2 });
    expect(deps.transactions.settle).toHaveBeenCalledExactlyOnceWith('m-1', atPsp.id, 'failed', {
      expectedType: 'withdraw',
      details: { evidence: { source: 'provider', providerId: 'psp', providerReference: 'po-psp', utr: null, webhookId: null, webhookTimestamp: null } },
    });
    expect(deps.log.warn).toHaveBeenCalledTimes(2);
    expect(deps.log.warn).toHaveBeenCalledWith('Reconciliation left an item for the next run', expect.objectContaining({ providerId: 'other', subject: atOther.id }));
  });
});
