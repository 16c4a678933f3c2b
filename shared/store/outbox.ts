/**
 * The callback outbox in DynamoDB. An entry is written in the same transaction as the state it
 * announces, so a callback exists exactly when the state does; it then records its hand-off to
 * the queue and every delivery attempt.
 */
import { BatchGetCommand, GetCommand, ScanCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { CallbackEntry, CallbackRecord, DeliveryAttempt } from '../domain/callbacks/index.js';
import { OUTBOX_RETENTION_DAYS } from '../queue/queues.js';
import type { Page } from '../domain/kernel/index.js';
import { isConditionFailure, queryAll, queryPartition } from './dynamo.js';
import { IndexPager, type ListingFilters } from './pages.js';
import { TABLES } from './tables.js';

/** Only entries not yet handed to the queue carry it (the sparse `unpublished` index). */
const PENDING = 'pending';

export interface OutboxItem extends CallbackRecord {
  pendingShard?: string;
  publishedAt?: string;
  /** When the current delivery window opened: the first attempt, the last redrive or resend. */
  windowStartedAt?: string;
  /** When the merchant last asked for the callback again. */
  resentAt?: string;
  /** Epoch seconds after which DynamoDB deletes the entry; set when it is delivered or skipped. */
  expiration?: number;
}

/**
 * How many pages of keys one page of a merchant's log reads at most to find the callbacks it keeps:
 * a log that keeps few (only the failed) still answers soon, with a cursor to go on.
 */
const MERCHANT_LOG_READS = 5;

/** What a merchant's resend did: handed an ended callback to the queue again, or found it still being retried. */
export type ResendOutcome = 'requeued' | 'inFlight';

/** When an entry that settles at `settledAt` expires, in the epoch seconds DynamoDB's TTL reads. */
export const outboxExpiration = (settledAt: string): number => Math.floor(Date.parse(settledAt) / 1000) + OUTBOX_RETENTION_DAYS * 24 * 3600;

/** The Put of a new entry, for the writer's transaction. */
export function outboxPut(tableName: string, entry: CallbackEntry) {
  const item: OutboxItem = { ...entry, pendingShard: PENDING, attempts: [] };
  return { Put: { TableName: tableName, Item: item, ConditionExpression: 'attribute_not_exists(id)' } };
}

export class DynamoOutboxStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async get(id: string): Promise<OutboxItem | undefined> {
    const { Item } = await this.client.send(new GetCommand({ TableName: this.tableName, Key: { id }, ConsistentRead: true }));
    return Item as OutboxItem | undefined;
  }

  /** A transaction's callbacks, oldest first. */
  forTransaction(transactionId: string): Promise<OutboxItem[]> {
    return this.listed('byTransaction', 'transactionId', transactionId);
  }

  /** An invoice's events, oldest first. */
  forInvoice(invoiceId: string): Promise<OutboxItem[]> {
    return this.listed('byInvoice', 'invoiceId', invoiceId);
  }

  /**
   * A page of the merchant's callbacks of every kind, newest first, those `keep` keeps; `filters`
   * (what `keep` stands for) bind the cursor to this listing. The index holds keys only, so the
   * entries are read by key a page of keys at a time, until `limit` are kept or
   * MERCHANT_LOG_READS pages are read: a page may then hold fewer, and still have a next one.
   */
  async forMerchant(merchantId: string, keep: (item: CallbackRecord) => boolean, filters: ListingFilters, limit: number, cursor?: string): Promise<Page<OutboxItem>> {
    const query = { table: 'outbox', tableName: this.tableName, index: 'byMerchant', partition: merchantId } as const;
    const kept: OutboxItem[] = [];
    const pager = new IndexPager(this.client);
    let next = cursor;
    for (let read = 0; read < MERCHANT_LOG_READS && kept.length < limit; read++) {
      const keys = await pager.page(query, filters, limit - kept.length, next);
      kept.push(...(await this.read(keys.items.map((item) => item.id as string))).filter(keep).reverse());
      next = keys.nextCursor ?? undefined;
      if (next === undefined) break;
    }
    return { items: kept, nextCursor: next ?? null };
  }

  private async listed(index: string, key: string, value: string): Promise<OutboxItem[]> {
    const entries = await queryPartition(this.client, this.tableName, index, key, value);
    // A transaction owes a callback per final state it reached, an invoice one per event: a handful, far below BatchGet's 100.
    return this.read(entries.map((item) => item.id as string));
  }

  /** Entries by id (at most BatchGet's 100), oldest first. */
  private async read(ids: string[]): Promise<OutboxItem[]> {
    if (ids.length === 0) return [];
    const { Responses, UnprocessedKeys } = await this.client.send(new BatchGetCommand({ RequestItems: { [this.tableName]: { Keys: ids.map((id) => ({ id })), ConsistentRead: true } } }));
    const unread = UnprocessedKeys?.[this.tableName]?.Keys ?? [];
    const items = [...((Responses?.[this.tableName] ?? []) as OutboxItem[]), ...(await Promise.all(unread.map(({ id }) => this.get(id as string))))];
    return items.filter((item): item is OutboxItem => item !== undefined).sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  }

  /**
   * Delivers an entry again with a fresh 72-hour window, on the merchant's request. An ended entry
   * (delivered, parked or skipped) is reopened and marked for publishing: the caller publishes it,
   * or the outbox sweep does. An entry still being retried keeps its message, whose next attempt
   * stays as scheduled, and gets the fresh window alone, so one entry never has two messages.
   */
  async resend(id: string, now: Date): Promise<ResendOutcome> {
    const at = now.toISOString();
    for (let attempt = 0; ; attempt++) {
      try {
        await this.client.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: { id },
            UpdateExpression: 'SET pendingShard = :pending, windowStartedAt = :now, resentAt = :now REMOVE deliveredAt, parkedAt, skippedAt',
            ConditionExpression: 'attribute_exists(deliveredAt) OR attribute_exists(parkedAt) OR attribute_exists(skippedAt)',
            ExpressionAttributeValues: { ':pending': PENDING, ':now': at },
          }),
        );
        return 'requeued';
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
      }
      try {
        await this.client.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: { id },
            UpdateExpression: 'SET windowStartedAt = :now, resentAt = :now',
            ConditionExpression: 'attribute_exists(id) AND attribute_not_exists(deliveredAt) AND attribute_not_exists(parkedAt) AND attribute_not_exists(skippedAt)',
            ExpressionAttributeValues: { ':now': at },
          }),
        );
        return 'inFlight';
      } catch (error) {
        // It ended between the two writes: reopen it after all.
        if (!isConditionFailure(error) || attempt >= 2) throw error;
      }
    }
  }

  async markPublished(id: string, now: Date): Promise<void> {
    await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: { id },
        UpdateExpression: 'SET publishedAt = :now REMOVE pendingShard',
        ConditionExpression: 'attribute_exists(id)',
        ExpressionAttributeValues: { ':now': now.toISOString() },
      }),
    );
  }

  /** Ids of entries written before `before` and still not handed to the queue. */
  async listUnpublished(before: Date): Promise<string[]> {
    const items = await queryAll(this.client, {
      TableName: this.tableName,
      IndexName: 'unpublished',
      KeyConditionExpression: 'pendingShard = :pending AND createdAt < :before',
      ExpressionAttributeValues: { ':pending': PENDING, ':before': before.toISOString() },
    });
    return items.map((item) => item.id as string);
  }

  /**
   * Records one attempt. `outcome` settles the entry: `delivered` and `skipped` end it, `parked`
   * hands it to the operator. Returns false when the entry had already ended (a duplicate message).
   */
  async recordAttempt(id: string, attempt: DeliveryAttempt, outcome: 'delivered' | 'skipped' | 'retry' | 'parked'): Promise<boolean> {
    const settle = outcome === 'retry' ? '' : `, ${outcome}At = :at`;
    // Ended entries expire; a parked one stays until an operator redrives it.
    const ends = outcome === 'delivered' || outcome === 'skipped';
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { id },
          UpdateExpression: `SET attempts = list_append(attempts, :attempt), windowStartedAt = if_not_exists(windowStartedAt, :at)${settle}${ends ? ', #expiration = :expiration' : ''}`,
          ConditionExpression: 'attribute_exists(id) AND attribute_not_exists(deliveredAt) AND attribute_not_exists(skippedAt)',
          ...(ends ? { ExpressionAttributeNames: { '#expiration': TABLES.outbox.ttlAttribute } } : {}),
          ExpressionAttributeValues: { ':attempt': [attempt], ':at': attempt.at, ...(ends ? { ':expiration': outboxExpiration(attempt.at) } : {}) },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  /**
   * Parks an entry without an attempt: its window closed while deliveries to its merchant's URL were
   * paused. False when the entry had already ended (a duplicate message).
   */
  async park(id: string, now: Date): Promise<boolean> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { id },
          UpdateExpression: 'SET parkedAt = :now',
          ConditionExpression: 'attribute_exists(id) AND attribute_not_exists(deliveredAt) AND attribute_not_exists(skippedAt)',
          ExpressionAttributeValues: { ':now': now.toISOString() },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  /** A parked entry is delivered again (an operator's redrive): it gets a fresh 72-hour window. */
  async reopen(id: string, now: Date): Promise<void> {
    await this.client
      .send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { id },
          UpdateExpression: 'SET windowStartedAt = :now REMOVE parkedAt',
          ConditionExpression: 'attribute_exists(parkedAt)',
          ExpressionAttributeValues: { ':now': now.toISOString() },
        }),
      )
      .catch((error: unknown) => {
        if (!isConditionFailure(error)) throw error;
      });
  }

  /**
   * Marks for publishing again every entry matching `filter` that is neither delivered nor
   * pending: the local queue lives in memory, and parked entries wait for an operator.
   */
  async requeue(which: 'inFlight' | 'parked', now: Date): Promise<number> {
    const filter =
      which === 'parked'
        ? 'attribute_exists(parkedAt) AND attribute_not_exists(deliveredAt)'
        : 'attribute_not_exists(parkedAt) AND attribute_not_exists(deliveredAt) AND attribute_not_exists(skippedAt) AND attribute_not_exists(pendingShard)';
    let requeued = 0;
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await this.client.send(new ScanCommand({ TableName: this.tableName, FilterExpression: filter, ProjectionExpression: 'id', ExclusiveStartKey, ConsistentRead: true }));
      for (const { id } of page.Items ?? []) {
        await this.client.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: { id },
            UpdateExpression: `SET pendingShard = :pending, createdAt = if_not_exists(createdAt, :now)${which === 'parked' ? ', windowStartedAt = :now REMOVE parkedAt' : ''}`,
            ExpressionAttributeValues: { ':pending': PENDING, ':now': now.toISOString() },
          }),
        );
        requeued++;
      }
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
    return requeued;
  }
}
