/** Merchants and API keys in DynamoDB. */
import { GetCommand, PutCommand, ScanCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ApiKey, ApiKeyStore, BooksHold, CallbackPause, ClearedBooksHold, KeyUseRecorder, Merchant, MerchantRead, RotatedSecretChanges } from '../domain/merchants/index.js';
import type { BooksHolds, RecordPosition } from '../domain/ledger/index.js';
import { DELIVERIES_PER_URL, type PauseChange } from '../domain/callbacks/index.js';
import { isConditionFailure, queryItems, queryPartition } from './dynamo.js';

/** The settings of a merchant that can change after creation. */
export type MerchantChanges = Partial<Omit<Merchant, 'id' | 'createdAt' | 'callbackPause' | 'booksHold' | 'booksHoldCleared'>>;

/**
 * The pause of a merchant's callback deliveries (`Merchant.callbackPause`), written by the callback
 * senders alone, each write touching only that attribute: racing senders count every timeout, and
 * only one of them opens a pause or takes its probe.
 */
export interface CallbackPauseStore {
  /** Counts a timed-out attempt on `url` (afresh when the state was about another URL); the state after it. */
  countTimeout(merchantId: string, url: string): Promise<CallbackPause>;
  /** Applies `change` while the URL's pause still ends at `change.from`; false when another write changed it first. */
  changePause(merchantId: string, url: string, change: PauseChange): Promise<boolean>;
  /** Forgets the URL's timeouts and pause. */
  clearPause(merchantId: string, url: string): Promise<void>;
}

/**
 * The places of deliveries in flight to a merchant's URL (`DELIVERIES_PER_URL`), each an attribute
 * of the merchant's item holding when it frees itself: a conditional write takes a free or expired
 * one, so racing senders never hold more than there are.
 */
export interface DeliveryPlaces {
  /** Takes a place until `holdUntil`; undefined when every place is held past `now`. */
  takeDeliveryPlace(merchantId: string, now: Date, holdUntil: Date): Promise<DeliveryPlace | undefined>;
  /** Frees the place, unless it expired and another delivery took it since. */
  freeDeliveryPlace(merchantId: string, place: DeliveryPlace): Promise<void>;
}

export interface DeliveryPlace {
  attribute: string;
  heldUntil: string;
}

const DELIVERY_PLACE_ATTRIBUTES = Array.from({ length: DELIVERIES_PER_URL }, (_, n) => `callbackDelivery${n}`);

/** Tries of a timeout's count that another sender's write (starting or clearing the state) can make fail. */
const COUNT_TRIES = 3;

export interface MerchantStore extends ApiKeyStore, KeyUseRecorder {
  createMerchant(merchant: Merchant): Promise<void>;
  getMerchant(id: string, read?: MerchantRead): Promise<Merchant | undefined>;
  /** Applies the given changes; undefined when there is no such merchant. */
  updateMerchant(id: string, changes: MerchantChanges): Promise<Merchant | undefined>;
  /**
   * Applies the changes only while the merchant's sealed callback secret is still `current`;
   * false when another write replaced it first.
   */
  replaceCallbackSecret(id: string, current: Merchant['sealedCallbackSecret'], changes: RotatedSecretChanges): Promise<boolean>;
  listMerchants(): Promise<Merchant[]>;
  findKeyByDigest(digest: string): Promise<ApiKey | undefined>;
}

/**
 * Every merchant's item carries the key of the `directory` index, one value for all (a few
 * thousand merchants fit one partition, and the index holds keys only): the books check lists
 * the merchants from it, without scanning the table.
 */
const DIRECTORY = 'merchants';

const toItem = (merchant: Merchant): Record<string, unknown> => ({ ...merchant, directory: DIRECTORY });

/**
 * Before a merchant kept a list of replaced callback secrets, a rotation stored the one it replaced
 * as `previousCallbackSecret` (and its time as `callbackSecretRotatedAt`): such a merchant is read
 * with that secret as its list, and its next rotation writes the list in their place.
 */
