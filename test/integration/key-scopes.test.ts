/**
 * API keys' scopes and allowed addresses through the local API Gateway emulation and the real
 * authorizer (docs/merchant-guide.md#key-scopes): every route of the merchant API refuses a key
 * without its scope with the 403 that names it, before anything is read, replayed or written, and a
 * key allowed only from other addresses is refused everywhere. The payouts' approval threshold is
 * changed only by a key that may also pay out.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { API_KEY_SCOPES, type ApiKeyScope } from '../../shared/domain/merchants/api-key-scopes.js';
import { functionsForStage, type HttpRoute, type HttpRouteName } from '../../shared/routes.js';
import { LOCAL_STAGE } from '../../infra/local/environment.js';
import { invoke } from '../support/invoke.js';
import { seedKey, seedMerchant } from '../support/merchants.js';

const merchantRoutes = functionsForStage(LOCAL_STAGE).filter((fn): fn is HttpRoute & { auth: 'apiKey' } => fn.kind === 'http' && fn.auth === 'apiKey');

/** Every path parameter filled with an id nobody has: past the key's check, the route answers 404 or 422, never 403. */
const pathParameters = (route: HttpRoute): Record<string, string> => Object.fromEntries([...route.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => [name!, randomUUID()]));

const listInvoices = async (apiKey: string) => (await invoke('list-invoices', { apiKey })).body.data.items as unknown[];

describe("a key's scopes", () => {
  it('names the scope of every route of the merchant API', () => {
    expect(Object.fromEntries(merchantRoutes.map((route) => [route.name, route.scope]))).toEqual({
      'create-invoice': 'payments',
      'get-invoice': 'read',
      'get-transaction': 'read',
      'simulate-deposit': 'payments',
      'simulate-withdrawal': 'payments',
      'confirm-deposit': 'payments',
      'create-withdrawal': 'payouts',
      'create-payout': 'payouts',
      'create-refund': 'payouts',
      'list-payout-addresses': 'read',
      'list-invoices': 'read',
      'list-transactions': 'read',
      'get-transaction-receipt': 'read',
      'list-balances': 'read',
      'list-balance-entries': 'read',
      'create-report': 'reports',
      'get-report': 'read',
      'list-transaction-callbacks': 'read',
      'resend-transaction-callback': 'settings',
      'list-invoice-callbacks': 'read',
      'resend-invoice-callback': 'settings',
      'send-test-callback': 'settings',
      'get-merchant': 'read',
      'update-merchant': 'settings',
      'rotate-callback-secret': 'settings',
    });
  });

  it.each(merchantRoutes.map((route) => [`${route.method} ${route.path}`, route] as const))(
    '%s: refused with 403 naming its scope to a key with every other scope, let past with that scope alone',
    async (_, route) => {
      const { merchant } = await seedMerchant();
      const without = await seedKey(merchant.id, { scopes: API_KEY_SCOPES.filter((scope) => scope !== route.scope) });
      const only = await seedKey(merchant.id, { scopes: [route.scope] });
      const body = route.method === 'GET' ? undefined : {};
      const refused = await invoke(route.name as HttpRouteName, { apiKey: without, pathParameters: pathParameters(route), body, headers: { 'idempotency-key': randomUUID() } });
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual({ success: false, errors: [{ code: 'forbidden', message: `This API key lacks the scope ${route.scope}` }] });
      expect(refused.headers['x-request-id']).toBeTruthy();
      const allowed = await invoke(route.name as HttpRouteName, { apiKey: only, pathParameters: pathParameters(route), body, headers: { 'idempotency-key': randomUUID() } });
      expect(allowed.status).not.toBe(403);
      expect(allowed.status).not.toBe(401);
    },
  );

  it('a refused request is not kept for its Idempotency-Key: the same key and body with the scope then creates the invoice', async () => {
    const { merchant, apiKey } = await seedMerchant();
    const readOnly = await seedKey(merchant.id, { scopes: ['read'] });
    const body = { orderId: randomUUID(), customerId: 'cust-1', baseCurrency: 'USDT', amount: 25 };
    const headers = { 'idempotency-key': randomUUID() };
    const refused = await invoke('create-invoice', { apiKey: readOnly, body, headers });
    expect(refused.status).toBe(403);
    expect(await listInvoices(apiKey)).toEqual([]);
    // A read-only key reads.
    expect((await invoke('list-invoices', { apiKey: readOnly })).status).toBe(200);
    const created = await invoke('create-invoice', { apiKey, body, headers });
    expect(created.status).toBe(200);
    expect(await listInvoices(apiKey)).toHaveLength(1);
  });

  it('a key a developer may make (read, payments, settings) can neither pay out nor ask for reports, and writes nothing trying', async () => {
    const { merchant, apiKey } = await seedMerchant();
    const developers = await seedKey(merchant.id, { scopes: ['read', 'payments', 'settings'] });
    const invoice = await invoke('create-invoice', { apiKey: developers, body: { orderId: randomUUID(), customerId: 'cust-1', baseCurrency: 'INR', amount: 1000 } });
    expect(invoice.status).toBe(200);
    expect((await invoke('simulate-deposit', { apiKey: developers, body: { invoiceId: invoice.body.data.id } })).status).toBe(200);
    const balances = (await invoke('list-balances', { apiKey })).body.data;

    const withdrawal = await invoke('create-withdrawal', {
      apiKey: developers,
      body: { customerId: 'cust-1', amount: '100', currency: 'INR', cardNumber: '4111111111111111' },
      headers: { 'idempotency-key': randomUUID() },
    });
    expect(withdrawal.status).toBe(403);
    expect(withdrawal.body.errors).toEqual([{ code: 'forbidden', message: 'This API key lacks the scope payouts' }]);
    const report = await invoke('create-report', {
      apiKey: developers,
      body: { type: 'transactions', createdFrom: new Date(Date.now() - 3_600_000).toISOString(), createdTo: new Date().toISOString() },
      headers: { 'idempotency-key': randomUUID() },
    });
    expect(report.status).toBe(403);
    expect(report.body.errors).toEqual([{ code: 'forbidden', message: 'This API key lacks the scope reports' }]);

    expect((await invoke('list-balances', { apiKey })).body.data).toEqual(balances);
    expect((await invoke('list-transactions', { apiKey, query: { type: 'withdraw' } })).body.data.items).toEqual([]);
  });

  it("changes the payouts' approval threshold only with a key that may pay out: a settings key alone is refused and changes nothing", async () => {
    const { merchant } = await seedMerchant();
    const settingsOnly = await seedKey(merchant.id, { scopes: ['read', 'settings'] });
    const owners = await seedKey(merchant.id, { scopes: ['settings', 'payouts'] });
    const threshold = async () => (await invoke('get-merchant', { apiKey: settingsOnly })).body.data.payoutApprovalAboveUsd;

    expect((await invoke('update-merchant', { apiKey: owners, body: { payoutApprovalAboveUsd: '500' } })).status).toBe(200);
    for (const payoutApprovalAboveUsd of [null, '100000', '1']) {
      const refused = await invoke('update-merchant', { apiKey: settingsOnly, body: { payoutApprovalAboveUsd, returnUrl: 'https://shop.example/back' } });
      expect([refused.status, refused.body.errors]).toEqual([403, [{ code: 'forbidden', message: 'This API key lacks the scope payouts' }]]);
    }
    expect(await threshold()).toBe('500.00');
    expect((await invoke('get-merchant', { apiKey: settingsOnly })).body.data.returnUrl).toBeNull();
    // The rest of the settings stay a settings key's.
    const changed = await invoke('update-merchant', { apiKey: settingsOnly, body: { returnUrl: 'https://shop.example/back' } });
    expect([changed.status, changed.body.data.returnUrl, changed.body.data.payoutApprovalAboveUsd]).toEqual([200, 'https://shop.example/back', '500.00']);
  });
});

