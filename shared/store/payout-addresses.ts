/**
 * Merchants' payout addresses in DynamoDB: a merchant's partition, one item per network and address
 * (`addressKey` = `{network}#{address}`, the address canonical), so that the key itself refuses the
 * same address twice. Each change is one transaction with its audit entry and, for a change a user
 * confirmed with a TOTP code, the code's use on the user.
 */
import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { AuditEntry, CodeUse } from '../domain/dashboard/index.js';
import type { PayoutAddress, PayoutAddressStore } from '../domain/payouts/index.js';
import { auditPut, codeUseUpdate } from './audit-log.js';
import { commitTransaction, queryAll, type TransactItem } from './dynamo.js';

const addressKeyOf = ({ network, address }: Pick<PayoutAddress, 'network' | 'address'>): string => `${network}#${address}`;

function fromItem(item: Record<string, unknown>): PayoutAddress {
  const { addressKey: _key, ...address } = item;
  return address as unknown as PayoutAddress;
}

export class DynamoPayoutAddressStore implements PayoutAddressStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tables: { payoutAddresses: string; dashboardUsers: string; auditLog: string },
  ) {}

  async list(merchantId: string): Promise<PayoutAddress[]> {
    const items = await queryAll(this.client, {
      TableName: this.tables.payoutAddresses,
      KeyConditionExpression: 'merchantId = :merchant',
      ExpressionAttributeValues: { ':merchant': merchantId },
      // A change of a moment ago counts: an address removed is never listed again.
      ConsistentRead: true,
    });
    return items.map(fromItem);
  }

  async add(address: PayoutAddress, entry: AuditEntry, code?: CodeUse): Promise<'added' | 'duplicate' | 'code_used'> {
    const items: TransactItem[] = [
      { Put: { TableName: this.tables.payoutAddresses, Item: { ...address, addressKey: addressKeyOf(address) }, ConditionExpression: 'attribute_not_exists(merchantId)' } },
      auditPut(this.tables.auditLog, entry),
    ];
    if (code) items.push(codeUseUpdate(this.tables.dashboardUsers, code, address.merchantId));
    const result = await commitTransaction(this.client, items);
    if (result === 'committed') return 'added';
    if (result === 'contended') throw new Error('The payout addresses or the user were being changed by another request');
    // A condition failed: the address's own, or the code's.
    const { Item } = await this.client.send(new GetCommand({ TableName: this.tables.payoutAddresses, Key: { merchantId: address.merchantId, addressKey: addressKeyOf(address) }, ConsistentRead: true }));
    return Item ? 'duplicate' : 'code_used';
  }

  async remove(address: PayoutAddress, entry: AuditEntry): Promise<boolean> {
    const result = await commitTransaction(this.client, [
      {
        Delete: {
          TableName: this.tables.payoutAddresses,
          Key: { merchantId: address.merchantId, addressKey: addressKeyOf(address) },
          // The one read: removed meanwhile, and perhaps added again, it is not this one.
          ConditionExpression: 'id = :id',
          ExpressionAttributeValues: { ':id': address.id },
        },
      },
      auditPut(this.tables.auditLog, entry),
    ]);
    if (result === 'contended') throw new Error('The payout address is being changed by another request');
    return result === 'committed';
  }
}
