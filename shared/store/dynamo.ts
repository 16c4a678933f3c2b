/**
 * The container's DynamoDB document client. The endpoint comes from the SDK's own settings
 * (`AWS_ENDPOINT_URL_DYNAMODB` points it at DynamoDB Local).
 */
import { createHash } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, paginateQuery, TransactWriteCommand, type QueryCommandInput, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import type { CommitResult } from '../domain/kernel/index.js';
import { traced } from '../observability/tracer.js';

export const dynamoClient = traced(new DynamoDBClient({}));

export const documentClient = DynamoDBDocumentClient.from(dynamoClient, {
  marshallOptions: { removeUndefinedValues: true },
});

/** Every item a query finds, a page at a time as they are read, in the order of the index. */
export async function* queryItems(client: DynamoDBDocumentClient, input: QueryCommandInput): AsyncGenerator<Record<string, unknown>> {
  for await (const page of paginateQuery({ client }, input)) yield* page.Items ?? [];
}

/** Every item a query finds, through all its pages, in the order of the index. */
export async function queryAll(client: DynamoDBDocumentClient, input: QueryCommandInput): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  for await (const item of queryItems(client, input)) items.push(item);
  return items;
}

/**
 * The query of an index partition's items created from `from` to `to` (inclusive; the sort key is
 * `createdAt`), oldest first, whose `where` attributes also equal the values given.
 */
export function createdRangeQuery(
  tableName: string,
  indexName: string,
  partition: { attribute: string; value: string },
  from: string,
  to: string,
  where: Readonly<Record<string, string>> = {},
): QueryCommandInput {
  const conditions = Object.keys(where).map((_attribute, index) => `#where${index} = :where${index}`);
  return {
    TableName: tableName,
    IndexName: indexName,
    KeyConditionExpression: '#partition = :partition AND createdAt BETWEEN :from AND :to',
    ...(conditions.length > 0 ? { FilterExpression: conditions.join(' AND ') } : {}),
    ExpressionAttributeNames: { '#partition': partition.attribute, ...Object.fromEntries(Object.keys(where).map((attribute, index) => [`#where${index}`, attribute])) },
    ExpressionAttributeValues: {
      ':partition': partition.value,
      ':from': from,
      ':to': to,
      ...Object.fromEntries(Object.values(where).map((value, index) => [`:where${index}`, value])),
    },
  };
}

/** Every item of an index whose partition key `attribute` equals `value` (a sparse index read whole). */
export function queryPartition(client: DynamoDBDocumentClient, tableName: string, indexName: string, attribute: string, value: string): Promise<Record<string, unknown>[]> {
  return queryAll(client, {
    TableName: tableName,
    IndexName: indexName,
    KeyConditionExpression: '#key = :value',
    ExpressionAttributeNames: { '#key': attribute },
    ExpressionAttributeValues: { ':value': value },
  });
}

/** Which of `shards` items an id's writes go to: the same wherever it is computed, and spread evenly over them. */
export const shardOf = (id: string, shards: number): number => createHash('sha256').update(id).digest()[0]! % shards;

/**
 * Transactions and balances are spread over this many partitions of their `changes` index by id,
 * so that no one partition takes every write; the books check reads each.
 */
export const CHANGE_SHARDS = 8;

/** The `changes` index partition of an item: its `changeShard`, written with every version of it. */
export const changeShardOf = (id: string): string => String(shardOf(id, CHANGE_SHARDS));

/** What the `changes` index of a table holds that was written from `from` to `to` (its `updatedAt`, both included), a page at a time, shard after shard. */
export async function* changedBetween(client: DynamoDBDocumentClient, tableName: string, from: string, to: string): AsyncGenerator<Record<string, unknown>[]> {
  for (let shard = 0; shard < CHANGE_SHARDS; shard++) {
    const query: QueryCommandInput = {
      TableName: tableName,
      IndexName: 'changes',
      KeyConditionExpression: 'changeShard = :shard AND updatedAt BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':shard': String(shard), ':from': from, ':to': to },
    };
    for await (const page of paginateQuery({ client }, query)) yield page.Items ?? [];
  }
}

/** BatchGetItem's limit on keys per call. */
export const BATCH_GET_LIMIT = 100;

/** True when a transaction lost a race with another writer of the same items; retrying may succeed. */
export function isTransactionConflict(error: unknown): boolean {
  return (
    error instanceof Error &&
    error.name === 'TransactionCanceledException' &&
    ((error as Error & { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? []).some((r) => r.Code === 'TransactionConflict')
  );
}

/** True when a conditional write (alone or in a transaction) lost its condition. */
export function isConditionFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.name === 'ConditionalCheckFailedException') return true;
  if (error.name === 'TransactionCanceledException') {
    const reasons = (error as Error & { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
    return reasons.some((r) => r.Code === 'ConditionalCheckFailed');
  }
  return false;
}

/** One item of a DynamoDB transaction. */
export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** Writes `items` in one DynamoDB transaction; `stale` when a condition failed, `contended` when another writer of the same items was under way. */
export async function commitTransaction(client: DynamoDBDocumentClient, items: TransactItem[]): Promise<CommitResult> {
  try {
    await client.send(new TransactWriteCommand({ TransactItems: items }));
    return 'committed';
  } catch (error) {
    if (isConditionFailure(error)) return 'stale';
    if (isTransactionConflict(error)) return 'contended';
    throw error;
  }
}
