/** Merchants and API keys in DynamoDB. */
import { GetCommand, PutCommand, QueryCommand, ScanCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ApiKey, Merchant } from '../domain/merchants.js';
import { isConditionFailure } from './dynamo.js';

export interface MerchantStore {
  createMerchant(merchant: Merchant): Promise<void>;
  getMerchant(id: string): Promise<Merchant | undefined>;
  listMerchants(): Promise<Merchant[]>;
  addKey(key: ApiKey): Promise<void>;
  findKeyByDigest(digest: string): Promise<ApiKey | undefined>;
  listKeys(merchantId: string): Promise<ApiKey[]>;
  /** Revokes one of the merchant's keys; false when the merchant has no such key. */
  revokeKey(merchantId: string, keyId: string, now: Date): Promise<boolean>;
}

export class DynamoMerchantStore implements MerchantStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tables: { merchants: string; apiKeys: string },
  ) {}

  async createMerchant(merchant: Merchant): Promise<void> {
    await this.client.send(
      new PutCommand({ TableName: this.tables.merchants, Item: merchant, ConditionExpression: 'attribute_not_exists(id)' }),
    );
  }

  async getMerchant(id: string): Promise<Merchant | undefined> {
    const { Item } = await this.client.send(new GetCommand({ TableName: this.tables.merchants, Key: { id } }));
    return Item as Merchant | undefined;
  }

  async listMerchants(): Promise<Merchant[]> {
    const merchants: Merchant[] = [];
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await this.client.send(new ScanCommand({ TableName: this.tables.merchants, ExclusiveStartKey }));
      merchants.push(...((page.Items ?? []) as Merchant[]));
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
    return merchants.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  async addKey(key: ApiKey): Promise<void> {
    await this.client.send(
      new PutCommand({ TableName: this.tables.apiKeys, Item: key, ConditionExpression: 'attribute_not_exists(digest)' }),
    );
  }

  async findKeyByDigest(digest: string): Promise<ApiKey | undefined> {
    const { Item } = await this.client.send(new GetCommand({ TableName: this.tables.apiKeys, Key: { digest } }));
    return Item as ApiKey | undefined;
  }

  async listKeys(merchantId: string): Promise<ApiKey[]> {
    const { Items } = await this.client.send(
      new QueryCommand({
        TableName: this.tables.apiKeys,
        IndexName: 'byMerchant',
        KeyConditionExpression: 'merchantId = :m',
        ExpressionAttributeValues: { ':m': merchantId },
      }),
    );
    return (Items ?? []) as ApiKey[];
  }

  async revokeKey(merchantId: string, keyId: string, now: Date): Promise<boolean> {
    const key = (await this.listKeys(merchantId)).find((k) => k.keyId === keyId);
    if (!key) return false;
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tables.apiKeys,
          Key: { digest: key.digest },
          UpdateExpression: 'SET #status = :revoked, revokedAt = if_not_exists(revokedAt, :now)',
          ConditionExpression: 'merchantId = :m',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':revoked': 'revoked', ':now': now.toISOString(), ':m': merchantId },
        }),
      );
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
    return true;
  }
}
