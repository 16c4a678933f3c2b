import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MerchantAdmin } from '../../infra/cli/merchant-admin.js';
import { localTableNames } from '../../infra/local/environment.js';
import type { KeyRegistry } from '../../shared/domain/merchants/api-key-service.js';
import { digestApiKey, type ApiKey } from '../../shared/domain/merchants/merchants.js';
import { startFakeAwsControlPlane, type FakeAwsControlPlane } from '../support/fake-aws-control-plane.js';
import { invoke, request } from '../support/invoke.js';
import { testMerchantCli, type TestCli } from '../support/merchant-cli.js';
import { testCallbackSecrets, testChainStore, testMerchantStore } from '../support/merchants.js';

let testCli: TestCli;

beforeAll(async () => {
  testCli = await testMerchantCli();
});

afterAll(async () => {
  await testCli.remove();
});

const cli = (args: string[], env?: NodeJS.ProcessEnv) => testCli.run(args, env);

/** 404 for a random invoice means the key got through; 401 that it did not. */
const statusWithKey = async (apiKey: string) => (await invoke('get-invoice', { pathParameters: { invoiceId: randomUUID() }, apiKey })).status;

describe('merchant create', () => {
  it('prints merchantId, keyId, apiKey and callbackSecret as JSON, and the key works at once', async () => {
    const { code, out, err } = await cli(['create', '--name', 'Shop', '--callback-url', 'https://shop.example/cb', '--return-url', 'https://shop.example/done', '--fee', '1.5', '--json']);
    expect(err).toBe('');
    expect(code).toBe(0);
    const created = JSON.parse(out);
    expect(Object.keys(created)).toEqual(['merchantId', 'keyId', 'apiKey', 'callbackSecret']);
    expect(created.apiKey).toMatch(/^gw_demo_[0-9A-Za-z]{32}$/);
    expect(created.callbackSecret).toMatch(/^whsec_/);
    // The id of the key printed, as the store records it.
    expect(await testMerchantStore().listKeys(created.merchantId)).toEqual([expect.objectContaining({ keyId: created.keyId, digest: digestApiKey(created.apiKey) })]);
    const stored = await testMerchantStore().getMerchant(created.merchantId);
    expect(stored).toMatchObject({ name: 'Shop', callbackUrl: 'https://shop.example/cb', returnUrl: 'https://shop.example/done', processingFeePercent: '1.5' });
    // Stored sealed, under the vault the functions open it with.
    expect(JSON.stringify(stored)).not.toContain(created.callbackSecret);
    expect(await testCallbackSecrets().open(created.merchantId, stored!.sealedCallbackSecret)).toBe(created.callbackSecret);
    expect(await statusWithKey(created.apiKey)).toBe(404);
  });

  it('prints the key and the secret for a person without --json', async () => {
    const { code, out } = await cli(['create', '--name', 'Readable shop']);
    expect(code).toBe(0);
    expect(out).toMatch(/^Created merchant [0-9a-f-]{36} \(Readable shop\) in the local gateway at http:\/\/localhost:3999\./);
    expect(out).toMatch(/Key id: +[0-9a-f-]{36}\n/);
    expect(out).toMatch(/API key: +gw_demo_[0-9A-Za-z]{32}\n/);
    expect(out).toMatch(/Callback secret: whsec_\S+\n/);
  });
});

describe('merchant create --aws', () => {
  const inAws = ['--aws', '--stage', 'demo', '--region', 'us-east-1'];
  let aws: FakeAwsControlPlane;

  beforeAll(async () => {
    aws = await startFakeAwsControlPlane('demo', localTableNames());
  });

  afterAll(async () => {
    await aws?.close();
  });

  it('prints the key id as well: the id its usage plan key is tagged with, and revoke-key takes', async () => {
    const { code, out, err } = await cli(['create', '--name', 'Deployed shop', '--json', ...inAws]);
    expect(err).toBe('');
    expect(code).toBe(0);
    const created = JSON.parse(out);
    expect(Object.keys(created)).toEqual(['merchantId', 'keyId', 'apiKey', 'callbackSecret']);
    expect(created.apiKey).toMatch(/^gw_demo_[0-9A-Za-z]{32}$/);
    expect(aws.apiKeys).toEqual([{ id: expect.any(String), name: `merchant-key-${created.keyId}`, customerId: created.merchantId, usagePlanId: expect.any(String) }]);
    expect(await testMerchantStore().listKeys(created.merchantId)).toEqual([expect.objectContaining({ keyId: created.keyId, digest: digestApiKey(created.apiKey) })]);

    const revoked = await cli(['revoke-key', '--merchant', created.merchantId, '--key', created.keyId, ...inAws]);
    expect(revoked).toEqual({ code: 0, out: `Revoked key ${created.keyId} of merchant ${created.merchantId}.\n`, err: '' });
    expect(aws.apiKeys).toEqual([]);
  });
});

