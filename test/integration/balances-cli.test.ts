/**
 * The admin CLI's commands on the books (docs/operations.md#merchants-and-keys), against the test
 * run's stores as it finds them beside a running gateway: printing balances and entries,
 * adjustments and their refusals, and the rebuild of books for transactions recorded before the
 * books existed.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { config } from '../../shared/config.js';
import { Decimal } from '../../shared/domain/kernel/money.js';
import { DEMO_USD_PRICES, StaticRateSource } from '../../shared/domain/rates/rates.js';
import { depositTransaction, type Transaction } from '../../shared/domain/transactions/transactions.js';
import { withdrawalRecipient, withdrawalRequestSchema, withdrawTransaction } from '../../shared/domain/transactions/withdrawals.js';
import { documentClient } from '../../shared/store/dynamo.js';
import { DynamoInvoiceStore } from '../../shared/store/invoices.js';
import { DynamoTransactionStore } from '../../shared/store/transactions.js';
import { fundBalance, testBalanceStore } from '../support/balances.js';
import { invoke } from '../support/invoke.js';
import { testMerchantCli, type TestCli } from '../support/merchant-cli.js';
import { seedMerchant, type SeededMerchant } from '../support/merchants.js';

let testCli: TestCli;

beforeAll(async () => {
  testCli = await testMerchantCli();
});

afterAll(async () => {
  await testCli.remove();
});

const cli = (args: string[]) => testCli.run(args);
const ledger = () => new DynamoTransactionStore(documentClient, config().tables);

const balances = async (merchant: SeededMerchant) => (await invoke('list-balances', { apiKey: merchant.apiKey })).body.data.items;

describe('balances', () => {
  it("prints each balance with every entry that made it in the order posted, and as JSON with an adjustment's reason", async () => {
    const merchant = await seedMerchant({ processingFeePercent: '2' });
    await fundBalance(merchant.merchant.id, 'TRY', '100.00');
    const invoice = await invoke('create-invoice', { apiKey: merchant.apiKey, body: { orderId: randomUUID(), customerId: 'c-1', baseCurrency: 'TRY', paymentMethod: 'iban', amount: 500 } });
    const deposit = await invoke('simulate-deposit', { apiKey: merchant.apiKey, body: { invoiceId: invoice.body.data.id } });

    const printed = await cli(['balances', '--merchant', merchant.merchant.id]);
    expect(printed.code).toBe(0);
    const lines = printed.out.trim().split('\n');
    expect(lines[0]).toBe('TRY  available 590.00  reserved 0.00  (3 entries)');
    expect(lines.slice(1).map((line) => line.trim().split(/\s+/).slice(1, 3))).toEqual([
      ['adjustment', '+100.00'],
      ['deposit', '+500.00'],
      ['fee', '-10.00'],
    ]);
    expect(lines[1]).toContain('(Funds for the test)');
    expect(lines[2]).toContain(`transaction ${deposit.body.data.id}`);

    const asJson = JSON.parse((await cli(['balances', '--merchant', merchant.merchant.id, '--json'])).out);
    expect(asJson).toEqual([{ currency: 'TRY', available: '590.00', reserved: '0.00', entries: expect.any(Array) }]);
    expect(asJson[0].entries[0]).toMatchObject({ type: 'adjustment', transactionId: null, amount: '100.00', availableAfter: '100.00', reason: 'Funds for the test' });
    expect(asJson[0].entries[2]).toEqual((await invoke('list-balance-entries', { apiKey: merchant.apiKey, query: { type: 'fee' } })).body.data.items[0]);
  });

  it('says so of a merchant without money, and refuses an unknown one', async () => {
    const merchant = await seedMerchant();
    expect((await cli(['balances', '--merchant', merchant.merchant.id])).out).toMatch(/^Merchant [0-9a-f-]{36} has no balance in the local gateway/);
    expect(await cli(['balances', '--merchant', randomUUID()])).toEqual({ code: 1, out: '', err: 'merchant: Merchant not found\n' });
  });
});

describe('adjust', () => {
  it('corrects available with its reason, the merchant sees the entry, and one that would go below zero is refused and writes nothing', async () => {
    const merchant = await seedMerchant();
    const credited = await cli(['adjust', '--merchant', merchant.merchant.id, '--currency', 'inr', '--amount', '250.5', '--reason', 'Settlement from the old system']);
    expect(credited).toEqual({
      code: 0,
      out: `Adjusted the INR balance of merchant ${merchant.merchant.id} by 250.50 (Settlement from the old system) in the local gateway at http://localhost:3999: available 250.50, reserved 0.00.\n`,
      err: '',
    });
    const refused = await cli(['adjust', '--merchant', merchant.merchant.id, '--currency', 'INR', '--amount=-250.51', '--reason', 'Too much']);
    expect(refused).toEqual({ code: 1, out: '', err: 'merchant: Insufficient balance: 250.50 INR available\n' });
    const taken = JSON.parse((await cli(['adjust', '--merchant', merchant.merchant.id, '--currency', 'INR', '--amount=-0.50', '--reason', 'Bank charge', '--json'])).out);
    expect(taken).toEqual({
      entry: {
        id: expect.any(String),
        transactionId: null,
        type: 'adjustment',
        currency: 'INR',
        amount: '-0.50',
        availableAfter: '250.00',
        reservedAfter: '0.00',
        createdAt: expect.any(String),
        reason: 'Bank charge',
      },
      balance: { currency: 'INR', available: '250.00', reserved: '0.00' },
    });
    expect(await balances(merchant)).toEqual([{ currency: 'INR', available: '250.00', reserved: '0.00' }]);
    expect((await invoke('list-balance-entries', { apiKey: merchant.apiKey, query: { type: 'adjustment' } })).body.data.items).toHaveLength(2);
  });

  it.each([
    ['no reason', ['--currency', 'TRY', '--amount', '5'], 2, /--reason is required/],
    ['an amount that is not one', ['--currency', 'TRY', '--amount', '5,00', '--reason', 'x'], 2, /--amount must be a signed decimal amount/],
    ['a currency the books do not hold', ['--currency', 'USD', '--amount', '5', '--reason', 'x'], 1, /currency must be one of TRY, INR/],
    ['more places than the currency has', ['--currency', 'TRY', '--amount', '5.001', '--reason', 'x'], 1, /at most 2 decimal places for TRY/],
    ['zero', ['--currency', 'TRY', '--amount=-0', '--reason', 'x'], 1, /non-zero amount/],
    ['a negative amount written apart from its option', ['--currency', 'TRY', '--amount', '-5', '--reason', 'x'], 2, /--amount=-XYZ/],
  ])('refuses %s, writing nothing', async (_name, args, code, message) => {
    const merchant = await seedMerchant();
    const refused = await cli(['adjust', '--merchant', merchant.merchant.id, ...args]);
    expect(refused.code).toBe(code);
    expect(refused.err).toMatch(message);
    expect(await balances(merchant)).toEqual([]);
  });
});

describe('rebuild-balances', () => {
  /** A transaction as the gateway recorded it before the books existed: no entries, not booked. */
  async function recordedBeforeTheBooks(transaction: Transaction): Promise<Transaction> {
    const { booked: _booked, ...unbooked } = transaction;
    expect(await ledger().insert(unbooked, {})).toBe('committed');
    return unbooked;
  }

  async function oldDeposit(merchant: SeededMerchant, amount: string): Promise<Transaction> {
    const created = await invoke('create-invoice', { apiKey: merchant.apiKey, body: { orderId: randomUUID(), customerId: 'c-1', baseCurrency: 'TRY', paymentMethod: 'iban', amount: 500 } });
    const invoice = (await new DynamoInvoiceStore(documentClient, config().tables).get(created.body.data.id))!;
    return recordedBeforeTheBooks(
      depositTransaction(
        invoice,
        { id: randomUUID(), amount: new Decimal(amount), currency: 'TRY', status: 'confirmed', network: null, transactionHash: null, now: new Date() },
        merchant.merchant.processingFeePercent,
      ),
    );
  }

  async function oldWithdrawal(merchant: SeededMerchant, amount: string): Promise<Transaction> {
    const request = withdrawalRequestSchema.parse({ customerId: 'c-1', amount, currency: 'TRY', phoneNumber: '+905551234567' });
    const { prices } = await new StaticRateSource(DEMO_USD_PRICES).current();
    const context = { id: randomUUID(), merchantId: merchant.merchant.id, feePercent: merchant.merchant.processingFeePercent, prices, now: new Date() };
    return recordedBeforeTheBooks(withdrawTransaction(request, withdrawalRecipient(request, 'phone'), context));
  }

  it('books what was recorded before the books once, sets the balances to the sums, and a later settlement posts only what is missing', async () => {
    const merchant = await seedMerchant({ processingFeePercent: '1' });
    const pending = await oldWithdrawal(merchant, '100.00');
    await oldDeposit(merchant, '1000.00');
    expect(await balances(merchant)).toEqual([]);

    const rebuilt = JSON.parse((await cli(['rebuild-balances', '--merchant', merchant.merchant.id, '--json'])).out);
    // 1000 less its fee of 10, less the withdrawal's 100 and fee of 1, reserved.
    expect(rebuilt).toEqual({ booked: 2, balances: [{ currency: 'TRY', available: '889.00', reserved: '101.00', entries: 3, corrected: false }] });
    expect(JSON.parse((await cli(['rebuild-balances', '--merchant', merchant.merchant.id, '--json'])).out)).toEqual({ ...rebuilt, booked: 0 });

    expect((await invoke('simulate-withdrawal', { apiKey: merchant.apiKey, body: { transactionId: pending.id, status: 'confirmed' } })).status).toBe(200);
    const entries = (await invoke('list-balance-entries', { apiKey: merchant.apiKey, query: { transactionId: pending.id } })).body.data.items;
    expect(entries.map((entry: { type: string }) => entry.type).sort()).toEqual(['fee', 'payout', 'payout_reserve']);
    expect(await balances(merchant)).toEqual([{ currency: 'TRY', available: '889.00', reserved: '0.00' }]);
  });

  it('settles a withdrawal recorded before the books with every entry of its new state', async () => {
    const merchant = await seedMerchant();
    const pending = await oldWithdrawal(merchant, '100.00');
    await fundBalance(merchant.merchant.id, 'TRY', '500.00');
    expect((await invoke('simulate-withdrawal', { apiKey: merchant.apiKey, body: { transactionId: pending.id, status: 'confirmed' } })).status).toBe(200);
    expect(await balances(merchant)).toEqual([{ currency: 'TRY', available: '400.00', reserved: '0.00' }]);
  });

  it('corrects a balance that is not the sums of its entries, and says so', async () => {
    const merchant = await seedMerchant();
    await fundBalance(merchant.merchant.id, 'AZN', '40.00');
    const balance = (await testBalanceStore().get(merchant.merchant.id, 'AZN'))!;
    expect(await testBalanceStore().replace({ ...balance, available: '45.00' }, balance)).toBe('committed');
    const rebuilt = await cli(['rebuild-balances', '--merchant', merchant.merchant.id]);
    expect(rebuilt.out).toBe(
      `Booked 0 transactions of merchant ${merchant.merchant.id} recorded before the books, in the local gateway at http://localhost:3999.\n` +
        'AZN  available 40.00  reserved 0.00  (1 entry)  corrected to the sums of its entries\n',
    );
    expect(await balances(merchant)).toEqual([{ currency: 'AZN', available: '40.00', reserved: '0.00' }]);
  });
});