describe("a key's allowed addresses", () => {
  it.each([
    ['an address it is allowed from', ['127.0.0.1'], 200],
    ['a range holding the address', ['10.0.0.0/8', '127.0.0.0/8'], 200],
    ['other addresses only', ['10.0.0.0/8', '2001:db8::/32', '203.0.113.7'], 403],
  ] as const)('a key limited to %s, called from loopback: %i', async (_, allowedIps, status) => {
    const { merchant } = await seedMerchant();
    const fenced = await seedKey(merchant.id, { allowedIps: [...allowedIps] });
    const answer = await invoke('get-merchant', { apiKey: fenced });
    expect(answer.status).toBe(status);
    if (status === 403) expect(answer.body).toEqual({ success: false, errors: [{ code: 'forbidden', message: 'This API key is not allowed from this address' }] });
  });

  it('refuses a write from elsewhere and keeps nothing of it', async () => {
    const { merchant, apiKey } = await seedMerchant();
    const fenced = await seedKey(merchant.id, { scopes: ['payments'] satisfies ApiKeyScope[], allowedIps: ['198.51.100.0/24'] });
    const answer = await invoke('create-invoice', { apiKey: fenced, body: { orderId: randomUUID(), customerId: 'c', baseCurrency: 'USDT', amount: 25 } });
    expect(answer.status).toBe(403);
    expect(await listInvoices(apiKey)).toEqual([]);
  });
});
