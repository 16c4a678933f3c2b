/**
 * The merchant's listings (docs/merchant-guide.md#listings-and-pagination): GET /api/v2/invoices and GET /api/v2/transactions
 * through the local gateway against DynamoDB Local. Pages are walked to the end while other
 * requests insert records, every filter is compared with the full listing filtered here, cursors
 * are taken from one merchant to another and forged, and the DynamoDB requests behind each page
 * are recorded: queries on an index, never a scan, reading about one page of items.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { TokenBucketThrottle } from '../../infra/local/throttle.js';
import { dynamoClient } from '../../shared/store/dynamo.js';
import type { HttpRouteName } from '../../shared/routes.js';
import { createTestGateway, invoke, type GatewayResult, type InvokeOptions } from '../support/invoke.js';
import { fundBalance } from '../support/balances.js';
import { seedMerchant, type SeededMerchant } from '../support/merchants.js';

// Hundreds of requests per test: the per-key throttle has tests of its own.
const gateway = createTestGateway({ throttle: new TokenBucketThrottle({ ratePerSecond: 1_000_000, burst: 1_000_000 }) });
const call = (route: HttpRouteName, options: InvokeOptions): Promise<GatewayResult> => invoke(route, { gateway, ...options });

/** Runs `task(0..count-1)`, `concurrency` at a time; results in index order. */
async function inParallel<T>(count: number, concurrency: number, task: (index: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < count; i = next++) results[i] = await task(i);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return results;
}

const CUSTOMERS = ['cust-0', 'cust-1', 'cust-2'];

async function createInvoice(merchant: SeededMerchant, index: number): Promise<any> {
  const response = await call('create-invoice', {
    apiKey: merchant.apiKey,
    body: { orderId: `order-${index}-${randomUUID().slice(0, 8)}`, customerId: CUSTOMERS[index % CUSTOMERS.length], baseCurrency: 'TRY', amount: 1000 },
  });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.data;
}

async function deposit(merchant: SeededMerchant, invoiceId: string, status: 'confirmed' | 'failed'): Promise<any> {
  const response = await call('simulate-deposit', { apiKey: merchant.apiKey, body: { invoiceId, status } });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.data;
}

async function withdraw(merchant: SeededMerchant): Promise<any> {
  const response = await call('create-withdrawal', {
    apiKey: merchant.apiKey,
    body: { customerId: 'cust-0', amount: '1500.00', currency: 'TRY', phoneNumber: '+905551234567', orderId: `payout-${randomUUID()}` },
  });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.data;
}

type Listing = 'list-invoices' | 'list-transactions';

const page = (route: Listing, merchant: SeededMerchant, query: Record<string, string>) => call(route, { apiKey: merchant.apiKey, query });

/** Every page of a listing, in order; `between` runs after each page but the last. */
async function walk(route: Listing, merchant: SeededMerchant, query: Record<string, string> = {}, between?: () => void): Promise<{ items: any[]; pages: any[][] }> {
  const pages: any[][] = [];
  let cursor: string | null = null;
  do {
    const response = await page(route, merchant, { ...query, ...(cursor === null ? {} : { cursor }) });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(Object.keys(response.body.data).sort()).toEqual(['items', 'nextCursor']);
    pages.push(response.body.data.items);
    cursor = response.body.data.nextCursor;
    if (cursor !== null) between?.();
    expect(pages.length).toBeLessThan(500);
  } while (cursor !== null);
  return { items: pages.flat(), pages };
}

const idsOf = (items: { id: string }[]) => items.map((item) => item.id);

/** Newest first; records created in the same millisecond may come in either order. */
function expectNewestFirst(items: { createdAt: string }[]): void {
  for (let i = 1; i < items.length; i++) expect(items[i]!.createdAt <= items[i - 1]!.createdAt, `${items[i]!.createdAt} after ${items[i - 1]!.createdAt}`).toBe(true);
}

