/**
 * The books (docs/merchant-guide.md#balances) through the local gateway against DynamoDB Local:
 * deposits of every source credit the balance in the write that confirms them, a withdrawal
 * reserves its amount and fee and then pays them out or releases them, racing requests never take
 * a balance below zero nor lose or double an entry, and the two listings with their filters,
 * cursors and refusals.
 */
import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { TokenBucketThrottle } from '../../infra/local/throttle.js';
import { config } from '../../shared/config.js';
import { balancesFromEntries, entryId } from '../../shared/domain/ledger/balances.js';
import { withdrawalOrderClaimId } from '../../shared/domain/chains/claims.js';
import type { HttpRouteName } from '../../shared/routes.js';
import { documentClient, dynamoClient } from '../../shared/store/dynamo.js';
import { fundBalance, testBalanceStore } from '../support/balances.js';
import { createTestGateway, invoke, type GatewayResult, type InvokeOptions } from '../support/invoke.js';
import { seedMerchant, type SeededMerchant } from '../support/merchants.js';
import { configuredProvider, sendProviderEvent, settleProviderDecisions } from '../support/providers.js';

// Races of dozens of requests on one key: the per-key throttle has tests of its own.
const gateway = createTestGateway({ throttle: new TokenBucketThrottle({ ratePerSecond: 1_000_000, burst: 1_000_000 }) });
const call = (route: HttpRouteName, options: InvokeOptions): Promise<GatewayResult> => invoke(route, { gateway, ...options });

async function createInvoice(merchant: SeededMerchant, fields: Record<string, unknown>): Promise<any> {
  const response = await call('create-invoice', { apiKey: merchant.apiKey, body: { orderId: randomUUID(), customerId: `c-${randomUUID()}`, ...fields } });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.data;
}

const TRY_INVOICE = { baseCurrency: 'TRY', paymentMethod: 'iban', amount: 1000 };

async function deposit(merchant: SeededMerchant, invoiceId: string, body: Record<string, unknown> = {}): Promise<any> {
  const response = await call('simulate-deposit', { apiKey: merchant.apiKey, body: { invoiceId, ...body } });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.data;
}

const withdraw = (merchant: SeededMerchant, amount: string, fields: Record<string, unknown> = {}) =>
  call('create-withdrawal', { apiKey: merchant.apiKey, body: { customerId: 'cust-1', amount, currency: 'TRY', phoneNumber: '+905551234567', ...fields } });

const settleWithdrawal = (merchant: SeededMerchant, transactionId: string, status: 'confirmed' | 'failed') => call('simulate-withdrawal', { apiKey: merchant.apiKey, body: { transactionId, status } });

const balances = async (merchant: SeededMerchant): Promise<any[]> => {
  const response = await call('list-balances', { apiKey: merchant.apiKey });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.data.items;
};

const page = (merchant: SeededMerchant, query: Record<string, string>) => call('list-balance-entries', { apiKey: merchant.apiKey, query });

/** Every entry of a listing, walked `limit` at a time. */
async function entries(merchant: SeededMerchant, query: Record<string, string> = {}): Promise<any[]> {
  const items: any[] = [];
  let cursor: string | null = null;
  do {
    const response = await page(merchant, { limit: '7', ...query, ...(cursor === null ? {} : { cursor }) });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    items.push(...response.body.data.items);
    cursor = response.body.data.nextCursor;
  } while (cursor !== null);
  return items;
}

/** The order entries are posted in; those posted together share their time. */
const POSTING_ORDER = ['adjustment', 'deposit', 'payout_reserve', 'payout', 'payout_release', 'fee'];

/** Entries of a listing in the order they were posted, as type, amount and the balances after. */
const inPostingOrder = (listed: any[]) =>
  [...listed]
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || POSTING_ORDER.indexOf(a.type) - POSTING_ORDER.indexOf(b.type))
    .map(({ type, amount, availableAfter, reservedAfter }) => ({ type, amount, availableAfter, reservedAfter }));

const entriesOf = async (merchant: SeededMerchant, transactionId: string) => inPostingOrder(await entries(merchant, { transactionId }));

/**
 * The books balance: the balance is the sum of what its entries did, counts them all, and no entry
 * ever left `available` or `reserved` below zero.
 */
