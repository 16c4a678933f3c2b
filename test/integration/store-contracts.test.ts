/**
 * The in-memory stores the service tests run on (test/support/memory) hold to the DynamoDB
 * stores' contract: every scenario here runs on both, and each write is made or refused alike,
 * by the same conditions (the orderId and uniqueness claims, the invoice as a deposit read it,
 * the state a transaction moves from, the cursor a run read), counting towards the day totals
 * with it or not at all. Other test files share the tables,
 * so every scenario uses ids, merchants, providers and networks of its own.
 */
import { CRYPTO_NETWORKS } from '../../shared/domain/kernel/currencies.js';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { config } from '../../shared/config.js';
import { callbackEntry } from '../../shared/domain/transactions/transaction-callbacks.js';
import type { ApiKeyStore } from '../../shared/domain/merchants/api-key-service.js';
import type { BalanceStore } from '../../shared/domain/ledger/balance-service.js';
import type { BooksHolds } from '../../shared/domain/ledger/books-hold.js';
import {
  type ApiKey,
  type BooksHold,
  type ClearedBooksHold,
  type KeyUseRecorder,
  LAST_USED_GRANULARITY_SECONDS,
  type Merchant,
  type MerchantProfiles,
  newApiKey,
} from '../../shared/domain/merchants/merchants.js';
import { movementsOf, post } from '../../shared/domain/ledger/balances.js';
import type { ChainCursor } from '../../shared/domain/chains/chain.js';
import type { ChainState, HeldTransfer } from '../../shared/domain/payments/chain-watcher.js';
import type { DailyCount, DailyTotalsStore } from '../../shared/domain/ledger/daily-totals.js';
import { Conflict } from '../../shared/domain/kernel/errors.js';
import type { InvoiceRepository } from '../../shared/domain/invoicing/invoice-service.js';
import type { ExpiringInvoices } from '../../shared/domain/invoicing/invoice-expiry.js';
import { buildInvoice } from '../../shared/domain/invoicing/invoices.js';
import type { Invoice } from '../../shared/domain/invoicing/invoice.js';
import { Decimal } from '../../shared/domain/kernel/money.js';
import { invoiceAfterDeposit } from '../../shared/domain/invoicing/payments.js';
import { demoProviderRoute, type ProviderPayment } from '../../shared/domain/providers/providers.js';
import { DEMO_USD_PRICES, StaticRateSource } from '../../shared/domain/rates/rates.js';
import type { Ledger } from '../../shared/domain/payments/transaction-service.js';
import { depositTransaction, type Transaction, type TransactionProvider } from '../../shared/domain/transactions/transactions.js';
import { DynamoBalanceStore } from '../../shared/store/balances.js';
import { DynamoChainStore } from '../../shared/store/chain.js';
import { DynamoDailyTotalsStore } from '../../shared/store/daily-totals.js';
import { documentClient } from '../../shared/store/dynamo.js';
import { DynamoInvoiceStore } from '../../shared/store/invoices.js';
import { DynamoMerchantStore } from '../../shared/store/merchants.js';
import { DynamoOutboxStore } from '../../shared/store/outbox.js';
import { DynamoTransactionStore } from '../../shared/store/transactions.js';
import { MemoryApiKeys } from '../support/memory/api-keys.js';
import { MemoryBalanceStore } from '../support/memory/balances.js';
import { MemoryChainState } from '../support/memory/chain-state.js';
import { MemoryDailyTotals } from '../support/memory/daily-totals.js';
import { invoiceRequest } from '../support/memory/gateway.js';
import { MemoryInvoiceStore } from '../support/memory/invoice-store.js';
import { MemoryLedger } from '../support/memory/ledger.js';
import { MemoryMerchants } from '../support/memory/merchants.js';
import { seedMerchant } from '../support/merchants.js';

interface Stores {
  invoices: InvoiceRepository &
    ExpiringInvoices & {
      attachProviderPayment(id: string, payment: ProviderPayment): Promise<boolean>;
      awaitingProvider(providerId: string): Promise<Invoice[]>;
      stopAwaitingProvider(id: string): Promise<void>;
      customerInvoices(merchantId: string, customerId: string, options?: { since?: string; paymentCurrency?: string }): AsyncIterable<Invoice>;
    };
  balances: BalanceStore;
  ledger: Ledger & {
    recordProviderRequest(transactionId: string, provider: TransactionProvider): Promise<void>;
    pendingOnChain(network: string): Promise<Transaction[]>;
    awaitingProvider(providerId: string): Promise<Transaction[]>;
  };
  chain: ChainState;
  keys: ApiKeyStore & KeyUseRecorder & { findKeyByDigest(digest: string): Promise<ApiKey | undefined> };
  merchants: BooksHolds & MerchantProfiles;
  /** A merchant of its own. */
  addMerchant(): Promise<string>;
  totals: DailyTotalsStore;
  /** The callback owed under a `webhook-id`, as the outbox holds it. */
  owedCallback(id: string): Promise<{ transactionId?: string } | undefined>;
}

