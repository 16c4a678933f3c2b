/** The dashboard's users in DynamoDB, by lower-cased e-mail, with the merchant's listing by index. */
import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { AuditEntry, DashboardUser, DashboardUserStore, SignInFailure, SignInState } from '../domain/dashboard/index.js';
import type { SealedSecret } from '../domain/kernel/index.js';
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

  async recordSignIn(before: DashboardUser<SealedSecret>, { lastTotpStep, recoveryCodeDigests }: SignInState, at: Date): Promise<boolean> {
    const names = { '#failed': 'failedSignIns', '#step': 'lastTotpStep', '#codes': 'recoveryCodeDigests', '#locked': 'lockedUntil' };
    const values: Record<string, unknown> = { ':failedBefore': before.failedSignIns, ':none': 0, ':codes': recoveryCodeDigests, ':codeCount': before.recoveryCodeDigests.length, ':now': at.toISOString() };
    const set = ['#failed = :none', '#codes = :codes'];
    // Not locked meanwhile: a lock also sets the count to zero, so the count alone could match again.
    const condition = ['#failed = :failedBefore', 'size(#codes) = :codeCount', '(attribute_not_exists(#locked) OR #locked <= :now)'];
    if (before.lastTotpStep === undefined) condition.push('attribute_not_exists(#step)');
    else {
      condition.push('#step = :stepBefore');
      values[':stepBefore'] = before.lastTotpStep;
    }
    if (lastTotpStep !== undefined) {
      set.push('#step = :step');
      values[':step'] = lastTotpStep;
    }
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tables.dashboardUsers,
          Key: { email: before.email },
          UpdateExpression: `SET ${set.join(', ')} REMOVE #locked`,
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

  async countFailedSignIn(email: string, { at, maxFailures, lockedUntil }: SignInFailure): Promise<'counted' | 'locked' | 'locked_already'> {
    const names = { '#failed': 'failedSignIns', '#locked': 'lockedUntil' };
    const unlocked = '(attribute_not_exists(#locked) OR #locked <= :now)';
    let failed: number;
    try {
      const { Attributes } = await this.client.send(
        new UpdateCommand({
          TableName: this.tables.dashboardUsers,
          Key: { email },
          UpdateExpression: 'ADD #failed :one',
          ConditionExpression: `attribute_exists(#email) AND ${unlocked}`,
          ExpressionAttributeNames: { ...names, '#email': 'email' },
          ExpressionAttributeValues: { ':one': 1, ':now': at.toISOString() },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      failed = Number(Attributes?.failedSignIns);
    } catch (error) {
      // Locked already, or removed meanwhile: nothing to count.
      if (isConditionFailure(error)) return 'locked_already';
      throw error;
    }
    if (failed < maxFailures) return 'counted';
    try {
      // Of the failures that reached the limit at once, the first to write locks; the others find it locked.
      await this.client.send(
        new UpdateCommand({
          TableName: this.tables.dashboardUsers,
          Key: { email },
          UpdateExpression: 'SET #locked = :until, #failed = :none',
          ConditionExpression: `#failed >= :max AND ${unlocked}`,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: { ':until': lockedUntil, ':none': 0, ':max': maxFailures, ':now': at.toISOString() },
        }),
      );
      return 'locked';
    } catch (error) {
      if (isConditionFailure(error)) return 'counted';
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
