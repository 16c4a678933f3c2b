/**
 * Pages of a merchant's records read from one index, newest first, and the cursors that continue
 * them (docs/merchant-guide.md#listings-and-pagination). A cursor is the index position of a page's last item together with the
 * listing it belongs to. It carries no trust: it is accepted only to continue the same listing
 * (table, index, filters) inside the key range the caller's own query reads, so a forged one can
 * at most skip some of the caller's own items; anything else is a 422 on `cursor`.
 */
import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { TABLES, type IndexDefinition, type TableDefinition, type TableKey } from './tables.js';
import { Invalid } from '../domain/kernel/index.js';

/** A listing's filters as the client gave them, normalized: what its cursors are bound to. */
export type ListingFilters = Readonly<Record<string, string>>;

export interface IndexQuery {
  /** Which table's definition the index belongs to, and that table's name in this deployment. */
  table: TableKey;
  tableName: string;
  index: string;
  /** The value of the index's partition key that this listing reads. */
  partition: string;
  /** Inclusive bounds of the index's sort key, a `createdAt`. */
  from?: string;
  to?: string;
  /** Attributes the items must also equal, checked after the key condition. */
  where?: Readonly<Record<string, string>>;
}

export interface StoredPage {
  items: Record<string, unknown>[];
  nextCursor: string | null;
}

const STORED_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** The ids of a table's items: UUIDs, but the outbox's, which are webhook ids (`{transactionId}:{status}`, `invoice:{invoiceId}:{event}:{n}`). */
const ID_PATTERNS: Partial<Record<TableKey, RegExp>> = { outbox: /^(invoice:)?[0-9a-f-]{36}:[a-z_.]+(:\d+)?$/ };
const MAX_KEY_VALUE_LENGTH = 1024;

const cursorSchema = z.strictObject({
  table: z.string(),
  index: z.string(),
  filters: z.record(z.string(), z.string()),
  position: z.record(z.string(), z.string().max(MAX_KEY_VALUE_LENGTH)),
});

type Cursor = z.infer<typeof cursorSchema>;

/** The key attributes of an index's entries: the table's key, then the index's partition and sort keys. */
function keyAttributes(table: TableKey, indexName: string): { id: string; partition: string; sort: string } {
  const definition: TableDefinition = TABLES[table];
  const index = (definition.indexes ?? []).find((candidate: IndexDefinition) => candidate.name === indexName);
  if (!index?.sortKey) throw new Error(`${table} has no sorted index ${indexName}`);
  return { id: definition.partitionKey.name, partition: index.partitionKey.name, sort: index.sortKey.name };
}

const sameFilters = (a: ListingFilters, b: ListingFilters): boolean => {
  const entries = (filters: ListingFilters) => JSON.stringify(Object.entries(filters).sort(([x], [y]) => x.localeCompare(y)));
  return entries(a) === entries(b);
};

const invalidCursor = (): Invalid => Invalid.of('cursor', 'cursor does not continue this listing: pass nextCursor of the previous page, with the same filters');

export function encodeCursor(query: IndexQuery, filters: ListingFilters, position: Record<string, string>): string {
  const cursor: Cursor = { table: query.table, index: query.index, filters: { ...filters }, position };
  return Buffer.from(JSON.stringify(cursor), 'utf8').toString('base64url');
}

/** The position a cursor continues from, if it continues `query` with `filters`; else a 422 on `cursor`. */
export function decodeCursor(text: string, query: IndexQuery, filters: ListingFilters): Record<string, string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor();
  }
  const result = cursorSchema.safeParse(parsed);
  if (!result.success) throw invalidCursor();
  const { table, index, position } = result.data;
  if (table !== query.table || index !== query.index || !sameFilters(result.data.filters, filters)) throw invalidCursor();

  const keys = keyAttributes(query.table, query.index);
  const expected = new Set([keys.id, keys.partition, keys.sort]);
  const names = Object.keys(position);
  const created = position[keys.sort] ?? '';
  const valid =
    names.length === expected.size &&
    names.every((name) => expected.has(name)) &&
    position[keys.partition] === query.partition &&
    (ID_PATTERNS[query.table] ?? UUID).test(position[keys.id] ?? '') &&
    STORED_TIME.test(created) &&
    (query.from === undefined || created >= query.from) &&
    (query.to === undefined || created <= query.to);
  if (!valid) throw invalidCursor();
  return position;
}

/** Reads listings page by page; each page reads at most `limit + 1` index entries. */
export class IndexPager {
  constructor(private readonly client: DynamoDBDocumentClient) {}

  /**
   * One page of `query`, newest first. With `where` conditions a page may hold fewer than `limit`
   * items and still have a next one: the conditions are checked on the entries read, and a page
   * reads no more than its limit.
   */
  async page(query: IndexQuery, filters: ListingFilters, limit: number, cursor?: string): Promise<StoredPage> {
    const keys = keyAttributes(query.table, query.index);
    const startKey = cursor === undefined ? undefined : decodeCursor(cursor, query, filters);
    const names: Record<string, string> = { '#partition': keys.partition };
    const values: Record<string, string> = { ':partition': query.partition };
    let keyCondition = '#partition = :partition';
    if (query.from !== undefined) values[':from'] = query.from;
    if (query.to !== undefined) values[':to'] = query.to;
    if (query.from !== undefined || query.to !== undefined) names['#sort'] = keys.sort;
    if (query.from !== undefined && query.to !== undefined) keyCondition += ' AND #sort BETWEEN :from AND :to';
    else if (query.from !== undefined) keyCondition += ' AND #sort >= :from';
    else if (query.to !== undefined) keyCondition += ' AND #sort <= :to';
    const conditions = Object.entries(query.where ?? {}).map(([attribute, value], i) => {
      names[`#where${i}`] = attribute;
      values[`:where${i}`] = value;
      return `#where${i} = :where${i}`;
    });

    // One entry beyond the page tells whether another page follows.
    const { Items = [], LastEvaluatedKey } = await this.client.send(
      new QueryCommand({
        TableName: query.tableName,
        IndexName: query.index,
        KeyConditionExpression: keyCondition,
        ...(conditions.length > 0 ? { FilterExpression: conditions.join(' AND ') } : {}),
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ScanIndexForward: false,
        Limit: limit + 1,
        ExclusiveStartKey: startKey,
      }),
    );
    if (Items.length > limit) {
      const items = Items.slice(0, limit);
      const last = items[items.length - 1]!;
      const position = { [keys.id]: String(last[keys.id]), [keys.partition]: String(last[keys.partition]), [keys.sort]: String(last[keys.sort]) };
      return { items, nextCursor: encodeCursor(query, filters, position) };
    }
    return { items: Items, nextCursor: LastEvaluatedKey ? encodeCursor(query, filters, LastEvaluatedKey as Record<string, string>) : null };
  }
}