function dynamoStores(): Stores {
  const { tables } = config();
  const outbox = new DynamoOutboxStore(documentClient, tables.outbox);
  return {
    invoices: new DynamoInvoiceStore(documentClient, tables),
    balances: new DynamoBalanceStore(documentClient, tables),
    ledger: new DynamoTransactionStore(documentClient, tables),
    chain: new DynamoChainStore(documentClient, tables.chain),
    keys: new DynamoMerchantStore(documentClient, tables),
    merchants: new DynamoMerchantStore(documentClient, tables),
    addMerchant: async () => (await seedMerchant()).merchant.id,
    totals: new DynamoDailyTotalsStore(documentClient, tables.dailyTotals),
    owedCallback: (id) => outbox.get(id),
  };
}

function memoryStores(): Stores {
  const totals = new MemoryDailyTotals();
  const invoices = new MemoryInvoiceStore(totals);
  const balances = new MemoryBalanceStore();
  const ledger = new MemoryLedger(invoices, balances, totals);
  const merchants = new MemoryMerchants();
  return {
    invoices,
    balances,
    ledger,
    chain: new MemoryChainState(),
    keys: new MemoryApiKeys(),
    merchants,
    addMerchant: async () => merchants.add().id,
    totals,
    owedCallback: async (id) => ledger.callback(id),
  };
}

const NOW = new Date('2026-06-01T12:00:00.000Z');
const later = (seconds: number) => new Date(NOW.getTime() + seconds * 1000);
const prices = (await new StaticRateSource(DEMO_USD_PRICES).current()).prices;
const policy = { stage: 'demo' as const, lifetimeSeconds: 900, providers: [demoProviderRoute()], networks: CRYPTO_NETWORKS };

/** A new invoice of a merchant of its own, unless `merchantId` names one: 1500 TRY unless `fields` say otherwise. */
const newInvoice = (fields: Record<string, unknown> = {}, merchantId: string = randomUUID(), now = NOW): Invoice =>
  buildInvoice(invoiceRequest({ baseCurrency: 'TRY', amount: 1500, ...fields }), { id: randomUUID(), merchantId, now }, prices, policy);

/** A deposit on `invoice` as read, with the invoice change it makes. */
function depositOn(invoice: Invoice, amount: string, status: Transaction['status'] = 'confirmed') {
  const transaction = depositTransaction(invoice, { id: randomUUID(), amount: new Decimal(amount), currency: invoice.paymentCurrency, status, network: null, transactionHash: null, now: later(60) }, '0');
  const outcome = invoiceAfterDeposit(invoice, transaction, true, later(60));
  if ('refused' in outcome) throw new Error(`The invoice refuses the deposit: ${outcome.refused}`);
  return { transaction, update: outcome.update };
}

const claim = (transactionId: string) => ({ id: `contract#${randomUUID()}`, owner: { transactionId } });