describe('key rotation', () => {
  it('adds a key, revokes the old one by the id create printed, and lists keys by id, name, hint, status and last use only', async () => {
    const created = JSON.parse((await cli(['create', '--name', 'Rotating shop', '--json'])).out);

    const added = await cli(['add-key', '--merchant', created.merchantId, '--json']);
    expect(added.code).toBe(0);
    const second = JSON.parse(added.out);
    expect(second).toEqual({ merchantId: created.merchantId, keyId: expect.any(String), apiKey: expect.stringMatching(/^gw_demo_/) });

    const revoked = await cli(['revoke-key', '--merchant', created.merchantId, '--key', created.keyId]);
    expect(revoked).toEqual({ code: 0, out: `Revoked key ${created.keyId} of merchant ${created.merchantId}.\n`, err: '' });
    expect(await statusWithKey(created.apiKey)).toBe(401);
    expect(await statusWithKey(second.apiKey)).toBe(404);

    const listed = await cli(['list', '--json']);
    expect(listed.code).toBe(0);
    const entry = JSON.parse(listed.out).find((m: { merchantId: string }) => m.merchantId === created.merchantId);
    expect(entry).toMatchObject({ name: 'Rotating shop', callbackUrl: null, processingFeePercent: '0' });
    // Newest first; the key that got a request through shows when.
    const everyScope = ['read', 'payments', 'payouts', 'reports', 'settings'];
    expect(entry.keys).toEqual([
      {
        id: second.keyId,
        keyId: second.keyId,
        name: 'CLI',
        hint: `${second.apiKey.slice(0, 12)}…`,
        status: 'active',
        scopes: everyScope,
        allowedIps: [],
        createdAt: expect.any(String),
        revokedAt: null,
        lastUsedAt: expect.any(String),
      },
      {
        id: created.keyId,
        keyId: created.keyId,
        name: 'CLI',
        hint: `${created.apiKey.slice(0, 12)}…`,
        status: 'revoked',
        scopes: everyScope,
        allowedIps: [],
        createdAt: expect.any(String),
        revokedAt: expect.any(String),
        lastUsedAt: null,
      },
    ]);
    for (const secret of [created.apiKey, second.apiKey, digestApiKey(created.apiKey), created.callbackSecret]) {
      expect(listed.out).not.toContain(secret);
    }

    const readable = await cli(['list']);
    expect(readable.out).toContain(`${created.merchantId}  Rotating shop  fee 0%  callback none  on-chain deposits on\n`);
    expect(readable.out).toMatch(new RegExp(`\n  key ${second.keyId}  ${second.apiKey.slice(0, 12)}…  active  "CLI"  last used \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z\n`));
    expect(readable.out).toMatch(new RegExp(`\n  key ${created.keyId}  ${created.apiKey.slice(0, 12)}…  revoked [\\dT:.Z-]+  "CLI"  last used never\n`));
    expect(readable.out).toContain(`"CLI"  last used never\n    scopes read, payments, payouts, reports, settings; from any address\n`);
    expect(readable.out).not.toContain(second.apiKey);
  });

  it('issues a key with --scopes and --allowed-ips, which the API holds it to, and lists them', async () => {
    const created = JSON.parse((await cli(['create', '--name', 'Scoped shop', '--scopes', 'read,reports', '--json'])).out);
    const added = await cli(['add-key', '--merchant', created.merchantId, '--name', 'Office', '--scopes', 'payments, read', '--allowed-ips', '10.0.0.0/8, 2001:db8::/32']);
    expect(added.code, added.err).toBe(0);
    expect(added.out).toContain('\nScopes: read, payments\nAllowed from: 10.0.0.0/8, 2001:db8::/32\n');
    const office = added.out.match(/API key: (gw_demo_\w+)/)![1]!;

    // The merchant's first key reads but may not change settings; the second is refused from loopback.
    expect(await statusWithKey(created.apiKey)).toBe(404);
    const answer = await request('PATCH', '/api/v2/merchant', { apiKey: created.apiKey, body: { returnUrl: null } });
    expect([answer.status, answer.body.errors]).toEqual([403, [{ code: 'forbidden', message: 'This API key lacks the scope settings' }]]);
    const fenced = await request('GET', '/api/v2/merchant', { apiKey: office });
    expect([fenced.status, fenced.body.errors[0].message]).toEqual([403, 'This API key is not allowed from this address']);

    const entry = JSON.parse((await cli(['list', '--json'])).out).find((m: { merchantId: string }) => m.merchantId === created.merchantId);
    expect(entry.keys.map(({ name, scopes, allowedIps }: { name: string; scopes: string[]; allowedIps: string[] }) => [name, scopes, allowedIps])).toEqual([
      ['Office', ['read', 'payments'], ['10.0.0.0/8', '2001:db8::/32']],
      ['CLI', ['read', 'reports'], []],
    ]);
  });

  it.each([
    [['--scopes', 'read,admin'], '--scopes is a comma-separated list of read, payments, payouts, reports, settings'],
    [['--scopes', ''], '--scopes is a comma-separated list of read, payments, payouts, reports, settings'],
    [['--allowed-ips', '10.0.0.0/8,example.com'], '--allowed-ips "example.com" is not an IPv4 or IPv6 address or CIDR range'],
    [['--allowed-ips', Array.from({ length: 21 }, (_, i) => `10.0.0.${i}`).join(',')], '--allowed-ips must hold at most 20 addresses or ranges'],
  ])('refuses add-key %j with exit code 2 and issues nothing', async (options, message) => {
    const created = JSON.parse((await cli(['create', '--name', 'Refusing shop', '--json'])).out);
    const refused = await cli(['add-key', '--merchant', created.merchantId, ...options]);
    expect(refused.code).toBe(2);
    expect(refused.err).toContain(message);
    expect(await testMerchantStore().listKeys(created.merchantId)).toHaveLength(1);
  });

  it('names a key with --name, trimmed, as the dashboard lists it', async () => {
    const created = JSON.parse((await cli(['create', '--name', 'Naming shop', '--json'])).out);
    const added = await cli(['add-key', '--merchant', created.merchantId, '--name', '  Checkout server  ', '--json']);
    expect(added.code).toBe(0);
    const { keyId } = JSON.parse(added.out);
    const entry = JSON.parse((await cli(['list', '--json'])).out).find((m: { merchantId: string }) => m.merchantId === created.merchantId);
    expect(entry.keys.map(({ keyId, name }: { keyId: string; name: string }) => [keyId, name])).toEqual([
      [keyId, 'Checkout server'],
      [created.keyId, 'CLI'],
    ]);
  });

  it('reports an unknown merchant or key with exit code 1', async () => {
    const unknownMerchant = await cli(['add-key', '--merchant', randomUUID()]);
    expect(unknownMerchant.code).toBe(1);
    expect(unknownMerchant.err).toMatch(/^merchant: No merchant [0-9a-f-]{36}\n$/);

    const created = JSON.parse((await cli(['create', '--name', 'Keyless', '--json'])).out);
    const unknownKey = await cli(['revoke-key', '--merchant', created.merchantId, '--key', randomUUID()]);
    expect(unknownKey.code).toBe(1);
    expect(unknownKey.err).toContain(`Merchant ${created.merchantId} has no key`);
  });
});

