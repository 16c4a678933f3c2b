/** Reports in DynamoDB: one item each, its outcome written once, while it is pending; deleted by TTL after REPORT_RETENTION_DAYS. */
import { GetCommand, PutCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ReportStore } from '../domain/report-service.js';
import type { Report } from '../domain/reports.js';
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
          UpdateExpression: 'SET #status = :status, #rows = :rows, fileKey = :fileKey, updatedAt = :updatedAt',
          ConditionExpression: '#status = :pending',
          ExpressionAttributeNames: { '#status': 'status', '#rows': 'rows' },
          ExpressionAttributeValues: { ':status': status, ':rows': rows, ':fileKey': fileKey, ':updatedAt': updatedAt, ':pending': 'pending' },
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
      new QueryCommand({ TableName: this.tableName, IndexName: 'byMerchant', KeyConditionExpression: 'merchantId = :merchant', ExpressionAttributeValues: { ':merchant': merchantId }, ScanIndexForward: false, Limit: limit }),
    );
    return (Items ?? []) as Report[];
  }
}
