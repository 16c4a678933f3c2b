import { randomUUID } from 'node:crypto';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { config } from '../../shared/config.js';
import { documentClient } from '../../shared/store/dynamo.js';
import { AUTHORIZER_CACHE_SECONDS } from '../../shared/platform.js';
import { createTestGateway, invoke, request } from '../support/invoke.js';
import { seedMerchant, testMerchantStore, type SeededMerchant } from '../support/merchants.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let merchant: SeededMerchant;
let other: SeededMerchant;

beforeAll(async () => {
  [merchant, other] = await Promise.all([seedMerchant(), seedMerchant()]);
});

const cryptoBody = (overrides: Record<string, unknown> = {}) => ({
  orderId: `order-${randomUUID()}`,
  customerId: `customer-${randomUUID()}`,
  baseCurrency: 'USDT',
  invoiceStrategy: 'fixed',
  amount: 25,
  ...overrides,
});

const create = (body: unknown, options: { apiKey?: string; headers?: Record<string, string> } = {}) => invoke('create-invoice', { apiKey: merchant.apiKey, body, ...options });

const getInvoice = (id: string, apiKey = merchant.apiKey) => invoke('get-invoice', { apiKey, pathParameters: { invoiceId: id } });

/** Every invoice stored for a merchant, read straight from the table. */
async function storedInvoices(merchantId: string, orderId?: string): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await documentClient.send(
      new ScanCommand({
        TableName: config().tables.invoices,
        FilterExpression: orderId ? 'merchantId = :m AND orderId = :o' : 'merchantId = :m',
        ExpressionAttributeValues: orderId ? { ':m': merchantId, ':o': orderId } : { ':m': merchantId },
        ConsistentRead: true,
        ExclusiveStartKey,
      }),
    );
    items.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items;
}