describe('usage', () => {
  it.each([
    [[], 'a command is required'],
    [['delete'], 'unknown command delete'],
    [['create'], '--name is required'],
    [['create', '--name', 'x', '--callback-url', 'javascript:alert(1)'], '--callback-url must be an https or http URL'],
    [['create', '--name', 'x', '--return-url', 'not a url'], '--return-url must be an absolute URL'],
    [['create', '--name', 'x', '--fee', '101'], '--fee must be a percentage from 0 to 100'],
    [['create', '--name', 'x', '--key', 'k'], '--key is not an option of create'],
    [['create', '--name', 'x', '--nme', 'y'], "Unknown option '--nme'"],
    [['add-key', '--merchant', 'abc'], '--merchant must be an id'],
    [['add-key', '--merchant', randomUUID(), '--name', '   '], '--name must not be blank'],
    [['add-key', '--merchant', randomUUID(), '--name', 'k'.repeat(65)], '--name must be at most 64 characters'],
    [['add-key', '--merchant', randomUUID(), '--name', 'a\u0000b'], '--name must hold printable characters only'],
    [['revoke-key', '--merchant', randomUUID(), '--key', randomUUID(), '--name', 'x'], '--name is not an option of revoke-key'],
    [['revoke-key', '--merchant', randomUUID()], '--key is required'],
    [['list', '--stage', 'prod'], '--stage and --region go with --aws'],
    [['list', '--aws'], '--aws needs --stage prod|demo'],
    [['create', '--name', 'x', '--callback-url', 'http://shop.example/cb', '--aws', '--stage', 'prod'], '--callback-url must be an https URL'],
    [['create', '--name', 'x', '--callback-url', 'https://[::ffff:127.0.0.1]/cb', '--aws', '--stage', 'prod'], '--callback-url must not point at a loopback'],
    [['create', '--name', 'x', '--callback-url', 'http://169.254.169.254/latest', '--aws', '--stage', 'demo'], '--callback-url must not point at a loopback'],
    [['create', '--name', 'x', '--callback-url', 'https://shop.example/\u0000cb'], '--callback-url must not contain control characters'],
  ])('%j is a usage error (exit 2): %s', async (args, message) => {
    const { code, out, err } = await cli(args);
    expect(code).toBe(2);
    expect(out).toBe('');
    expect(err).toContain(`merchant: ${message}`);
    expect(err).toContain('Usage: npm run merchant -- <command> [options]');
  });

  it('prints the usage on --help', async () => {
    const { code, out } = await cli(['--help']);
    expect(code).toBe(0);
    expect(out).toContain('revoke-key --merchant MERCHANT_ID --key KEY_ID');
  });

  it('says clearly when no local gateway is running', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'gateway-cli-empty-'));
    try {
      const { code, err } = await cli(['list'], { GATEWAY_DATA_DIR: empty });
      expect(code).toBe(1);
      expect(err).toBe(`merchant: No local gateway is running from ${empty}; start it with npm start (or set GATEWAY_DATA_DIR)\n`);
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });
});

