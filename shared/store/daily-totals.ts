/**
 * The day totals in DynamoDB (shared/domain/ledger/daily-totals.ts), in the merchant's partition of the
 * dailyTotals table, one item per day and currency for the confirmed volume (`dayKey`
 * `YYYY-MM-DD#volume#CUR`, `volume`) and INVOICE_COUNT_SHARDS items per day for the invoices
 * (`YYYY-MM-DD#invoices#N`, `created` and `completed`), every figure a DynamoDB Number: a month of
 * them is one Query of a key range. The changes counted add to them (`dailyTotalWrites`, an ADD in
 * the change's own transaction), so nothing read is written back. Amounts go to DynamoDB as the
 * decimal text they are (NumberValue), where a Number is exact to 38 digits, and come back as text
 * (the query is not unmarshalled into JavaScript numbers): no sum ever passes through a float.
 */
import { QueryCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, NumberValue, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { Decimal, decimalsOf, formatAmount } from '../domain/kernel/index.js';
import type { DailyCount, DailyTotalsStore, DayTotals } from '../domain/ledger/index.js';
import { shardOf, type TransactItem } from './dynamo.js';

/**
 * Every invoice a merchant creates or completes on a day counts on one of this many items, chosen
 * by the invoice's id: one item would make every invoice of a busy merchant's day wait for the
 * others' transactions. The volume needs none: a deposit's transaction writes its balance, one item
 * per merchant and currency, anyway.
 */
export const INVOICE_COUNT_SHARDS = 8;

const dayKeyOf = (count: DailyCount): string => (count.kind === 'volume' ? `${count.day}#volume#${count.currency}` : `${count.day}#invoices#${shardOf(count.invoiceId, INVOICE_COUNT_SHARDS)}`);

/** One item's figures: a volume item's amount, or an invoices item's counters. */
type Figures = { volume?: Decimal; created?: number; completed?: number };

/** What `counts` come to on each item, by merchant and `dayKey`. */
function figuresByItem(counts: readonly DailyCount[]): Map<string, { merchantId: string; dayKey: string; figures: Figures }> {
  const items = new Map<string, { merchantId: string; dayKey: string; figures: Figures }>();
  for (const count of counts) {
    const dayKey = dayKeyOf(count);
    const id = JSON.stringify([count.merchantId, dayKey]);
    const item = items.get(id) ?? { merchantId: count.merchantId, dayKey, figures: {} };
    const { figures } = item;
    if (count.kind === 'volume') figures.volume = (figures.volume ?? new Decimal(0)).plus(count.amount);
    else figures[count.event] = (figures[count.event] ?? 0) + 1;
    items.set(id, item);
  }
  return items;
}

/** The figures as DynamoDB Numbers, by attribute name. */
const numbersOf = (figures: Figures): [string, NumberValue][] =>
  Object.entries(figures).map(([name, value]: [string, Decimal | number]) => [name, NumberValue.from(typeof value === 'number' ? String(value) : value.toFixed())]);

/**
 * The items of a DynamoDB transaction that add `counts` to the totals: an ADD per item (a
 * transaction writes an item once, so counts on one item are summed first), which makes the item
 * if it is new.
 */
export function dailyTotalWrites(tableName: string, counts: readonly DailyCount[]): TransactItem[] {
  return [...figuresByItem(counts).values()].map(({ merchantId, dayKey, figures }) => {
    const numbers = numbersOf(figures);
    return {
      Update: {
        TableName: tableName,
        Key: { merchantId, dayKey },
        UpdateExpression: `ADD ${numbers.map(([name]) => `#${name} :${name}`).join(', ')}`,
        ExpressionAttributeNames: Object.fromEntries(numbers.map(([name]) => [`#${name}`, name])),
        ExpressionAttributeValues: Object.fromEntries(numbers.map(([name, value]) => [`:${name}`, value])),
      },
    };
  });
}

export class DynamoDailyTotalsStore implements DailyTotalsStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async lastDays(merchantId: string, days: readonly string[]): Promise<DayTotals> {
    const totals: DayTotals = { volumes: new Map(), invoices: new Map() };
    const wanted = new Set(days);
    for (const item of await this.itemsOn(merchantId, days)) {
      const [day, kind, name] = item.dayKey!.S!.split('#') as [string, string, string];
      if (!wanted.has(day)) continue;
      if (kind === 'volume') {
        const byDay = totals.volumes.get(name) ?? new Map<string, string>();
        byDay.set(day, formatAmount(new Decimal(item.volume?.N ?? 0), decimalsOf(name)));
        totals.volumes.set(name, byDay);
      } else {
        const counts = totals.invoices.get(day) ?? { created: 0, completed: 0 };
        counts.created += Number(item.created?.N ?? 0);
        counts.completed += Number(item.completed?.N ?? 0);
        totals.invoices.set(day, counts);
      }
    }
    return totals;
  }

  /** Sets each item of the days to what `counts` come to on it, and deletes those they leave at nothing. */
  async replace(merchantId: string, days: readonly string[], counts: readonly DailyCount[]): Promise<void> {
    const wanted = new Set(days);
    const items = [...figuresByItem(counts.filter((count) => count.merchantId === merchantId && wanted.has(count.day))).values()];
    const counted = new Set(items.map(({ dayKey }) => dayKey));
    const left = (await this.itemsOn(merchantId, days)).map((item) => item.dayKey!.S!).filter((dayKey) => wanted.has(dayKey.split('#')[0]!) && !counted.has(dayKey));
    await Promise.all([
      ...items.map(({ dayKey, figures }) => this.client.send(new PutCommand({ TableName: this.tableName, Item: { merchantId, dayKey, ...Object.fromEntries(numbersOf(figures)) } }))),
      ...left.map((dayKey) => this.client.send(new DeleteCommand({ TableName: this.tableName, Key: { merchantId, dayKey } }))),
    ]);
  }

  /**
   * The merchant's items from the first of `days` to the last, as DynamoDB holds them: one Query
   * (a month of items is a few kilobytes, one page), read consistently, so that what a request just
   * counted shows.
   */
  private async itemsOn(merchantId: string, days: readonly string[]): Promise<Record<string, AttributeValue>[]> {
    if (days.length === 0) return [];
    const ordered = [...days].sort();
    const items: Record<string, AttributeValue>[] = [];
    let start: Record<string, AttributeValue> | undefined;
    do {
      const page = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'merchantId = :merchant AND dayKey BETWEEN :from AND :to',
          // Every key of a day starts with the day and `#`; `~` sorts after anything that follows.
          ExpressionAttributeValues: { ':merchant': { S: merchantId }, ':from': { S: `${ordered[0]}#` }, ':to': { S: `${ordered.at(-1)}#~` } },
          ConsistentRead: true,
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      items.push(...(page.Items ?? []));
      start = page.LastEvaluatedKey;
    } while (start);
    return items;
  }
}
