/**
 * Permanent deposit addresses per (merchant, customer) in DynamoDB. A customer's first request
 * allocates the next derivation index from a shared counter; the customer item then fixes that
 * index, and the addresses derived from it, for good. Beside it, an item per address of each
 * family names its owner, keyed as the chain watchers know addresses (`ownerKey`), so a watcher
 * can tell whose address a transfer paid.
 */
import { BatchGetCommand, GetCommand, PutCommand, ScanCommand, TransactWriteCommand, UpdateCommand, type BatchGetCommandOutput, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Stage } from '../stage.js';
import type { AddressOwner } from '../domain/payments/index.js';
import { ADDRESS_FAMILIES, deriveCustomerAddresses, ownerKey, type AddressFamily, type CustomerAddresses } from '../domain/chains/index.js';
import { BATCH_GET_LIMIT, isConditionFailure, isTransactionConflict, queryItems } from './dynamo.js';
import type { WalletKeySource } from './wallet-keys.js';
import { optimisticAttempts } from '../domain/kernel/index.js';

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
/**
 * Says every owner item is in the `ownersByFamily` index: written with the first wallet of a new
 * table, and by `backfillOwners` on a table that had wallets before the index.
 */
const OWNERS_INDEXED_ID = 'marker#ownersByFamily';

/** JSON-encodes the pair so an id containing '#' cannot collide with another pair. */
function customerWalletId(merchantId: string, customerId: string): string {
  return `customer#${JSON.stringify([merchantId, customerId])}`;
}

const ownerItemId = (family: AddressFamily, key: string): string => `address#${family}#${key}`;

/** What derives a new customer's addresses: the wallet keys, asked only then, and the stage whose networks the addresses are written for. */
export interface AddressDerivation {
  keys: WalletKeySource;
  stage: Stage;
}