/** A listing walked `limit` at a time holds exactly `expected` (by id), each once, newest first. */
async function expectListing(route: Listing, merchant: SeededMerchant, query: Record<string, string>, expected: { id: string }[]): Promise<void> {
  const { items } = await walk(route, merchant, { limit: '7', ...query });
  expect(new Set(idsOf(items)).size).toBe(items.length);
  expect(idsOf(items).sort()).toEqual(idsOf(expected).sort());
  expectNewestFirst(items);
}

const decodeCursor = (cursor: string) => JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
const encodeCursor = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');

let a: SeededMerchant;
let b: SeededMerchant;
/** A's invoices and transactions as created, before the listings ran. */
let aInvoices: any[];
let aTransactions: any[];
let bInvoices: any[];

const A_INVOICES = 250;
/** Of A's invoices, the first this many get a deposit; every tenth of them fails. */
const A_DEPOSITS = 244;
const A_WITHDRAWALS = A_INVOICES - A_DEPOSITS;

beforeAll(async () => {
  [a, b] = await Promise.all([seedMerchant(), seedMerchant()]);
  await fundBalance(a.merchant.id, 'TRY', '100000');
  aInvoices = await inParallel(A_INVOICES, 8, (i) => createInvoice(a, i));
  const deposits = await inParallel(A_DEPOSITS, 8, (i) => deposit(a, aInvoices[i].id, i % 10 === 0 ? 'failed' : 'confirmed'));
  aTransactions = [...deposits, ...(await inParallel(A_WITHDRAWALS, 3, () => withdraw(a)))];
  bInvoices = await inParallel(12, 4, (i) => createInvoice(b, i));
  await inParallel(8, 4, (i) => deposit(b, bInvoices[i].id, 'confirmed'));
}, 180_000);

describe('GET /api/v2/invoices', () => {
  it('pages through 250 invoices newest first, each exactly once, while others are being created', async () => {
    const inserting: Promise<any>[] = [];
    // Three new invoices race every next page.
    const { items, pages } = await walk('list-invoices', a, { limit: '20' }, () => {
      for (let i = 0; i < 3; i++) inserting.push(createInvoice(a, A_INVOICES + inserting.length));
    });
    const inserted = await Promise.all(inserting);

    expect(pages.length).toBeGreaterThanOrEqual(Math.ceil(A_INVOICES / 20));
    for (const one of pages.slice(0, -1)) expect(one).toHaveLength(20);
    expect(new Set(idsOf(items)).size).toBe(items.length);
    expect(idsOf(items)).toEqual(expect.arrayContaining(idsOf(aInvoices)));
    const known = new Set(idsOf([...aInvoices, ...inserted]));
    expect(idsOf(items).filter((id) => !known.has(id))).toEqual([]);
    expectNewestFirst(items);
    // Full invoice views, as GET /api/v2/invoices/{id} shows them.
    const one = await call('get-invoice', { apiKey: a.apiKey, pathParameters: { invoiceId: items[0].id } });
    expect(items[0]).toEqual(one.body.data);
  });

  it('answers the same page for the same cursor, however often it is asked', async () => {
    const first = await page('list-invoices', a, { limit: '20' });
    const cursor = first.body.data.nextCursor;
    const second = await page('list-invoices', a, { limit: '20', cursor });
    // A newer invoice belongs before the first page, not after it.
    const newer = await createInvoice(a, 1000);
    const [again, twice] = await Promise.all([page('list-invoices', a, { limit: '20', cursor }), page('list-invoices', a, { limit: '20', cursor })]);
    expect(again.body).toEqual(second.body);
    expect(twice.body).toEqual(second.body);
    expect(idsOf(second.body.data.items)).toHaveLength(20);
    expect(idsOf(second.body.data.items).filter((id) => id === newer.id || idsOf(first.body.data.items).includes(id))).toEqual([]);
  });

  describe('filters, each the full listing filtered', () => {
    let all: any[];
    beforeAll(async () => {
      all = (await walk('list-invoices', a, { limit: '100' })).items;
    });

    it.each([
      ['status', { status: 'completed' }, (i: any) => i.status === 'completed'],
      ['status canceled', { status: 'canceled' }, (i: any) => i.status === 'canceled'],
      ['status created', { status: 'created' }, (i: any) => i.status === 'created'],
      ['customerId', { customerId: 'cust-1' }, (i: any) => i.customerId === 'cust-1'],
      ['customerId and status', { customerId: 'cust-1', status: 'canceled' }, (i: any) => i.customerId === 'cust-1' && i.status === 'canceled'],
    ])('%s', async (_name, query, keep) => {
      const expected = all.filter(keep);
      expect(expected.length).toBeGreaterThan(0);
      await expectListing('list-invoices', a, query, expected);
    });

    it('createdFrom and createdTo, inclusive, in any time zone', async () => {
      const from = all[150].createdAt as string;
      const to = all[50].createdAt as string;
      const expected = all.filter((i) => i.createdAt >= from && i.createdAt <= to);
      // The same instant three hours east of UTC.
      const east = new Date(Date.parse(from) + 3 * 3600_000).toISOString().replace('Z', '+03:00');
      await expectListing('list-invoices', a, { createdFrom: east, createdTo: to }, expected);
      await expectListing(
        'list-invoices',
        a,
        { createdFrom: from, status: 'completed' },
        all.filter((i) => i.createdAt >= from && i.status === 'completed'),
      );
      await expectListing(
        'list-invoices',
        a,
        { createdTo: to, customerId: 'cust-2' },
        all.filter((i) => i.createdAt <= to && i.customerId === 'cust-2'),
      );
    });

    it('orderId: the one invoice of that order, or none when another filter excludes it', async () => {
      const invoice = all.find((i) => i.status === 'completed');
      const response = await page('list-invoices', a, { orderId: invoice.orderId });
      expect(response.body.data).toEqual({ items: [invoice], nextCursor: null });
      expect((await page('list-invoices', a, { orderId: invoice.orderId, status: 'created' })).body.data).toEqual({ items: [], nextCursor: null });
      expect((await page('list-invoices', a, { orderId: 'no-such-order' })).body.data).toEqual({ items: [], nextCursor: null });
    });
  });

  it('ends on the last full page with a null cursor, and pages by 20 without a limit', async () => {
    const merchant = await seedMerchant();
    await inParallel(40, 8, (i) => createInvoice(merchant, i));
    const first = await page('list-invoices', merchant, {});
    expect(first.body.data.items).toHaveLength(20);
    const second = await page('list-invoices', merchant, { cursor: first.body.data.nextCursor });
    expect(second.body.data.items).toHaveLength(20);
    expect(second.body.data.nextCursor).toBeNull();
    expect((await page('list-invoices', await seedMerchant(), {})).body.data).toEqual({ items: [], nextCursor: null });
  });
});