describe('POST /api/v2/invoices', () => {
  it('creates a crypto invoice with its checkout link, fixed rate and the customer wallet', async () => {
    const body = cryptoBody({ applicationId: 'app-1', redirectUrl: 'https://shop.example/done' });
    const response = await create(body);
    expect(response.status).toBe(200);
    expect(response.headers['x-request-id']).toBeTruthy();
    expect(Object.keys(response.body).sort()).toEqual(['data', 'success']);
    const invoice = response.body.data;
    expect(invoice).toMatchObject({
      status: 'created',
      amount: '25.000000',
      baseCurrency: 'USDT',
      paymentCurrency: 'USDT',
      paymentAmount: '25.000000',
      exchangeRate: '1',
      paymentMethod: 'crypto',
      directOpen: false,
      customerId: body.customerId,
      orderId: body.orderId,
      applicationId: 'app-1',
      redirectUrl: 'https://shop.example/done',
    });
    expect(invoice.id).toMatch(UUID);
    expect(invoice.link).toBe(`${config().publicBaseUrl}/checkout/${invoice.id}`);
    expect(Date.parse(invoice.expiresAt) - Date.parse(invoice.createdAt)).toBe(config().invoiceLifetimeSeconds * 1000);
    expect(invoice.wallet.networks).toEqual(['ethereum', 'bsc', 'tron']);
    expect(invoice.wallet.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(invoice.wallet.addresses).toEqual([
      { network: 'ethereum', address: invoice.wallet.address },
      { network: 'bsc', address: invoice.wallet.address },
      { network: 'tron', address: expect.stringMatching(/^T[1-9A-HJ-NP-Za-km-z]{33}$/) },
    ]);
  });

  it('creates a fiat invoice in another base currency at the fixed rate', async () => {
    const response = await create({ orderId: randomUUID(), customerId: 'c', baseCurrency: 'EUR', paymentCurrency: 'TRY', displayCurrencies: 'TRY', amount: 100 });
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ amount: '100.00', paymentCurrency: 'TRY', exchangeRate: '36', paymentAmount: '3600.00', paymentMethod: 'iban', directOpen: false });
    expect(response.body.data.applicationId).toBeNull();
    expect(response.body.data).not.toHaveProperty('wallet');
  });

  it('opens the payment method directly when every field it needs is given', async () => {
    const response = await create({
      orderId: randomUUID(),
      customerId: 'c',
      baseCurrency: 'INR',
      amount: 1000,
      paymentMethod: 'p2p',
      paymentCurrency: 'INR',
      customerFirstName: 'Asha',
      customerLastName: 'Rao',
      customerEmail: 'asha@example.com',
    });
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ paymentMethod: 'p2p', directOpen: true });
  });

  it('gives a customer one permanent address across invoices and assets', async () => {
    const customerId = `customer-${randomUUID()}`;
    const [eth, usdt, again, btc, stranger, otherMerchant] = await Promise.all([
      create(cryptoBody({ customerId, baseCurrency: 'ETH', amount: 0.01 })),
      create(cryptoBody({ customerId })),
      create(cryptoBody({ customerId })),
      create(cryptoBody({ customerId, baseCurrency: 'BTC', amount: 0.001 })),
      create(cryptoBody()),
      create(cryptoBody({ customerId }), { apiKey: other.apiKey }),
    ]);
    const address = eth.body.data.wallet.address;
    expect(usdt.body.data.wallet.address).toBe(address);
    expect(again.body.data.wallet.address).toBe(address);
    // Demo's addresses are the test networks'.
    expect(btc.body.data.wallet).toEqual({ address: expect.stringMatching(/^tb1q/), networks: ['bitcoin'], addresses: [{ network: 'bitcoin', address: btc.body.data.wallet.address }] });
    expect(stranger.body.data.wallet.address).not.toBe(address);
    expect(otherMerchant.body.data.wallet.address).not.toBe(address);
  });

  describe('refusals change nothing', () => {
    it.each([
      ['below the demo INR minimum', { baseCurrency: 'INR', amount: 499 }, 'amount', 'at least 500.00 INR'],
      ['above the INR maximum', { baseCurrency: 'INR', amount: 49000.01 }, 'amount', 'at most 49000.00 INR'],
      ['off the TRY wallet step', { baseCurrency: 'TRY', paymentMethod: 'wallet', amount: 1025 }, 'amount', 'multiple of 50'],
      ['under a crypto minimum', { baseCurrency: 'BTC', amount: 0.00008 }, 'amount', 'at least 0.00008200 BTC'],
      ['intent in demo', { baseCurrency: 'INR', amount: 1000, paymentMethod: 'intent' }, 'paymentMethod', 'intent'],
      ['an amount as a string', { baseCurrency: 'TRY', amount: '1000' }, 'amount', 'amount'],
      ['an unsupported currency', { baseCurrency: 'USD', amount: 10 }, 'baseCurrency', 'USD'],
      ['a phone of 9 digits', { baseCurrency: 'INR', amount: 1000, customerPhone: '987654321' }, 'customerPhone', '10 digits'],
      ['a javascript: redirect', { baseCurrency: 'TRY', amount: 1000, redirectUrl: 'javascript:alert(1)' }, 'redirectUrl', 'redirectUrl'],
      ['a redirectUrl with a control character', { baseCurrency: 'TRY', amount: 1000, redirectUrl: 'https://shop.example/ok\u0007' }, 'redirectUrl', 'control characters'],
      ['a redirectUrl with a line break', { baseCurrency: 'TRY', amount: 1000, redirectUrl: 'https://shop.example/o\r\nSet-Cookie: a=b' }, 'redirectUrl', 'control characters'],
      ['a conversion above the payment currency maximum', { baseCurrency: 'BTC', paymentCurrency: 'USDT', amount: 10000 }, 'amount', 'converts to 650000000.000000 USDT'],
    ])('%s: 422 on the field, and the orderId stays free', async (_name, fields, field, message) => {
      const orderId = randomUUID();
      const response = await create({ orderId, customerId: 'c', ...fields });
      expect(response.status).toBe(422);
      expect(response.body.success).toBe(false);
      expect(response.body.errors[0]).toMatchObject({ code: 'unprocessable_content', field });
      expect(response.body.errors[0].message).toContain(message);
      expect(await storedInvoices(merchant.merchant.id, orderId)).toEqual([]);
      expect((await create({ orderId, customerId: 'c', baseCurrency: 'TRY', amount: 1000 })).status).toBe(200);
    });

    it('lists every problem, each with its field', async () => {
      const response = await create({ baseCurrency: 'TRY', amount: -5, customerPhone: '12' });
      expect(response.status).toBe(422);
      expect(response.body.errors.map((e: { field: string }) => e.field)).toEqual(['amount', 'customerId', 'orderId', 'customerPhone']);
      expect(response.body.errors.every((e: { code: string }) => e.code === 'unprocessable_content')).toBe(true);
    });

    it.each([
      ['malformed JSON', '{"amount": 10,', 'application/json', 400, 'bad_request'],
      ['a JSON array', '[1,2]', 'application/json', 400, 'bad_request'],
      ['a JSON string', '"invoice"', 'application/json', 400, 'bad_request'],
      ['a text body', 'amount=10', 'text/plain', 415, 'unsupported_media_type'],
      ['a form body', 'amount=10', 'application/x-www-form-urlencoded', 415, 'unsupported_media_type'],
    ])('%s: %s %s without naming a field', async (_name, body, contentType, status, code) => {
      const before = (await storedInvoices(merchant.merchant.id)).length;
      const response = await create(body, { headers: { 'content-type': contentType } });
      expect(response.status).toBe(status);
      expect(response.body).toEqual({ success: false, errors: [{ code, message: expect.any(String) }] });
      expect(response.headers['x-request-id']).toBeTruthy();
      expect((await storedInvoices(merchant.merchant.id)).length).toBe(before);
    });

    it('refuses a body over the route limit with 413', async () => {
      const response = await create(cryptoBody({ displayCurrencies: 'x'.repeat(70 * 1024) }));
      expect(response.status).toBe(413);
      expect(response.body.errors[0].code).toBe('payload_too_large');
    });
  });

  describe('orderId', () => {
    it('returns the existing invoice for the same body, and 409 for another', async () => {
      const body = cryptoBody();
      const first = await create(body);
      const reordered = Object.fromEntries(Object.entries(body).reverse());
      const second = await create(reordered);
      expect(second.status).toBe(200);
      expect(second.body.data).toEqual(first.body.data);

      const conflict = await create({ ...body, amount: 30 });
      expect(conflict.status).toBe(409);
      expect(conflict.body.errors[0].code).toBe('conflict');
      expect(await storedInvoices(merchant.merchant.id, body.orderId)).toHaveLength(1);
    });

    it('refuses a taken orderId for a new customer without giving that customer an address', async () => {
      const body = cryptoBody();
      expect((await create(body)).status).toBe(200);
      const newcomer = `customer-${randomUUID()}`;
      const conflict = await create({ ...body, customerId: newcomer });
      expect(conflict.status).toBe(409);
      const { Items } = await documentClient.send(new ScanCommand({ TableName: config().tables.wallets, FilterExpression: 'customerId = :c', ExpressionAttributeValues: { ':c': newcomer } }));
      expect(Items).toEqual([]);
    });

    it('is unique per merchant, not across merchants', async () => {
      const body = cryptoBody();
      const [mine, theirs] = await Promise.all([create(body), create(body, { apiKey: other.apiKey })]);
      expect(mine.status).toBe(200);
      expect(theirs.status).toBe(200);
      expect(theirs.body.data.id).not.toBe(mine.body.data.id);
    });

    it('20 concurrent creates of one order make one invoice', async () => {
      const body = cryptoBody();
      const responses = await Promise.all(Array.from({ length: 20 }, () => create(body)));
      expect(responses.map((r) => r.status)).toEqual(Array(20).fill(200));
      expect(new Set(responses.map((r) => r.body.data.id)).size).toBe(1);
      expect(await storedInvoices(merchant.merchant.id, body.orderId)).toHaveLength(1);
    });
  });

  describe('Idempotency-Key', () => {
    it('replays the first response for the same key and body', async () => {
      const key = randomUUID();
      const body = cryptoBody();
      const first = await create(body, { headers: { 'idempotency-key': key } });
      const replay = await create(body, { headers: { 'idempotency-key': key } });
      expect(replay.status).toBe(200);
      expect(replay.body).toEqual(first.body);
      expect(replay.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
    });

    it('answers 409 for the same key with another body, creating nothing', async () => {
      const key = randomUUID();
      await create(cryptoBody(), { headers: { 'idempotency-key': key } });
      const before = (await storedInvoices(merchant.merchant.id)).length;
      const response = await create(cryptoBody(), { headers: { 'idempotency-key': key } });
      expect(response.status).toBe(409);
      expect(response.body.errors[0].code).toBe('conflict');
      expect((await storedInvoices(merchant.merchant.id)).length).toBe(before);
    });

    it('keeps keys apart per merchant', async () => {
      const key = randomUUID();
      const body = cryptoBody();
      const [mine, theirs] = [await create(body, { headers: { 'idempotency-key': key } }), await create(body, { apiKey: other.apiKey, headers: { 'idempotency-key': key } })];
      expect(theirs.status).toBe(200);
      expect(theirs.body.data.id).not.toBe(mine.body.data.id);
    });

    it('refuses a key longer than 255 characters', async () => {
      const response = await create(cryptoBody(), { headers: { 'idempotency-key': 'k'.repeat(256) } });
      expect(response.status).toBe(422);
      expect(response.body.errors[0]).toMatchObject({ field: 'Idempotency-Key' });
    });

    it('20 concurrent creates with one key make exactly one invoice', async () => {
      const fresh = await seedMerchant();
      const key = randomUUID();
      const body = cryptoBody();
      const responses = await Promise.all(Array.from({ length: 20 }, () => create(body, { apiKey: fresh.apiKey, headers: { 'idempotency-key': key } })));
      const succeeded = responses.filter((r) => r.status === 200);
      expect(succeeded.length).toBeGreaterThanOrEqual(1);
      // Losers of the race are told the first request is still running, never given another invoice.
      expect(responses.filter((r) => r.status !== 200).every((r) => r.status === 409 && r.body.errors[0].code === 'conflict')).toBe(true);
      expect(new Set(succeeded.map((r) => r.body.data.id)).size).toBe(1);
      expect(await storedInvoices(fresh.merchant.id)).toHaveLength(1);
      const replay = await create(body, { apiKey: fresh.apiKey, headers: { 'idempotency-key': key } });
      expect(replay.body.data.id).toBe(succeeded[0]!.body.data.id);
    });
  });
});

