/**
 * The books in DynamoDB: balances (one item per merchant and currency) and their entries (one item
 * each, never changed). A posting is written inside the transaction of the state it accounts for
 * (`postingWrites`): each entry only if its id is new, the balance only if it is still the one the
 * posting was computed from (its entry count and amounts).
 */
import { BatchGetCommand, GetCommand, paginateQuery, PutCommand, QueryCommand, type BatchGetCommandOutput, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  type Balance,
  BALANCE_CURRENCIES,
  type BalanceEntry,
  type BalanceEntryFilters,
  type BalanceKey,
  type BalancePosting,
  type RecordPosition,
  type ReportRange,
  type SequencedEntry,
} from '../domain/ledger/index.js';
import { type CommitResult, type Listing, listingFilters, type Page } from '../domain/kernel/index.js';
import { BATCH_GET_LIMIT, changedBetween, changeShardOf, commitTransaction, createdRangeQuery, isConditionFailure, queryItems, queryPartition, type TransactItem } from './dynamo.js';
import { IndexPager, type IndexQuery } from './pages.js';

export interface BalanceTables {
  balances: string;
  balanceEntries: string;
}

/**
 * BatchGetItem requests the books check has in flight at once: a page of a merchant's transactions
 * calls for a few thousand entries, twenty-odd requests that need not wait for each other.
 */
const WRITTEN_IN_FLIGHT = 8;

/** Keys of the merchant's listing indexes: JSON [merchantId, value]. */
const merchantKey = (merchantId: string, value: string): string => JSON.stringify([merchantId, value]);

const balanceId = (merchantId: string, currency: string): string => merchantKey(merchantId, currency);

function fromBalanceItem(item: Record<string, unknown>): Balance {
  const { id: _id, changeShard: _shard, ...balance } = item;
  return balance as unknown as Balance;
}

/**
 * The entry with the keys of the indexes it belongs to; an adjustment (no transaction) stays out of
 * byTransaction. Exported for bulk loads (the jobs bench).
 */
export function balanceEntryItem(entry: BalanceEntry): Record<string, unknown> {
  return {
    ...entry,
    merchantCurrency: merchantKey(entry.merchantId, entry.currency),
    merchantType: merchantKey(entry.merchantId, entry.type),
    ...(entry.transactionId === null ? {} : { transactionKey: merchantKey(entry.merchantId, entry.transactionId) }),
  };
}

function fromEntryItem(item: Record<string, unknown>): BalanceEntry {
  const { merchantCurrency: _currency, merchantType: _type, transactionKey: _transaction, ...entry } = item;
  return { ...entry, transactionId: (entry.transactionId as string | undefined) ?? null } as BalanceEntry;
}

/**
 * The balance as stored: every version carries its `changeShard`, for the books check's `changes`
 * index. Exported for bulk loads (the jobs bench).
 */
export function balanceItem(balance: Balance): Record<string, unknown> {
  const id = balanceId(balance.merchantId, balance.currency);
  return { id, ...balance, changeShard: changeShardOf(id) };
}

/** The balance's write: conditional on the balance the posting was computed from (or on there being no balance yet). */
function balancePut(tableName: string, balance: Balance, expected: BalancePosting['expected']) {
  return {
    Put: {
      TableName: tableName,
      Item: balanceItem(balance),
      ...(expected
        ? {
            ConditionExpression: 'entryCount = :count AND available = :available AND reserved = :reserved',
            ExpressionAttributeValues: { ':count': expected.entryCount, ':available': expected.available, ':reserved': expected.reserved },
          }
        : { ConditionExpression: 'attribute_not_exists(id)' }),
    },
  };
}

/** The items of a posting inside a DynamoDB transaction: each entry once, and the balance after them. */
export function postingWrites(tables: BalanceTables, posting: BalancePosting): TransactItem[] {
  return [
    ...posting.entries.map((entry) => ({
      Put: { TableName: tables.balanceEntries, Item: balanceEntryItem(entry), ConditionExpression: 'attribute_not_exists(id)' },
    })),
    balancePut(tables.balances, posting.balance, posting.expected),
  ];
}