describe.each([
  ['DynamoDB', dynamoStores],
  ['memory', memoryStores],
])('the %s stores', (_backend, storesOf) => {
  describe('invoices', () => {
    it('take an orderId with the invoice: the same request again answers the first invoice, another request is a conflict', async () => {
      const { invoices } = storesOf();
      const first = newInvoice();
      expect(await invoices.create(first)).toEqual({ invoice: first, created: true });
      const again = { ...first, id: randomUUID() };
      await invoices.refuseTakenOrder(again);
      expect(await invoices.create(again)).toEqual({ invoice: first, created: false });
      const other = newInvoice({ orderId: first.orderId, amount: 2000 }, first.merchantId);
      await expect(invoices.refuseTakenOrder(other)).rejects.toThrow(Conflict);
      await expect(invoices.create(other)).rejects.toThrow(new Conflict('An invoice with this orderId already exists with different details'));
      expect(await invoices.get(other.id)).toBeUndefined();
      expect((await invoices.create(newInvoice({ orderId: first.orderId }))).created).toBe(true);
    });

    it('expire an invoice only while it is open and due', async () => {
      const { invoices } = storesOf();
      const invoice = newInvoice();
      await invoices.create(invoice);
      const due = { id: invoice.id, merchantId: invoice.merchantId };
      expect(await invoices.expire(due, later(899))).toBe(false);
      expect(await invoices.expire(due, later(900))).toBe(true);
      expect(await invoices.get(invoice.id)).toMatchObject({ status: 'canceled', cancelReason: 'expired', updatedAt: later(900).toISOString() });
      expect(await invoices.expire(due, later(901))).toBe(false);
    });

    it('keep the first payment made at a provider, awaited until it is decided', async () => {
      const { invoices } = storesOf();
      const invoice = newInvoice();
      await invoices.create(invoice);
      const providerId = `provider-${randomUUID()}`;
      const payment = { providerId, providerReference: 'pay-1', createdAt: NOW.toISOString(), redirectUrl: 'https://provider.example/pay/1' };
      expect(await invoices.attachProviderPayment(invoice.id, payment)).toBe(true);
      expect(await invoices.attachProviderPayment(invoice.id, { ...payment, providerReference: 'pay-2' })).toBe(false);
      expect(await invoices.attachProviderPayment(randomUUID(), payment)).toBe(false);
      expect((await invoices.awaitingProvider(providerId)).map(({ id, providerPayment }) => [id, providerPayment])).toEqual([[invoice.id, payment]]);
      await invoices.stopAwaitingProvider(invoice.id);
      expect(await invoices.awaitingProvider(providerId)).toEqual([]);
    });

    it("list a customer's invoices newest first, from a time and in one currency when asked", async () => {
      const { invoices } = storesOf();
      const merchantId = randomUUID();
      const customer = { customerId: 'alice' };
      const [oldest, middle, newest] = [
        newInvoice({ ...customer, baseCurrency: 'USDT', amount: 25 }, merchantId, NOW),
        newInvoice({ ...customer, baseCurrency: 'ETH', amount: 1 }, merchantId, later(60)),
        newInvoice({ ...customer, baseCurrency: 'USDT', amount: 30 }, merchantId, later(120)),
      ];
      for (const invoice of [oldest, middle, newest, newInvoice({ customerId: 'bob' }, merchantId)]) await invoices.create(invoice);
      const ids = async (options?: { since?: string; paymentCurrency?: string }) => {
        const found: string[] = [];
        for await (const invoice of invoices.customerInvoices(merchantId, 'alice', options)) found.push(invoice.id);
        return found;
      };
      expect(await ids()).toEqual([newest.id, middle.id, oldest.id]);
      expect(await ids({ paymentCurrency: 'USDT' })).toEqual([newest.id, oldest.id]);
      expect(await ids({ since: later(60).toISOString() })).toEqual([newest.id, middle.id]);
    });
  });

  describe('the ledger', () => {
    it('writes a deposit with its invoice change, its callback and its claims, all together', async () => {
      const { invoices, ledger, owedCallback } = storesOf();
      const invoice = newInvoice();
      await invoices.create(invoice);
      const { transaction, update } = depositOn(invoice, '1500');
      const taken = claim(transaction.id);
      const callback = callbackEntry(transaction, later(60));
      expect(await ledger.insert(transaction, { invoice: update, callbacks: [callback], claims: [taken] })).toBe('committed');
      expect(await ledger.get(transaction.id)).toEqual(transaction);
      expect(await ledger.getClaim(taken.id)).toEqual(taken);
      expect(await owedCallback(callback.id)).toMatchObject({ transactionId: transaction.id });
      expect(await invoices.get(invoice.id)).toMatchObject({
        status: 'completed',
        paidAmount: '1500.00',
        paymentStatus: 'paid',
        transactionIds: [transaction.id],
        completedAt: later(60).toISOString(),
        updatedAt: transaction.updatedAt,
      });
    });

    it('refuses, writing nothing, a deposit whose claim is taken or whose callback is owed already', async () => {
      const { invoices, ledger } = storesOf();
      const invoice = newInvoice();
      await invoices.create(invoice);
      const first = depositOn(invoice, '500');
      const taken = claim(first.transaction.id);
      const callback = callbackEntry(first.transaction, later(60));
      await ledger.insert(first.transaction, { invoice: first.update, callbacks: [callback], claims: [taken] });
      const read = (await invoices.get(invoice.id))!;

      const second = depositOn(read, '500');
      const free = claim(second.transaction.id);
      expect(await ledger.insert(second.transaction, { invoice: second.update, claims: [free, taken] })).toBe('stale');
      expect(await ledger.insert(second.transaction, { invoice: second.update, callbacks: [{ ...callback, transactionId: second.transaction.id }] })).toBe('stale');
      expect(await ledger.get(second.transaction.id)).toBeUndefined();
      expect(await ledger.getClaim(free.id)).toBeUndefined();
      expect(await invoices.get(invoice.id)).toEqual(read);
    });

    it('refuses, writing nothing, a deposit decided on an invoice that moved on since it was read', async () => {
      const { invoices, ledger } = storesOf();
      const invoice = newInvoice();
      await invoices.create(invoice);
      const [winner, loser] = [depositOn(invoice, '500'), depositOn(invoice, '700')];
      expect(await ledger.insert(winner.transaction, { invoice: winner.update })).toBe('committed');
      const read = (await invoices.get(invoice.id))!;
      const taken = claim(loser.transaction.id);
      expect(await ledger.insert(loser.transaction, { invoice: loser.update, claims: [taken] })).toBe('stale');
      expect(await ledger.get(loser.transaction.id)).toBeUndefined();
      expect(await ledger.getClaim(taken.id)).toBeUndefined();
      expect(await invoices.get(invoice.id)).toEqual(read);
      expect(await ledger.insert(winner.transaction, {})).toBe('stale');
    });

    it('moves a transaction only from the state it is in, giving up claims with it', async () => {
      const { invoices, ledger } = storesOf();
      const invoice = newInvoice();
      await invoices.create(invoice);
      const { transaction, update } = depositOn(invoice, '1500', 'processing');
      const taken = claim(transaction.id);
      await ledger.insert(transaction, { invoice: update, claims: [taken] });
      const read = (await invoices.get(invoice.id))!;
      const failed = { ...transaction, status: 'failed' as const, updatedAt: later(120).toISOString() };
      const settlement = invoiceAfterDeposit(read, failed, false, later(120));
      if ('refused' in settlement) throw new Error('A settlement is never refused');

      expect(await ledger.transition(failed, 'confirmed', { invoice: settlement.update, releaseClaims: [taken.id] })).toBe('stale');
      expect(await ledger.getClaim(taken.id)).toEqual(taken);
      expect(await ledger.transition(failed, 'processing', { invoice: settlement.update, releaseClaims: [taken.id] })).toBe('committed');
      expect(await ledger.get(transaction.id)).toEqual(failed);
      expect(await ledger.getClaim(taken.id)).toBeUndefined();
      expect(await invoices.get(invoice.id)).toMatchObject({ status: 'canceled', cancelReason: 'rejected', updatedAt: failed.updatedAt });
      expect(await ledger.transition({ ...failed, status: 'confirmed' }, 'processing', {})).toBe('stale');
    });

    it('records what a provider took only of a processing transaction of that provider, which it awaits while processing', async () => {
      const { invoices, ledger } = storesOf();
      const invoice = newInvoice();
      await invoices.create(invoice);
      const providerId = `provider-${randomUUID()}`;
      const { transaction, update } = depositOn(invoice, '1500', 'processing');
      const awaited = { ...transaction, provider: { id: providerId, reference: 'pay-1' } };
      await ledger.insert(awaited, { invoice: update });

      await ledger.recordProviderRequest(awaited.id, { id: 'another-provider', requestedAt: NOW.toISOString() });
      expect((await ledger.get(awaited.id))!.provider).toEqual({ id: providerId, reference: 'pay-1' });
      await ledger.recordProviderRequest(awaited.id, { id: providerId, reference: 'pay-1', requestedAt: NOW.toISOString() });
      expect((await ledger.get(awaited.id))!.provider).toEqual({ id: providerId, reference: 'pay-1', requestedAt: NOW.toISOString() });
      expect((await ledger.awaitingProvider(providerId)).map(({ id }) => id)).toEqual([awaited.id]);

      await ledger.transition({ ...awaited, provider: { id: providerId, reference: 'pay-1', requestedAt: NOW.toISOString() }, status: 'failed' }, 'processing', {});
      await ledger.recordProviderRequest(awaited.id, { id: providerId, reference: 'pay-2' });
      expect((await ledger.get(awaited.id))!.provider!.reference).toBe('pay-1');
      expect(await ledger.awaitingProvider(providerId)).toEqual([]);
    });

    it('lists an on-chain deposit as pending on its network while it is processing', async () => {
      const { invoices, ledger } = storesOf();
      const invoice = newInvoice({ baseCurrency: 'ETH', amount: 1 });
      await invoices.create(invoice);
      const { transaction, update } = depositOn(invoice, '1', 'processing');
      const onChain = { ...transaction, network: 'ethereum', chain: { blockNumber: 7, blockHash: `0x${'ab'.repeat(32)}`, logIndex: null } };
      await ledger.insert(onChain, { invoice: update });
      const pendingIds = async (network: string) => (await ledger.pendingOnChain(network)).map(({ id }) => id);
      expect(await pendingIds('ethereum')).toContain(onChain.id);
      expect(await pendingIds('polygon')).not.toContain(onChain.id);
      await ledger.transition({ ...onChain, status: 'confirmed' }, 'processing', {});
      expect(await pendingIds('ethereum')).not.toContain(onChain.id);
    });
  });

  describe('the books', () => {
    it("write a transaction's entries with it only onto the balance they were computed from, each entry once", async () => {
      const { invoices, balances, ledger } = storesOf();
      const invoice = newInvoice();
      await invoices.create(invoice);
      const { merchantId } = invoice;
      const context = (transaction: Transaction) => ({ merchantId, currency: 'TRY', transactionId: transaction.id, at: transaction.updatedAt });
      const first = depositOn(invoice, '500');
      const posting = post(undefined, movementsOf(first.transaction), context(first.transaction));
      expect(await ledger.insert(first.transaction, { invoice: first.update, posting })).toBe('committed');
      expect(await balances.get(merchantId, 'TRY')).toEqual(posting.balance);

      // A second deposit computed from no balance, as a writer that read before the first did.
      const read = (await invoices.get(invoice.id))!;
      const second = depositOn(read, '300');
      const stalePosting = post(undefined, movementsOf(second.transaction), context(second.transaction));
      expect(await ledger.insert(second.transaction, { invoice: second.update, posting: stalePosting })).toBe('stale');
      expect(await ledger.get(second.transaction.id)).toBeUndefined();
      expect(await invoices.get(invoice.id)).toEqual(read);

      const onBalance = post(await balances.get(merchantId, 'TRY'), movementsOf(second.transaction), context(second.transaction));
      expect(await ledger.insert(second.transaction, { invoice: second.update, posting: onBalance })).toBe('committed');
      expect(await balances.get(merchantId, 'TRY')).toMatchObject({ available: '800.00', reserved: '0.00', entryCount: 2 });
      expect((await balances.entriesIn(merchantId, 'TRY')).map(({ type, availableChange, availableAfter }) => [type, availableChange, availableAfter]).sort()).toEqual([
        ['deposit', '300.00', '800.00'],
        ['deposit', '500.00', '500.00'],
      ]);

      // The same entries again, on the balance as it is now: refused, nothing doubled.
      const again = post(await balances.get(merchantId, 'TRY'), movementsOf(second.transaction), context(second.transaction));
      expect(await balances.post(again)).toBe('stale');
      expect(await balances.get(merchantId, 'TRY')).toMatchObject({ available: '800.00', entryCount: 2 });
    });

    it("replace a balance only while it is the one read, and list a merchant's entries newest first", async () => {
      const { balances } = storesOf();
      const merchantId = randomUUID();
      const at = (minute: number) => `2026-06-01T12:${String(minute).padStart(2, '0')}:00.000Z`;
      const adjustment = (amount: string) => ({ type: 'adjustment' as const, available: new Decimal(amount), reserved: new Decimal(0) });
      for (const [amount, minute] of [
        ['10.00', 1],
        ['-2.50', 2],
        ['4.00', 3],
      ] as const) {
        const posting = post(await balances.get(merchantId, 'INR'), [adjustment(amount)], { merchantId, currency: 'INR', transactionId: null, at: at(minute), entryId: randomUUID(), reason: 'contract' });
        expect(await balances.post(posting)).toBe('committed');
      }
      const page = await balances.list(merchantId, { filters: { currency: 'INR' }, limit: 2 });
      expect(page.items.map((entry) => entry.availableAfter)).toEqual(['11.50', '7.50']);
      const rest = await balances.list(merchantId, { filters: { currency: 'INR' }, limit: 2, cursor: page.nextCursor! });
      expect(rest).toMatchObject({ items: [{ availableAfter: '10.00' }], nextCursor: null });

      const read = (await balances.get(merchantId, 'INR'))!;
      const fixed = { ...read, available: '11.00' };
      expect(await balances.replace(fixed, { entryCount: 2, available: '7.50', reserved: '0.00' })).toBe('stale');
      expect(await balances.replace(fixed, read)).toBe('committed');
      expect(await balances.get(merchantId, 'INR')).toEqual(fixed);
    });
  });

  describe('the day totals', () => {
    const [DAY, NEXT_DAY] = ['2026-06-01', '2026-06-02'];
    const at = (time: string) => new Date(time);

    /** A deposit on the invoice as stored now, written at `now` with its invoice change and the entries of its state on the balance as it is. */
    async function deposit({ invoices, balances, ledger }: Stores, invoiceId: string, amount: string, status: Transaction['status'], now: Date) {
      const invoice = (await invoices.get(invoiceId))!;
      const transaction = depositTransaction(invoice, { id: randomUUID(), amount: new Decimal(amount), currency: invoice.paymentCurrency, status, network: null, transactionHash: null, now }, '0');
      const outcome = invoiceAfterDeposit(invoice, transaction, true, now);
      if ('refused' in outcome) throw new Error(`The invoice refuses the deposit: ${outcome.refused}`);
      expect(await ledger.insert(transaction, { invoice: outcome.update, posting: await postingOf(balances, transaction) })).toBe('committed');
      return transaction;
    }

    /** The entries of the transaction's state on its balance as it is; none when its state has none. */
    async function postingOf(balances: BalanceStore, transaction: Transaction) {
      const movements = movementsOf(transaction);
      const { merchantId, currency, id, updatedAt } = transaction;
      return movements.length === 0 ? undefined : post(await balances.get(merchantId, currency), movements, { merchantId, currency, transactionId: id, at: updatedAt });
    }

    it("count a confirmed deposit's amount exactly on the UTC day it is confirmed, and nothing of one pending or failed", async () => {
      const stores = storesOf();
      const merchantId = randomUUID();
      const usdt = newInvoice({ baseCurrency: 'USDT', amount: 25 }, merchantId, at(`${DAY}T12:00:00.000Z`));
      const eth = newInvoice({ baseCurrency: 'ETH', amount: 1 }, merchantId, at(`${DAY}T12:00:00.000Z`));
      for (const invoice of [usdt, eth]) await stores.invoices.create(invoice);

      await deposit(stores, usdt.id, '0.1', 'confirmed', at(`${DAY}T12:01:00.000Z`));
      await deposit(stores, usdt.id, '0.2', 'confirmed', at(`${DAY}T23:59:59.999Z`));
      await deposit(stores, usdt.id, '0.4', 'confirmed', at(`${NEXT_DAY}T00:00:00.000Z`));
      await deposit(stores, eth.id, '123456789.123456789012345678', 'confirmed', at(`${DAY}T13:00:00.000Z`));
      await deposit(stores, eth.id, '0.000000000000000001', 'confirmed', at(`${DAY}T13:01:00.000Z`));
      const pending = await deposit(stores, usdt.id, '5', 'processing', at(`${NEXT_DAY}T01:00:00.000Z`));
      await deposit(stores, usdt.id, '6', 'failed', at(`${NEXT_DAY}T01:00:00.000Z`));
      const failed = { ...pending, status: 'failed' as const, updatedAt: at(`${NEXT_DAY}T02:00:00.000Z`).toISOString() };
      expect(await stores.ledger.transition(failed, 'processing', {})).toBe('committed');

      expect(await stores.totals.lastDays(merchantId, [DAY, NEXT_DAY])).toEqual({
        volumes: new Map([
          [
            'USDT',
            new Map([
              [DAY, '0.300000'],
              [NEXT_DAY, '0.400000'],
            ]),
          ],
          ['ETH', new Map([[DAY, '123456789.123456789012345679']])],
        ]),
        // The first ETH deposit paid its invoice; the USDT one is still short.
        invoices: new Map([[DAY, { created: 2, completed: 1 }]]),
      });
      expect(await stores.totals.lastDays(merchantId, [NEXT_DAY])).toEqual({ volumes: new Map([['USDT', new Map([[NEXT_DAY, '0.400000']])]]), invoices: new Map() });
      expect(await stores.totals.lastDays(randomUUID(), [DAY, NEXT_DAY])).toEqual({ volumes: new Map(), invoices: new Map() });
    });

    it('count an invoice once on the day it is created, and a deposit settled from pending and the invoice it completes on the day it settles, once', async () => {
      const stores = storesOf();
      const { invoices, balances, ledger, totals } = stores;
      const invoice = newInvoice({}, randomUUID(), at(`${DAY}T23:00:00.000Z`));
      await invoices.create(invoice);
      expect((await invoices.create({ ...invoice, id: randomUUID() })).created).toBe(false);
      const pending = await deposit(stores, invoice.id, '1500', 'processing', at(`${DAY}T23:59:59.999Z`));
      expect(await totals.lastDays(invoice.merchantId, [DAY, NEXT_DAY])).toEqual({ volumes: new Map(), invoices: new Map([[DAY, { created: 1, completed: 0 }]]) });

      const settledAt = at(`${NEXT_DAY}T00:00:00.000Z`);
      const confirmed = { ...pending, status: 'confirmed' as const, updatedAt: settledAt.toISOString() };
      const settlement = invoiceAfterDeposit((await invoices.get(invoice.id))!, confirmed, false, settledAt);
      if ('refused' in settlement) throw new Error('A settlement is never refused');
      const posting = await postingOf(balances, confirmed);
      expect(await ledger.transition(confirmed, 'processing', { invoice: settlement.update, posting })).toBe('committed');
      // The same settlement again, as a retry after a lost answer would make it: refused, nothing counted twice.
      expect(await ledger.transition(confirmed, 'processing', { invoice: settlement.update, posting })).toBe('stale');
      expect(await ledger.insert(confirmed, { invoice: settlement.update, posting })).toBe('stale');

      expect(await totals.lastDays(invoice.merchantId, [DAY, NEXT_DAY])).toEqual({
        volumes: new Map([['TRY', new Map([[NEXT_DAY, '1500.00']])]]),
        invoices: new Map([
          [DAY, { created: 1, completed: 0 }],
          [NEXT_DAY, { created: 0, completed: 1 }],
        ]),
      });
    });

    it("replace a merchant's days with the sums of the counts given, the same however often, and leave its other days", async () => {
      const { totals } = storesOf();
      const merchantId = randomUUID();
      const created = (day: string): DailyCount => ({ kind: 'invoice', merchantId, day, invoiceId: randomUUID(), event: 'created' });
      const volume = (day: string, amount: string): DailyCount => ({ kind: 'volume', merchantId, day, currency: 'BTC', amount });
      const counts = [...Array.from({ length: 20 }, () => created(DAY)), created(NEXT_DAY), volume(DAY, '0.1'), volume(DAY, '0.2'), volume(NEXT_DAY, '1')];
      const expected = {
        volumes: new Map([
          [
            'BTC',
            new Map([
              [DAY, '0.30000000'],
              [NEXT_DAY, '1.00000000'],
            ]),
          ],
        ]),
        invoices: new Map([
          [DAY, { created: 20, completed: 0 }],
          [NEXT_DAY, { created: 1, completed: 0 }],
        ]),
      };
      await totals.replace(merchantId, [DAY, NEXT_DAY], counts);
      await totals.replace(merchantId, [DAY, NEXT_DAY], counts);
      expect(await totals.lastDays(merchantId, [DAY, NEXT_DAY])).toEqual(expected);

      // Counts outside the days given, or of another merchant, are not the replacement's.
      await totals.replace(merchantId, [DAY], [volume(NEXT_DAY, '5'), { ...created(DAY), merchantId: randomUUID() }]);
      expect(await totals.lastDays(merchantId, [DAY, NEXT_DAY])).toEqual({
        volumes: new Map([['BTC', new Map([[NEXT_DAY, '1.00000000']])]]),
        invoices: new Map([[NEXT_DAY, { created: 1, completed: 0 }]]),
      });
    });
  });

  describe('the chain state', () => {
    const cursorAt = (number: number): ChainCursor => ({ number, hash: `0x${number.toString(16).padStart(64, '0')}`, recent: [{ number, hash: `0x${number.toString(16).padStart(64, '0')}` }] });

    it('moves a cursor only from where it was read, or sets it only where there is none', async () => {
      const { chain } = storesOf();
      const network = `network-${randomUUID()}`;
      expect(await chain.cursor(network)).toBeUndefined();
      expect(await chain.moveCursor(network, cursorAt(10), undefined, NOW)).toBe(true);
      expect(await chain.moveCursor(network, cursorAt(11), undefined, NOW)).toBe(false);
      expect(await chain.moveCursor(network, cursorAt(12), cursorAt(10), NOW)).toBe(true);
      expect(await chain.moveCursor(network, cursorAt(13), cursorAt(10), NOW)).toBe(false);
      expect(await chain.cursor(network)).toEqual(cursorAt(12));
    });

    it('holds a transfer once, until it is released', async () => {
      const { chain } = storesOf();
      const network = `network-${randomUUID()}`;
      const transfer = {
        id: `chain#${randomUUID()}`,
        network,
        transactionHash: `0x${'cd'.repeat(32)}`,
        logIndex: null,
        blockNumber: 5,
        blockHash: `0x${'ef'.repeat(32)}`,
        to: `0x${'12'.repeat(20)}`,
        asset: 'ETH',
        amount: '0.500000000000000000',
        merchantId: randomUUID(),
        customerId: 'alice',
        reason: 'onchain-deposits-off',
        seenAt: NOW.toISOString(),
      } as unknown as HeldTransfer;
      expect(await chain.hold(transfer)).toBe(true);
      expect(await chain.hold({ ...transfer, seenAt: later(60).toISOString() })).toBe(false);
      expect(await chain.held(network)).toEqual([transfer]);
      await chain.release(transfer.id);
      expect(await chain.held(network)).toEqual([]);
    });
  });

  describe('API keys', () => {
    const hourAgo = (at: Date) => new Date(at.getTime() - LAST_USED_GRANULARITY_SECONDS * 1000);

    it("keep a key by its digest, refuse its digest a second time, and list only the merchant's keys, oldest first", async () => {
      const { keys } = storesOf();
      const merchantId = randomUUID();
      const first = newApiKey(merchantId, 'demo', NOW, { name: 'First' }).record;
      const second = newApiKey(merchantId, 'demo', later(1)).record;
      await keys.addKey(second);
      await keys.addKey(first);
      await keys.addKey(newApiKey(randomUUID(), 'demo', NOW).record);
      await expect(keys.addKey({ ...first, keyId: randomUUID() })).rejects.toThrow();
      expect(await keys.findKeyByDigest(first.digest)).toEqual(first);
      expect(await keys.listKeys(merchantId)).toEqual([first, second]);
    });

    it("revoke only the merchant's own key, keeping the time of its first revocation", async () => {
      const { keys } = storesOf();
      const key = newApiKey(randomUUID(), 'demo', NOW).record;
      await keys.addKey(key);
      expect(await keys.revokeKey(randomUUID(), key.keyId, later(1))).toBe(false);
      expect(await keys.findKeyByDigest(key.digest)).toMatchObject({ status: 'active' });
      expect(await keys.revokeKey(key.merchantId, key.keyId, later(2))).toBe(true);
      expect(await keys.revokeKey(key.merchantId, key.keyId, later(3))).toBe(true);
      expect(await keys.findKeyByDigest(key.digest)).toEqual({ ...key, status: 'revoked', revokedAt: later(2).toISOString() });
      expect(await keys.revokeKey(key.merchantId, randomUUID(), later(4))).toBe(false);
    });

    it("record a key's use unless one from the hour before is recorded: each use within the hour writes nothing, the first after it does", async () => {
      const { keys } = storesOf();
      const key = newApiKey(randomUUID(), 'demo', NOW).record;
      await keys.addKey(key);
      const lastUse = async () => (await keys.findKeyByDigest(key.digest))?.lastUsedAt;

      expect(await keys.recordKeyUse(key.digest, later(10), hourAgo(later(10)))).toBe(true);
      expect(await lastUse()).toBe(later(10).toISOString());
      // Another request within the hour (one that read the key before the first write, say) leaves it.
      expect(await keys.recordKeyUse(key.digest, later(20), hourAgo(later(20)))).toBe(false);
      expect(await keys.recordKeyUse(key.digest, later(3610), hourAgo(later(3610)))).toBe(false);
      expect(await lastUse()).toBe(later(10).toISOString());
      // An hour and a second after it, the next use is recorded.
      expect(await keys.recordKeyUse(key.digest, later(3611), hourAgo(later(3611)))).toBe(true);
      expect(await lastUse()).toBe(later(3611).toISOString());
      // The key's other attributes stay as they were.
      expect(await keys.findKeyByDigest(key.digest)).toEqual({ ...key, lastUsedAt: later(3611).toISOString() });
    });

    it('record no use of a key that is not stored, and make no item of it', async () => {
      const { keys } = storesOf();
      const digest = newApiKey(randomUUID(), 'demo', NOW).record.digest;
      expect(await keys.recordKeyUse(digest, NOW, hourAgo(NOW))).toBe(false);
      expect(await keys.findKeyByDigest(digest)).toBeUndefined();
    });
  });

  describe('holds on payouts', () => {
    const hold = (run: string, at: Date): BooksHold => ({
      heldAt: at.toISOString(),
      run: { at: at.toISOString().replace(/\.\d{3}Z$/, 'Z'), id: run },
      differences: 1,
      currencies: ['TRY'],
      transactionIds: [],
    });
    const cleared = (held: BooksHold): ClearedBooksHold => ({ ...held, clearedAt: later(7200).toISOString(), reason: 'Checked' });
    const holdsOf = async (merchants: MerchantProfiles, id: string): Promise<Pick<Merchant, 'booksHold' | 'booksHoldCleared'> | undefined> => {
      const merchant = await merchants.getMerchant(id, { consistent: true });
      return merchant && { booksHold: merchant.booksHold, booksHoldCleared: merchant.booksHoldCleared };
    };

    it("keep a merchant's first hold through later ones, and make none, nor a merchant, for a merchant that is not stored", async () => {
      const { merchants, addMerchant } = storesOf();
      const merchantId = await addMerchant();
      const first = hold('run-1', NOW);
      expect(await merchants.holdPayouts(merchantId, first)).toEqual(first);
      expect(await merchants.holdPayouts(merchantId, hold('run-2', later(3600)))).toEqual(first);
      expect(await holdsOf(merchants, merchantId)).toEqual({ booksHold: first, booksHoldCleared: undefined });
      const missing = randomUUID();
      expect(await merchants.holdPayouts(missing, first)).toBeUndefined();
      expect(await merchants.getMerchant(missing, { consistent: true })).toBeUndefined();
    });

    it('clear only the hold in force, keeping it as the one cleared last', async () => {
      const { merchants, addMerchant } = storesOf();
      const merchantId = await addMerchant();
      const first = hold('run-1', NOW);
      await merchants.holdPayouts(merchantId, first);
      // Another hold than the one in force: of the same time from another run, or of another time.
      expect(await merchants.clearPayoutsHold(merchantId, cleared({ ...first, run: { ...first.run, id: 'run-2' } }))).toBe(false);
      expect(await merchants.clearPayoutsHold(merchantId, cleared({ ...first, heldAt: later(1).toISOString() }))).toBe(false);
      expect(await holdsOf(merchants, merchantId)).toEqual({ booksHold: first, booksHoldCleared: undefined });
      expect(await merchants.clearPayoutsHold(merchantId, cleared(first))).toBe(true);
      expect(await holdsOf(merchants, merchantId)).toEqual({ booksHold: undefined, booksHoldCleared: cleared(first) });
      expect(await merchants.clearPayoutsHold(merchantId, cleared(first))).toBe(false);
      const missing = randomUUID();
      expect(await merchants.clearPayoutsHold(missing, cleared(first))).toBe(false);
      expect(await merchants.getMerchant(missing, { consistent: true })).toBeUndefined();
    });
  });
});
