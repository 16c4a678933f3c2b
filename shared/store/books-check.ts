/**
 * The books check's state in DynamoDB (docs/operations.md#the-hourly-check): one item (`state`)
 * with how far its runs have read the changes and where the full pass is, and one per balance (`id`
 * = JSON [merchantId, currency], as the balance's) with the sums of its entries up to a sequence.
 * Only the check's runs write them, one at a time (its schedule reserves one instance); an
 * operator's request for a full pass is an attribute of its own, which no run writes.
 */
import { GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { BalanceKey, BooksCheckState, BooksCheckStore, EntrySums } from '../domain/ledger/index.js';

const STATE_ID = 'state';

const checkpointId = ({ merchantId, currency }: BalanceKey): string => JSON.stringify([merchantId, currency]);

export class DynamoBooksCheckStore implements BooksCheckStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async state(): Promise<BooksCheckState> {
    const { Item } = await this.client.send(new GetCommand({ TableName: this.tableName, Key: { id: STATE_ID }, ConsistentRead: true }));
    const { id: _id, ...state } = Item ?? {};
    return state as BooksCheckState;
  }

  /** Writes the runs' attributes only, so that an operator's request written meanwhile stays. */
  async saveState({ checkedTo, pass, lastPass }: Omit<BooksCheckState, 'passAskedAt'>): Promise<void> {
    const set = Object.entries({ checkedTo, pass, lastPass }).filter(([, value]) => value !== undefined);
    await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: { id: STATE_ID },
        UpdateExpression: `SET ${set.map(([name]) => `#${name} = :${name}`).join(', ')}${pass ? '' : ' REMOVE #pass'}`,
        ExpressionAttributeNames: Object.fromEntries([...set.map(([name]) => [`#${name}`, name]), ...(pass ? [] : [['#pass', 'pass']])]),
        ExpressionAttributeValues: Object.fromEntries(set.map(([name, value]) => [`:${name}`, value])),
      }),
    );
  }

  /** An operator's request: the next run begins a full pass (one under way begins again). */
  async askForPass(at: Date): Promise<BooksCheckState> {
    const { Attributes } = await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: { id: STATE_ID },
        UpdateExpression: 'SET passAskedAt = :at',
        ExpressionAttributeValues: { ':at': at.toISOString() },
        ReturnValues: 'ALL_NEW',
      }),
    );
    const { id: _id, ...state } = Attributes ?? {};
    return state as BooksCheckState;
  }

  async checkpoint(key: BalanceKey): Promise<EntrySums | undefined> {
    const { Item } = await this.client.send(new GetCommand({ TableName: this.tableName, Key: { id: checkpointId(key) } }));
    if (!Item) return undefined;
    const { sequence, available, reserved } = Item as EntrySums;
    return { sequence, available, reserved };
  }

  async saveCheckpoint(key: BalanceKey, { sequence, available, reserved }: EntrySums): Promise<void> {
    await this.client.send(new PutCommand({ TableName: this.tableName, Item: { id: checkpointId(key), sequence, available, reserved } }));
  }
}
