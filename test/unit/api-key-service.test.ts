/**
 * Merchants' API keys over in-memory ports (docs/merchant-guide.md#authentication): a key issued
 * with a name, registered at the gateway before it is stored, revoked in the store before it leaves
 * the gateway, listed as its merchant sees it, and its last use recorded at most once an hour. The
 * DynamoDB store is held to the same contract in test/integration/store-contracts.test.ts, the
 * admin CLI over it in test/integration/merchant-cli.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { ApiKeyService, apiKeyNameSchema, type KeyRegistry } from '../../shared/domain/merchants/api-key-service.js';
import { Invalid, NotFound } from '../../shared/domain/kernel/errors.js';
import { apiErrorOf } from '../../shared/http/errors.js';
import { digestApiKey, LAST_USED_GRANULARITY_SECONDS, newApiKey, recordKeyUse, type ApiKey, type KeyUseRecorder } from '../../shared/domain/merchants/merchants.js';
import { MemoryApiKeys } from '../support/memory/api-keys.js';
import { refusal } from '../support/memory/gateway.js';
import { MemoryMerchants } from '../support/memory/merchants.js';

const NOW = new Date('2026-06-01T12:00:00.000Z');

/** The gateway's side, recording what it was asked and what the store held at that moment; `fail` makes a call refuse. */
function recordingRegistry(keys: MemoryApiKeys) {
  const events: string[] = [];
  const fail: { register?: Error; unregister?: Error } = {};
  const registry: KeyRegistry = {
    register: async (key) => {
      events.push(`register ${key.keyId} stored=${(await keys.findKeyByDigest(key.digest)) !== undefined}`);
      if (fail.register) throw fail.register;
    },
    unregister: async (key) => {
      events.push(`unregister ${key.keyId} status=${(await keys.findKeyByDigest(key.digest))?.status}`);
      if (fail.unregister) throw fail.unregister;
    },
  };
  return { registry, events, fail };
}

function world(keys = new MemoryApiKeys()) {
  const merchants = new MemoryMerchants();
  const { registry, events, fail } = recordingRegistry(keys);
  let now = NOW;
  const service = new ApiKeyService({ keys, merchants, registry, stage: 'demo', clock: () => now });
  return {
    keys,
    merchants,
    events,
    fail,
    service,
    merchant: merchants.add().id,
    advance: (seconds: number) => (now = new Date(now.getTime() + seconds * 1000)),
  };
}

