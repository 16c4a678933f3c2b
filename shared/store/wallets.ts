/**
 * Permanent deposit addresses per (merchant, customer) in DynamoDB. A customer's first request
 * allocates the next derivation index from a shared counter; the customer item then fixes that
 * index, and the addresses derived from it, for good. Beside it, an item per EVM address names
 * its owner, so a chain watcher can tell whose address a transfer paid.
 */
import { BatchGetCommand, GetCommand, TransactWriteCommand, UpdateCommand, type BatchGetCommandOutput, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { AddressOwner } from '../domain/chain-watcher.js';
import { deriveCustomerAddresses, type CustomerAddresses } from '../domain/wallets.js';
import { BATCH_GET_LIMIT, isConditionFailure, isTransactionConflict } from './dynamo.js';
import type { WalletKeySource } from './wallet-keys.js';
import { optimisticAttempts } from '../domain/retry.js';

export interface CustomerWallet {
  /** Receiving-chain index; one index serves all three address families. */
  index: number;
  addresses: CustomerAddresses;
  createdAt: string;
}

export interface WalletStore {
  /**
   * The customer's permanent addresses, allocated on first use. `beforeAllocating` runs once
   * before a new index is used up for good: whatever it throws stops the allocation.
   */
  addressesFor(merchantId: string, customerId: string, beforeAllocating?: () => Promise<void>): Promise<CustomerWallet>;
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

/** EVM addresses compared in lower case: checksum case carries no identity. */
const evmAddressId = (address: string): string => `address#evm#${address.toLowerCase()}`;


export class DynamoWalletStore implements WalletStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    /** Asked only when a customer's addresses are first derived; a store that only looks owners up has none. */
    private readonly keys?: WalletKeySource,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async addressesFor(merchantId: string, customerId: string, beforeAllocating?: () => Promise<void>): Promise<CustomerWallet> {
    const id = customerWalletId(merchantId, customerId);
    const existing = await this.read(id);
    if (existing) return existing;

    // Keys first: no index is used up when they cannot be had.
    if (!this.keys) throw new Error('This wallet store has no wallet keys to derive addresses with');
    const keys = await this.keys();
    await beforeAllocating?.();
    const index = await this.allocateIndex();
    const item: CustomerWalletItem = {
      id,
      merchantId,
      customerId,
      index,
      addresses: deriveCustomerAddresses(keys, index),
      createdAt: this.now().toISOString(),
    };
    // The customer's item and its EVM address's owner item, together or not at all.
    const write = new TransactWriteCommand({
      TransactItems: [
        { Put: { TableName: this.tableName, Item: item, ConditionExpression: 'attribute_not_exists(id)' } },
        { Put: { TableName: this.tableName, Item: { id: evmAddressId(item.addresses.evm), merchantId, customerId }, ConditionExpression: 'attribute_not_exists(id)' } },
      ],
    });
    let lost: unknown;
    for await (const _attempt of optimisticAttempts()) {
      try {
        await this.client.send(write);
        return toWallet(item);
      } catch (error) {
        if (!isConditionFailure(error) && !isTransactionConflict(error)) throw error;
        // A concurrent first request stored its wallet first (or is storing it): its index wins and ours stays unused.
        const winner = await this.read(id);
        if (winner) return winner;
        lost = error;
      }
    }
    throw lost;
  }

  /** The owners of those of `addresses` that are customers' EVM deposit addresses, by lower-cased address. */
  async evmOwners(addresses: readonly string[]): Promise<Map<string, AddressOwner>> {
    const owners = new Map<string, AddressOwner>();
    const ids = [...new Set(addresses.map(evmAddressId))];
    for (let start = 0; start < ids.length; start += BATCH_GET_LIMIT) {
      let keys: Record<string, unknown>[] | undefined = ids.slice(start, start + BATCH_GET_LIMIT).map((id) => ({ id }));
      while (keys && keys.length > 0) {
        const page: BatchGetCommandOutput = await this.client.send(new BatchGetCommand({ RequestItems: { [this.tableName]: { Keys: keys } } }));
        for (const item of page.Responses?.[this.tableName] ?? []) {
          owners.set(String(item.id).slice('address#evm#'.length), { merchantId: item.merchantId as string, customerId: item.customerId as string });
        }
        // Keys DynamoDB left for later (throttled) are asked again.
        keys = page.UnprocessedKeys?.[this.tableName]?.Keys;
      }
    }
    return owners;
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
