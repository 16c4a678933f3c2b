/**
 * Reports in DynamoDB: one item each, its outcome written once, while it is pending; deleted by TTL
 * after REPORT_RETENTION_DAYS. While it is built, the item holds how far its file is (`progress`)
 * and which invocation builds it until when (`building`), each written only by that invocation.
 */
import { GetCommand, PutCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Report, ReportLease, ReportProgress, ReportStore } from '../domain/ledger/index.js';
import { isConditionFailure } from './dynamo.js';

export class DynamoReportStore implements ReportStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async create(report: Report): Promise<void> {
    await this.client.send(new PutCommand({ TableName: this.tableName, Item: report, ConditionExpression: 'attribute_not_exists(id)' }));
  }

  async get(id: string): Promise<Report | undefined> {
    const { Item } = await this.client.send(new GetCommand({ TableName: this.tableName, Key: { id }, ConsistentRead: true }));
    return Item as Report | undefined;
  }

  async finish(id: string, { status, rows, fileKey, updatedAt }: Pick<Report, 'status' | 'rows' | 'fileKey' | 'updatedAt'>): Promise<boolean> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { id },
          UpdateExpression: 'SET #status = :status, #rows = :rows, fileKey = :fileKey, updatedAt = :updatedAt REMOVE #progress, #building',
          ConditionExpression: '#status = :pending',
          ExpressionAttributeNames: { '#status': 'status', '#rows': 'rows', '#progress': 'progress', '#building': 'building' },
          ExpressionAttributeValues: { ':status': status, ':rows': rows, ':fileKey': fileKey, ':updatedAt': updatedAt, ':pending': 'pending' },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async claim(id: string, lease: ReportLease, now: Date): Promise<Report | undefined> {
    try {
      const { Attributes } = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { id },
          UpdateExpression: 'SET #building = :lease',
          ConditionExpression: '#status = :pending AND (attribute_not_exists(#building) OR #building.#until < :now)',
          ExpressionAttributeNames: { '#status': 'status', '#building': 'building', '#until': 'until' },
          ExpressionAttributeValues: { ':lease': lease, ':pending': 'pending', ':now': now.toISOString() },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return Attributes as Report;
    } catch (error) {
      if (isConditionFailure(error)) return undefined;
      throw error;
    }
  }

  async saveProgress(id: string, progress: ReportProgress, lease: ReportLease, release: boolean): Promise<boolean> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { id },
          UpdateExpression: `SET #progress = :progress${release ? ' REMOVE #building' : ''}`,
          ConditionExpression: '#building.#token = :token',
          ExpressionAttributeNames: { '#progress': 'progress', '#building': 'building', '#token': 'token' },
          ExpressionAttributeValues: { ':progress': progress, ':token': lease.token },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async newestOf(merchantId: string, limit: number): Promise<Report[]> {
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
    return (Items ?? []) as Report[];
  }
}
