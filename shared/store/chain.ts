/**
 * The chain watchers' state in DynamoDB: each network's cursor, moved only from the position it
 * was read at, and the transfers held for merchants that do not take on-chain deposits yet.
 */
import { DeleteCommand, GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ChainCursor } from '../domain/chains/index.js';
import type { HeldTransfer } from '../domain/payments/index.js';
import { isConditionFailure, queryPartition } from './dynamo.js';

const cursorId = (network: string): string => `cursor#${network}`;

export class DynamoChainStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async cursor(network: string): Promise<ChainCursor | undefined> {
    const { Item } = await this.client.send(new GetCommand({ TableName: this.tableName, Key: { id: cursorId(network) }, ConsistentRead: true }));
    return Item ? { number: Item.number as number, hash: Item.hash as string, recent: Item.recent as ChainCursor['recent'] } : undefined;
  }

  /** Moves the cursor if it is still at `from` (none: not yet set); false when another run moved it first. */
  async moveCursor(network: string, to: ChainCursor, from: ChainCursor | undefined, now: Date): Promise<boolean> {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { id: cursorId(network), ...to, movedAt: now.toISOString() },
          ...(from
            ? {
                ConditionExpression: '#hash = :hash AND #number = :number',
                ExpressionAttributeNames: { '#hash': 'hash', '#number': 'number' },
                ExpressionAttributeValues: { ':hash': from.hash, ':number': from.number },
              }
            : { ConditionExpression: 'attribute_not_exists(id)' }),
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  /** Holds a transfer once: false when it is held already. */
  async hold(transfer: HeldTransfer): Promise<boolean> {
    try {
      await this.client.send(new PutCommand({ TableName: this.tableName, Item: { ...transfer, heldNetwork: transfer.network }, ConditionExpression: 'attribute_not_exists(id)' }));
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  /** The transfers held on a network, oldest first. */
  async held(network: string): Promise<HeldTransfer[]> {
    const items = await queryPartition(this.client, this.tableName, 'held', 'heldNetwork', network);
    return items.map(({ heldNetwork: _network, ...item }) => item as unknown as HeldTransfer);
  }

  /** A held transfer that was credited, or whose block left the chain, is held no more. */
  async release(id: string): Promise<void> {
    await this.client.send(new DeleteCommand({ TableName: this.tableName, Key: { id } }));
  }
}