describe('GET /api/v2/invoices/{id}', () => {
  it('returns the same view as creation', async () => {
    const created = await create(cryptoBody());
    const fetched = await getInvoice(created.body.data.id);
    expect(fetched.status).toBe(200);
    expect(fetched.body).toEqual(created.body);
  });

  it.each([
    ['another merchant', async (id: string) => getInvoice(id, other.apiKey)],
    ['an unknown id', async () => getInvoice(randomUUID())],
    ['an id that is not a UUID', async () => getInvoice('not-a-uuid')],
  ])('answers 404 for %s, as if it did not exist', async (_name, fetch) => {
    const created = await create(cryptoBody());
    const response = await fetch(created.body.data.id);
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ success: false, errors: [{ code: 'not_found', message: 'Invoice not found' }] });
  });

  it('refuses a revoked key once the gateway no longer reuses the decision it had made about it', async () => {
    let nowMs = Date.now();
    const gateway = createTestGateway({ now: () => nowMs });
    const revoked = await seedMerchant();
    const created = await invoke('create-invoice', { apiKey: revoked.apiKey, body: cryptoBody(), gateway });
    expect(created.status).toBe(200);
    await testMerchantStore().revokeKey(revoked.merchant.id, revoked.key.keyId, new Date());
    const read = () => invoke('get-invoice', { apiKey: revoked.apiKey, pathParameters: { invoiceId: created.body.data.id }, gateway });
    // As API Gateway does, for as long as its cache keeps the key's decision (docs/merchant-guide.md#authentication).
    nowMs += AUTHORIZER_CACHE_SECONDS * 1000 - 1;
    expect((await read()).status).toBe(200);
    nowMs += 1;
    const response = await read();
    expect(response.status).toBe(401);
    expect(response.body.errors[0].code).toBe('unauthorized');
  });
});

describe('the API description', () => {
  it('serves the OpenAPI document built from the request schemas', async () => {
    const response = await request('GET', '/api/v2/openapi.json');
    expect(response.status).toBe(200);
    expect(response.body.openapi).toBe('3.0.3');
    const schema = response.body.components.schemas.CreateInvoiceRequest;
    expect(schema.required).toEqual(expect.arrayContaining(['amount', 'baseCurrency', 'customerId', 'orderId']));
    expect(response.body.paths['/api/v2/invoices'].post.security).toEqual([{ apiKey: [] }]);
  });

  it('serves a self-contained readable reference', async () => {
    const response = await request('GET', '/docs');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toContain('text/html');
    expect(response.body).toContain('/api/v2/invoices');
    expect(response.body).not.toMatch(/<script|<link|https?:\/\/(?!localhost)[^"'\s<]+\.(js|css)/);
  });
});
