/**
 * The owners of customer addresses as a chain watcher asks for them, at the cost of its hits: each
 * family's addresses are held in memory (`AddressSet`), loaded from the wallets table's
 * `ownersByFamily` index once per container and topped up at every look-up with those allocated
 * since, so that a transfer to a stranger costs no read (docs/operations.md#watching-chains).
 */
import type { AddressOwner } from '../domain/payments/index.js';
import { type AddressFamily, AddressSet } from '../domain/chains/index.js';
import type { DynamoWalletStore } from './wallets.js';

/**
 * How far before the latest allocation seen a top-up reads again: a wallet's time is taken before
 * its write commits, and the index follows the table within a second or so, so an allocation can
 * appear in the index after a later one did.
 */
export const ALLOCATION_OVERLAP_MS = 5 * 60_000;

/** Keys read from the index that are added to the set at once: each addition may merge the whole array. */
export const KEYS_ADDED_AT_ONCE = 10_000;

interface Loaded {
  set: AddressSet;
  /** The latest allocation time read, from which the next top-up starts (less the overlap). */
  latest?: string;
}

export class CachedAddressOwners {
  private readonly families = new Map<AddressFamily, Promise<Loaded>>();
  private indexed = false;

  constructor(private readonly wallets: Pick<DynamoWalletStore, 'ownerKeysSince' | 'ownersOf' | 'ownersIndexed'>) {}

  /**
   * The owners of those of `keys` that are customers' addresses; only keys the set holds are read.
   * Until the table says every owner is in the index (`backfill-addresses` after an upgrade), every
   * key is read, as before the set: a customer's address is never taken for a stranger's.
   */
  async ownersOf(family: AddressFamily, keys: readonly string[]): Promise<Map<string, AddressOwner>> {
    this.indexed ||= await this.wallets.ownersIndexed();
    if (!this.indexed) return this.wallets.ownersOf(family, keys);
    const { set } = await this.topUp(family);
    const hits = [...new Set(keys)].filter((key) => set.has(key));
    return hits.length === 0 ? new Map() : this.wallets.ownersOf(family, hits);
  }

  /** The family's addresses, with those allocated since the last look-up added. */
  private async topUp(family: AddressFamily): Promise<Loaded> {
    const previous = this.families.get(family) ?? Promise.resolve<Loaded>({ set: new AddressSet() });
    const next = previous.then(async (loaded) => {
      const since = loaded.latest === undefined ? undefined : new Date(Date.parse(loaded.latest) - ALLOCATION_OVERLAP_MS).toISOString();
      let latest = loaded.latest;
      const batch: string[] = [];
      for await (const { key, createdAt } of this.wallets.ownerKeysSince(family, since)) {
        batch.push(key);
        if (latest === undefined || createdAt > latest) latest = createdAt;
        if (batch.length === KEYS_ADDED_AT_ONCE) loaded.set.add(batch.splice(0));
      }
      loaded.set.add(batch);
      return { set: loaded.set, latest };
    });
    // A failed load leaves the last good set for the next look-up to top up.
    this.families.set(
      family,
      next.catch(() => previous),
    );
    return next;
  }
}
