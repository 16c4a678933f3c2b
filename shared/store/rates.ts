/** Live exchange rates in DynamoDB: one item per currency, its newest USD price and when it was quoted. */
import { BatchGetCommand, PutCommand, type BatchGetCommandOutput, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { toDecimal } from '../domain/kernel/index.js';
import type { RateQuote } from '../domain/rates/index.js';
import { BATCH_GET_LIMIT, isConditionFailure } from './dynamo.js';

interface RateItem {
  id: string;
  /** Decimal text: the USD price. */
  price: string;
  quotedAt: string;
  symbol: string;
  symbolPrice: string;
}

export class DynamoRateStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** Stores the quote unless the stored one is as new or newer (a slow run never overwrites a later one); false then. */
  async save(quote: RateQuote): Promise<boolean> {
    const item: RateItem = {
      id: quote.currency,
      price: quote.price.toFixed(),
      quotedAt: quote.quotedAt.toISOString(),
      symbol: quote.symbol,
      symbolPrice: quote.symbolPrice,
    };
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: item,
          ConditionExpression: 'attribute_not_exists(id) OR quotedAt < :quotedAt',
          ExpressionAttributeValues: { ':quotedAt': item.quotedAt },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async newest(currencies: readonly string[]): Promise<RateQuote[]> {
    if (currencies.length === 0) return [];
    if (currencies.length > BATCH_GET_LIMIT) throw new Error(`At most ${BATCH_GET_LIMIT} currencies are read at once`);
    const items: RateItem[] = [];
    let keys: Record<string, unknown>[] | undefined = [...new Set(currencies)].map((id) => ({ id }));
    // Eventually consistent is enough: a price a second old is as good as one quoted now.
    while (keys && keys.length > 0) {
      const page: BatchGetCommandOutput = await this.client.send(new BatchGetCommand({ RequestItems: { [this.tableName]: { Keys: keys } } }));
      items.push(...((page.Responses?.[this.tableName] ?? []) as RateItem[]));
      // Keys DynamoDB left for later (throttled) are asked again.
      keys = page.UnprocessedKeys?.[this.tableName]?.Keys;
    }
    return items.map((item) => ({
      currency: item.id,
      price: toDecimal(item.price),
      quotedAt: new Date(item.quotedAt),
      symbol: item.symbol,
      symbolPrice: item.symbolPrice,
    }));
  }
}