describe('GET /api/v2/transactions', () => {
  it('pages through 250 transactions newest first, each exactly once, while others are being recorded', async () => {
    const inserting: Promise<any>[] = [];
    const { items, pages } = await walk('list-transactions', a, { limit: '25' }, () => {
      for (let i = 0; i < 2; i++) inserting.push(withdraw(a));
    });
    const inserted = await Promise.all(inserting);

    expect(pages.length).toBeGreaterThanOrEqual(10);
    expect(new Set(idsOf(items)).size).toBe(items.length);
    expect(idsOf(items)).toEqual(expect.arrayContaining(idsOf(aTransactions)));
    const known = new Set(idsOf([...aTransactions, ...inserted]));
    expect(idsOf(items).filter((id) => !known.has(id))).toEqual([]);
    expectNewestFirst(items);
    // Full transaction views, hash included, as GET /api/v2/transaction/{id} shows them.
    const listed = items.find((t) => t.id === aTransactions[1].id);
    const one = await call('get-transaction', { apiKey: a.apiKey, pathParameters: { transactionId: listed.id } });
    expect(listed).toEqual(one.body.data);
  });

  describe('filters, each the full listing filtered', () => {
    let all: any[];
    beforeAll(async () => {
      all = (await walk('list-transactions', a, { limit: '100' })).items;
    });

    it.each([
      ['type withdraw', { type: 'withdraw' }, (t: any) => t.type === 'withdraw'],
      ['type deposit', { type: 'deposit' }, (t: any) => t.type === 'deposit'],
      ['status', { status: 'failed' }, (t: any) => t.status === 'failed'],
      ['status and type', { status: 'processing', type: 'withdraw' }, (t: any) => t.status === 'processing' && t.type === 'withdraw'],
    ])('%s', async (_name, query, keep) => {
      const expected = all.filter(keep);
      expect(expected.length).toBeGreaterThan(0);
      await expectListing('list-transactions', a, query, expected);
    });

    it('invoiceId and orderId: the deposits of that invoice or order, and the withdrawal of that orderId', async () => {
      const depositOf = aTransactions[3];
      await expectListing('list-transactions', a, { invoiceId: depositOf.invoiceId }, [depositOf]);
      await expectListing('list-transactions', a, { invoiceId: depositOf.invoiceId.toUpperCase(), status: 'confirmed' }, [depositOf]);
      await expectListing('list-transactions', a, { invoiceId: depositOf.invoiceId, status: 'failed' }, []);
      await expectListing('list-transactions', a, { orderId: depositOf.orderId }, [depositOf]);
      const payout = aTransactions.at(-1);
      await expectListing('list-transactions', a, { orderId: payout.orderId, type: 'withdraw' }, [payout]);
      await expectListing('list-transactions', a, { orderId: payout.orderId, type: 'deposit' }, []);
    });

    it('createdFrom and createdTo', async () => {
      const from = all[120].createdAt as string;
      const to = all[30].createdAt as string;
      await expectListing(
        'list-transactions',
        a,
        { createdFrom: from, createdTo: to },
        all.filter((t) => t.createdAt >= from && t.createdAt <= to),
      );
      await expectListing(
        'list-transactions',
        a,
        { createdFrom: from, type: 'deposit' },
        all.filter((t) => t.createdAt >= from && t.type === 'deposit'),
      );
    });
  });
});