async function expectBooksBalance(merchant: SeededMerchant, currency: string): Promise<void> {
  const store = testBalanceStore();
  const [balance, written] = await Promise.all([store.get(merchant.merchant.id, currency), store.entriesIn(merchant.merchant.id, currency)]);
  const [sums] = balancesFromEntries(merchant.merchant.id, written, balance!.updatedAt);
  expect(sums).toEqual(balance);
  expect(written.filter((entry) => entry.availableAfter.startsWith('-') || entry.reservedAfter.startsWith('-'))).toEqual([]);
}

describe('deposits credit the balance in the write that confirms them', () => {
  let merchant: SeededMerchant;
  beforeAll(async () => {
    merchant = await seedMerchant({ processingFeePercent: '1.5' });
  });

  it('a simulated deposit: available gains its amount less its fee, in two entries', async () => {
    const invoice = await createInvoice(merchant, TRY_INVOICE);
    const confirmed = await deposit(merchant, invoice.id);
    expect(await entriesOf(merchant, confirmed.id)).toEqual([
      { type: 'deposit', amount: '1000.00', availableAfter: '1000.00', reservedAfter: '0.00' },
      { type: 'fee', amount: '-15.00', availableAfter: '985.00', reservedAfter: '0.00' },
    ]);
    expect(await balances(merchant)).toEqual([{ currency: 'TRY', available: '985.00', reserved: '0.00' }]);
    // Each entry's id follows from its transaction and type.
    expect((await entries(merchant, { transactionId: confirmed.id })).map((entry) => entry.id).sort()).toEqual([entryId(confirmed.id, 'deposit'), entryId(confirmed.id, 'fee')].sort());
  });

  it('a failed deposit moves nothing; one in another currency credits that currency, at its precision', async () => {
    const invoice = await createInvoice(merchant, { baseCurrency: 'USDT', amount: 25 });
    const failed = await deposit(merchant, invoice.id, { status: 'failed' });
    expect(await entriesOf(merchant, failed.id)).toEqual([]);
    const usdc = await deposit(merchant, invoice.id, { currency: 'USDC', amount: '10.123456' });
    expect(await entriesOf(merchant, usdc.id)).toEqual([
      { type: 'deposit', amount: '10.123456', availableAfter: '10.123456', reservedAfter: '0.000000' },
      { type: 'fee', amount: '-0.151852', availableAfter: '9.971604', reservedAfter: '0.000000' },
    ]);
    expect((await balances(merchant)).map((balance) => balance.currency)).toEqual(['TRY', 'USDC']);
  });

  it('a UTR deposit: nothing while the provider decides, credited when it confirms', async () => {
    const invoice = await createInvoice(merchant, { baseCurrency: 'INR', amount: 1000 });
    expect((await call('confirm-deposit', { apiKey: merchant.apiKey, body: { invoiceId: invoice.id, utr: `U${randomUUID().replace(/-/g, '').slice(0, 15)}` } })).status).toBe(200);
    expect(await entries(merchant, { currency: 'INR' })).toEqual([]);
    await settleProviderDecisions();
    const [transactionId] = (await call('get-invoice', { apiKey: merchant.apiKey, pathParameters: { invoiceId: invoice.id } })).body.data.transactionIds;
    expect(await entriesOf(merchant, transactionId)).toEqual([
      { type: 'deposit', amount: '1000.00', availableAfter: '1000.00', reservedAfter: '0.00' },
      { type: 'fee', amount: '-15.00', availableAfter: '985.00', reservedAfter: '0.00' },
    ]);
  });

  it("a provider's payment: credited for the amount the provider reports", async () => {
    const created = await createInvoice(merchant, { baseCurrency: 'PKR', amount: 1000, paymentMethod: 'wallet', customerFullName: 'Ada Lovelace' });
    expect((await call('get-checkout-provider', { pathParameters: { invoiceId: created.id } })).headers.location).toMatch(new RegExp(`^${configuredProvider().url}/`));
    const { providerPayment } = (await documentClient.send(new GetCommand({ TableName: config().tables.invoices, Key: { id: created.id } }))).Item!;
    const event = { type: 'payment.confirmed', reference: created.id, providerReference: providerPayment.providerReference, amount: '800.00', currency: 'PKR' };
    expect((await sendProviderEvent(event)).status).toBe(200);
    expect(inPostingOrder(await entries(merchant, { currency: 'PKR' }))).toEqual([
      { type: 'deposit', amount: '800.00', availableAfter: '800.00', reservedAfter: '0.00' },
      { type: 'fee', amount: '-12.00', availableAfter: '788.00', reservedAfter: '0.00' },
    ]);
  });
});

