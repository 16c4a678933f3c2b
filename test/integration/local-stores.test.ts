import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateTableCommand, DescribeTableCommand, DescribeTimeToLiveCommand, DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { CreateQueueCommand, DeleteQueueCommand, GetQueueAttributesCommand, ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoMerchantFile, ensureDemoMerchant } from '../../infra/local/demo-merchant.js';
import { ensureTables, localDynamoClient, startDynamoDbLocal, type DynamoDbLocal } from '../../infra/local/dynamodb.js';
import { localCredentials, localStoreKeyFile, localTableNames, randomLocalCredentials, type LocalCredentials } from '../../infra/local/environment.js';
import { chainEndpointsOf, readRunningStack, removeRuntimeInfo, runtimeInfoFile, writeRuntimeInfo } from '../../infra/local/runtime-info.js';
import { parseChainsConfig } from '../../shared/config.js';
import { LOCAL_RECEIVE_COUNT_FACTOR } from '../../infra/local/sqs.js';
import { deadLetterQueueNameOf, QUEUES, queueNameOf, type QueueDefinition } from '../../shared/queue/queues.js';
import { retryDelaySeconds, windowClosed } from '../../shared/domain/callbacks/callbacks.js';
import { digestApiKey, generateApiKeyText, generateCallbackSecret, isCallbackSecret } from '../../shared/domain/merchants/merchants.js';
import { TABLE_KEYS, TABLES, type TableKey } from '../../shared/store/tables.js';
import { testCallbackSecrets, testMerchantStore } from '../support/merchants.js';

let client: DynamoDBClient;
let dataDir: string;

beforeAll(async () => {
  // Configured by the functions' environment, as the functions' own client is.
  client = new DynamoDBClient({});
  dataDir = await mkdtemp(join(tmpdir(), 'gateway-local-'));
});

afterAll(async () => {
  client.destroy();
  await rm(dataDir, { recursive: true, force: true });
});

const uniqueNames = (): Record<TableKey, string> => {
  const prefix = `it-${randomUUID().slice(0, 8)}`;
  return Object.fromEntries(TABLE_KEYS.map((key) => [key, `${prefix}-${key}`])) as Record<TableKey, string>;
};