describe("one merchant never sees another merchant's records", () => {
  it('lists only its own, customers of the same name included', async () => {
    const invoices = (await walk('list-invoices', b, { limit: '5' })).items;
    expect(idsOf(invoices).sort()).toEqual(idsOf(bInvoices).sort());
    const ofCustomer = (await walk('list-invoices', b, { customerId: 'cust-0' })).items;
    expect(idsOf(ofCustomer).sort()).toEqual(idsOf(bInvoices.filter((i) => i.customerId === 'cust-0')).sort());
    const transactions = (await walk('list-transactions', b, { limit: '3' })).items;
    expect(transactions).toHaveLength(8);
    expect(transactions.every((t) => bInvoices.some((i) => i.id === t.invoiceId))).toBe(true);
  });

  it("finds nothing, and no cursor, for another merchant's invoice or order", async () => {
    const invoice = aInvoices[5];
    expect((await page('list-transactions', b, { invoiceId: invoice.id, limit: '1' })).body.data).toEqual({ items: [], nextCursor: null });
    expect((await page('list-transactions', b, { orderId: invoice.orderId })).body.data).toEqual({ items: [], nextCursor: null });
    expect((await page('list-invoices', b, { orderId: invoice.orderId })).body.data).toEqual({ items: [], nextCursor: null });
  });

  it("refuses another merchant's cursor with 422 on cursor", async () => {
    for (const [route, query] of [
      ['list-invoices', {}],
      ['list-invoices', { status: 'completed' }],
      ['list-invoices', { customerId: 'cust-0' }],
      ['list-transactions', {}],
      ['list-transactions', { type: 'deposit' }],
    ] as const) {
      const cursor = (await page(route, a, { ...query, limit: '2' })).body.data.nextCursor;
      expect(cursor).toEqual(expect.any(String));
      const response = await page(route, b, { ...query, limit: '2', cursor });
      expect(response.status).toBe(422);
      expect(response.body.errors).toEqual([{ code: 'unprocessable_content', field: 'cursor', message: expect.stringContaining('cursor') }]);
    }
  });

  it('answers a cursor forged to start inside its own listing from its own records only', async () => {
    const aCursor = decodeCursor((await page('list-invoices', a, { limit: '2' })).body.data.nextCursor);
    // A's position, moved into B's partition of the index.
    const forged = encodeCursor({ ...aCursor, position: { ...aCursor.position, merchantId: b.merchant.id } });
    const response = await page('list-invoices', b, { cursor: forged });
    expect(response.status).toBe(200);
    const own = new Set(idsOf(bInvoices));
    expect(response.body.data.items.every((i: any) => own.has(i.id))).toBe(true);

    const tCursor = decodeCursor((await page('list-transactions', a, { limit: '2', status: 'confirmed' })).body.data.nextCursor);
    const into = JSON.stringify([b.merchant.id, 'confirmed']);
    const forgedStatus = encodeCursor({ ...tCursor, position: { ...tCursor.position, merchantStatus: into } });
    const transactions = await page('list-transactions', b, { status: 'confirmed', cursor: forgedStatus });
    expect(transactions.status).toBe(200);
    expect(transactions.body.data.items.every((t: any) => bInvoices.some((i) => i.id === t.invoiceId))).toBe(true);
  });
});

