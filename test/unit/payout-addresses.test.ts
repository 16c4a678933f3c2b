/** The payout addresses' rules over in-memory stores: checked and canonical, pending then active, once per network, a code taken once, removed at once, each change audited. */
import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import type { CodeUse } from '../../shared/domain/dashboard/index.js';
import { Conflict, Invalid, NotFound } from '../../shared/domain/kernel/index.js';
import { PayoutAddresses } from '../../shared/domain/payouts/index.js';
import type { Stage } from '../../shared/stage.js';
import { MemoryMerchants } from '../support/memory/merchants.js';
import { MemoryPayoutAddresses } from '../support/memory/payout-addresses.js';

const EVM = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const TRON = 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7';

let merchants: MemoryMerchants;
let store: MemoryPayoutAddresses;
let now: Date;
let merchantId: string;

const service = (stage: Stage = 'prod') => new PayoutAddresses({ addresses: store, merchants, stage, clock: () => now, newId: randomUUID });

beforeEach(() => {
  merchants = new MemoryMerchants();
  store = new MemoryPayoutAddresses();
  now = new Date('2026-03-02T09:30:00.000Z');
  merchantId = merchants.add().id;
});

/** What a refusal leaves: the addresses and audit entries as they were. */
const written = () => ({ addresses: store.addresses.length, entries: store.entries.length });