describe('the tables', () => {
  it('are named gateway-<table> locally', () => {
    expect(localTableNames()).toMatchObject({ invoices: 'gateway-invoices', apiKeys: 'gateway-api-keys' });
    expect(process.env.TABLE_API_KEYS).toBe('gateway-api-keys');
  });

  it('are created from the table definitions, indexes and TTL included, and creating them again changes nothing', async () => {
    const names = uniqueNames();
    await ensureTables(client, names);
    await ensureTables(client, names);

    for (const key of TABLE_KEYS) {
      const { Table } = await client.send(new DescribeTableCommand({ TableName: names[key] }));
      const definition = TABLES[key];
      const sortKey = 'sortKey' in definition ? [{ AttributeName: definition.sortKey.name, KeyType: 'RANGE' }] : [];
      expect(Table?.KeySchema).toEqual([{ AttributeName: definition.partitionKey.name, KeyType: 'HASH' }, ...sortKey]);
      const indexes = 'indexes' in definition ? definition.indexes : [];
      expect((Table?.GlobalSecondaryIndexes ?? []).map((i) => i.IndexName).sort()).toEqual(indexes.map((i) => i.name).sort());
    }
    const { TimeToLiveDescription } = await client.send(new DescribeTimeToLiveCommand({ TableName: names.idempotency }));
    expect(TimeToLiveDescription).toEqual({ TimeToLiveStatus: 'ENABLED', AttributeName: 'expiration' });
    const invoices = await client.send(new DescribeTableCommand({ TableName: names.invoices }));
    const projectionOf = (name: string) => invoices.Table?.GlobalSecondaryIndexes?.find((i) => i.IndexName === name)?.Projection;
    expect(projectionOf('openByExpiry')).toEqual({ ProjectionType: 'INCLUDE', NonKeyAttributes: ['merchantId'] });
    expect(projectionOf('byCustomer')).toEqual({ ProjectionType: 'ALL' });
  });

  describe('on a DynamoDB Local of their own', () => {
    // On the suite's shared DynamoDB Local, an added index waited behind every other file's
    // writes (over a minute for one, beside the heaviest); alone it is built in about a second.
    let own: DynamoDbLocal;
    let ownClient: DynamoDBClient;
    beforeAll(async () => {
      const credentials = randomLocalCredentials();
      own = await startDynamoDbLocal({ credentials });
      ownClient = localDynamoClient(own.endpoint, credentials);
    });
    afterAll(async () => {
      ownClient.destroy();
      await own.stop();
    });
    /** The table as it was before its definition had indexes: its key only. */
    const createWithoutIndexes = (names: Record<TableKey, string>, table: TableKey) => {
      const key = TABLES[table].partitionKey.name;
      return ownClient.send(
        new CreateTableCommand({
          TableName: names[table],
          BillingMode: 'PAY_PER_REQUEST',
          AttributeDefinitions: [{ AttributeName: key, AttributeType: 'S' }],
          KeySchema: [{ AttributeName: key, KeyType: 'HASH' }],
        }),
      );
    };

    it('gain an index added to the definitions after they were first created', async () => {
      const names = uniqueNames();
      await createWithoutIndexes(names, 'apiKeys');
      await ensureTables(ownClient, names);
      const { Table } = await ownClient.send(new DescribeTableCommand({ TableName: names.apiKeys }));
      expect(Table?.GlobalSecondaryIndexes?.map((i) => i.IndexName)).toEqual(['byMerchant']);
    });

    it('gain several indexes at once, which index the items written before them that carry their keys', async () => {
      const names = uniqueNames();
      await createWithoutIndexes(names, 'transactions');
      const documents = DynamoDBDocumentClient.from(ownClient);
      // A transaction written before the listing indexes existed: merchantId and createdAt, but no merchantStatus.
      const old = { id: randomUUID(), merchantId: 'merchant-before', createdAt: '2025-01-01T00:00:00.000Z', status: 'confirmed' };
      await documents.send(new PutCommand({ TableName: names.transactions, Item: old }));
      await ensureTables(ownClient, names);
      const { Table } = await ownClient.send(new DescribeTableCommand({ TableName: names.transactions }));
      expect((Table?.GlobalSecondaryIndexes ?? []).map((i) => i.IndexName).sort()).toEqual(TABLES.transactions.indexes.map((i) => i.name).sort());
      const listed = (index: string, attribute: string, value: string) =>
        documents.send(
          new QueryCommand({
            TableName: names.transactions,
            IndexName: index,
            KeyConditionExpression: '#key = :value',
            ExpressionAttributeNames: { '#key': attribute },
            ExpressionAttributeValues: { ':value': value },
          }),
        );
      expect((await listed('byMerchant', 'merchantId', 'merchant-before')).Items?.map((i) => i.id)).toEqual([old.id]);
      expect((await listed('byMerchantStatus', 'merchantStatus', JSON.stringify(['merchant-before', 'confirmed']))).Items).toEqual([]);
    });
  });
});

