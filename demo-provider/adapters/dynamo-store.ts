/**
 * The demo provider's store in its DynamoDB table, in AWS and on one machine (DynamoDB Local).
 * Every write that must happen once is conditional, so that the table, not a read before the
 * write, decides between two requests racing.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { DemoStore } from '../core/ports.js';
import type { DemoRecord, Outcome, PaymentRecord, RefundOutcome } from '../core/records.js';
import { DEMO_PROVIDER_TABLE, RECORD_RETENTION_DAYS } from '../table.js';

const KEY = DEMO_PROVIDER_TABLE.partitionKey.name;
const PURGE_AT = DEMO_PROVIDER_TABLE.ttlAttribute;

/** The record of an item: everything but the table's own bookkeeping. */
function recordOf(item: Record<string, unknown>): DemoRecord {
  const { [PURGE_AT]: _purgeAt, ...record } = item;
  return record as unknown as DemoRecord;
}

/** Epoch seconds after which DynamoDB's TTL deletes the record. */
const purgeAtOf = (record: DemoRecord): number => Math.floor(Date.parse(record.createdAt) / 1000) + RECORD_RETENTION_DAYS * 24 * 3600;

export class DynamoDemoStore implements DemoStore {
  constructor(
    private readonly documents: Pick<DynamoDBDocumentClient, 'send'>,
    private readonly tableName: string,
  ) {}

  async get(providerReference: string): Promise<DemoRecord | undefined> {
    const { Item } = await this.documents.send(new GetCommand({ TableName: this.tableName, Key: { [KEY]: providerReference }, ConsistentRead: true }));
    return Item ? recordOf(Item) : undefined;
  }

  async addOnce(record: DemoRecord): Promise<{ stored: DemoRecord; added: boolean }> {
    try {
      await this.documents.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...record, [PURGE_AT]: purgeAtOf(record) },
          ConditionExpression: 'attribute_not_exists(#key)',
          ExpressionAttributeNames: { '#key': KEY },
        }),
      );
      return { stored: record, added: true };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      return { stored: await this.existing(record.providerReference), added: false };
    }
  }

  async setUtrOnce(providerReference: string, utr: string, decidesAt: string): Promise<PaymentRecord> {
    try {
      const { Attributes } = await this.documents.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { [KEY]: providerReference },
          UpdateExpression: 'SET utr = :utr, utrDecidesAt = :decidesAt',
          ConditionExpression: 'attribute_exists(#key) AND kind = :payment AND attribute_not_exists(utr)',
          ExpressionAttributeNames: { '#key': KEY },
          ExpressionAttributeValues: { ':utr': utr, ':decidesAt': decidesAt, ':payment': 'payment' },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return recordOf(Attributes!) as PaymentRecord;
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      const stored = await this.existing(providerReference);
      if (stored.kind !== 'payment') throw new Error(`${providerReference} is not a payment`);
      return stored;
    }
  }

  recordOutcomeOnce(providerReference: string, outcome: Outcome): Promise<boolean> {
    return this.setOutcomeOnce(providerReference, 'payment', outcome);
  }

  async countRefundOnce(paymentReference: string, refundReference: string, refundedAmount: string, counted: string | undefined): Promise<boolean> {
    try {
      await this.documents.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { [KEY]: paymentReference },
          // The total and the list of what it counts change together, in one item: no refund is counted twice, none lost.
          UpdateExpression: 'SET refundedAmount = :refunded, refundReferences = list_append(if_not_exists(refundReferences, :none), :counting)',
          ConditionExpression: `attribute_exists(#key) AND kind = :payment AND NOT contains(refundReferences, :refund) AND ${counted === undefined ? 'attribute_not_exists(refundedAmount)' : 'refundedAmount = :counted'}`,
          ExpressionAttributeNames: { '#key': KEY },
          ExpressionAttributeValues: {
            ':refunded': refundedAmount,
            ':none': [],
            ':counting': [refundReference],
            ':refund': refundReference,
            ':payment': 'payment',
            ...(counted === undefined ? {} : { ':counted': counted }),
          },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  recordRefundOutcomeOnce(providerReference: string, outcome: RefundOutcome): Promise<boolean> {
    return this.setOutcomeOnce(providerReference, 'refund', outcome);
  }

  private async setOutcomeOnce(providerReference: string, kind: DemoRecord['kind'], outcome: Outcome | RefundOutcome): Promise<boolean> {
    try {
      await this.documents.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { [KEY]: providerReference },
          UpdateExpression: 'SET outcome = :outcome',
          ConditionExpression: 'attribute_exists(#key) AND kind = :kind AND attribute_not_exists(outcome)',
          ExpressionAttributeNames: { '#key': KEY },
          ExpressionAttributeValues: { ':outcome': outcome, ':kind': kind },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  /** A record a condition has just found: it exists, unless deleted since (which nothing does but TTL). */
  private async existing(providerReference: string): Promise<DemoRecord> {
    const record = await this.get(providerReference);
    if (!record) throw new Error(`${providerReference} vanished between a conditional write and the read after it`);
    return record;
  }
}