describe('POST /api/v2/withdrawal pays from the available balance', () => {
  let merchant: SeededMerchant;
  beforeAll(async () => {
    merchant = await seedMerchant({ processingFeePercent: '1.5' });
  });

  it('refuses more than is available, fee included, with 402 and what is available, writing nothing', async () => {
    const poor = await seedMerchant({ processingFeePercent: '1.5' });
    await fundBalance(poor.merchant.id, 'TRY', '120.00');
    const before = await entries(poor);
    const orderId = `payout-${randomUUID()}`;
    // 120.00 and its fee of 1.80 are more than 120.00.
    const refused = await withdraw(poor, '120.00', { orderId });
    expect(refused.status).toBe(402);
    expect(refused.body).toEqual({ success: false, errors: [{ code: 'payment_required', message: 'Insufficient balance: 120.00 TRY available' }] });
    expect(refused.headers.deprecation).toBe('true');
    expect(refused.headers['x-request-id']).toBeTruthy();
    expect((await call('list-transactions', { apiKey: poor.apiKey, query: { orderId } })).body.data.items).toEqual([]);
    const claim = await documentClient.send(new GetCommand({ TableName: config().tables.uniques, Key: { id: withdrawalOrderClaimId(poor.merchant.id, orderId) } }));
    expect(claim.Item).toBeUndefined();
    expect(await entries(poor)).toEqual(before);
    expect(await balances(poor)).toEqual([{ currency: 'TRY', available: '120.00', reserved: '0.00' }]);
    // In a currency it has no balance in, nothing is available.
    const none = await withdraw(poor, '100.00', { currency: 'INR' });
    expect(none.body.errors).toEqual([{ code: 'payment_required', message: 'Insufficient balance: 0.00 INR available' }]);
    // What is available is taken in full.
    expect((await withdraw(poor, '118.23')).status).toBe(200);
    expect(await balances(poor)).toEqual([{ currency: 'TRY', available: '0.00', reserved: '120.00' }]);
  });

  it('reserves the amount and fee when accepted, and pays both out of reserved when confirmed', async () => {
    await fundBalance(merchant.merchant.id, 'TRY', '1000.00');
    const accepted = await withdraw(merchant, '100.00');
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    const { id } = accepted.body.data;
    expect(await entriesOf(merchant, id)).toEqual([{ type: 'payout_reserve', amount: '-101.50', availableAfter: '898.50', reservedAfter: '101.50' }]);
    expect(await balances(merchant)).toEqual([{ currency: 'TRY', available: '898.50', reserved: '101.50' }]);

    expect((await settleWithdrawal(merchant, id, 'confirmed')).status).toBe(200);
    expect(await entriesOf(merchant, id)).toEqual([
      { type: 'payout_reserve', amount: '-101.50', availableAfter: '898.50', reservedAfter: '101.50' },
      { type: 'payout', amount: '-100.00', availableAfter: '898.50', reservedAfter: '1.50' },
      { type: 'fee', amount: '-1.50', availableAfter: '898.50', reservedAfter: '0.00' },
    ]);
    expect(await balances(merchant)).toEqual([{ currency: 'TRY', available: '898.50', reserved: '0.00' }]);
    await expectBooksBalance(merchant, 'TRY');
  });

  it('releases the reserve when the withdrawal fails', async () => {
    const [before] = await balances(merchant);
    const { id } = (await withdraw(merchant, '200.00')).body.data;
    expect((await settleWithdrawal(merchant, id, 'failed')).status).toBe(200);
    expect((await entriesOf(merchant, id)).map(({ type, amount }) => ({ type, amount }))).toEqual([
      { type: 'payout_reserve', amount: '-203.00' },
      { type: 'payout_release', amount: '203.00' },
    ]);
    expect(await balances(merchant)).toEqual([before]);
  });

  it("settles through the provider's payout events as through the simulation", async () => {
    const { id } = (await withdraw(merchant, '50.00')).body.data;
    const stored = (await documentClient.send(new GetCommand({ TableName: config().tables.transactions, Key: { id } }))).Item!;
    const event = { type: 'payout.confirmed', reference: id, providerReference: stored.provider.reference, amount: '50.00', currency: 'TRY' };
    expect((await sendProviderEvent(event)).status).toBe(200);
    expect((await entriesOf(merchant, id)).map(({ type }) => type)).toEqual(['payout_reserve', 'payout', 'fee']);
  });

  it('answers a repeated orderId with 409 db_unique_violation, also once its first withdrawal took the money', async () => {
    const spender = await seedMerchant();
    await fundBalance(spender.merchant.id, 'TRY', '100.00');
    const orderId = `payout-${randomUUID()}`;
    expect((await withdraw(spender, '100.00', { orderId })).status).toBe(200);
    const again = await withdraw(spender, '100.00', { orderId });
    expect(again.status).toBe(409);
    expect(again.body.errors[0].code).toBe('db_unique_violation');
  });

  it('posts a settlement once, however often it is asked for at once', async () => {
    const { id } = (await withdraw(merchant, '10.00')).body.data;
    const answers = await Promise.all(Array.from({ length: 20 }, () => settleWithdrawal(merchant, id, 'confirmed')));
    expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(200));
    expect((await entriesOf(merchant, id)).map(({ type }) => type)).toEqual(['payout_reserve', 'payout', 'fee']);
    await expectBooksBalance(merchant, 'TRY');
  });
});