describe('MerchantAdmin and the gateway key registry', () => {
  it('registers a key at the gateway before storing it, and revokes it in the store before removing it there', async () => {
    const store = testMerchantStore();
    const events: string[] = [];
    const registry: KeyRegistry = {
      register: async (key: ApiKey) => {
        events.push(`register ${key.keyId} stored=${(await store.findKeyByDigest(key.digest)) !== undefined}`);
      },
      unregister: async (key: ApiKey) => {
        events.push(`unregister ${key.keyId} status=${(await store.findKeyByDigest(key.digest))?.status}`);
      },
    };
    const admin = new MerchantAdmin(store, registry, testCallbackSecrets(), testChainStore(), 'prod');
    const { merchant, key } = await admin.createMerchant({ name: 'Registry shop' });
    expect(key.apiKey).toMatch(/^gw_prod_/);
    await admin.revokeKey(merchant.id, key.keyId);
    expect(events).toEqual([`register ${key.keyId} stored=false`, `unregister ${key.keyId} status=revoked`]);
  });

  it('stores no key the gateway refused', async () => {
    const store = testMerchantStore();
    const refusing: KeyRegistry = {
      register: async () => {
        throw new Error('LimitExceededException');
      },
      unregister: async () => undefined,
    };
    const admin = new MerchantAdmin(store, refusing, testCallbackSecrets(), testChainStore(), 'prod');
    await expect(admin.createMerchant({ name: 'Refused shop' })).rejects.toThrow('LimitExceededException');
    const refused = (await store.listMerchants()).find((m) => m.name === 'Refused shop');
    expect(await store.listKeys(refused!.id)).toEqual([]);
  });
});
