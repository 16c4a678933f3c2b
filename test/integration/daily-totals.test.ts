/**
 * The day totals in DynamoDB (shared/store/daily-totals.ts) against DynamoDB Local, beside the
 * contract both stores keep (store-contracts.test.ts): counted by the functions that make the
 * changes, each held to its grants, in DynamoDB Numbers added exactly; nothing counted by the late
 * booking of a transaction; and the admin CLI's recount from the records.
 */
import { randomUUID } from 'node:crypto';
import { QueryCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { config } from '../../shared/config.js';
import { chartDays } from '../../shared/dashboard/volume-chart.js';
import { movementsOf, post } from '../../shared/domain/ledger/balances.js';
import { utcDay, type DayTotals } from '../../shared/domain/ledger/daily-totals.js';
import { buildInvoice } from '../../shared/domain/invoicing/invoices.js';
import { Decimal } from '../../shared/domain/kernel/money.js';
import { demoProviderRoute } from '../../shared/domain/providers/providers.js';
import { DEMO_USD_PRICES, StaticRateSource } from '../../shared/domain/rates/rates.js';
import { depositTransaction, type Transaction } from '../../shared/domain/transactions/transactions.js';
import { CRYPTO_NETWORKS } from '../../shared/domain/kernel/currencies.js';
import { DynamoDailyTotalsStore, INVOICE_COUNT_SHARDS } from '../../shared/store/daily-totals.js';
import { documentClient } from '../../shared/store/dynamo.js';
import { DynamoInvoiceStore } from '../../shared/store/invoices.js';
import { DynamoTransactionStore } from '../../shared/store/transactions.js';
import { invoke } from '../support/invoke.js';
import { invoiceRequest } from '../support/memory/gateway.js';
import { merchantCliForTheseTests } from '../support/merchant-cli.js';
import { seedMerchant, type SeededMerchant } from '../support/merchants.js';

const tables = () => config().tables;
const totals = () => new DynamoDailyTotalsStore(documentClient, tables().dailyTotals);
const ledger = () => new DynamoTransactionStore(documentClient, tables());
const invoices = () => new DynamoInvoiceStore(documentClient, tables());

/** The overview's days, up to today: whatever the clock reads when a test ends, its writes are in them. */
const days = () => chartDays(new Date());

/** The merchant's items as DynamoDB holds them: each figure the text of its Number. */
async function storedItems(merchantId: string): Promise<Record<string, Record<string, string>>> {
  const { Items = [] } = await documentClient.send(
    new QueryCommand({ TableName: tables().dailyTotals, KeyConditionExpression: 'merchantId = :merchant', ExpressionAttributeValues: { ':merchant': { S: merchantId } } }),
  );
  return Object.fromEntries(Items.map(({ dayKey, merchantId: _merchant, ...figures }) => [dayKey!.S!, Object.fromEntries(Object.entries(figures).map(([name, value]) => [name, value.N!]))]));
}

/** Every day's totals added up: the volume per currency and the invoices. */
function summed({ volumes, invoices: counts }: DayTotals) {
  const volume = Object.fromEntries([...volumes].map(([currency, byDay]) => [currency, [...byDay.values()].reduce((sum, amount) => sum.plus(amount), new Decimal(0)).toFixed()]));
  const all = [...counts.values()];
  return { volume, created: all.reduce((sum, day) => sum + day.created, 0), completed: all.reduce((sum, day) => sum + day.completed, 0) };
}

const prices = (await new StaticRateSource(DEMO_USD_PRICES).current()).prices;
const policy = { stage: 'demo' as const, lifetimeSeconds: 900, providers: [demoProviderRoute()], networks: CRYPTO_NETWORKS };

/** A TRY invoice of the merchant created at `now`, as the invoice service builds it. */
const tryInvoice = (merchantId: string, amount: number, now: Date) => buildInvoice(invoiceRequest({ baseCurrency: 'TRY', amount }), { id: randomUUID(), merchantId, now }, prices, policy);

async function createInvoice(merchant: SeededMerchant, fields: Record<string, unknown>): Promise<string> {
  const response = await invoke('create-invoice', { apiKey: merchant.apiKey, body: { orderId: randomUUID(), customerId: `c-${randomUUID()}`, ...fields } });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.data.id;
}

async function simulateDeposit(merchant: SeededMerchant, body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<Transaction> {
  const response = await invoke('simulate-deposit', { apiKey: merchant.apiKey, body, headers });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.data;
}

describe('the functions', () => {
  it('count an invoice and its confirmed deposits in their own writes, as decimals DynamoDB adds exactly, and nothing of a failed deposit or a retry', async () => {
    const merchant = await seedMerchant();
    const merchantId = merchant.merchant.id;
    const invoiceId = await createInvoice(merchant, { baseCurrency: 'USDT', amount: 10 });
    const first = await simulateDeposit(merchant, { invoiceId, amount: '0.1' });
    await simulateDeposit(merchant, { invoiceId, amount: '0.2' });
    await simulateDeposit(merchant, { invoiceId, amount: '3', status: 'failed' });

    // 0.1 + 0.2 in binary floating point is 0.30000000000000004: DynamoDB added the decimals.
    const volumeKey = `${utcDay(first.createdAt)}#volume#USDT`;
    expect((await storedItems(merchantId))[volumeKey]).toEqual({ volume: '0.3' });
    expect(summed(await totals().lastDays(merchantId, days()))).toEqual({ volume: { USDT: '0.3' }, created: 1, completed: 0 });

    // The same deposit asked for twice under one key is recorded, and counted, once.
    const key = randomUUID();
    const last = await simulateDeposit(merchant, { invoiceId, amount: '9.7' }, { 'Idempotency-Key': key });
    expect(await simulateDeposit(merchant, { invoiceId, amount: '9.7' }, { 'Idempotency-Key': key })).toEqual(last);
    expect(summed(await totals().lastDays(merchantId, days()))).toEqual({ volume: { USDT: '10' }, created: 1, completed: 1 });
    const stored = await storedItems(merchantId);
    const invoiceItems = Object.keys(stored).filter((dayKey) => dayKey.includes('#invoices#'));
    expect(invoiceItems.every((dayKey) => /^\d{4}-\d{2}-\d{2}#invoices#[0-7]$/.test(dayKey))).toBe(true);
  });

  it('spread a day of invoices over a few items, which the read adds up', async () => {
    const merchant = await seedMerchant();
    await Promise.all(Array.from({ length: 24 }, () => createInvoice(merchant, { baseCurrency: 'TRY', paymentMethod: 'iban', amount: 1000 })));
    const items = Object.keys(await storedItems(merchant.merchant.id));
    expect(items.length).toBeGreaterThan(1);
    expect(items.length).toBeLessThanOrEqual(INVOICE_COUNT_SHARDS * 2);
    expect(summed(await totals().lastDays(merchant.merchant.id, days()))).toEqual({ volume: {}, created: 24, completed: 0 });
  });
});

describe('the late booking of a transaction', () => {
  it('counts nothing: the deposit was confirmed before the totals, and is the recount’s', async () => {
    const merchantId = randomUUID();
    const now = new Date();
    const invoice = tryInvoice(merchantId, 1500, now);
    await invoices().create(invoice);
    // As recorded before the books: confirmed, with no entries and no mark that it has them.
    const { booked: _booked, ...unbooked } = depositTransaction(
      invoice,
      { id: randomUUID(), amount: new Decimal('1500'), currency: 'TRY', status: 'confirmed', network: null, transactionHash: null, now },
      '0',
    );
    expect(await ledger().insert(unbooked, {})).toBe('committed');
    const posting = post(undefined, movementsOf(unbooked), { merchantId, currency: 'TRY', transactionId: unbooked.id, at: unbooked.updatedAt });
    expect(await ledger().book(unbooked, posting)).toBe('committed');
    expect(summed(await totals().lastDays(merchantId, days()))).toEqual({ volume: {}, created: 1, completed: 0 });
  });
});

describe('recount-daily-totals', () => {
  const cli = merchantCliForTheseTests();

  it("sets a merchant's 30 days to what its transactions and invoices count, the same on every run", async () => {
    const merchant = await seedMerchant();
    const merchantId = merchant.merchant.id;
    const paid = await createInvoice(merchant, { baseCurrency: 'TRY', paymentMethod: 'iban', amount: 1000 });
    const deposit = await simulateDeposit(merchant, { invoiceId: paid });
    const today = utcDay(deposit.updatedAt);
    // An invoice created long before the days recounted, completed on one of them.
    const old = tryInvoice(merchantId, 500, new Date(Date.parse(deposit.updatedAt) - 40 * 86_400_000));
    await invoices().create({ ...old, status: 'completed', paidAmount: '500.00', paymentStatus: 'paid', completedAt: deposit.updatedAt });
    // A deposit confirmed before the books existed, so before the totals.
    const { booked: _booked, ...unbooked } = { ...(await ledger().get(deposit.id))!, id: randomUUID(), amount: '250.00' };
    expect(await ledger().insert(unbooked, {})).toBe('committed');
    // As for a merchant whose records predate the totals: none counted.
    await totals().replace(merchantId, days(), []);

    const recounted = await cli(['recount-daily-totals', '--merchant', merchantId]);
    expect(recounted.err).toBe('');
    expect(recounted.code).toBe(0);
    expect(recounted.out).toMatch(new RegExp(`^Counted the day totals of merchant ${merchantId} from \\d{4}-\\d{2}-\\d{2} to ${today} \\(UTC\\) again in the local gateway at http://localhost:3999:\n`));
    expect(recounted.out).toContain(`\n${today}  invoices created 1  completed 2  confirmed volume 1250.00 TRY\n`);
    const expected = { volume: { TRY: '1250' }, created: 1, completed: 2 };
    expect(summed(await totals().lastDays(merchantId, days()))).toEqual(expected);

    const again = JSON.parse((await cli(['recount-daily-totals', '--merchant', merchantId, '--json'])).out);
    expect(again).toEqual({ merchantId, from: expect.any(String), to: today, days: [{ day: today, created: 1, completed: 2, volumes: { TRY: '1250.00' } }] });
    expect(summed(await totals().lastDays(merchantId, days()))).toEqual(expected);
  });

  it('refuses a merchant that does not exist, and a call without one', async () => {
    expect(await cli(['recount-daily-totals', '--merchant', randomUUID()])).toEqual({ code: 1, out: '', err: 'merchant: Merchant not found\n' });
    expect((await cli(['recount-daily-totals'])).code).toBe(2);
  });
});