describe('bad input: a 422 naming the field, nothing else', () => {
  let cursors: { invoices: string; completed: string; transactions: string };
  beforeAll(async () => {
    cursors = {
      invoices: (await page('list-invoices', a, { limit: '2' })).body.data.nextCursor,
      completed: (await page('list-invoices', a, { limit: '2', status: 'completed' })).body.data.nextCursor,
      transactions: (await page('list-transactions', a, { limit: '2' })).body.data.nextCursor,
    };
  });

  it.each<[string, Listing, () => Record<string, string>, string]>([
    ['an unknown status', 'list-invoices', () => ({ status: 'paid' }), 'status'],
    ['limit 0', 'list-invoices', () => ({ limit: '0' }), 'limit'],
    ['limit 101', 'list-invoices', () => ({ limit: '101' }), 'limit'],
    ['a fractional limit', 'list-invoices', () => ({ limit: '2.5' }), 'limit'],
    ['a limit that is no number', 'list-transactions', () => ({ limit: 'ten' }), 'limit'],
    ['an empty customerId', 'list-invoices', () => ({ customerId: '' }), 'customerId'],
    ['a date without a time', 'list-invoices', () => ({ createdFrom: '2025-01-01' }), 'createdFrom'],
    ['a time without a zone', 'list-transactions', () => ({ createdTo: '2025-01-01T10:00:00' }), 'createdTo'],
    ['a time past the year 9999 in UTC', 'list-invoices', () => ({ createdTo: '9999-12-31T23:59:59-23:59' }), 'createdTo'],
    ['a time in the year 10000', 'list-transactions', () => ({ createdFrom: '+010000-01-01T00:00:00Z' }), 'createdFrom'],
    ['a time before the year 2000', 'list-transactions', () => ({ createdFrom: '1999-12-31T23:00:00-02:00' }), 'createdFrom'],
    ['a range that runs backwards', 'list-invoices', () => ({ createdFrom: '2025-02-01T00:00:00Z', createdTo: '2025-01-01T00:00:00Z' }), 'createdTo'],
    ['an unknown parameter', 'list-invoices', () => ({ sort: 'asc' }), 'sort'],
    ['a transaction type that does not exist', 'list-transactions', () => ({ type: 'chargeback' }), 'type'],
    ['a transaction status that does not exist', 'list-transactions', () => ({ status: 'pending' }), 'status'],
    ['an invoiceId that is no UUID', 'list-transactions', () => ({ invoiceId: 'inv-1' }), 'invoiceId'],
    ['a cursor that is not one', 'list-invoices', () => ({ cursor: 'not-a-cursor' }), 'cursor'],
    ['a cursor of another filter', 'list-invoices', () => ({ cursor: cursors.completed }), 'cursor'],
    ['a cursor with a filter added', 'list-invoices', () => ({ cursor: cursors.invoices, customerId: 'cust-0' }), 'cursor'],
    ['a cursor of the other listing', 'list-transactions', () => ({ cursor: cursors.invoices }), 'cursor'],
    ['a cursor outside its time range', 'list-transactions', () => ({ cursor: cursors.transactions, createdFrom: '2999-01-01T00:00:00Z' }), 'cursor'],
    ['a cursor with an orderId', 'list-invoices', () => ({ orderId: 'order-1', cursor: cursors.invoices }), 'cursor'],
    [
      'a cursor of a changed position',
      'list-invoices',
      () => {
        const cursor = decodeCursor(cursors.invoices);
        return { cursor: encodeCursor({ ...cursor, position: { ...cursor.position, createdAt: 'yesterday' } }) };
      },
      'cursor',
    ],
  ])('%s', async (_name, route, query, field) => {
    const response = await page(route, a, query());
    expect(response.status).toBe(422);
    expect(response.headers['x-request-id']).toBeTruthy();
    expect(response.body.success).toBe(false);
    expect(response.body.errors[0]).toEqual({ code: 'unprocessable_content', field, message: expect.stringContaining(field) });
  });
});

