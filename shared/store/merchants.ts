/** Merchants and API keys in DynamoDB. */
import { GetCommand, PutCommand, QueryCommand, ScanCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ApiKey, Merchant, RotatedSecretChanges } from '../domain/merchants.js';
import { isConditionFailure } from './dynamo.js';

/** The settings of a merchant that can change after creation. */
export type MerchantChanges = Partial<Omit<Merchant, 'id' | 'createdAt'>>;

export interface MerchantStore {
  createMerchant(merchant: Merchant): Promise<void>;
  getMerchant(id: string): Promise<Merchant | undefined>;
  /** Applies the given changes; undefined when there is no such merchant. */
  updateMerchant(id: string, changes: MerchantChanges): Promise<Merchant | undefined>;
  /**
   * Applies the changes only while the merchant's sealed callback secret is still `current`;
   * false when another write replaced it first.
   */
  replaceCallbackSecret(id: string, current: Merchant['sealedCallbackSecret'], changes: RotatedSecretChanges, requestedAt: Date): Promise<boolean>;
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

  async updateMerchant(id: string, changes: MerchantChanges): Promise<Merchant | undefined> {
    const fields = Object.entries(changes).filter(([, value]) => value !== undefined);
    if (fields.length === 0) return this.getMerchant(id);
    try {
      const { Attributes } = await this.client.send(
        new UpdateCommand({
          TableName: this.tables.merchants,
          Key: { id },
          UpdateExpression: `SET ${fields.map((_, i) => `#f${i} = :v${i}`).join(', ')}`,
          ConditionExpression: 'attribute_exists(id)',
          ExpressionAttributeNames: Object.fromEntries(fields.map(([name], i) => [`#f${i}`, name])),
          ExpressionAttributeValues: Object.fromEntries(fields.map(([, value], i) => [`:v${i}`, value])),
          ReturnValues: 'ALL_NEW',
        }),
      );
      return Attributes as Merchant;
    } catch (error) {
      if (isConditionFailure(error)) return undefined;
      throw error;
    }
  }

  async replaceCallbackSecret(id: string, current: Merchant['sealedCallbackSecret'], changes: RotatedSecretChanges, requestedAt: Date): Promise<boolean> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tables.merchants,
          Key: { id },
          UpdateExpression: 'SET sealedCallbackSecret = :next, previousCallbackSecret = :previous, callbackSecretRotatedAt = :rotatedAt',
          // Each sealing draws its own IV, so the ciphertext tells one sealed secret from another.
          // ISO times in UTC compare as text.
          ConditionExpression: 'sealedCallbackSecret.ciphertext = :current AND (attribute_not_exists(callbackSecretRotatedAt) OR callbackSecretRotatedAt < :requestedAt)',
          ExpressionAttributeValues: {
            ':next': changes.sealedCallbackSecret,
            ':previous': changes.previousCallbackSecret,
            ':rotatedAt': changes.callbackSecretRotatedAt,
            ':current': current.ciphertext,
            ':requestedAt': requestedAt.toISOString(),
          },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
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
