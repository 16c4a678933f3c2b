/**
 * The local runtime holds each function to its route-table grants, as IAM holds it in AWS: the
 * calls its entry allows reach DynamoDB Local, any other fails with AccessDeniedException before
 * it is sent. Calls made outside a function (the admin CLI, the local requeue) are not held.
 */
import { randomUUID } from 'node:crypto';
import { GetCommand, QueryCommand, ScanCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { invoker } from '../../infra/local/functions.js';
import { AccessDeniedException, accessRequestsOf, holdToTableGrants, runAs } from '../../infra/local/table-grants.js';
import { config } from '../../shared/config.js';
import { FUNCTIONS, type GatewayFunction } from '../../shared/routes.js';
import { DynamoDailyTotalsStore } from '../../shared/store/daily-totals.js';
import { documentClient, dynamoClient } from '../../shared/store/dynamo.js';
import { createTestGateway, invoke, loadFunction } from '../support/invoke.js';

const entry = (name: string): GatewayFunction => FUNCTIONS.find((fn) => fn.name === name)!;
const tables = () => config().tables;

const getInvoiceItem = () => new GetCommand({ TableName: tables().invoices, Key: { id: randomUUID() } });
/** Invoices due in a shard nobody writes: an index read that finds nothing. */
const queryExpiryIndex = () =>
  new QueryCommand({
    TableName: tables().invoices,
    IndexName: 'openByExpiry',
    KeyConditionExpression: 'expiryShard = :shard AND expiresAt <= :now',
    ExpressionAttributeValues: { ':shard': `unused#${randomUUID()}`, ':now': new Date().toISOString() },
  });
/** A transaction that checks an invoice and writes a transaction (its items' tables, not their outcome, are what is checked). */
const checkInvoiceAndWriteTransaction = (invoiceAction: 'ConditionCheck' | 'Put') =>
  new TransactWriteCommand({
    TransactItems: [
      invoiceAction === 'ConditionCheck'
        ? { ConditionCheck: { TableName: tables().invoices, Key: { id: randomUUID() }, ConditionExpression: 'attribute_exists(id)' } }
        : { Put: { TableName: tables().invoices, Item: { id: randomUUID() }, ConditionExpression: 'attribute_not_exists(id)' } },
      { Put: { TableName: tables().transactions, Item: { id: randomUUID() }, ConditionExpression: 'attribute_not_exists(id)' } },
    ],
  });

beforeAll(() => {
  holdToTableGrants(dynamoClient);
});

describe('a function running locally', () => {
  it('reaches DynamoDB with the calls its entry allows', async () => {
    const read = await runAs(entry('get-invoice'), () => documentClient.send(getInvoiceItem()));
    expect(read.$metadata.httpStatusCode).toBe(200);
    expect(read.Item).toBeUndefined();
    await expect(runAs(entry('expire-invoices'), () => documentClient.send(queryExpiryIndex()))).resolves.toMatchObject({ Items: [] });
  });

  it('is refused a Query on an index its entry does not name, and any Scan', async () => {
    await expect(runAs(entry('get-invoice'), () => documentClient.send(queryExpiryIndex()))).rejects.toThrow(
      new AccessDeniedException(`get-invoice is not authorized to perform dynamodb:Query on ${tables().invoices} (index openByExpiry): its route-table entry does not allow it (shared/routes.ts)`),
    );
    // Not even on the table whose index it queries: the publisher's sweep reads the index, never the table.
    await expect(runAs(entry('publish-callbacks'), () => documentClient.send(new ScanCommand({ TableName: tables().outbox, Limit: 1 })))).rejects.toBeInstanceOf(AccessDeniedException);
  });

  it('is refused a table its entry does not name, and a write on a table it only reads', async () => {
    await expect(runAs(entry('get-docs'), () => documentClient.send(getInvoiceItem()))).rejects.toThrow(/get-docs is not authorized to perform dynamodb:GetItem/);
    // confirm-deposit updates the invoice a deposit pays, and may not put one.
    await expect(runAs(entry('confirm-deposit'), () => documentClient.send(checkInvoiceAndWriteTransaction('Put')))).rejects.toThrow(
      /confirm-deposit is not authorized to perform dynamodb:PutItem on .*invoices/,
    );
    await expect(runAs(entry('get-invoice'), () => documentClient.send(checkInvoiceAndWriteTransaction('ConditionCheck')))).rejects.toThrow(
      /get-invoice is not authorized to perform dynamodb:ConditionCheckItem/,
    );
  });

  it("queries a table's own key range only with Query in its entry for that table, and an index only as `queries` names it", async () => {
    const readTotals = () => new DynamoDailyTotalsStore(documentClient, tables().dailyTotals).lastDays(randomUUID(), ['2026-06-01']);
    const reader = (grants: GatewayFunction['tables']): GatewayFunction => ({ ...entry('get-invoice'), tables: grants });
    await expect(runAs(reader({ dailyTotals: ['Query'] }), readTotals)).resolves.toEqual({ volumes: new Map(), invoices: new Map() });
    await expect(runAs(reader({ dailyTotals: ['GetItem', 'UpdateItem'] }), readTotals)).rejects.toThrow(
      new AccessDeniedException(`get-invoice is not authorized to perform dynamodb:Query on ${tables().dailyTotals}: its route-table entry does not allow it (shared/routes.ts)`),
    );
    await expect(runAs(reader({ invoices: ['Query'] }), () => documentClient.send(queryExpiryIndex()))).rejects.toThrow(/dynamodb:Query on .* \(index openByExpiry\)/);
  });

  it('is held to its grants through the runtime invoker, end to end', async () => {
    const unknownInvoice = randomUUID();
    // With its own entry the status route answers 404 for an unknown invoice...
    expect((await invoke('get-checkout-status', { pathParameters: { invoiceId: unknownInvoice } })).status).toBe(404);
    // ...and with an entry that names no table, its read is refused and the request fails.
    const run = invoker(loadFunction);
    const withoutTables = createTestGateway({ invoke: (fn, event) => run(fn.name === 'get-checkout-status' ? { ...fn, tables: {} } : fn, event) });
    expect((await invoke('get-checkout-status', { pathParameters: { invoiceId: unknownInvoice }, gateway: withoutTables })).status).toBe(500);
  });

  it('is not held to anything outside an invocation: the admin CLI and the local requeue scan', async () => {
    await expect(documentClient.send(new ScanCommand({ TableName: tables().outbox, Limit: 1 }))).resolves.toBeDefined();
  });
});

describe('accessRequestsOf', () => {
  it("asks each transaction item's action of its own table", () => {
    expect(
      accessRequestsOf('TransactWriteItemsCommand', {
        TransactItems: [{ Put: { TableName: 't' } }, { Update: { TableName: 'i' } }, { ConditionCheck: { TableName: 'i' } }, { Delete: { TableName: 'u' } }],
      }),
    ).toEqual([
      { action: 'PutItem', table: 't' },
      { action: 'UpdateItem', table: 'i' },
      { action: 'ConditionCheckItem', table: 'i' },
      { action: 'DeleteItem', table: 'u' },
    ]);
    expect(accessRequestsOf('QueryCommand', { TableName: 'o', IndexName: 'unpublished' })).toEqual([{ action: 'Query', table: 'o', index: 'unpublished' }]);
    expect(accessRequestsOf('BatchGetItemCommand', { RequestItems: { a: {}, b: {} } })).toEqual([
      { action: 'BatchGetItem', table: 'a' },
      { action: 'BatchGetItem', table: 'b' },
    ]);
  });
});