describe("the store's access key", () => {
  it('is a random key id of the data directory, kept in a 0600 file under keys/ and the same on every call', async () => {
    const dir = await mkdtemp(join(dataDir, 'key-'));
    const credentials = await localCredentials(dir);
    expect(credentials.accessKeyId).toMatch(/^[0-9a-f]{64}$/);
    expect(localStoreKeyFile(dir)).toBe(join(dir, 'keys', 'dynamodb-access-key-id'));
    expect((await stat(join(dir, 'keys'))).mode & 0o777).toBe(0o700);
    expect((await stat(localStoreKeyFile(dir))).mode & 0o777).toBe(0o600);
    expect(await localCredentials(dir)).toEqual(credentials);
    expect(await localCredentials(dir, randomLocalCredentials().accessKeyId)).toEqual(credentials);
    expect(credentials).not.toEqual(await localCredentials(await mkdtemp(join(dataDir, 'key-'))));
  });

  it('can be one a store has already, given before the directory has its own', async () => {
    const { accessKeyId } = randomLocalCredentials();
    expect((await localCredentials(await mkdtemp(join(dataDir, 'key-')), accessKeyId)).accessKeyId).toBe(accessKeyId);
  });

  it("files the tables away from every other key id, and a database from before the store had one becomes the key's", async () => {
    const dir = await mkdtemp(join(dataDir, 'store-'));
    const table = `it-${randomUUID().slice(0, 8)}`;
    /** The tables a client with `as` sees on a DynamoDB Local of `dir` started with `credentials`, once `before` ran. */
    const tablesSeen = async (credentials: LocalCredentials, as: LocalCredentials, before?: (client: DynamoDBClient) => Promise<unknown>) => {
      const store = await startDynamoDbLocal({ dataDir: dir, credentials });
      const storeClient = localDynamoClient(store.endpoint, as);
      try {
        await before?.(storeClient);
        return (await storeClient.send(new ListTablesCommand({}))).TableNames;
      } finally {
        storeClient.destroy();
        await store.stop();
      }
    };
    const earlier = randomLocalCredentials();
    const createTable = (storeClient: DynamoDBClient) =>
      storeClient.send(
        new CreateTableCommand({
          TableName: table,
          BillingMode: 'PAY_PER_REQUEST',
          AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
          KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
        }),
      );
    expect(await tablesSeen(earlier, earlier, createTable)).toEqual([table]);
    // What a store run with -sharedDb, as the gateway ran it before, leaves: one database for every key id.
    await rename(join(dir, `${earlier.accessKeyId}_us-east-1.db`), join(dir, 'shared-local-instance.db'));

    const credentials = randomLocalCredentials();
    expect(await tablesSeen(credentials, credentials)).toEqual([table]);
    expect(await tablesSeen(credentials, { accessKeyId: 'intruder', secretAccessKey: 'any' })).toEqual([]);
    expect((await readdir(dir)).sort()).toEqual([`${credentials.accessKeyId}_us-east-1.db`, 'intruder_us-east-1.db'].sort());
  });

  it("files the tables of each key id apart in the test run's store too, which keeps them in memory and which the e2e runtimes share", async () => {
    const endpoint = process.env.AWS_ENDPOINT_URL_DYNAMODB!;
    const [mine, another] = [randomLocalCredentials(), randomLocalCredentials()];
    const [mineClient, anotherClient] = [localDynamoClient(endpoint, mine), localDynamoClient(endpoint, another)];
    const table = `it-${randomUUID().slice(0, 8)}`;
    try {
      await mineClient.send(
        new CreateTableCommand({
          TableName: table,
          BillingMode: 'PAY_PER_REQUEST',
          AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
          KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
        }),
      );
      expect((await mineClient.send(new ListTablesCommand({}))).TableNames).toEqual([table]);
      expect((await anotherClient.send(new ListTablesCommand({}))).TableNames).toEqual([]);
      // Nor does the run's own key id, the functions' client's.
      await expect(client.send(new DescribeTableCommand({ TableName: table }))).rejects.toThrow(/not found|non-existent/i);
    } finally {
      mineClient.destroy();
      anotherClient.destroy();
    }
  });
});

describe('the queues', () => {
  const demoQueues = (Object.values(QUEUES) as QueueDefinition[]).filter((queue) => queue.stages.includes('demo'));
  let sqs: SQSClient;
  beforeAll(() => {
    sqs = new SQSClient({});
  });
  afterAll(() => sqs.destroy());

  it('are every queue of the demo stage, each in the environment with its dead-letter queue', () => {
    expect(demoQueues.map((queue) => queue.name)).toEqual(['callbacks', 'reports', 'payouts']);
    for (const queue of demoQueues) {
      expect(process.env[queue.urlVariable]).toBe(`${process.env.AWS_ENDPOINT_URL_SQS}/000000000000/${queueNameOf(queue)}`);
      expect(process.env[queue.deadLetterUrlVariable]).toBe(`${process.env.AWS_ENDPOINT_URL_SQS}/000000000000/${deadLetterQueueNameOf(queue)}`);
    }
    // The payouts' queue is FIFO, and so its dead-letter queue: names ending in .fifo.
    expect([queueNameOf(QUEUES.payouts), deadLetterQueueNameOf(QUEUES.payouts)]).toEqual(['payouts.fifo', 'payouts-dlq.fifo']);
  });

  it.each(demoQueues.map((queue) => [queue.name, queue] as const))(
    '%s: has the visibility timeout of the AWS stack and redrives to its dead-letter queue after twice its receive count',
    async (_name, queue) => {
      const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: process.env[queue.urlVariable]!, AttributeNames: ['All'] }));
      // The local server counts each ChangeMessageVisibility as a receive (infra/local/sqs.ts).
      expect(LOCAL_RECEIVE_COUNT_FACTOR).toBe(2);
      expect(JSON.parse(Attributes!.RedrivePolicy!)).toEqual({
        deadLetterTargetArn: `arn:aws:sqs:us-east-1:000000000000:${deadLetterQueueNameOf(queue)}`,
        maxReceiveCount: queue.maxReceiveCount * 2,
      });
      expect(Attributes!.VisibilityTimeout).toBe(String(queue.visibilityTimeoutSeconds));
      const deadLetters = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: process.env[queue.deadLetterUrlVariable]!, AttributeNames: ['QueueArn'] }));
      expect(deadLetters.Attributes?.QueueArn).toBe(`arn:aws:sqs:us-east-1:000000000000:${deadLetterQueueNameOf(queue)}`);
    },
  );

  it('lets a failing callback run its whole retry window before the server would move it', () => {
    // The sender's attempts within 72 hours; each but the last also changes the message's visibility.
    let attempts = 1;
    for (let at = 0; ; attempts++) {
      const delay = retryDelaySeconds(attempts);
      if (windowClosed(new Date(0), new Date(at * 1000), delay)) break;
      at += delay;
    }
    const countedLocally = attempts + (attempts - 1);
    // With the AWS count the server would take the message before the sender parks it, without parkedAt.
    expect(countedLocally).toBeGreaterThan(QUEUES.callbacks.maxReceiveCount);
    expect(countedLocally).toBeLessThan(QUEUES.callbacks.maxReceiveCount * LOCAL_RECEIVE_COUNT_FACTOR);
  });

  it('are served by a server that delivers messages', async () => {
    // A queue of this test's own: other test files publish to the shared callbacks queue meanwhile.
    const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: `it-delivery-${randomUUID().slice(0, 8)}` }));
    try {
      const body = JSON.stringify({ transactionId: randomUUID() });
      await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: body }));
      const { Messages } = await sqs.send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 1 }));
      expect(Messages?.map((m) => m.Body)).toEqual([body]);
    } finally {
      await sqs.send(new DeleteQueueCommand({ QueueUrl }));
    }
  });
});