describe('issuing a key', () => {
  it('answers the key text once, stores only its digest under the name given (trimmed), and registers it at the gateway first', async () => {
    const { service, keys, events, merchant } = world();
    const { apiKey, key } = await service.issue(merchant, { name: '  Production server  ' });
    expect(apiKey).toMatch(/^gw_demo_[0-9A-Za-z]{32}$/);
    expect(key).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      keyId: key.id,
      name: 'Production server',
      hint: `${apiKey.slice(0, 12)}…`,
      status: 'active',
      scopes: ['read', 'payments', 'payouts', 'reports', 'settings'],
      allowedIps: [],
      createdAt: NOW.toISOString(),
      revokedAt: null,
      lastUsedAt: null,
    });
    const stored = await keys.findKeyByDigest(digestApiKey(apiKey));
    expect(stored).toEqual({
      digest: digestApiKey(apiKey),
      keyId: key.keyId,
      merchantId: merchant,
      hint: key.hint,
      status: 'active',
      name: 'Production server',
      scopes: ['read', 'payments', 'payouts', 'reports', 'settings'],
      createdAt: NOW.toISOString(),
    });
    expect(JSON.stringify(await keys.listKeys(merchant))).not.toContain(apiKey);
    expect(events).toEqual([`register ${key.keyId} stored=false`]);
  });

  it.each([
    ['empty', '', 'name must not be blank'],
    ['blank', ' \t ', 'name must not be blank'],
    ['65 characters', 'k'.repeat(65), 'name must be at most 64 characters'],
    ['a control character', 'build\u0007server', 'name must hold printable characters only'],
    ['a line break inside', 'two\nlines', 'name must hold printable characters only'],
    ['a bidirectional override', 'invoice\u202Egpj.exe', 'name must hold printable characters only'],
    ['a line separator', 'one\u2028two', 'name must hold printable characters only'],
    ['a lone surrogate', 'key \uD83D', 'name must hold printable characters only'],
  ])('refuses a name that is %s, naming the field, and registers and stores nothing', async (_case, name, message) => {
    const { service, keys, events, merchant } = world();
    const error = await refusal(service.issue(merchant, { name }));
    expect(error).toBeInstanceOf(Invalid);
    expect((error as Invalid).problems).toEqual([{ field: 'name', message }]);
    // The API's 422, should a route answer it.
    expect(apiErrorOf(error)).toMatchObject({ status: 422, items: [{ code: 'unprocessable_content', field: 'name', message }] });
    expect(events).toEqual([]);
    expect(await keys.listKeys(merchant)).toEqual([]);
  });

  it.each([
    ['64 characters', 'k'.repeat(64), 'k'.repeat(64)],
    ['64 characters outside the BMP, counted as characters', '🔑'.repeat(64), '🔑'.repeat(64)],
    ['letters of any script and inner spaces', '  Kasse Ümraniye — 東京  ', 'Kasse Ümraniye — 東京'],
    ['one character', 'x', 'x'],
  ])('takes a name of %s', async (_case, name, stored) => {
    const { service, merchant } = world();
    expect((await service.issue(merchant, { name })).key.name).toBe(stored);
    // The schema the dashboard's form validates with says the same.
    expect(apiKeyNameSchema.parse(name)).toBe(stored);
  });

  it('refuses a merchant that does not exist, registering nothing', async () => {
    const { service, events } = world();
    const error = await refusal(service.issue('0d9f9c9e-5a4b-4c1e-9f67-1b2c3d4e5f60', { name: 'Server' }));
    expect(error).toEqual(new NotFound('Merchant'));
    expect(events).toEqual([]);
  });

  it('stores no key the gateway refused', async () => {
    const { service, keys, fail, merchant } = world();
    fail.register = new Error('LimitExceededException: API key quota reached');
    await expect(service.issue(merchant, { name: 'Server' })).rejects.toThrow('LimitExceededException');
    expect(await keys.listKeys(merchant)).toEqual([]);
  });

  it("takes a key it could not store out of the gateway again, and fails with the store's error", async () => {
    class Throttled extends MemoryApiKeys {
      override async addKey(): Promise<void> {
        throw new Error('ProvisionedThroughputExceededException');
      }
    }
    const { service, events, merchant } = world(new Throttled());
    await expect(service.issue(merchant, { name: 'Server' })).rejects.toThrow('ProvisionedThroughputExceededException');
    const [registered, unregistered] = events;
    expect(registered).toMatch(/^register (\S+) stored=false$/);
    expect(unregistered).toBe(`unregister ${/^register (\S+)/.exec(registered!)![1]} status=undefined`);
  });
});

describe('revoking a key', () => {
  it('revokes it in the store first, from when the authorizer refuses it, then at the gateway', async () => {
    const { service, keys, events, merchant, advance } = world();
    const { apiKey, key } = await service.issue(merchant, { name: 'Old server' });
    advance(60);
    const revoked = await service.revoke(merchant, key.keyId);
    expect(revoked).toEqual({ ...key, status: 'revoked', revokedAt: new Date(NOW.getTime() + 60_000).toISOString() });
    expect(await keys.findKeyByDigest(digestApiKey(apiKey))).toMatchObject({ status: 'revoked', revokedAt: revoked.revokedAt });
    expect(events.at(-1)).toBe(`unregister ${key.keyId} status=revoked`);
  });

  it("refuses another merchant's key as not found, leaving it active and at the gateway", async () => {
    const { service, merchants, keys, events, merchant } = world();
    const other = merchants.add().id;
    const { apiKey, key } = await service.issue(other, { name: 'Theirs' });
    const error = await refusal(service.revoke(merchant, key.keyId));
    expect(error).toEqual(new NotFound('API key'));
    expect(apiErrorOf(error)).toMatchObject({ status: 404, items: [{ code: 'not_found', message: 'API key not found' }] });
    expect(await keys.findKeyByDigest(digestApiKey(apiKey))).toMatchObject({ status: 'active' });
    expect(events.filter((event) => event.startsWith('unregister'))).toEqual([]);
  });

  it.each([
    ['an unknown id', '5b7f0b52-8e0d-4b61-a7a4-0d0b8f6f2d11'],
    ['an id that is no UUID', 'not-a-key-id'],
  ])('refuses %s as not found', async (_case, keyId) => {
    const { service, merchant } = world();
    await service.issue(merchant, { name: 'Server' });
    expect(await refusal(service.revoke(merchant, keyId))).toEqual(new NotFound('API key'));
  });

  it('a second time changes nothing in the store, keeping the first time, and takes it out of the gateway again', async () => {
    const { service, events, merchant, advance } = world();
    const { key } = await service.issue(merchant, { name: 'Server' });
    const first = await service.revoke(merchant, key.keyId);
    advance(3600);
    const second = await service.revoke(merchant, key.keyId);
    expect(second).toEqual(first);
    expect((await service.list(merchant))[0]).toEqual(first);
    expect(events.filter((event) => event.startsWith('unregister'))).toEqual([`unregister ${key.keyId} status=revoked`, `unregister ${key.keyId} status=revoked`]);
  });

  it('fails when the gateway does, with the key revoked in the store already; repeating it finishes the revocation', async () => {
    const { service, keys, fail, events, merchant } = world();
    const { apiKey, key } = await service.issue(merchant, { name: 'Server' });
    fail.unregister = new Error('TooManyRequestsException');
    await expect(service.revoke(merchant, key.keyId)).rejects.toThrow('TooManyRequestsException');
    expect(await keys.findKeyByDigest(digestApiKey(apiKey))).toMatchObject({ status: 'revoked' });
    delete fail.unregister;
    expect(await service.revoke(merchant, key.keyId)).toMatchObject({ status: 'revoked' });
    expect(events.filter((event) => event.startsWith('unregister'))).toHaveLength(2);
  });
});

