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
import { DynamoChainStore } from '../../shared/store/chain.js';
import { documentClient, dynamoClient } from '../../shared/store/dynamo.js';
import { DynamoInvoiceStore } from '../../shared/store/invoices.js';
import { DynamoTransactionStore } from '../../shared/store/transactions.js';
import { DynamoWalletStore } from '../../shared/store/wallets.js';
import { transactionService } from '../../functions/commons/transactions.js';
import { Decimal } from '../../shared/domain/money.js';
import { createTestGateway, invoke, loadFunction } from '../support/invoke.js';
import { seedMerchant } from '../support/merchants.js';

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
    await expect(runAs(entry('publish-callbacks'), () => documentClient.send(new ScanCommand({ TableName: tables().outbox, Limit: 1 })))).rejects.toBeInstanceOf(
      AccessDeniedException,
    );
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

  it('is held to its grants through the runtime invoker, end to end', async () => {
    const unknownInvoice = randomUUID();
    // With its own entry the status route answers 404 for an unknown invoice...
    expect((await invoke('get-checkout-status', { pathParameters: { invoiceId: unknownInvoice } })).status).toBe(404);
    // ...and with an entry that names no table, its read is refused and the request fails.
    const run = invoker(loadFunction);
    const withoutTables = createTestGateway({ invoke: (fn, event) => run(fn.name === 'get-checkout-status' ? { ...fn, tables: {} } : fn, event) });
    expect((await invoke('get-checkout-status', { pathParameters: { invoiceId: unknownInvoice }, gateway: withoutTables })).status).toBe(500);
  });

  // The watcher's own run needs a chain; these are the calls its run makes, through the stores and the service it runs with.
  it("covers the chain watcher's calls: its cursor and held transfers, owners of addresses, a customer's invoices, deposits recorded, followed and given up", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const customerId = `c-${randomUUID()}`;
    const created = await invoke('create-invoice', { apiKey, body: { orderId: randomUUID(), customerId, baseCurrency: 'USDT', invoiceStrategy: 'fixed', amount: 25 } });
    expect(created.status).toBe(200);
    const invoice = created.body.data;
    const network = 'ethereum' as const;
    const block = (number: number) => ({ number, hash: `0x${number.toString(16).padStart(64, '0')}` });
    const deposit = (n: number) => ({
      amount: new Decimal('10'),
      currency: 'USDT',
      network,
      status: 'processing' as const,
      transactionHash: `0x${randomUUID().replaceAll('-', '').padEnd(64, '0')}`,
      chain: { blockNumber: n, blockHash: block(n).hash, logIndex: n },
      uniqueId: `transfer#${randomUUID()}`,
    });

    await runAs(entry('watch-chain'), async () => {
      const chain = new DynamoChainStore(documentClient, tables().chain);
      const cursorNetwork = `test-${randomUUID()}`;
      expect(await chain.cursor(cursorNetwork)).toBeUndefined();
      expect(await chain.moveCursor(cursorNetwork, { ...block(1), recent: [block(1)] }, undefined, new Date())).toBe(true);
      const heldId = `transfer#${randomUUID()}`;
      const held = { id: heldId, network, transactionHash: block(2).hash, logIndex: null, blockNumber: 2, blockHash: block(2).hash, to: invoice.wallet.address.toLowerCase(), asset: 'USDT' as const, amount: '1', merchantId: merchant.id, customerId, reason: 'no-invoice' as const, seenAt: new Date().toISOString() };
      expect(await chain.hold(held)).toBe(true);
      expect((await chain.held(network)).map((transfer) => transfer.id)).toContain(heldId);
      await chain.release(heldId);

      const owners = await new DynamoWalletStore(documentClient, tables().wallets).evmOwners([invoice.wallet.address]);
      expect(owners.get(invoice.wallet.address.toLowerCase())).toEqual({ merchantId: merchant.id, customerId });
      const found: string[] = [];
      for await (const candidate of new DynamoInvoiceStore(documentClient, tables()).customerInvoices(merchant.id, customerId, { paymentCurrency: 'USDT' })) found.push(candidate.id);
      expect(found).toEqual([invoice.id]);

      // One deposit reaches its confirmations (the invoice is paid, a callback owed); another leaves the chain and gives up its claim.
      const [confirmed, dropped] = [deposit(3), deposit(4)];
      const first = await transactionService.recordDeposit(merchant.id, invoice.id, confirmed);
      const second = await transactionService.recordDeposit(merchant.id, invoice.id, dropped);
      expect(await transactionService.recordDeposit(merchant.id, invoice.id, confirmed)).toMatchObject({ id: first.id });
      const pending = await new DynamoTransactionStore(documentClient, tables()).pendingOnChain(network);
      expect(pending.map((transaction) => transaction.id)).toEqual(expect.arrayContaining([first.id, second.id]));
      expect(await transactionService.settle(merchant.id, first.id, 'confirmed')).toMatchObject({ status: 'confirmed' });
      expect(await transactionService.settle(merchant.id, second.id, 'failed', { callback: false, releaseClaim: dropped.uniqueId })).toMatchObject({ status: 'failed' });
    });
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