export class DynamoWalletStore implements WalletStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    /** A store that only looks owners up derives nothing. */
    private readonly derivation?: AddressDerivation,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async addressesFor(merchantId: string, customerId: string, beforeAllocating?: () => Promise<void>): Promise<CustomerWallet> {
    const id = customerWalletId(merchantId, customerId);
    const existing = await this.read(id);
    if (existing) return existing;

    // Keys first: no index is used up when they cannot be had.
    if (!this.derivation) throw new Error('This wallet store has no wallet keys to derive addresses with');
    const keys = await this.derivation.keys();
    await beforeAllocating?.();
    const index = await this.allocateIndex();
    const item: CustomerWalletItem = {
      id,
      merchantId,
      customerId,
      index,
      addresses: deriveCustomerAddresses(keys, index, this.derivation.stage),
      createdAt: this.now().toISOString(),
    };
    // The customer's item and its addresses' owner items, together or not at all.
    const write = new TransactWriteCommand({
      TransactItems: [
        { Put: { TableName: this.tableName, Item: item, ConditionExpression: 'attribute_not_exists(id)' } },
        ...ADDRESS_FAMILIES.map((family) => ({
          Put: { TableName: this.tableName, Item: ownerItem(family, item), ConditionExpression: 'attribute_not_exists(id)' },
        })),
        ...(index === 0 ? [{ Put: { TableName: this.tableName, Item: { id: OWNERS_INDEXED_ID, at: item.createdAt } } }] : []),
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

  /** The owners of those of `keys` (`ownerKey`s of `family`) that are customers' deposit addresses, by key. */
  async ownersOf(family: AddressFamily, keys: readonly string[]): Promise<Map<string, AddressOwner>> {
    const owners = new Map<string, AddressOwner>();
    const prefix = ownerItemId(family, '');
    const ids = [...new Set(keys.map((key) => ownerItemId(family, key)))];
    for (let start = 0; start < ids.length; start += BATCH_GET_LIMIT) {
      let batch: Record<string, unknown>[] | undefined = ids.slice(start, start + BATCH_GET_LIMIT).map((id) => ({ id }));
      while (batch && batch.length > 0) {
        const page: BatchGetCommandOutput = await this.client.send(new BatchGetCommand({ RequestItems: { [this.tableName]: { Keys: batch } } }));
        for (const item of page.Responses?.[this.tableName] ?? []) {
          owners.set(String(item.id).slice(prefix.length), { merchantId: item.merchantId as string, customerId: item.customerId as string });
        }
        // Keys DynamoDB left for later (throttled) are asked again.
        batch = page.UnprocessedKeys?.[this.tableName]?.Keys;
      }
    }
    return owners;
  }

  /**
   * Writes the owner items customers' wallets lack, or lack in the `ownersByFamily` index: wallets
   * allocated while only EVM addresses had them, or before the index (docs/operations.md#watching-chains).
   * Scans the table once; run again, it writes nothing.
   */
  async backfillOwners(): Promise<{ customers: number; written: number }> {
    let customers = 0;
    let written = 0;
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await this.client.send(
        new ScanCommand({ TableName: this.tableName, FilterExpression: 'begins_with(id, :customer)', ExpressionAttributeValues: { ':customer': 'customer#' }, ExclusiveStartKey }),
      );
      for (const item of (page.Items ?? []) as CustomerWalletItem[]) {
        customers++;
        for (const family of ADDRESS_FAMILIES) {
          try {
            await this.client.send(new PutCommand({ TableName: this.tableName, Item: ownerItem(family, item), ConditionExpression: 'attribute_not_exists(id) OR attribute_not_exists(addressFamily)' }));
            written++;
          } catch (error) {
            if (!isConditionFailure(error)) throw error;
          }
        }
      }
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
    await this.client.send(new PutCommand({ TableName: this.tableName, Item: { id: OWNERS_INDEXED_ID, at: this.now().toISOString() } }));
    return { customers, written };
  }

  /** Whether every owner item is in the `ownersByFamily` index: true when no wallet was ever allocated, or once marked so. */
  async ownersIndexed(): Promise<boolean> {
    const item = async (id: string) => (await this.client.send(new GetCommand({ TableName: this.tableName, Key: { id }, ConsistentRead: true }))).Item;
    return (await item(OWNERS_INDEXED_ID)) !== undefined || (await item(INDEX_COUNTER_ID)) === undefined;
  }

  /**
   * The keys (`ownerKey`) of the family's customer addresses whose wallets were allocated at or
   * after `since` (all of them without it), oldest first, from the keys-only `ownersByFamily` index.
   */
  async *ownerKeysSince(family: AddressFamily, since?: string): AsyncIterable<{ key: string; createdAt: string }> {
    const prefix = ownerItemId(family, '');
    const items = queryItems(this.client, {
      TableName: this.tableName,
      IndexName: 'ownersByFamily',
      KeyConditionExpression: since === undefined ? 'addressFamily = :family' : 'addressFamily = :family AND createdAt >= :since',
      ExpressionAttributeValues: { ':family': family, ...(since === undefined ? {} : { ':since': since }) },
    });
    for await (const item of items) yield { key: String(item.id).slice(prefix.length), createdAt: item.createdAt as string };
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

/** The item naming the owner of an address (its `ownerKey`) of `family`; its family and time put it in the `ownersByFamily` index. */
export function ownerItemOf(family: AddressFamily, key: string, { merchantId, customerId }: AddressOwner, createdAt: string): Record<string, string> {
  return { id: ownerItemId(family, key), merchantId, customerId, addressFamily: family, createdAt };
}

function ownerItem(family: AddressFamily, item: CustomerWalletItem): Record<string, string> {
  return ownerItemOf(family, ownerKey(family, item.addresses[family]), item, item.createdAt);
}

function toWallet(item: CustomerWalletItem): CustomerWallet {
  return { index: item.index, addresses: item.addresses, createdAt: item.createdAt };
}