const LEGACY_ROTATION_ATTRIBUTES = ['previousCallbackSecret', 'callbackSecretRotatedAt'] as const;

function fromItem(item: Record<string, unknown>): Merchant {
  const { directory: _directory, previousCallbackSecret, callbackSecretRotatedAt: _rotatedAt, ...merchant } = item;
  for (const attribute of DELIVERY_PLACE_ATTRIBUTES) delete merchant[attribute];
  if (previousCallbackSecret !== undefined && merchant.previousCallbackSecrets === undefined) merchant.previousCallbackSecrets = [previousCallbackSecret];
  return merchant as unknown as Merchant;
}

export class DynamoMerchantStore implements MerchantStore, CallbackPauseStore, DeliveryPlaces, BooksHolds {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tables: { merchants: string; apiKeys: string },
  ) {}

  async createMerchant(merchant: Merchant): Promise<void> {
    await this.client.send(new PutCommand({ TableName: this.tables.merchants, Item: toItem(merchant), ConditionExpression: 'attribute_not_exists(id)' }));
  }

  async getMerchant(id: string, read?: MerchantRead): Promise<Merchant | undefined> {
    const { Item } = await this.client.send(new GetCommand({ TableName: this.tables.merchants, Key: { id }, ...(read?.consistent ? { ConsistentRead: true } : {}) }));
    return Item && fromItem(Item);
  }

  /** Every merchant after `after` (all of them from null), oldest first, from the `directory` index. */
  async *directory(after: RecordPosition | null): AsyncIterable<RecordPosition> {
    const items = queryItems(this.client, {
      TableName: this.tables.merchants,
      IndexName: 'directory',
      KeyConditionExpression: 'directory = :directory',
      ExpressionAttributeValues: { ':directory': DIRECTORY },
      ...(after ? { ExclusiveStartKey: { id: after.id, directory: DIRECTORY, createdAt: after.createdAt } } : {}),
    });
    for await (const item of items) yield { id: item.id as string, createdAt: item.createdAt as string };
  }

  /** Lists a merchant created before the directory existed; true when it was not listed yet. */
  async enterDirectory(id: string): Promise<boolean> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tables.merchants,
          Key: { id },
          UpdateExpression: 'SET directory = :directory',
          ConditionExpression: 'attribute_exists(id) AND attribute_not_exists(directory)',
          ExpressionAttributeValues: { ':directory': DIRECTORY },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async holdPayouts(id: string, hold: BooksHold): Promise<BooksHold | undefined> {
    try {
      const { Attributes } = await this.client.send(
        new UpdateCommand({
          TableName: this.tables.merchants,
          Key: { id },
          UpdateExpression: 'SET booksHold = if_not_exists(booksHold, :hold)',
          // An update would create a missing item.
          ConditionExpression: 'attribute_exists(id)',
          ExpressionAttributeValues: { ':hold': hold },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return (Attributes as Merchant).booksHold;
    } catch (error) {
      if (isConditionFailure(error)) return undefined;
      throw error;
    }
  }

  async clearPayoutsHold(id: string, cleared: ClearedBooksHold): Promise<boolean> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tables.merchants,
          Key: { id },
          UpdateExpression: 'REMOVE booksHold SET booksHoldCleared = :cleared',
          // A hold is never changed once placed: its time and its run tell it from a later one.
          ConditionExpression: 'booksHold.heldAt = :heldAt AND booksHold.#run.id = :run',
          ExpressionAttributeNames: { '#run': 'run' },
          ExpressionAttributeValues: { ':cleared': cleared, ':heldAt': cleared.heldAt, ':run': cleared.run.id },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async updateMerchant(id: string, changes: MerchantChanges): Promise<Merchant | undefined> {
    const fields = Object.entries(changes).filter(([, value]) => value !== undefined);
    if (fields.length === 0) return this.getMerchant(id);
    try {
      const { Attributes } = await this.client.send(
        new UpdateCommand({
          TableName: this.tables.merchants,
          Key: { id },
          UpdateExpression: `SET ${fields.map((_, i) => `#f${i} = :v${i}`).join(', ')}`,
          ConditionExpression: 'attribute_exists(id)',
          ExpressionAttributeNames: Object.fromEntries(fields.map(([name], i) => [`#f${i}`, name])),
          ExpressionAttributeValues: Object.fromEntries(fields.map(([, value], i) => [`:v${i}`, value])),
          ReturnValues: 'ALL_NEW',
        }),
      );
      return Attributes && fromItem(Attributes);
    } catch (error) {
      if (isConditionFailure(error)) return undefined;
      throw error;
    }
  }

  async replaceCallbackSecret(id: string, current: Merchant['sealedCallbackSecret'], changes: RotatedSecretChanges): Promise<boolean> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tables.merchants,
          Key: { id },
          UpdateExpression: `SET sealedCallbackSecret = :next, previousCallbackSecrets = :previous REMOVE ${LEGACY_ROTATION_ATTRIBUTES.join(', ')}`,
          // Each sealing draws its own IV, so the ciphertext tells one sealed secret from another;
          // every rotation replaces it, so the list is written only over the one read.
          ConditionExpression: 'sealedCallbackSecret.ciphertext = :current',
          ExpressionAttributeValues: {
            ':next': changes.sealedCallbackSecret,
            ':previous': changes.previousCallbackSecrets,
            ':current': current.ciphertext,
          },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async countTimeout(merchantId: string, url: string): Promise<CallbackPause> {
    for (let tries = 1; ; tries++) {
      try {
        const { Attributes } = await this.client.send(
          new UpdateCommand({
            TableName: this.tables.merchants,
            Key: { id: merchantId },
            UpdateExpression: 'SET callbackPause.timeouts = callbackPause.timeouts + :one',
            ConditionExpression: 'callbackPause.#url = :url',
            ExpressionAttributeNames: { '#url': 'url' },
            ExpressionAttributeValues: { ':one': 1, ':url': url },
            ReturnValues: 'ALL_NEW',
          }),
        );
        return (Attributes as Merchant).callbackPause!;
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
      }
      const first: CallbackPause = { url, timeouts: 1, pauses: 0 };
      try {
        await this.client.send(
          new UpdateCommand({
            TableName: this.tables.merchants,
            Key: { id: merchantId },
            UpdateExpression: 'SET callbackPause = :first',
            ConditionExpression: 'attribute_exists(id) AND (attribute_not_exists(callbackPause) OR callbackPause.#url <> :url)',
            ExpressionAttributeNames: { '#url': 'url' },
            ExpressionAttributeValues: { ':first': first, ':url': url },
          }),
        );
        return first;
      } catch (error) {
        // Another sender started the count between the two writes: count on it.
        if (!isConditionFailure(error) || tries >= COUNT_TRIES) throw error;
      }
    }
  }

  async changePause(merchantId: string, url: string, { from, until, pauses }: PauseChange): Promise<boolean> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tables.merchants,
          Key: { id: merchantId },
          UpdateExpression: 'SET callbackPause.pausedUntil = :until, callbackPause.pauses = :pauses',
          ConditionExpression: `callbackPause.#url = :url AND ${from === undefined ? 'attribute_not_exists(callbackPause.pausedUntil)' : 'callbackPause.pausedUntil = :from'}`,
          ExpressionAttributeNames: { '#url': 'url' },
          ExpressionAttributeValues: { ':until': until, ':pauses': pauses, ':url': url, ...(from === undefined ? {} : { ':from': from }) },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async clearPause(merchantId: string, url: string): Promise<void> {
    await this.client
      .send(
        new UpdateCommand({
          TableName: this.tables.merchants,
          Key: { id: merchantId },
          UpdateExpression: 'REMOVE callbackPause',
          ConditionExpression: 'callbackPause.#url = :url',
          ExpressionAttributeNames: { '#url': 'url' },
          ExpressionAttributeValues: { ':url': url },
        }),
      )
      .catch((error: unknown) => {
        // Already cleared, or about another URL since.
        if (!isConditionFailure(error)) throw error;
      });
  }

  async takeDeliveryPlace(merchantId: string, now: Date, holdUntil: Date): Promise<DeliveryPlace | undefined> {
    // From a random place on, so that racing senders seldom try the same one first.
    const first = Math.floor(Math.random() * DELIVERY_PLACE_ATTRIBUTES.length);
    for (let n = 0; n < DELIVERY_PLACE_ATTRIBUTES.length; n++) {
      const place = { attribute: DELIVERY_PLACE_ATTRIBUTES[(first + n) % DELIVERY_PLACE_ATTRIBUTES.length]!, heldUntil: holdUntil.toISOString() };
      try {
        await this.client.send(
          new UpdateCommand({
            TableName: this.tables.merchants,
            Key: { id: merchantId },
            UpdateExpression: 'SET #place = :until',
            ConditionExpression: 'attribute_exists(id) AND (attribute_not_exists(#place) OR #place < :now)',
            ExpressionAttributeNames: { '#place': place.attribute },
            ExpressionAttributeValues: { ':until': place.heldUntil, ':now': now.toISOString() },
          }),
        );
        return place;
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
      }
    }
    return undefined;
  }

  async freeDeliveryPlace(merchantId: string, { attribute, heldUntil }: DeliveryPlace): Promise<void> {
    await this.client
      .send(
        new UpdateCommand({
          TableName: this.tables.merchants,
          Key: { id: merchantId },
          UpdateExpression: 'REMOVE #place',
          ConditionExpression: '#place = :until',
          ExpressionAttributeNames: { '#place': attribute },
          ExpressionAttributeValues: { ':until': heldUntil },
        }),
      )
      .catch((error: unknown) => {
        // Expired and taken by another delivery since, which frees it itself.
        if (!isConditionFailure(error)) throw error;
      });
  }

  async listMerchants(): Promise<Merchant[]> {
    const merchants: Merchant[] = [];
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await this.client.send(new ScanCommand({ TableName: this.tables.merchants, ExclusiveStartKey }));
      merchants.push(...(page.Items ?? []).map(fromItem));
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
    return merchants.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  async addKey(key: ApiKey): Promise<void> {
    await this.client.send(new PutCommand({ TableName: this.tables.apiKeys, Item: key, ConditionExpression: 'attribute_not_exists(digest)' }));
  }

  async findKeyByDigest(digest: string): Promise<ApiKey | undefined> {
    const { Item } = await this.client.send(new GetCommand({ TableName: this.tables.apiKeys, Key: { digest } }));
    return Item as ApiKey | undefined;
  }

  /** Oldest first, every page of them. */
  async listKeys(merchantId: string): Promise<ApiKey[]> {
    return (await queryPartition(this.client, this.tables.apiKeys, 'byMerchant', 'merchantId', merchantId)) as unknown as ApiKey[];
  }

  async recordKeyUse(digest: string, at: Date, since: Date): Promise<boolean> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tables.apiKeys,
          Key: { digest },
          UpdateExpression: 'SET lastUsedAt = :at',
          // An update would create a missing item: only a stored key is written. ISO times in UTC compare as text.
          ConditionExpression: 'attribute_exists(digest) AND (attribute_not_exists(lastUsedAt) OR lastUsedAt < :since)',
          ExpressionAttributeValues: { ':at': at.toISOString(), ':since': since.toISOString() },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async revokeKey(merchantId: string, keyId: string, now: Date): Promise<boolean> {
    const key = (await this.listKeys(merchantId)).find((k) => k.keyId === keyId);
    if (!key) return false;
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tables.apiKeys,
          Key: { digest: key.digest },
          UpdateExpression: 'SET #status = :revoked, revokedAt = if_not_exists(revokedAt, :now)',
          ConditionExpression: 'merchantId = :m',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':revoked': 'revoked', ':now': now.toISOString(), ':m': merchantId },
        }),
      );
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
    return true;
  }
}
