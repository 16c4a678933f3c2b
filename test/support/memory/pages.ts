/**
 * A listing's page over records held in memory, as the DynamoDB stores answer it: `limit` items
 * after the cursor's, with a cursor bound to the listing it continues (one of another listing is
 * refused, as the stores refuse it).
 */
import { Invalid } from '../../../shared/domain/kernel/errors.js';
import { listingFilters, type Listing, type Page } from '../../../shared/domain/kernel/pagination.js';

interface ListingCursor {
  filters: Record<string, string>;
  after: string;
}

/** `matching`: the listing's records in its order, newest first; `idOf` names each one. */
export function memoryPage<Item>(matching: readonly Item[], listing: Listing<Readonly<Record<string, string | undefined>>>, idOf: (item: Item) => string): Page<Item> {
  const filters = listingFilters(listing);
  const start = listing.cursor === undefined ? 0 : matching.findIndex((item) => idOf(item) === continued(listing.cursor!, filters)) + 1;
  const items = matching.slice(start, start + listing.limit);
  const last = items.at(-1);
  const more = last !== undefined && start + items.length < matching.length;
  return { items: items.map((item) => structuredClone(item)), nextCursor: more ? JSON.stringify({ filters, after: idOf(last) } satisfies ListingCursor) : null };
}

/** Whether `createdAt` lies in the listing's range. */
export const inCreatedRange = (listing: Pick<Listing<unknown>, 'createdFrom' | 'createdTo'>, createdAt: string): boolean =>
  (listing.createdFrom === undefined || createdAt >= listing.createdFrom) && (listing.createdTo === undefined || createdAt <= listing.createdTo);

function continued(cursor: string, filters: Record<string, string>): string {
  let parsed: ListingCursor | undefined;
  try {
    parsed = JSON.parse(cursor) as ListingCursor;
  } catch {
    // Text that is not JSON is no cursor of this store.
  }
  if (!parsed || JSON.stringify(parsed.filters) !== JSON.stringify(filters)) throw Invalid.of('cursor', 'cursor does not continue this listing');
  return parsed.after;
}

/** Records in pages of `size`, as a query of DynamoDB answers them a page at a time. */
export async function* pagesOf<Item>(items: readonly Item[], size: number): AsyncGenerator<Item[]> {
  for (let start = 0; start < items.length; start += size) yield items.slice(start, start + size).map((item) => structuredClone(item));
}
