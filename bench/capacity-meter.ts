/**
 * DynamoDB capacity of what the functions do, as DynamoDB answers it (ReturnConsumedCapacity):
 * every call made inside `measure` is kept with its units, by table and index.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { ConsumedCapacity, DynamoDBClient } from '@aws-sdk/client-dynamodb';

/**
 * A value's size as DynamoDB counts it for capacity (items as the document client reads them):
 * strings and binaries by their bytes, a number by about one byte per two significant digits plus
 * one, 1 for booleans and null, 3 for a list or map plus 1 per element and the elements' own sizes
 * (a map's names included).
 */
function valueSize(value: unknown): number {
  if (typeof value === 'string') return Buffer.byteLength(value, 'utf8');
  if (typeof value === 'number')
    return (
      Math.ceil(
        String(Math.abs(value))
          .replace(/^[0.]+|\.|e.*$/g, '')
          .replace(/0+$/, '').length / 2,
      ) + 1
    );
  if (typeof value === 'boolean' || value === null) return 1;
  if (value instanceof Uint8Array) return value.length;
  if (Array.isArray(value)) return 3 + value.reduce((sum: number, element) => sum + 1 + valueSize(element), 0);
  if (typeof value === 'object') return 3 + Object.entries(value as object).reduce((sum, [name, element]) => sum + 1 + Buffer.byteLength(name, 'utf8') + valueSize(element), 0);
  throw new Error(`No size rule for ${typeof value}`);
}

export const itemSize = (item: Record<string, unknown>): number => Object.entries(item).reduce((sum, [name, value]) => sum + Buffer.byteLength(name, 'utf8') + valueSize(value), 0);

/** 0.5 RCU per started 4 KB: a query's items are summed before rounding. */
export const eventuallyConsistentRcu = (bytes: number): number => Math.ceil(bytes / 4096) * 0.5;

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
  /**
   * Keys a BatchGetItem asked for. AWS charges a read for each, found or not; DynamoDB Local
   * reports nothing for a key it did not find.
   */
  keysAsked: number;
  /** The capacity by table and by index (`table/index`), under the table names the call used. */
  byTable: Record<string, number>;
}

/** The commands whose units are read units; every other command's are write units. */
const READ_COMMANDS = new Set(['GetItemCommand', 'QueryCommand', 'ScanCommand', 'BatchGetItemCommand', 'TransactGetItemsCommand']);

export interface ReadWriteUnits {
  read: number;
  write: number;
  /** The write units of TransactWriteItems calls: AWS bills each item of one twice, DynamoDB Local once. */
  transactional: number;
  /** By table and by index (`table/index`), under the table names the calls used. */
  byTable: Record<string, { read: number; write: number }>;
}

/** The calls' units, read and write apart, in all and by table. */
export function readWriteUnits(calls: readonly MeteredCall[]): ReadWriteUnits {
  const units: ReadWriteUnits = { read: 0, write: 0, transactional: 0, byTable: {} };
  for (const call of calls) {
    const kind = READ_COMMANDS.has(call.command) ? 'read' : 'write';
    units[kind] += call.capacity;
    if (call.command === 'TransactWriteItemsCommand') units.transactional += call.capacity;
    for (const [name, used] of Object.entries(call.byTable)) {
      units.byTable[name] ??= { read: 0, write: 0 };
      units.byTable[name][kind] += used;
    }
  }
  return units;
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
        const input = args.input as Record<string, unknown>;
        input.ReturnConsumedCapacity = 'INDEXES';
        const keysAsked = Object.values((input.RequestItems ?? {}) as Record<string, { Keys?: unknown[] }>).reduce((sum, request) => sum + (Array.isArray(request.Keys) ? request.Keys.length : 0), 0);
        const result = await next(args);
        const output = result.output as Record<string, any>;
        const consumed = [output.ConsumedCapacity ?? []].flat() as ConsumedCapacity[];
        const itemsRead =
          (output.Item ? 1 : 0) +
          (output.ScannedCount ?? 0) +
          Object.values((output.Responses ?? {}) as Record<string, unknown[]>).reduce((sum, items) => sum + (Array.isArray(items) ? items.length : 0), 0);
        calls.push({ command: context.commandName ?? '', capacity: consumed.reduce((sum, c) => sum + (c.CapacityUnits ?? 0), 0), itemsRead, keysAsked, byTable: byTableOf(consumed) });
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
