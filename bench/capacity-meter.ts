/**
 * DynamoDB capacity of what the functions do, as DynamoDB answers it (ReturnConsumedCapacity):
 * every call made inside `measure` is kept with its units, by table and index.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { ConsumedCapacity, DynamoDBClient } from '@aws-sdk/client-dynamodb';

function byTableOf(consumed: readonly ConsumedCapacity[]): Record<string, number> {
  const units: Record<string, number> = {};
  const add = (name: string, used: number | undefined) => (units[name] = (units[name] ?? 0) + (used ?? 0));
  for (const entry of consumed) {
    add(String(entry.TableName), entry.Table?.CapacityUnits ?? entry.CapacityUnits);
    for (const [index, used] of Object.entries(entry.GlobalSecondaryIndexes ?? {})) add(`${entry.TableName}/${index}`, used.CapacityUnits);
  }
  return units;
}

/** A DynamoDB call made for the operation being metered. */
export interface MeteredCall {
  command: string;
  capacity: number;
  /** Items a read returned or examined (GetItem, Query's ScannedCount, BatchGet). */
  itemsRead: number;
  /** The capacity by table and by index (`table/index`), under the table names the call used. */
  byTable: Record<string, number>;
}

/**
 * Asks DynamoDB for the consumed capacity of every call made through the client inside `measure`,
 * and keeps those calls; calls inside `outside` (setup, or what a route's cost leaves out) are not.
 */
export class CapacityMeter {
  private readonly labels = new AsyncLocalStorage<MeteredCall[]>();

  instrument(client: DynamoDBClient): void {
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const calls = this.labels.getStore();
        if (!calls) return next(args);
        (args.input as Record<string, unknown>).ReturnConsumedCapacity = 'INDEXES';
        const result = await next(args);
        const output = result.output as Record<string, any>;
        const consumed = [output.ConsumedCapacity ?? []].flat() as ConsumedCapacity[];
        const itemsRead =
          (output.Item ? 1 : 0) + (output.ScannedCount ?? 0) + Object.values((output.Responses ?? {}) as Record<string, unknown[]>).reduce((sum, items) => sum + (Array.isArray(items) ? items.length : 0), 0);
        calls.push({ command: context.commandName ?? '', capacity: consumed.reduce((sum, c) => sum + (c.CapacityUnits ?? 0), 0), itemsRead, byTable: byTableOf(consumed) });
        return result;
      },
      { step: 'initialize', name: 'capacityMeter' },
    );
  }

  async measure<T>(fn: () => Promise<T>): Promise<{ result: T; calls: MeteredCall[] }> {
    const calls: MeteredCall[] = [];
    const result = await this.labels.run(calls, fn);
    return { result, calls };
  }

  /** Runs `fn` unmetered, inside a metered operation. */
  outside<T>(fn: () => T): T {
    return this.labels.exit(fn);
  }
}
