/**
 * Listings of a merchant's records (docs/merchant-guide.md#listings-and-pagination): the query parameters every listing takes
 * besides its filters, and the page it answers. Pure.
 */
import * as z from 'zod';

export const DEFAULT_PAGE_LIMIT = 20;
export const MAX_PAGE_LIMIT = 100;

const LIMIT_MESSAGE = `limit must be a whole number from 1 to ${MAX_PAGE_LIMIT}`;
const TIME_MESSAGE = 'must be an ISO 8601 date-time with a time zone, e.g. 2025-01-31T00:00:00Z';

/** Times the listings take: `toISOString` writes years past 9999 with a sign, which would sort before every stored time. */
const FIRST_TIME = Date.parse('2000-01-01T00:00:00Z');
const LAST_TIME = Date.parse('9999-12-31T23:59:59.999Z');
const YEARS_MESSAGE = 'must be a time in the years 2000 to 9999';

const inListedYears = (text: string): boolean => {
  const written = Number(text.slice(0, 4));
  const time = Date.parse(text);
  return written >= 2000 && time >= FIRST_TIME && time <= LAST_TIME;
};

/** A bound of a range of creation times: an ISO 8601 date-time with a time zone, in the years the stores can list. */
export const createdTime = () => z.iso.datetime({ offset: true, error: TIME_MESSAGE }).refine(inListedYears, { error: YEARS_MESSAGE });

const createdBound = (description: string) => createdTime().optional().describe(description);

/** The parameters of every listing besides its filters; no defaults in the schema, so clients see them optional. */
export const pageParameters = {
  createdFrom: createdBound('Only items created at or after this time (ISO 8601 date-time with a time zone)'),
  createdTo: createdBound('Only items created at or before this time (ISO 8601 date-time with a time zone)'),
  limit: z.coerce
    .number({ error: LIMIT_MESSAGE })
    .int({ error: LIMIT_MESSAGE })
    .min(1, { error: LIMIT_MESSAGE })
    .max(MAX_PAGE_LIMIT, { error: LIMIT_MESSAGE })
    .optional()
    .describe(`Items per page, 1 to ${MAX_PAGE_LIMIT}; ${DEFAULT_PAGE_LIMIT} when absent`),
  cursor: z.string().min(1).max(4096).optional().describe('`nextCursor` of the previous page; the other parameters must stay the same'),
};

type PageParameters = { createdFrom?: string; createdTo?: string; limit?: number; cursor?: string };

/** For `.refine` on a listing's query: the time range runs forwards. */
export const createdRangeInOrder: [check: (query: PageParameters) => boolean, problem: { path: string[]; message: string }] = [
  (query) => query.createdFrom === undefined || query.createdTo === undefined || Date.parse(query.createdFrom) <= Date.parse(query.createdTo),
  { path: ['createdTo'], message: 'createdTo must not be before createdFrom' },
];

/** What a store needs to read one page: filters with times as stored, the page size and where to continue. */
export interface Listing<Filters> {
  filters: Filters;
  /** Bounds of `createdAt`, inclusive, in the stored form (UTC, milliseconds). */
  createdFrom?: string;
  createdTo?: string;
  limit: number;
  cursor?: string;
}

export interface Page<Item> {
  items: Item[];
  nextCursor: string | null;
}

const storedTime = (text: string | undefined): string | undefined => (text === undefined ? undefined : new Date(text).toISOString());

/** A parsed query as a listing: page parameters apart, times in the stored form, absent filters left out. */
export function listingOf<Query extends PageParameters>(query: Query): Listing<Omit<Query, keyof PageParameters>> {
  const { createdFrom, createdTo, limit, cursor, ...filters } = query;
  const present = Object.fromEntries(Object.entries(filters).filter(([, value]) => value !== undefined));
  return {
    filters: present as Omit<Query, keyof PageParameters>,
    createdFrom: storedTime(createdFrom),
    createdTo: storedTime(createdTo),
    limit: limit ?? DEFAULT_PAGE_LIMIT,
    cursor,
  };
}

/** Everything that chooses a listing's items: what its cursors are bound to. */
export function listingFilters(listing: Listing<Readonly<Record<string, string | undefined>>>): Record<string, string> {
  const bound = { ...listing.filters, createdFrom: listing.createdFrom, createdTo: listing.createdTo };
  return Object.fromEntries(Object.entries(bound).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

/** The answer of a listing: `data: { items, nextCursor }`. */
export const pageSchema = <Item extends z.ZodType>(item: Item) =>
  z.object({
    items: z.array(item).describe('Newest first'),
    nextCursor: z.string().nullable().describe('Pass as `cursor` for the next page; null on the last. A page may hold fewer than `limit` items when several filters are combined'),
  });

export async function mapPage<From, To>(page: Page<From>, map: (items: From[]) => Promise<To[]> | To[]): Promise<Page<To>> {
  return { items: await map(page.items), nextCursor: page.nextCursor };
}