describe('races', () => {
  it('20 withdrawals at once over a balance that covers 9: 9 accepted, 11 refused, never below zero, every entry kept', async () => {
    const merchant = await seedMerchant({ processingFeePercent: '1' });
    await fundBalance(merchant.merchant.id, 'TRY', '1000.00');
    const answers = await Promise.all(Array.from({ length: 20 }, () => withdraw(merchant, '100.00')));
    const accepted = answers.filter((answer) => answer.status === 200);
    expect(answers.filter((answer) => answer.status !== 200).map((answer) => answer.body.errors[0].code)).toEqual(Array(11).fill('payment_required'));
    expect(accepted).toHaveLength(9);
    expect(await balances(merchant)).toEqual([{ currency: 'TRY', available: '91.00', reserved: '909.00' }]);
    const reserves = await entries(merchant, { type: 'payout_reserve' });
    expect(reserves.map((entry) => entry.transactionId).sort()).toEqual(accepted.map((answer) => answer.body.data.id).sort());
    await expectBooksBalance(merchant, 'TRY');
  });

  it('withdrawals racing deposits: each deposit credited once, each accepted withdrawal reserved once, never below zero', async () => {
    const merchant = await seedMerchant();
    await fundBalance(merchant.merchant.id, 'TRY', '2000.00');
    const invoices = await Promise.all(Array.from({ length: 10 }, () => createInvoice(merchant, TRY_INVOICE)));
    const [deposits, payouts] = await Promise.all([Promise.all(invoices.map((invoice) => deposit(merchant, invoice.id))), Promise.all(Array.from({ length: 30 }, () => withdraw(merchant, '400.00')))]);
    const accepted = payouts.filter((answer) => answer.status === 200).map((answer) => answer.body.data.id);
    expect(payouts.filter((answer) => answer.status !== 200).map((answer) => answer.body.errors[0].code)).toEqual(Array(30 - accepted.length).fill('payment_required'));
    const written = await entries(merchant);
    expect(
      written
        .filter((entry) => entry.type === 'deposit')
        .map((entry) => entry.transactionId)
        .sort(),
    ).toEqual(deposits.map((d) => d.id).sort());
    expect(
      written
        .filter((entry) => entry.type === 'payout_reserve')
        .map((entry) => entry.transactionId)
        .sort(),
    ).toEqual(accepted.sort());
    const reserved = 400 * accepted.length;
    expect(accepted.length).toBeGreaterThanOrEqual(5);
    expect(await balances(merchant)).toEqual([{ currency: 'TRY', available: `${12_000 - reserved}.00`, reserved: `${reserved}.00` }]);
    await expectBooksBalance(merchant, 'TRY');
  });

  it("withdrawals racing an operator's corrections written through other stores, as from other processes: the write condition decides, never below zero", async () => {
    const merchant = await seedMerchant();
    await fundBalance(merchant.merchant.id, 'TRY', '1500.00');
    // Each correction goes through a store of its own: nothing makes them take turns with the functions' postings.
    const correct = () =>
      fundBalance(merchant.merchant.id, 'TRY', '-50.00').then(
        () => 'taken',
        (error: Error) => error.message,
      );
    const [payouts, corrections] = await Promise.all([Promise.all(Array.from({ length: 20 }, () => withdraw(merchant, '100.00'))), Promise.all(Array.from({ length: 10 }, correct))]);
    const accepted = payouts.filter((answer) => answer.status === 200).length;
    const taken = corrections.filter((outcome) => outcome === 'taken').length;
    expect(payouts.filter((answer) => answer.status !== 200).map((answer) => answer.body.errors[0].code)).toEqual(Array(20 - accepted).fill('payment_required'));
    expect(corrections.filter((outcome) => outcome !== 'taken').every((outcome) => outcome.startsWith('Insufficient balance'))).toBe(true);
    const reserved = 100 * accepted;
    expect(await balances(merchant)).toEqual([{ currency: 'TRY', available: `${1500 - reserved - 50 * taken}.00`, reserved: `${reserved}.00` }]);
    await expectBooksBalance(merchant, 'TRY');
  });

  it('the same deposit 20 times at once under one Idempotency-Key: one transaction, credited once', async () => {
    const merchant = await seedMerchant();
    const invoice = await createInvoice(merchant, TRY_INVOICE);
    const key = `deposit-${randomUUID()}`;
    const answers = await Promise.all(Array.from({ length: 20 }, () => call('simulate-deposit', { apiKey: merchant.apiKey, headers: { 'Idempotency-Key': key }, body: { invoiceId: invoice.id } })));
    const ids = new Set(answers.filter((answer) => answer.status === 200).map((answer) => answer.body.data.id));
    expect(ids.size).toBe(1);
    expect(await entries(merchant)).toHaveLength(1);
    expect(await balances(merchant)).toEqual([{ currency: 'TRY', available: '1000.00', reserved: '0.00' }]);
  });
});

