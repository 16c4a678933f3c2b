/** Dashboard invitations in DynamoDB, by the digest of their link's token; DynamoDB forgets each once it has expired. */
import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { AuditEntry, Invitation, InvitationStore } from '../domain/dashboard/index.js';
import { auditPut } from './audit-log.js';
import { commitTransaction } from './dynamo.js';

export class DynamoInvitationStore implements InvitationStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tables: { dashboardInvitations: string; auditLog: string },
  ) {}

  async put(invitation: Invitation, entry: AuditEntry): Promise<void> {
    const item = { ...invitation, expiresAtEpoch: Math.ceil(Date.parse(invitation.expiresAt) / 1000) };
    const result = await commitTransaction(this.client, [
      { Put: { TableName: this.tables.dashboardInvitations, Item: item, ConditionExpression: 'attribute_not_exists(id)' } },
      auditPut(this.tables.auditLog, entry),
    ]);
    if (result !== 'committed') throw new Error(`The invitation could not be stored: ${result}`);
  }

  async get(id: string): Promise<Invitation | undefined> {
    const { Item } = await this.client.send(new GetCommand({ TableName: this.tables.dashboardInvitations, Key: { id }, ConsistentRead: true }));
    if (!Item) return undefined;
    const { expiresAtEpoch: _epoch, ...invitation } = Item;
    return invitation as Invitation;
  }
}
