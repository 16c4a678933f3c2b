/**
 * Nothing `npm start` runs can be used from another machine. Every TCP socket the runtime and the
 * processes under it listen on is bound to loopback, but DynamoDB Local's, which cannot be bound
 * to one address: that one must serve the gateway's tables to its data directory's secret access
 * key id only, so that anyone else finds an empty store.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetItemCommand, ListTablesCommand, UpdateItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localDynamoClient } from '../../infra/local/dynamodb.js';
import { localCredentials } from '../../infra/local/environment.js';
import { readRunningStack, type RuntimeInfo } from '../../infra/local/runtime-info.js';
import { digestApiKey } from '../../shared/domain/merchants/merchants.js';
import { callApi, startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';
import { isLoopback, listeningSockets, processTree } from '../support/listening-sockets.js';

let dataDir: string;
let gateway: GatewayProcess;
let stack: RuntimeInfo;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'gateway-sockets-'));
  // Every process `npm start` runs, its own DynamoDB Local included.
  gateway = await startGatewayProcess({ dataDir, ownStore: true });
  stack = (await readRunningStack(dataDir))!;
});

afterAll(async () => {
  await gateway?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

const portOf = (url: string): number => Number(new URL(url).port);

describe('a running gateway', () => {
  it('listens on loopback only, but for DynamoDB Local, on the port it was given', async () => {
    const sockets = await listeningSockets(await processTree(gateway.pid));
    // Found at all: the API, the queue server and the store are among them.
    expect(sockets.map((socket) => socket.port)).toEqual(expect.arrayContaining([portOf(gateway.baseUrl), portOf(stack.sqsEndpoint), portOf(stack.dynamodbEndpoint)]));
    const store = sockets.filter((socket) => socket.port === portOf(stack.dynamodbEndpoint));
    expect(new Set(store.map((socket) => socket.pid))).toEqual(new Set([stack.dynamodbPid]));
    expect(sockets.filter((socket) => !store.includes(socket) && !isLoopback(socket.address))).toEqual([]);
  });

  describe("DynamoDB Local, reached with another access key id than the data directory's", () => {
    let own: DynamoDBClient;
    let intruder: DynamoDBClient;
    beforeAll(async () => {
      own = localDynamoClient(stack.dynamodbEndpoint, await localCredentials(dataDir));
      // The store tells clients apart by their access key id alone, wherever they connect from.
      intruder = localDynamoClient(stack.dynamodbEndpoint, { accessKeyId: 'intruder', secretAccessKey: 'anything' });
    });
    afterAll(() => {
      own?.destroy();
      intruder?.destroy();
    });

    it('lists no table, where the gateway sees its own', async () => {
      expect((await own.send(new ListTablesCommand({}))).TableNames).toEqual(expect.arrayContaining(Object.values(stack.tables)));
      expect((await intruder.send(new ListTablesCommand({}))).TableNames).toEqual([]);
    });

    it('reads no API key digest', async () => {
      const demoKey = new GetItemCommand({ TableName: stack.tables.apiKeys, Key: { digest: { S: digestApiKey(gateway.apiKey) } } });
      expect((await own.send(demoKey)).Item?.merchantId).toBeDefined();
      await expect(intruder.send(demoKey)).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
    });

    it('cannot complete an invoice', async () => {
      const created = await callApi(gateway, 'POST', '/api/v2/invoices', { orderId: randomUUID(), customerId: 'sockets', baseCurrency: 'USDT', amount: 25 });
      expect(created.status, created.text).toBe(200);
      const invoiceId: string = created.body.data.id;
      const complete = new UpdateItemCommand({
        TableName: stack.tables.invoices,
        Key: { id: { S: invoiceId } },
        UpdateExpression: 'SET #status = :completed',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':completed': { S: 'completed' } },
      });
      await expect(intruder.send(complete)).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
      expect((await callApi(gateway, 'GET', `/api/v2/invoices/${invoiceId}`)).body.data.status).toBe('created');
    });
  });
});
