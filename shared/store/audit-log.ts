/** The dashboard's audit log in DynamoDB: an item per entry, a merchant's read newest first from its index. */
import { PutCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { AuditEntry, AuditLog, CodeUse } from '../domain/dashboard/index.js';
import type { TransactItem } from './dynamo.js';

const positionOf = (entry: AuditEntry): string => `${entry.at}#${entry.id}`;

/** The entry's Put, for a transaction that makes the change it records. */
export const auditPut = (tableName: string, entry: AuditEntry): TransactItem => ({
  Put: { TableName: tableName, Item: { ...entry, position: positionOf(entry) }, ConditionExpression: 'attribute_not_exists(id)' },
});

/**
 * A TOTP code's use on its user, for a transaction that makes the change the code confirmed: only
 * by a user of `merchantId` who took no code of this step or a later one since.
 */
export const codeUseUpdate = (tableName: string, code: CodeUse, merchantId: string): TransactItem => ({
  Update: {
    TableName: tableName,
    Key: { email: code.email },
    UpdateExpression: 'SET #step = :step',
    ConditionExpression: '#merchant = :merchant AND (attribute_not_exists(#step) OR #step < :step)',
    ExpressionAttributeNames: { '#step': 'lastTotpStep', '#merchant': 'merchantId' },
    ExpressionAttributeValues: { ':step': code.step, ':merchant': merchantId },
  },
});

function fromItem(item: Record<string, unknown>): AuditEntry {
  const { position: _position, ...entry } = item;
  return entry as unknown as AuditEntry;
}

export class DynamoAuditLog implements AuditLog {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async append(entry: AuditEntry): Promise<void> {
    await this.client.send(new PutCommand(auditPut(this.tableName, entry).Put!));
  }

  async list(merchantId: string, limit: number): Promise<AuditEntry[]> {
    const { Items } = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: 'byMerchant',
        KeyConditionExpression: 'merchantId = :merchant',
        ExpressionAttributeValues: { ':merchant': merchantId },
        ScanIndexForward: false,
        Limit: limit,
      }),
    );
    return (Items ?? []).map(fromItem);
  }
}
