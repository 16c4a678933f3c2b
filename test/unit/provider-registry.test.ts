/**
 * The registry's provider secrets (docs/operations.md#payment-providers): read from the secret store when first needed,
 * shared by concurrent calls, kept for a while, read again after it, and kept in use when the
 * store fails after a first good read.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ProviderConfig } from '../../shared/config.js';
import { providerRegistry } from '../../shared/connectors/registry.js';
import { STORED_VALUE_MAX_AGE_MS as STORED_SECRET_MAX_AGE_MS } from '../../shared/refreshed.js';
import { signMessage } from '../../shared/connectors/protocol/messages.js';

const ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:payment-gateway/prod/providers/psp-AbCdEf';
const newSecret = () => randomBytes(32).toString('base64');
const event = JSON.stringify({ type: 'payment.failed', reference: '6f1c1c4e-2b9a-4d8e-9f57-0c5b7d7a1f00', providerReference: 'p-1', amount: '10.00', currency: 'TRY' });

const PSP: ProviderConfig = { id: 'psp', kind: 'protocol', name: 'PSP', url: 'https://psp.example', priority: 1, methods: [], secret: { kind: 'secretsManager', arn: ARN } };

/** A registry of one provider whose secret is in a store the test controls, on a clock it moves; `configuration` is the stage's list of providers. */
function setup(configuration: { providers: readonly ProviderConfig[] } = { providers: [PSP] }) {
  const store = { value: newSecret(), reads: 0, failing: false };
  let clock = 1_000_000;
  const registry = providerRegistry(
    () => configuration.providers,
    async (arn) => {
      expect(arn).toBe(ARN);
      store.reads++;
      if (store.failing) throw new Error('Secrets Manager is unreachable');
      return store.value;
    },
    () => clock,
  );
  /** Whether the provider takes an event signed with `secret`. */
  const accepts = async (secret: string, id = 'psp') => {
    const signed = signMessage(secret, `evt_${randomBytes(4).toString('hex')}`, event, new Date());
    return 'event' in (await registry.get(id)!.readEvent(signed.headers, event));
  };
  return { registry, store, accepts, advance: (ms: number) => (clock += ms) };
}

describe("a provider's secret in the secret store", () => {
  it('is read once for concurrent calls, then kept', async () => {
    const { store, accepts } = setup();
    const secret = store.value;
    expect(await Promise.all([accepts(secret), accepts(secret), accepts(secret)])).toEqual([true, true, true]);
    expect(await accepts(secret)).toBe(true);
    expect(store.reads).toBe(1);
  });

  it('is read again once it is older than its maximum age: a replaced secret is in use within it', async () => {
    const { store, accepts, advance } = setup();
    const old = store.value;
    expect(await accepts(old)).toBe(true);
    store.value = newSecret();
    advance(STORED_SECRET_MAX_AGE_MS - 1);
    expect(await accepts(store.value)).toBe(false);
    advance(1);
    expect(await accepts(store.value)).toBe(true);
    expect(await accepts(old)).toBe(false);
    expect(store.reads).toBe(2);
  });

  it('stays in use when the store fails after a good read, and is read again on the next call', async () => {
    const { store, accepts, advance } = setup();
    const secret = store.value;
    expect(await accepts(secret)).toBe(true);
    store.failing = true;
    advance(STORED_SECRET_MAX_AGE_MS);
    expect(await accepts(secret)).toBe(true);
    expect(await accepts(secret)).toBe(true);
    expect(store.reads).toBe(3);
    store.failing = false;
    expect(await accepts(secret)).toBe(true);
    expect(store.reads).toBe(4);
    expect(await accepts(secret)).toBe(true);
    expect(store.reads).toBe(4);
  });

  it('fails the call when the store fails before any good read, and is read again on the next', async () => {
    const { store, accepts } = setup();
    store.failing = true;
    await expect(accepts(store.value)).rejects.toThrow('unreachable');
    store.failing = false;
    expect(await accepts(store.value)).toBe(true);
    expect(store.reads).toBe(2);
  });
});

describe('the providers of a stage whose configuration changes', () => {
  it('are those the configuration names when they are used, and keep a secret read while its provider stays as it was', async () => {
    const configuration: { providers: readonly ProviderConfig[] } = { providers: [PSP] };
    const { registry, store, accepts } = setup(configuration);
    expect(registry.routes.map(({ id }) => id)).toEqual(['psp']);
    expect(await accepts(store.value)).toBe(true);
    const routes = registry.routes;
    // The same list: the same routes, the same connectors.
    expect(registry.routes).toBe(routes);

    configuration.providers = [
      { ...PSP, priority: 2 },
      { ...PSP, id: 'psp-two', name: 'PSP Two' },
    ];
    expect(registry.routes.map(({ id, priority }) => [id, priority])).toEqual([
      ['psp', 2],
      ['psp-two', 1],
    ]);
    expect(await accepts(store.value, 'psp-two')).toBe(true);
    expect(await accepts(store.value, 'psp')).toBe(true);
    // psp's secret was kept; psp-two's, at the same ARN in this test, is a provider of its own and read once.
    expect(store.reads).toBe(2);

    configuration.providers = [];
    expect(registry.routes).toEqual([]);
    expect(registry.get('psp')).toBeUndefined();
  });
});