describe('the demo merchant', () => {
  const store = testMerchantStore();
  const secrets = testCallbackSecrets();

  it('is created on the first start with a demo key kept in a 0600 file and a sealed callback secret, and kept on the next', async () => {
    const dir = await mkdtemp(join(dataDir, 'demo-'));
    const first = await ensureDemoMerchant(store, secrets, dir, {});
    expect(first.apiKey).toMatch(/^gw_demo_[0-9A-Za-z]{32}$/);
    expect(isCallbackSecret(first.callbackSecret)).toBe(true);
    expect(first.callbackUrl).toBeNull();
    expect((await stat(demoMerchantFile(dir))).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(demoMerchantFile(dir), 'utf8'))).toEqual({ merchantId: first.merchantId, apiKey: first.apiKey });
    const stored = await store.getMerchant(first.merchantId);
    expect(JSON.stringify(stored)).not.toContain(first.callbackSecret);
    expect(await secrets.open(first.merchantId, stored!.sealedCallbackSecret)).toBe(first.callbackSecret);
    const key = await store.findKeyByDigest(digestApiKey(first.apiKey));
    expect(key).toMatchObject({ merchantId: first.merchantId, status: 'active' });

    const second = await ensureDemoMerchant(store, secrets, dir, {});
    expect(second).toEqual(first);
    expect(await store.listKeys(first.merchantId)).toHaveLength(1);
  });

  it('takes the key, callback URL and secret from the environment on every start, and keeps them', async () => {
    const dir = await mkdtemp(join(dataDir, 'demo-'));
    const first = await ensureDemoMerchant(store, secrets, dir, {});
    const apiKey = generateApiKeyText('demo');
    const callbackSecret = generateCallbackSecret();
    const configured = await ensureDemoMerchant(store, secrets, dir, { apiKey, callbackSecret, callbackUrl: 'http://localhost:4000/callbacks' });
    expect(configured).toEqual({ merchantId: first.merchantId, apiKey, callbackSecret, callbackUrl: 'http://localhost:4000/callbacks' });
    const stored = await store.getMerchant(first.merchantId);
    expect(stored).toMatchObject({ callbackUrl: 'http://localhost:4000/callbacks' });
    expect(await secrets.open(first.merchantId, stored!.sealedCallbackSecret)).toBe(callbackSecret);
    expect((await store.listKeys(first.merchantId)).map((k) => k.status)).toEqual(['active', 'active']);

    const later = await ensureDemoMerchant(store, secrets, dir, {});
    expect(later).toEqual({ ...configured, callbackUrl: null });
    expect((await store.getMerchant(first.merchantId))?.callbackUrl).toBeNull();
  });

  it('replaces a saved key that was revoked, and refuses a revoked key from the environment', async () => {
    const dir = await mkdtemp(join(dataDir, 'demo-'));
    const first = await ensureDemoMerchant(store, secrets, dir, {});
    const [key] = await store.listKeys(first.merchantId);
    await store.revokeKey(first.merchantId, key!.keyId, new Date());

    const next = await ensureDemoMerchant(store, secrets, dir, {});
    expect(next.apiKey).not.toBe(first.apiKey);
    expect(await store.findKeyByDigest(digestApiKey(next.apiKey))).toMatchObject({ status: 'active', merchantId: first.merchantId });

    await expect(ensureDemoMerchant(store, secrets, dir, { apiKey: first.apiKey })).rejects.toThrow('GATEWAY_DEMO_API_KEY has been revoked');
  });

  it('refuses a key of another merchant from the environment', async () => {
    const other = await ensureDemoMerchant(store, secrets, await mkdtemp(join(dataDir, 'demo-')), {});
    const dir = await mkdtemp(join(dataDir, 'demo-'));
    await expect(ensureDemoMerchant(store, secrets, dir, { apiKey: other.apiKey })).rejects.toThrow('belongs to another merchant');
  });

  it('is made again under its old id and key, with a new callback secret, when the store lost it', async () => {
    const dir = await mkdtemp(join(dataDir, 'demo-'));
    const saved = { merchantId: randomUUID(), apiKey: generateApiKeyText('demo') };
    await writeFile(demoMerchantFile(dir), JSON.stringify(saved));
    const remade = await ensureDemoMerchant(store, secrets, dir, {});
    expect(remade).toEqual({ ...saved, callbackSecret: expect.any(String), callbackUrl: null });
    expect(isCallbackSecret(remade.callbackSecret)).toBe(true);
    expect(await store.getMerchant(saved.merchantId)).toMatchObject({ name: 'Demo merchant' });
  });

  it('refuses a damaged credentials file rather than replacing it', async () => {
    const dir = await mkdtemp(join(dataDir, 'demo-'));
    await writeFile(demoMerchantFile(dir), '{"merchantId":');
    await expect(ensureDemoMerchant(store, secrets, dir, {})).rejects.toThrow('does not hold demo merchant credentials');
  });
});

