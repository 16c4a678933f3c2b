/**
 * DynamoDB's side of IAM, on one machine: while a function runs, each call it makes through the
 * shared DynamoDB client must be one its route-table entry allows (`tableGrantsOf`, what the AWS
 * stacks grant), or it fails with AccessDeniedException as it would in AWS. Every test that runs a
 * function through the local runtime thereby checks that its entry covers what its code calls.
 * Calls made outside a function (the admin CLI, test setup) are not held to anything.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { GatewayFunction } from '../../shared/routes.js';
import { tableGrantsOf } from '../../shared/store/table-access.js';
import { TABLE_KEYS, tableEnvVar } from '../../shared/store/tables.js';

const running = new AsyncLocalStorage<GatewayFunction>();
const heldClients = new WeakSet<DynamoDBClient>();

/** One action on one table (or one of its indexes), as IAM authorizes it. */
export interface TableAccessRequest {
  action: string;
  table: string;
  index?: string;
}

/** The item-level action each kind of transaction item needs. */
const TRANSACT_ITEM_ACTIONS: Record<string, string> = { Put: 'PutItem', Update: 'UpdateItem', Delete: 'DeleteItem', ConditionCheck: 'ConditionCheckItem' };

type TableInput = { TableName?: string; IndexName?: string };

/** What a DynamoDB call asks of which tables: a transaction asks its items' own actions of each item's table. */
export function accessRequestsOf(commandName: string, input: Record<string, unknown>): TableAccessRequest[] {
  const action = commandName.replace(/Command$/, '');
  switch (action) {
    case 'TransactWriteItems':
      return (input.TransactItems as Array<Record<string, TableInput>>).flatMap((item) =>
        Object.entries(item).map(([kind, { TableName }]) => ({ action: TRANSACT_ITEM_ACTIONS[kind] ?? kind, table: String(TableName) })),
      );
    case 'TransactGetItems':
      return (input.TransactItems as Array<{ Get: TableInput }>).map(({ Get }) => ({ action: 'GetItem', table: String(Get.TableName) }));
    case 'BatchGetItem':
    case 'BatchWriteItem':
      return Object.keys(input.RequestItems as object).map((table) => ({ action, table }));
    default: {
      const { TableName, IndexName } = input as TableInput;
      return [{ action, table: String(TableName), ...(IndexName === undefined ? {} : { index: IndexName }) }];
    }
  }
}

/** Whether the function's grants allow the request: actions on the table itself (a Query of its own key among them), Query on a granted index only. */
export function grantsAllow(fn: Pick<GatewayFunction, 'tables' | 'queries'>, { action, table, index }: TableAccessRequest): boolean {
  const key = TABLE_KEYS.find((candidate) => process.env[tableEnvVar(candidate)] === table);
  const grant = key && tableGrantsOf(fn).find((candidate) => candidate.table === key);
  if (!grant) return false;
  if (action === 'Query' && index !== undefined) return grant.queriedIndexes.includes(index);
  return index === undefined && (grant.actions as readonly string[]).includes(action);
}

export class AccessDeniedException extends Error {
  override readonly name = 'AccessDeniedException';
}

/** Holds every call through `client` made while a function runs (`runAs`) to that function's grants. */
export function holdToTableGrants(client: DynamoDBClient): void {
  if (heldClients.has(client)) return;
  heldClients.add(client);
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const fn = running.getStore();
      if (fn) {
        for (const request of accessRequestsOf(context.commandName ?? '', args.input as Record<string, unknown>)) {
          if (!grantsAllow(fn, request)) {
            const target = request.index === undefined ? request.table : `${request.table} (index ${request.index})`;
            throw new AccessDeniedException(`${fn.name} is not authorized to perform dynamodb:${request.action} on ${target}: its route-table entry does not allow it (shared/routes.ts)`);
          }
        }
      }
      return next(args);
    },
    { step: 'initialize', name: 'localTableGrants' },
  );
}

/** Runs an invocation of `fn`: what it calls through a held client is checked against its grants. */
export const runAs = <T>(fn: GatewayFunction, invocation: () => Promise<T>): Promise<T> => running.run(fn, invocation);
