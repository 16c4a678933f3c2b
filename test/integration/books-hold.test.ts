/**
 * Books that disagree stop money leaving (docs/operations.md#the-hourly-check), against DynamoDB
 * Local: the check-books function, run as its schedule runs it (held to its route-table grants),
 * holds the payouts of a merchant whose balance it found off; a withdrawal of that merchant answers
 * 423 `locked` naming the check and writes nothing, whatever its balance, until an operator clears
 * the hold with the admin CLI; a check that finds the books balanced holds no one and clears
 * nothing.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TABLE_KEYS, tableEnvVar, type TableKey } from '../../shared/store/tables.js';

// Tables of this file's own: the check reads every merchant of its tables, and other files leave
// books off on purpose in the shared ones. Set before any function module loads.
const tables = Object.fromEntries(TABLE_KEYS.map((key) => [key, `books-hold-${randomUUID().slice(0, 8)}-${key}`])) as Record<TableKey, string>;
for (const key of TABLE_KEYS) process.env[tableEnvVar(key)] = tables[key];

const [
  { GetCommand, PutCommand },
  { ensureTables },
  { invoker },
  { scheduledEvent },
  { FUNCTIONS },
  { documentClient, dynamoClient },
  { withdrawalOrderClaimId },
  { fundBalance },
  { invoke, loadFunction },
  { testMerchantCli },
  { seedMerchant, testMerchantStore },
] = await Promise.all([
  import('@aws-sdk/lib-dynamodb'),
  import('../../infra/local/dynamodb.js'),
  import('../../infra/local/functions.js'),
  import('../../infra/local/scheduler.js'),
  import('../../shared/routes.js'),
  import('../../shared/store/dynamo.js'),
  import('../../shared/domain/chains/claims.js'),
  import('../support/balances.js'),
  import('../support/invoke.js'),
  import('../support/merchant-cli.js'),
  import('../support/merchants.js'),
]);

type SeededMerchant = Awaited<ReturnType<typeof seedMerchant>>;

const checkBooks = FUNCTIONS.find((fn) => fn.name === 'check-books')!;
if (checkBooks.kind !== 'schedule') throw new Error('check-books is a scheduled function');
const runScheduled = invoker(loadFunction);

/** One run of the check, as its schedule runs it at `at`. */
const runCheck = async (at: Date) => (await runScheduled(checkBooks, scheduledEvent(checkBooks, at))) as { merchants: number; differences: number; held: number };

let cli: Awaited<ReturnType<typeof testMerchantCli>>;

beforeAll(async () => {
  await ensureTables(dynamoClient, tables);
  cli = await testMerchantCli();
});

afterAll(async () => {
  await cli?.remove();
});

const HELD = "Payouts are held: the books check of 2026-11-29T04:00:00Z found this merchant's books off; an operator must clear the hold";