describe('runtime.json', () => {
  const info = {
    stage: 'demo' as const,
    baseUrl: 'http://localhost:3000',
    region: 'us-east-1',
    dynamodbEndpoint: 'http://127.0.0.1:1',
    sqsEndpoint: 'http://127.0.0.1:2',
    tables: localTableNames(),
    chains: { bitcoin: { rpcUrl: 'http://gateway:secret@127.0.0.1:18443', tokens: {} } },
    vaultKeyFile: '/nowhere/master.key',
  };

  it('names a running stack, and is ignored once its process is gone', async () => {
    const dir = await mkdtemp(join(dataDir, 'info-'));
    expect(await readRunningStack(dir)).toBeUndefined();
    await writeRuntimeInfo(dir, { ...info, pid: process.pid });
    expect(await readRunningStack(dir)).toEqual({ ...info, pid: process.pid });
    expect((await stat(runtimeInfoFile(dir))).mode & 0o777).toBe(0o600);

    await writeRuntimeInfo(dir, { ...info, pid: 2 ** 22 + 1 });
    expect(await readRunningStack(dir)).toBeUndefined();
    await removeRuntimeInfo(dir);
    await removeRuntimeInfo(dir);
  });

  it('names the networks the stack has a node of, as its watcher is given them: endpoints, chain id, tokens, Tron key', () => {
    const chains = parseChainsConfig('demo', {
      GATEWAY_RPC_ETHEREUM: 'http://127.0.0.1:8545, http://127.0.0.1:8546',
      GATEWAY_TOKENS_ETHEREUM: JSON.stringify({ USDT: '0x5FbDB2315678afecb367f032d93F642f64180aa3' }),
      GATEWAY_RPC_BITCOIN: 'http://gateway:secret@127.0.0.1:18443',
      GATEWAY_RPC_TRON: 'https://nile.trongrid.io',
      GATEWAY_API_KEY_TRON: 'tron-key',
    });
    expect(chainEndpointsOf(chains)).toEqual({
      bitcoin: { rpcUrl: 'http://gateway:secret@127.0.0.1:18443', tokens: {} },
      ethereum: { rpcUrl: 'http://127.0.0.1:8545,http://127.0.0.1:8546', chainId: 11155111, tokens: { USDT: { address: '0x5FbDB2315678afecb367f032d93F642f64180aa3', decimals: 6 } } },
      tron: { rpcUrl: 'https://nile.trongrid.io', apiKey: 'tron-key', tokens: { USDT: { address: 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf', decimals: 6 } } },
    });
  });
});
