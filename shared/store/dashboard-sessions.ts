/** Dashboard sessions in DynamoDB, by the digest of their cookie's token; DynamoDB forgets each 12 hours after it was last seen. */
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { DashboardSession, SessionStore } from '../domain/dashboard/index.js';
import { isConditionFailure, queryItems } from './dynamo.js';

export class DynamoSessionStore implements SessionStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async put(session: DashboardSession): Promise<void> {
    await this.client.send(new PutCommand({ TableName: this.tableName, Item: session, ConditionExpression: 'attribute_not_exists(id)' }));
  }

  async get(id: string): Promise<DashboardSession | undefined> {
    const { Item } = await this.client.send(new GetCommand({ TableName: this.tableName, Key: { id }, ConsistentRead: true }));
    return Item as DashboardSession | undefined;
  }

  /** Only a session that still exists: one signed out meanwhile is not brought back. */
  async touch({ id, lastSeenAt, expiresAt }: DashboardSession): Promise<void> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { id },
          UpdateExpression: 'SET lastSeenAt = :seen, expiresAt = :expires',
          ConditionExpression: 'attribute_exists(id)',
          ExpressionAttributeValues: { ':seen': lastSeenAt, ':expires': expiresAt },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }

  async delete(id: string): Promise<void> {
    await this.client.send(new DeleteCommand({ TableName: this.tableName, Key: { id } }));
  }

  async deleteAllOf(email: string): Promise<void> {
    const sessions = queryItems(this.client, { TableName: this.tableName, IndexName: 'byUser', KeyConditionExpression: 'userId = :user', ExpressionAttributeValues: { ':user': email } });
    for await (const { id } of sessions) await this.delete(String(id));
  }
}