/** The DynamoDB requests the handlers of this process send, with what came back. */
interface SentCommand {
  name: string;
  input: Record<string, any>;
  output: Record<string, any>;
}

async function commandsOf(request: () => Promise<GatewayResult>): Promise<{ response: GatewayResult; sent: SentCommand[] }> {
  const sent: SentCommand[] = [];
  const name = `record-${randomUUID()}`;
  dynamoClient.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      sent.push({ name: context.commandName as string, input: args.input as Record<string, any>, output: result.output as Record<string, any> });
      return result;
    },
    { step: 'initialize', name },
  );
  try {
    return { response: await request(), sent };
  } finally {
    dynamoClient.middlewareStack.remove(name);
  }
}

describe('what a page reads', () => {
  it.each<[string, Listing, Record<string, string>, string]>([
    ['all invoices', 'list-invoices', { limit: '20' }, 'byMerchant'],
    ['invoices in a status', 'list-invoices', { limit: '20', status: 'completed' }, 'byMerchantStatus'],
    ["a customer's invoices", 'list-invoices', { limit: '20', customerId: 'cust-1' }, 'byCustomer'],
    ['all transactions', 'list-transactions', { limit: '20' }, 'byMerchant'],
    ['transactions of a type', 'list-transactions', { limit: '20', type: 'deposit' }, 'byMerchantType'],
    ['transactions in a status', 'list-transactions', { limit: '20', status: 'confirmed' }, 'byMerchantStatus'],
    ["an order's transactions", 'list-transactions', { limit: '20', orderId: 'order-7' }, 'byOrder'],
  ])('%s: one query of the %s index, of at most limit + 1 items, and no scan', async (_name, route, query, index) => {
    const { response, sent } = await commandsOf(() => page(route, a, query));
    expect(response.status).toBe(200);
    const queries = sent.filter((c) => c.name === 'QueryCommand');
    expect(queries).toHaveLength(1);
    expect(queries[0]!.input).toMatchObject({ IndexName: index, Limit: 21, ScanIndexForward: false });
    expect(queries[0]!.output.ScannedCount).toBeLessThanOrEqual(21);
    // Besides the page: the key's lookup (authorizer) and the merchant's profile, read by key.
    expect(sent.map((c) => c.name).filter((n) => n !== 'QueryCommand' && n !== 'GetItemCommand')).toEqual([]);
  });

  it("reads an invoice's transactions from the byInvoice index after checking the invoice is the merchant's", async () => {
    const { response, sent } = await commandsOf(() => page('list-transactions', a, { invoiceId: aInvoices[2].id }));
    expect(response.body.data.items).toHaveLength(1);
    expect(sent.filter((c) => c.name === 'QueryCommand').map((c) => c.input.IndexName)).toEqual(['byInvoice']);
    expect(sent.some((c) => c.name === 'GetItemCommand' && c.input.Key?.id === aInvoices[2].id)).toBe(true);
    expect(sent.some((c) => c.name === 'ScanCommand')).toBe(false);
  });

  it('reads an order by key, without any query', async () => {
    const { response, sent } = await commandsOf(() => page('list-invoices', a, { orderId: aInvoices[9].orderId }));
    expect(response.body.data.items).toHaveLength(1);
    expect(sent.map((c) => c.name).filter((n) => n !== 'GetItemCommand')).toEqual([]);
  });
});