describe("a key's scopes and allowed addresses", () => {
  it('keeps the scopes asked for, in their canonical order, and the addresses canonical, and shows both', async () => {
    const { service, keys, merchant } = world();
    const { apiKey, key } = await service.issue(merchant, { name: 'Reports job', scopes: ['reports', 'read', 'reports'], allowedIps: ['10.1.2.3/8', '2001:DB8::1', '203.0.113.7'] });
    expect(key).toMatchObject({ scopes: ['read', 'reports'], allowedIps: ['10.0.0.0/8', '2001:db8::1', '203.0.113.7'] });
    expect(await keys.findKeyByDigest(digestApiKey(apiKey))).toMatchObject({ scopes: ['read', 'reports'], allowedIps: ['10.0.0.0/8', '2001:db8::1', '203.0.113.7'] });
    expect((await service.list(merchant))[0]).toMatchObject({ id: key.id, scopes: ['read', 'reports'], allowedIps: ['10.0.0.0/8', '2001:db8::1', '203.0.113.7'] });
  });

  it.each([
    ["a scope beyond its maker's reach", { scopes: ['read', 'payouts'] }, ['read', 'payments', 'settings'], 'scopes', 'scopes may not include payouts: a key never does more than its maker may'],
    ['a scope of a maker who may give none', { scopes: ['read'] }, [], 'scopes', 'scopes may not include read: a key never does more than its maker may'],
    ['no scope given by a maker who may not give every scope', {}, ['read', 'payments', 'settings'], 'scopes', 'scopes may not include payouts, reports: a key never does more than its maker may'],
    ['an empty list of scopes', { scopes: [] }, undefined, 'scopes', 'scopes must name at least one scope'],
    ['an unknown scope', { scopes: ['read', 'admin'] }, undefined, 'scopes.1', undefined],
    ['an address that is not one', { allowedIps: ['10.0.0.1', 'example.com'] }, undefined, 'allowedIps.1', 'allowedIps.1 "example.com" is not an IPv4 or IPv6 address or CIDR range'],
    ['a shorthand IPv4 address', { allowedIps: ['127.1'] }, undefined, 'allowedIps.0', undefined],
    ['a range with too many bits', { allowedIps: ['10.0.0.0/33'] }, undefined, 'allowedIps.0', undefined],
    ['21 addresses', { allowedIps: Array.from({ length: 21 }, (_, i) => `10.0.0.${i}`) }, undefined, 'allowedIps', 'allowedIps must hold at most 20 addresses or ranges'],
  ] as const)('refuses %s, naming the field, and registers and stores nothing', async (_, request, reach, field, message) => {
    const { service, keys, events, merchant } = world();
    const error = await refusal(service.issue(merchant, { name: 'Server', ...(request as object) }, reach));
    expect(error).toBeInstanceOf(Invalid);
    expect((error as Invalid).problems[0]).toMatchObject({ field, ...(message === undefined ? {} : { message }) });
    expect(apiErrorOf(error)).toMatchObject({ status: 422 });
    expect(events).toEqual([]);
    expect(await keys.listKeys(merchant)).toEqual([]);
  });

  it("takes 20 addresses, and every scope within its maker's reach", async () => {
    const { service, merchant } = world();
    const allowedIps = Array.from({ length: 20 }, (_, i) => `10.0.${i}.0/24`);
    const { key } = await service.issue(merchant, { name: 'Developer key', scopes: ['settings', 'payments', 'read'], allowedIps }, ['read', 'payments', 'settings']);
    expect(key).toMatchObject({ scopes: ['read', 'payments', 'settings'], allowedIps });
  });
});

