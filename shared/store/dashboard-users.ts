/** The dashboard's users in DynamoDB, by lower-cased e-mail, with the merchant's listing by index. */
import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { AuditEntry, DashboardUser, DashboardUserStore, SignInState } from '../domain/dashboard-access.js';
import type { SealedSecret } from '../vault/envelope.js';
import { auditPut } from './audit-log.js';
import { commitTransaction, isConditionFailure, queryAll } from './dynamo.js';

export class DynamoDashboardUserStore implements DashboardUserStore<SealedSecret> {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tables: { dashboardUsers: string; dashboardInvitations: string; auditLog: string },
  ) {}

  async get(email: string): Promise<DashboardUser<SealedSecret> | undefined> {
    const { Item } = await this.client.send(new GetCommand({ TableName: this.tables.dashboardUsers, Key: { email }, ConsistentRead: true }));
    return Item as DashboardUser<SealedSecret> | undefined;
  }

  async listByMerchant(merchantId: string): Promise<Array<DashboardUser<SealedSecret>>> {
    const items = await queryAll(this.client, {
      TableName: this.tables.dashboardUsers,
      IndexName: 'byMerchant',
      KeyConditionExpression: 'merchantId = :merchant',
      ExpressionAttributeValues: { ':merchant': merchantId },
    });
    return items as unknown as Array<DashboardUser<SealedSecret>>;
  }

  async join(user: DashboardUser<SealedSecret>, invitationId: string, entry: AuditEntry): Promise<boolean> {
    const result = await commitTransaction(this.client, [
      { Delete: { TableName: this.tables.dashboardInvitations, Key: { id: invitationId }, ConditionExpression: 'attribute_exists(id)' } },
      { Put: { TableName: this.tables.dashboardUsers, Item: user, ConditionExpression: 'attribute_not_exists(email)' } },
      auditPut(this.tables.auditLog, entry),
    ]);
    if (result === 'contended') throw new Error('The invitation is being taken by another request');
    return result === 'committed';
  }

  async recordSignIn(before: DashboardUser<SealedSecret>, { failedSignIns, lockedUntil, lastTotpStep, recoveryCodeDigests }: SignInState): Promise<boolean> {
    const names = { '#failed': 'failedSignIns', '#step': 'lastTotpStep', '#codes': 'recoveryCodeDigests', '#locked': 'lockedUntil' };
    const values: Record<string, unknown> = { ':failedBefore': before.failedSignIns, ':failed': failedSignIns, ':codes': recoveryCodeDigests, ':codeCount': before.recoveryCodeDigests.length };
    const set = ['#failed = :failed', '#codes = :codes'];
    const condition = ['#failed = :failedBefore', 'size(#codes) = :codeCount'];
    if (before.lastTotpStep === undefined) condition.push('attribute_not_exists(#step)');
    else {
      condition.push('#step = :stepBefore');
      values[':stepBefore'] = before.lastTotpStep;
    }
    if (lastTotpStep !== undefined) {
      set.push('#step = :step');
      values[':step'] = lastTotpStep;
    }
    if (lockedUntil !== undefined) {
      set.push('#locked = :locked');
      values[':locked'] = lockedUntil;
    }
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tables.dashboardUsers,
          Key: { email: before.email },
          UpdateExpression: `SET ${set.join(', ')}${lockedUntil === undefined ? ' REMOVE #locked' : ''}`,
          ConditionExpression: condition.join(' AND '),
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async remove(merchantId: string, email: string, entry: AuditEntry): Promise<boolean> {
    const result = await commitTransaction(this.client, [
      { Delete: { TableName: this.tables.dashboardUsers, Key: { email }, ConditionExpression: 'merchantId = :merchant', ExpressionAttributeValues: { ':merchant': merchantId } } },
      auditPut(this.tables.auditLog, entry),
    ]);
    if (result === 'contended') throw new Error('The user is being changed by another request');
    return result === 'committed';
  }
}