describe('GET /api/v2/balances and GET /api/v2/balance/entries', () => {
  let merchant: SeededMerchant;
  let all: any[];
  let withdrawalId: string;

  beforeAll(async () => {
    merchant = await seedMerchant({ processingFeePercent: '2' });
    for (const invoice of await Promise.all(Array.from({ length: 6 }, () => createInvoice(merchant, TRY_INVOICE)))) await deposit(merchant, invoice.id);
    await deposit(merchant, (await createInvoice(merchant, { baseCurrency: 'USDT', amount: 25 })).id);
    withdrawalId = (await withdraw(merchant, '500.00')).body.data.id;
    await settleWithdrawal(merchant, withdrawalId, 'confirmed');
    all = await entries(merchant);
  });

  it('a merchant without money has no balances and no entries', async () => {
    const fresh = await seedMerchant();
    expect(await balances(fresh)).toEqual([]);
    expect((await page(fresh, {})).body).toEqual({ success: true, data: { items: [], nextCursor: null } });
  });

  it('lists every entry once, newest first, in the shape of the contract', async () => {
    expect(all).toHaveLength(6 * 2 + 2 + 3);
    expect(new Set(all.map((entry) => entry.id)).size).toBe(all.length);
    for (let i = 1; i < all.length; i++) expect(all[i].createdAt <= all[i - 1].createdAt).toBe(true);
    expect(Object.keys(all[0]).sort()).toEqual(['amount', 'availableAfter', 'createdAt', 'currency', 'id', 'reservedAfter', 'transactionId', 'type']);
    expect(await balances(merchant)).toEqual([
      { currency: 'TRY', available: `${6 * 980 - 510}.00`, reserved: '0.00' },
      { currency: 'USDT', available: '24.500000', reserved: '0.000000' },
    ]);
  });

  it.each<[string, () => Record<string, string>, (entry: any) => boolean]>([
    ['currency', () => ({ currency: 'USDT' }), (entry) => entry.currency === 'USDT'],
    ['type', () => ({ type: 'fee' }), (entry) => entry.type === 'fee'],
    ['type and currency', () => ({ type: 'fee', currency: 'TRY' }), (entry) => entry.type === 'fee' && entry.currency === 'TRY'],
    ['transactionId, in capitals', () => ({ transactionId: withdrawalId.toUpperCase() }), (entry) => entry.transactionId === withdrawalId],
    [
      'createdFrom and createdTo, inclusive',
      () => ({ createdFrom: all[10].createdAt, createdTo: all[3].createdAt }),
      (entry) => entry.createdAt >= all[10].createdAt && entry.createdAt <= all[3].createdAt,
    ],
  ])('filters by %s: the full listing filtered', async (_name, query, keep) => {
    const expected = all.filter(keep);
    expect(expected.length).toBeGreaterThan(0);
    expect((await entries(merchant, query())).map((entry) => entry.id).sort()).toEqual(expected.map((entry) => entry.id).sort());
  });

  it("lists nothing of another merchant's transaction", async () => {
    const stranger = await seedMerchant();
    expect((await page(stranger, { transactionId: withdrawalId })).body.data).toEqual({ items: [], nextCursor: null });
  });

  describe('bad input: a 422 naming the field', () => {
    let cursor: string;
    beforeAll(async () => {
      cursor = (await page(merchant, { limit: '2', type: 'fee' })).body.data.nextCursor;
    });

    it.each<[string, () => Record<string, string>, string]>([
      ['an unknown currency', () => ({ currency: 'XYZ' }), 'currency'],
      ['an unknown type', () => ({ type: 'chargeback' }), 'type'],
      ['a transactionId that is no UUID', () => ({ transactionId: 'tx-1' }), 'transactionId'],
      ['limit 0', () => ({ limit: '0' }), 'limit'],
      ['limit 101', () => ({ limit: '101' }), 'limit'],
      ['a time without a zone', () => ({ createdFrom: '2025-01-01T10:00:00' }), 'createdFrom'],
      ['a range that runs backwards', () => ({ createdFrom: '2025-02-01T00:00:00Z', createdTo: '2025-01-01T00:00:00Z' }), 'createdTo'],
      ['an unknown parameter', () => ({ merchantId: merchant.merchant.id }), 'merchantId'],
      ['a cursor that is not one', () => ({ cursor: 'not-a-cursor' }), 'cursor'],
      ['a cursor of another filter', () => ({ cursor, type: 'deposit' }), 'cursor'],
      ['a cursor without its filter', () => ({ cursor }), 'cursor'],
    ])('%s', async (_name, query, field) => {
      const response = await page(merchant, query());
      expect(response.status).toBe(422);
      expect(response.headers['x-request-id']).toBeTruthy();
      expect(response.body.success).toBe(false);
      expect(response.body.errors[0]).toEqual({ code: 'unprocessable_content', field, message: expect.stringContaining(field) });
    });

    it("a cursor of another merchant's listing", async () => {
      const response = await page(await seedMerchant(), { type: 'fee', cursor });
      expect(response.status).toBe(422);
      expect(response.body.errors[0].field).toBe('cursor');
    });
  });

  describe('what a page reads', () => {
    it.each<[string, Record<string, string>, string]>([
      ['all entries', {}, 'byMerchant'],
      ['a currency', { currency: 'TRY' }, 'byMerchantCurrency'],
      ['a type', { type: 'deposit', currency: 'TRY' }, 'byMerchantType'],
      ['a transaction', { transactionId: randomUUID(), type: 'fee' }, 'byTransaction'],
    ])('%s: one query of the %s index, of at most limit + 1 items, and no scan', async (_name, query, index) => {
      const sent: { name: string; input: Record<string, any> }[] = [];
      const name = `record-${randomUUID()}`;
      dynamoClient.middlewareStack.add(
        (next, context) => async (args) => {
          sent.push({ name: context.commandName as string, input: args.input as Record<string, any> });
          return next(args);
        },
        { step: 'initialize', name },
      );
      try {
        expect((await page(merchant, { limit: '5', ...query })).status).toBe(200);
      } finally {
        dynamoClient.middlewareStack.remove(name);
      }
      expect(sent.filter((command) => command.name === 'QueryCommand').map((command) => [command.input.IndexName, command.input.Limit])).toEqual([[index, 6]]);
      expect(sent.map((command) => command.name).filter((command) => command !== 'QueryCommand' && command !== 'GetItemCommand')).toEqual([]);
    });
  });
});