export class DynamoBalanceStore {
  private readonly pager: IndexPager;

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tables: BalanceTables,
  ) {
    this.pager = new IndexPager(client);
  }

  async get(merchantId: string, currency: string): Promise<Balance | undefined> {
    const { Item } = await this.client.send(new GetCommand({ TableName: this.tables.balances, Key: { id: balanceId(merchantId, currency) }, ConsistentRead: true }));
    return Item ? fromBalanceItem(Item) : undefined;
  }

  /** The merchant's balances, one per currency it has had money in, read consistently by key: every currency there is, at once. */
  async all(merchantId: string): Promise<Balance[]> {
    const balances: Balance[] = [];
    let keys: Record<string, unknown>[] | undefined = BALANCE_CURRENCIES.map((currency) => ({ id: balanceId(merchantId, currency) }));
    while (keys && keys.length > 0) {
      const page: BatchGetCommandOutput = await this.client.send(new BatchGetCommand({ RequestItems: { [this.tables.balances]: { Keys: keys, ConsistentRead: true } } }));
      balances.push(...(page.Responses?.[this.tables.balances] ?? []).map(fromBalanceItem));
      // Keys DynamoDB left for later (throttled) are asked again.
      keys = page.UnprocessedKeys?.[this.tables.balances]?.Keys;
    }
    return balances.sort((a, b) => a.currency.localeCompare(b.currency));
  }

  /**
   * A page of the merchant's entries, newest first, from the index that serves the most selective
   * filter; the other filters are checked on the entries it reads.
   */
  async list(merchantId: string, listing: Listing<BalanceEntryFilters>): Promise<Page<BalanceEntry>> {
    const { currency, type, transactionId } = listing.filters;
    const where = (filters: Record<string, string | undefined>) => Object.fromEntries(Object.entries(filters).filter((entry): entry is [string, string] => entry[1] !== undefined));
    const range = { table: 'balanceEntries', tableName: this.tables.balanceEntries, from: listing.createdFrom, to: listing.createdTo } as const;
    let query: IndexQuery;
    if (transactionId !== undefined) {
      query = { ...range, index: 'byTransaction', partition: merchantKey(merchantId, transactionId), where: where({ currency, type }) };
    } else if (type !== undefined) {
      query = { ...range, index: 'byMerchantType', partition: merchantKey(merchantId, type), where: where({ currency }) };
    } else if (currency !== undefined) {
      query = { ...range, index: 'byMerchantCurrency', partition: merchantKey(merchantId, currency) };
    } else {
      query = { ...range, index: 'byMerchant', partition: merchantId };
    }
    const page = await this.pager.page(query, listingFilters(listing), listing.limit, listing.cursor);
    return { items: page.items.map(fromEntryItem), nextCursor: page.nextCursor };
  }

  /** Every entry of the merchant in `currency`. */
  async entriesIn(merchantId: string, currency: string): Promise<BalanceEntry[]> {
    const items = await queryPartition(this.client, this.tables.balanceEntries, 'byMerchantCurrency', 'merchantCurrency', merchantKey(merchantId, currency));
    return items.map(fromEntryItem);
  }

  /** The merchant's entries created in the range, oldest first, after `after` when given, read a page at a time (a report's rows). */
  async *createdBetween({ merchantId, createdFrom, createdTo, currency }: ReportRange, after: RecordPosition | null = null): AsyncIterable<BalanceEntry> {
    const partition = currency ? { attribute: 'merchantCurrency', value: merchantKey(merchantId, currency) } : { attribute: 'merchantId', value: merchantId };
    const query = createdRangeQuery(this.tables.balanceEntries, currency ? 'byMerchantCurrency' : 'byMerchant', partition, createdFrom, createdTo);
    if (after) query.ExclusiveStartKey = { id: after.id, [partition.attribute]: partition.value, createdAt: after.createdAt };
    for await (const item of queryItems(this.client, query)) yield fromEntryItem(item);
  }

  /** The balances written from `from` to `to`, as the `changes` index holds them. */
  async *changedBetween(from: string, to: string): AsyncIterable<BalanceKey[]> {
    for await (const items of changedBetween(this.client, this.tables.balances, from, to)) {
      yield items.map(({ merchantId, currency }) => ({ merchantId, currency }) as BalanceKey);
    }
  }

  /** The highest sequence among the balance's entries (the `bySequence` index, newest first); 0 when it has none. */
  async newestSequence({ merchantId, currency }: BalanceKey): Promise<number> {
    const { Items } = await this.client.send(
      new QueryCommand({
        TableName: this.tables.balanceEntries,
        IndexName: 'bySequence',
        KeyConditionExpression: 'merchantCurrency = :balance',
        ExpressionAttributeValues: { ':balance': merchantKey(merchantId, currency) },
        ScanIndexForward: false,
        Limit: 1,
      }),
    );
    return (Items?.[0]?.sequence as number | undefined) ?? 0;
  }

  /** The balance's entries with sequences from `from` to `to`, in their order, a page at a time, with what each did. */
  async *entriesBySequence({ merchantId, currency }: BalanceKey, from: number, to: number): AsyncIterable<SequencedEntry[]> {
    const pages = paginateQuery(
      { client: this.client },
      {
        TableName: this.tables.balanceEntries,
        IndexName: 'bySequence',
        KeyConditionExpression: 'merchantCurrency = :balance AND #sequence BETWEEN :from AND :to',
        ExpressionAttributeNames: { '#sequence': 'sequence' },
        ExpressionAttributeValues: { ':balance': merchantKey(merchantId, currency), ':from': from, ':to': to },
      },
    );
    for await (const page of pages) {
      yield (page.Items ?? []).map(({ sequence, availableChange, reservedChange }) => ({ sequence, availableChange, reservedChange }) as SequencedEntry);
    }
  }

  /** Which of the entries `ids` are written, asked by key a hundred at a time, WRITTEN_IN_FLIGHT requests at once. */
  async written(ids: readonly string[]): Promise<Set<string>> {
    const found = new Set<string>();
    const batches: string[][] = [];
    for (let start = 0; start < ids.length; start += BATCH_GET_LIMIT) batches.push(ids.slice(start, start + BATCH_GET_LIMIT));
    const ask = async () => {
      for (let batch = batches.shift(); batch; batch = batches.shift()) {
        let keys: Record<string, unknown>[] | undefined = batch.map((id) => ({ id }));
        while (keys && keys.length > 0) {
          const page: BatchGetCommandOutput = await this.client.send(new BatchGetCommand({ RequestItems: { [this.tables.balanceEntries]: { Keys: keys, ProjectionExpression: 'id' } } }));
          for (const item of page.Responses?.[this.tables.balanceEntries] ?? []) found.add(item.id as string);
          // Keys DynamoDB left for later (throttled) are asked again.
          keys = page.UnprocessedKeys?.[this.tables.balanceEntries]?.Keys;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(WRITTEN_IN_FLIGHT, batches.length) }, ask));
    return found;
  }

  /** A posting of its own, with no transaction to go with it (an operator's adjustment). */
  post(posting: BalancePosting): Promise<CommitResult> {
    return commitTransaction(this.client, postingWrites(this.tables, posting));
  }

  /** Replaces a balance by one recomputed from its entries, if it is still the one that was read. */
  async replace(balance: Balance, expected: BalancePosting['expected']): Promise<CommitResult> {
    try {
      await this.client.send(new PutCommand(balancePut(this.tables.balances, balance, expected).Put));
      return 'committed';
    } catch (error) {
      if (isConditionFailure(error)) return 'stale';
      throw error;
    }
  }
}