const withdraw = (merchant: SeededMerchant, amount: string, fields: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  invoke('create-withdrawal', { apiKey: merchant.apiKey, headers, body: { customerId: 'cust-1', amount, currency: 'TRY', phoneNumber: '+905551234567', ...fields } });

const balanceKey = (merchant: SeededMerchant) => ({ id: JSON.stringify([merchant.merchant.id, 'TRY']) });
const balanceItem = async (merchant: SeededMerchant) => (await documentClient.send(new GetCommand({ TableName: tables.balances, Key: balanceKey(merchant), ConsistentRead: true }))).Item!;
const entries = async (merchant: SeededMerchant) => (await invoke('list-balance-entries', { apiKey: merchant.apiKey, query: { limit: '100' } })).body.data.items;
const transactions = async (merchant: SeededMerchant) => (await invoke('list-transactions', { apiKey: merchant.apiKey })).body.data.items;
const storedMerchant = async (merchant: SeededMerchant) => (await testMerchantStore().getMerchant(merchant.merchant.id, { consistent: true }))!;

describe('the books check and payouts', () => {
  it("holds no one when it finds every merchant's books balanced, and withdrawals are accepted", async () => {
    const merchant = await seedMerchant({ processingFeePercent: '1' });
    await fundBalance(merchant.merchant.id, 'TRY', '1000.00');
    expect((await withdraw(merchant, '100.00')).status).toBe(200);
    expect(await runCheck(new Date())).toMatchObject({ differences: 0, held: 0 });
    expect((await storedMerchant(merchant)).booksHold).toBeUndefined();
    expect((await withdraw(merchant, '100.00')).status).toBe(200);
  });

  it('holds the payouts of a merchant whose balance it found off: 423 locked, nothing written, until an operator clears the hold', async () => {
    const merchant = await seedMerchant({ processingFeePercent: '1' });
    await fundBalance(merchant.merchant.id, 'TRY', '1000.00');
    const funded = await balanceItem(merchant);
    // A balance item written by hand: 5000.00 where its entries say 1000.00.
    await documentClient.send(new PutCommand({ TableName: tables.balances, Item: { ...funded, available: '5000.00' } }));

    expect(await runCheck(new Date('2026-11-29T04:00:00Z'))).toMatchObject({ differences: 1, held: 1 });
    const hold = (await storedMerchant(merchant)).booksHold;
    expect(hold).toEqual({ heldAt: expect.any(String), run: { at: '2026-11-29T04:00:00Z', id: expect.any(String) }, differences: 1, currencies: ['TRY'], transactionIds: [] });

    const [tampered, listed] = [await balanceItem(merchant), await entries(merchant)];
    const orderId = `payout-${randomUUID()}`;
    const idempotencyKey = randomUUID();
    const refused = await withdraw(merchant, '100.00', { orderId }, { 'Idempotency-Key': idempotencyKey });
    expect(refused.status).toBe(423);
    expect(refused.body).toEqual({ success: false, errors: [{ code: 'locked', message: HELD }] });
    expect(refused.headers['x-request-id']).toBeTruthy();
    expect(refused.headers.deprecation).toBe('true');
    // What the tampered balance would cover, and more than any balance covers: the hold comes first.
    for (const amount of ['4900.00', '9000.00']) expect((await withdraw(merchant, amount)).body.errors).toEqual([{ code: 'locked', message: HELD }]);
    // Bad input is told as such, with nothing written either.
    const bad = await withdraw(merchant, '100.00', { phoneNumber: undefined });
    expect(bad.status).toBe(422);
    expect(bad.body.errors[0]).toMatchObject({ code: 'unprocessable_content', field: 'cardNumber' });

    expect(await balanceItem(merchant)).toEqual(tampered);
    expect(await entries(merchant)).toEqual(listed);
    expect(await transactions(merchant)).toEqual([]);
    expect((await documentClient.send(new GetCommand({ TableName: tables.uniques, Key: { id: withdrawalOrderClaimId(merchant.merchant.id, orderId) } }))).Item).toBeUndefined();

    // The balance put right: the next check finds nothing, and the hold stays for a person to clear.
    await documentClient.send(new PutCommand({ TableName: tables.balances, Item: funded }));
    expect(await runCheck(new Date('2026-11-29T05:00:00Z'))).toMatchObject({ differences: 0, held: 0 });
    expect((await storedMerchant(merchant)).booksHold).toEqual(hold);
    expect((await withdraw(merchant, '100.00')).status).toBe(423);

    const id = merchant.merchant.id;
    const shown = await cli.run(['balances', '--merchant', id]);
    expect(shown.out.split('\n')[0]).toBe(
      `Payouts held (withdrawals answer 423 until clear-books-hold): placed ${hold!.heldAt} by the books check of 2026-11-29T04:00:00Z (request id ${hold!.run.id}): 1 difference; balances off in TRY`,
    );
    expect(shown.out.split('\n')[1]).toBe('TRY  available 1000.00  reserved 0.00  (1 entry)');

    const unreasoned = await cli.run(['clear-books-hold', '--merchant', id]);
    expect(unreasoned.code).toBe(2);
    expect(unreasoned.err).toMatch(/^merchant: --reason is required/);
    expect((await storedMerchant(merchant)).booksHold).toEqual(hold);

    const cleared = await cli.run(['clear-books-hold', '--merchant', id, '--reason', 'Balance item restored from its entries']);
    expect(cleared.code, cleared.err).toBe(0);
    expect(cleared.out).toMatch(
      new RegExp(`^Cleared the hold on the payouts of merchant ${id} in the local gateway at \\S+ \\(Balance item restored from its entries\\): withdrawals are accepted again\\.\n`),
    );
    const after = await storedMerchant(merchant);
    expect(after.booksHold).toBeUndefined();
    expect(after.booksHoldCleared).toEqual({ ...hold, clearedAt: expect.any(String), reason: 'Balance item restored from its entries' });
    expect((await cli.run(['balances', '--merchant', id])).out.split('\n')[0]).toMatch(/^Hold cleared last \S+ \(Balance item restored from its entries\), placed /);

    // The key refused while held was not kept as an answer: the same request is accepted now.
    const accepted = await withdraw(merchant, '100.00', { orderId }, { 'Idempotency-Key': idempotencyKey });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    expect(await transactions(merchant)).toHaveLength(1);
    expect((await balanceItem(merchant)).available).toBe('899.00');
  });

  it('clear-books-hold: nothing to clear, an unknown merchant, a reason too long, and --json', async () => {
    const merchant = await seedMerchant();
    expect(await cli.run(['clear-books-hold', '--merchant', merchant.merchant.id, '--reason', 'Checked'])).toEqual({
      code: 0,
      out: `The payouts of merchant ${merchant.merchant.id} are not held in the local gateway at http://localhost:3999; nothing was cleared.\n`,
      err: '',
    });
    expect(JSON.parse((await cli.run(['clear-books-hold', '--merchant', merchant.merchant.id, '--reason', 'Checked', '--json'])).out)).toEqual({ merchantId: merchant.merchant.id, cleared: null });
    expect(await cli.run(['clear-books-hold', '--merchant', randomUUID(), '--reason', 'Checked'])).toEqual({ code: 1, out: '', err: 'merchant: Merchant not found\n' });
    expect(await cli.run(['clear-books-hold', '--merchant', merchant.merchant.id, '--reason', 'x'.repeat(501)])).toEqual({
      code: 1,
      out: '',
      err: 'merchant: reason must be 1 to 500 characters\n',
    });
    expect((await storedMerchant(merchant)).booksHoldCleared).toBeUndefined();
  });
});
