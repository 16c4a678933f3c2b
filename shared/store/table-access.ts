/**
 * What a function's route-table entry (`tables` and `queries`) lets it do to each table, as the
 * DynamoDB actions IAM knows. The AWS stacks grant exactly these and nothing else, and the local
 * runtime refuses any other call a function makes, so every test that runs a function also checks
 * that its entry covers what its code calls.
 */
import type { GatewayFunction, TableAction } from '../routes.js';
import type { TableKey } from './tables.js';

/** One table's grant: actions on the table itself (item actions, a Query of its own key), and Query on the named indexes only. */
export interface TableGrant {
  table: TableKey;
  actions: readonly TableAction[];
  queriedIndexes: readonly string[];
}

/** The grants of a function, one per table it touches, from its route-table entry. */
export function tableGrantsOf(definition: Pick<GatewayFunction, 'tables' | 'queries'>): TableGrant[] {
  const keys = new Set([...Object.keys(definition.tables), ...Object.keys(definition.queries ?? {})] as TableKey[]);
  return [...keys].map((table) => ({
    table,
    actions: definition.tables[table] ?? [],
    queriedIndexes: [...((definition.queries?.[table] ?? []) as readonly string[])],
  }));
}
