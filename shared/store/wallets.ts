/**
 * Permanent deposit addresses per (merchant, customer) in DynamoDB. A customer's first request
 * allocates the next derivation index from a shared counter; the customer item then fixes that
 * index, and the addresses derived from it, for good.
 */
import { GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { deriveCustomerAddresses, type CustomerAddresses } from '../domain/wallets.js';
import { isConditionFailure } from './dynamo.js';
import type { WalletKeySource } from './wallet-keys.js';

export interface CustomerWallet {
  /** Receiving-chain index; one index serves all three address families. */
  index: number;
  addresses: CustomerAddresses;
  createdAt: string;
}

export interface WalletStore {
  /** The customer's permanent addresses, allocated on first use. */
  addressesFor(merchantId: string, customerId: string): Promise<CustomerWallet>;
}

interface CustomerWalletItem extends CustomerWallet {
  id: string;
  merchantId: string;
  customerId: string;
}

/** Holds how many indexes have been handed out; the next index is that count. */
const INDEX_COUNTER_ID = 'counter#hd';

/** JSON-encodes the pair so an id containing '#' cannot collide with another pair. */
function customerWalletId(merchantId: string, customerId: string): string {
  return `customer#${JSON.stringify([merchantId, customerId])}`;
}

export class DynamoWalletStore implements WalletStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    /** Asked only when a customer's addresses are first derived. */
    private readonly keys: WalletKeySource,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async addressesFor(merchantId: string, customerId: string): Promise<CustomerWallet> {
    const id = customerWalletId(merchantId, customerId);
    const existing = await this.read(id);
    if (existing) return existing;

    // Keys first: no index is used up when they cannot be had.
    const keys = await this.keys();
    const index = await this.allocateIndex();
    const item: CustomerWalletItem = {
      id,
      merchantId,
      customerId,
      index,
      addresses: deriveCustomerAddresses(keys, index),
      createdAt: this.now().toISOString(),
    };
    try {
      await this.client.send(
        new PutCommand({ TableName: this.tableName, Item: item, ConditionExpression: 'attribute_not_exists(id)' }),
      );
      return toWallet(item);
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      // A concurrent first request stored its wallet first; its index wins and ours stays unused.
      const winner = await this.read(id);
      if (!winner) throw new Error(`Wallet ${id} vanished after a conditional write failed on it`);
      return winner;
    }
  }

  private async read(id: string): Promise<CustomerWallet | undefined> {
    const { Item } = await this.client.send(new GetCommand({ TableName: this.tableName, Key: { id }, ConsistentRead: true }));
    return Item ? toWallet(Item as CustomerWalletItem) : undefined;
  }

  private async allocateIndex(): Promise<number> {
    const { Attributes } = await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: { id: INDEX_COUNTER_ID },
        UpdateExpression: 'ADD allocated :one',
        ExpressionAttributeValues: { ':one': 1 },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    const allocated = Attributes?.allocated;
    if (typeof allocated !== 'number') throw new Error('Wallet index counter returned no count');
    return allocated - 1;
  }
}

function toWallet(item: CustomerWalletItem): CustomerWallet {
  return { index: item.index, addresses: item.addresses, createdAt: item.createdAt };
}