describe('adding a payout address', () => {
  it('keeps it in its canonical form, pending for a day in production, then active, with its audit entry', async () => {
    const added = await service().add(merchantId, { network: 'ethereum', address: EVM.toLowerCase(), label: 'Treasury' }, 'operator');
    expect(added).toEqual({ id: expect.any(String), network: 'ethereum', address: EVM, label: 'Treasury', status: 'pending', activatesAt: '2026-03-03T09:30:00.000Z', createdAt: now.toISOString() });
    expect(store.entries).toEqual([{ merchantId, id: expect.any(String), at: now.toISOString(), actor: 'operator', action: 'payout_address.added', subject: `ethereum ${EVM} (Treasury)` }]);

    now = new Date('2026-03-03T09:29:59.999Z');
    expect((await service().list(merchantId)).items.map(({ status }) => status)).toEqual(['pending']);
    now = new Date('2026-03-03T09:30:00.000Z');
    expect((await service().list(merchantId)).items.map(({ status }) => status)).toEqual(['active']);
  });

  it("is active at once on the demo stage, and after the merchant's own delay when the operator set one", async () => {
    expect((await service('demo').add(merchantId, { network: 'tron', address: TRON }, 'operator')).status).toBe('active');
    merchants.update(merchantId, { payoutAddressDelaySeconds: 90 });
    const added = await service('demo').add(merchantId, { network: 'bitcoin', address: 'TB1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KXPJZSX' }, 'operator');
    expect(added).toMatchObject({ address: 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx', label: null, status: 'pending', activatesAt: '2026-03-02T09:31:30.000Z' });
  });

  it('refuses the same address twice on a network, however it is written, and takes it on another network', async () => {
    await service().add(merchantId, { network: 'ethereum', address: EVM }, 'operator');
    const before = written();
    await expect(service().add(merchantId, { network: 'ethereum', address: ` ${EVM.toLowerCase()} ` }, 'operator')).rejects.toThrow(new Conflict(`${EVM} is a payout address of ethereum already`));
    expect(written()).toEqual(before);
    await service().add(merchantId, { network: 'polygon', address: EVM }, 'operator');
    // Another merchant may have it too.
    await service().add(merchants.add().id, { network: 'ethereum', address: EVM }, 'operator');
    expect(written()).toEqual({ addresses: 3, entries: 3 });
  });

  it.each([
    ['a malformed EVM address', 'ethereum', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAe', 'address is not an address of ethereum: it must be 0x and 40 hexadecimal digits'],
    ['a broken EIP-55 checksum', 'ethereum', '0x5AAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', 'address is not an address of ethereum: it fails its EIP-55 checksum'],
    ["another network's address", 'ethereum', TRON, 'address is not an address of ethereum: it is one of tron'],
    ['an EVM address on Tron', 'tron', EVM, 'address is not an address of tron: it is one of ethereum, bsc, polygon, bahamut'],
    [
      "the test network's Bitcoin address in production",
      'bitcoin',
      'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx',
      "address is not an address of bitcoin: it must be a Bitcoin address of this environment's network (bc1… or base58)",
    ],
  ] as const)('refuses %s with a 422 on address, writing nothing', async (_, network, address, message) => {
    const refused = service().add(merchantId, { network, address }, 'operator');
    await expect(refused).rejects.toThrow(Invalid);
    await expect(refused).rejects.toMatchObject({ problems: [{ field: 'address', message }] });
    expect(written()).toEqual({ addresses: 0, entries: 0 });
  });

  it('refuses an unknown merchant', async () => {
    await expect(service().add(randomUUID(), { network: 'tron', address: TRON }, 'operator')).rejects.toThrow(NotFound);
  });
});

describe('a code confirming an addition', () => {
  const OWNER = 'owner@shop.example';
  const use = (step: number): CodeUse => ({ email: OWNER, step });

  beforeEach(() => {
    store.users.set(OWNER, { merchantId, lastTotpStep: 100 });
  });

  it("is taken once: the same code again, or an older one, adds nothing; the owner's next code does", async () => {
    const added = await service().add(merchantId, { network: 'tron', address: TRON }, use(101));
    expect(store.entries.map(({ actor, action }) => [actor, action])).toEqual([[OWNER, 'payout_address.added']]);
    expect(store.users.get(OWNER)?.lastTotpStep).toBe(101);

    for (const step of [101, 100]) {
      const again = service().add(merchantId, { network: 'ethereum', address: EVM }, use(step));
      await expect(again).rejects.toMatchObject({ problems: [{ field: 'code', message: 'code was used already: enter the next one' }] });
    }
    expect(written()).toEqual({ addresses: 1, entries: 1 });
    await service().add(merchantId, { network: 'ethereum', address: EVM }, use(102));
    expect((await service().list(merchantId)).items.map(({ id }) => id)).toContain(added.id);
    expect(written()).toEqual({ addresses: 2, entries: 2 });
  });

  it("is not taken by an address that is refused: the duplicate's code confirms the next", async () => {
    await service().add(merchantId, { network: 'tron', address: TRON }, use(101));
    await expect(service().add(merchantId, { network: 'tron', address: TRON }, use(102))).rejects.toThrow(Conflict);
    await expect(service().add(merchantId, { network: 'tron', address: 'T-not-an-address' }, use(102))).rejects.toThrow(Invalid);
    expect(store.users.get(OWNER)?.lastTotpStep).toBe(101);
    await service().add(merchantId, { network: 'bsc', address: EVM }, use(102));
  });
});

describe('listing and removing', () => {
  it('lists newest first, removes at once with its audit entry, and answers not found for an address that is not the merchant’s', async () => {
    const first = await service().add(merchantId, { network: 'tron', address: TRON }, 'operator');
    now = new Date(now.getTime() + 1000);
    const second = await service().add(merchantId, { network: 'ethereum', address: EVM }, 'operator');
    expect((await service().list(merchantId)).items.map(({ id }) => id)).toEqual([second.id, first.id]);

    const other = merchants.add().id;
    for (const [owner, id] of [
      [other, first.id],
      [merchantId, randomUUID()],
      [merchantId, 'not-an-id'],
    ]) {
      await expect(service().remove(owner!, id!, 'operator')).rejects.toThrow(NotFound);
    }
    expect(written()).toEqual({ addresses: 2, entries: 2 });

    await service().remove(merchantId, first.id, 'owner@shop.example');
    expect((await service().list(merchantId)).items.map(({ id }) => id)).toEqual([second.id]);
    expect(store.entries.at(-1)).toMatchObject({ actor: 'owner@shop.example', action: 'payout_address.removed', subject: `tron ${TRON}` });
    await expect(service().remove(merchantId, first.id, 'operator')).rejects.toThrow(NotFound);
  });
});