describe('listing keys', () => {
  it("shows the merchant's own keys, newest first, active and revoked, each with its name, hint, times and last use, never its text or digest", async () => {
    const { service, keys, merchants, merchant, advance } = world();
    // A key made before keys had names or scopes, and used once since.
    const { scopes: _, ...legacy } = newApiKey(merchant, 'demo', NOW).record;
    await keys.addKey(legacy);
    await keys.recordKeyUse(legacy.digest, new Date(NOW.getTime() + 30_000), NOW);
    advance(60);
    const second = await service.issue(merchant, { name: 'Second' });
    advance(60);
    const third = await service.issue(merchant, { name: 'Third' });
    await service.revoke(merchant, second.key.keyId);
    await service.issue(merchants.add().id, { name: "Another merchant's" });

    const listed = await service.list(merchant);
    expect(listed.map(({ keyId }) => keyId)).toEqual([third.key.keyId, second.key.keyId, legacy.keyId]);
    expect(listed[2]).toEqual({
      id: legacy.keyId,
      keyId: legacy.keyId,
      name: null,
      hint: legacy.hint,
      status: 'active',
      // Keys made before scopes existed keep all five.
      scopes: ['read', 'payments', 'payouts', 'reports', 'settings'],
      allowedIps: [],
      createdAt: NOW.toISOString(),
      revokedAt: null,
      lastUsedAt: new Date(NOW.getTime() + 30_000).toISOString(),
    });
    expect(listed[1]).toMatchObject({ name: 'Second', status: 'revoked', revokedAt: expect.any(String) });
    const text = JSON.stringify(listed);
    for (const secret of [second.apiKey, third.apiKey, digestApiKey(second.apiKey), legacy.digest]) expect(text).not.toContain(secret);
    expect(await service.list('0d9f9c9e-5a4b-4c1e-9f67-1b2c3d4e5f60')).toEqual([]);
  });
});

describe("recording a key's last use", () => {
  /** A recorder that notes each write it is asked for. */
  function recorder() {
    const writes: Array<{ at: string; since: string }> = [];
    const uses: KeyUseRecorder = {
      recordKeyUse: async (_digest, at, since) => {
        writes.push({ at: at.toISOString(), since: since.toISOString() });
        return true;
      },
    };
    return { uses, writes };
  }
  const key = (lastUsedAt?: string): Pick<ApiKey, 'digest' | 'lastUsedAt'> => ({ digest: 'd', ...(lastUsedAt === undefined ? {} : { lastUsedAt }) });
  const ago = (seconds: number) => new Date(NOW.getTime() - seconds * 1000).toISOString();
  const since = ago(LAST_USED_GRANULARITY_SECONDS);

  it('writes on a first use, and when the recorded one is older than an hour, asking the store to write only if it still is', async () => {
    const { uses, writes } = recorder();
    await recordKeyUse(uses, key(), NOW);
    await recordKeyUse(uses, key(ago(LAST_USED_GRANULARITY_SECONDS + 1)), NOW);
    expect(writes).toEqual([
      { at: NOW.toISOString(), since },
      { at: NOW.toISOString(), since },
    ]);
  });

  it('writes nothing while the recorded use is at most an hour old', async () => {
    const { uses, writes } = recorder();
    await recordKeyUse(uses, key(ago(0)), NOW);
    await recordKeyUse(uses, key(ago(LAST_USED_GRANULARITY_SECONDS)), NOW);
    expect(writes).toEqual([]);
  });
});
