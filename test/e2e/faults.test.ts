/**
 * Faults under load, against the local runtime as `npm start` runs it: DynamoDB out of reach, every
 * connection to it dropped with requests in flight, the queue server restarted, the runtime itself SIGKILLed during 200 concurrent
 * creates and deposits. Clients retry as a merchant's would (the same orderId, the same
 * Idempotency-Key). After recovery every acknowledged write is there, nothing is doubled, and
 * every callback reached the receiver at least once on the wire, so once per webhook-id.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { startDynamoDbLocal } from '../../infra/local/dynamodb.js';
import { localCredentials } from '../../infra/local/environment.js';
import { startLocalSqs, type LocalSqs } from '../../infra/local/sqs.js';
import { startCallbackReceiver, type CallbackReceiver } from '../support/callback-receiver.js';
import { dynamoDbLocalProcesses, startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';
import { openRuntimeStack } from '../support/runtime-stack.js';
import { startTcpOutage } from '../support/tcp-outage.js';
import { eventually } from '../support/wait.js';

const REQUEST_TIMEOUT_MS = 15_000;
/** When the runtime is killed after the burst of 200 went out. */
const CRASH_AFTER_MS = 1_500;
const RETRY_CONCURRENCY = 20;
/** How long a client keeps retrying one operation before the test gives up on it. */
const RETRY_DEADLINE_MS = 60_000;

interface Answer {
  status: number;
  body: any;
}

/** One attempt; a network failure or a timeout is an answer of status 0. */
async function attempt(baseUrl: string, apiKey: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  try {
    const response = await fetch(`${baseUrl}${path}`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  } catch {
    return { status: 0, body: undefined };
  }
}

/** Whether a merchant's client tries again: no answer, a 5xx, or a request with its key still running. */
const worthRetrying = (answer: Answer) => answer.status === 0 || answer.status >= 500 || (answer.status === 409 && /still being processed/.test(answer.body?.errors?.[0]?.message ?? ''));

interface Operation {
  kind: 'create' | 'deposit';
  path: string;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
  /** The first 200, once acknowledged. */
  acknowledged?: any;
  /** Attempts answered otherwise (a 5xx, a dropped connection, a timeout). */
  failedAttempts?: number;
}

/** A client that retries each operation until it is answered, against wherever the gateway is now. */
class Merchant {
  readonly operations: Operation[] = [];

  constructor(private readonly gateway: () => { baseUrl: string; apiKey: string }) {}

  createInvoice(): Operation {
    const orderId = randomUUID();
    return this.track({ kind: 'create', path: '/api/v2/invoices', body: { orderId, customerId: `customer-${orderId.slice(0, 4)}`, baseCurrency: 'USDT', invoiceStrategy: 'fixed', amount: 25 } });
  }

  deposit(invoiceId: string): Operation {
    return this.track({ kind: 'deposit', path: '/api/v2/simulate/deposit', body: { invoiceId }, headers: { 'Idempotency-Key': `deposit-${invoiceId}` } });
  }

  /** Sends `operation` until it is answered other than by a retryable failure; resolves to that answer. */
  async run(operation: Operation, deadline = Date.now() + RETRY_DEADLINE_MS): Promise<Answer> {
    for (let delayMs = 100; ; delayMs = Math.min(delayMs * 2, 2_000)) {
      const { baseUrl, apiKey } = this.gateway();
      const answer = await attempt(baseUrl, apiKey, operation.path, operation.body, operation.headers);
      if (answer.status === 200) operation.acknowledged ??= answer.body.data;
      else operation.failedAttempts = (operation.failedAttempts ?? 0) + 1;
      if (!worthRetrying(answer) || Date.now() > deadline) return answer;
      await sleep(delayMs);
    }
  }

  /** One attempt only: a request the crash may cut short. */
  async once(operation: Operation): Promise<void> {
    const { baseUrl, apiKey } = this.gateway();
    const answer = await attempt(baseUrl, apiKey, operation.path, operation.body, operation.headers);
    if (answer.status === 200) operation.acknowledged ??= answer.body.data;
  }

  private track(operation: Operation): Operation {
    this.operations.push(operation);
    return operation;
  }
}

/** Workers creating invoices and paying each until `stop` resolves, retrying through whatever fails meanwhile. */
async function load(merchant: Merchant, workers: number, stop: Promise<void>): Promise<void> {
  let stopped = false;
  void stop.then(() => (stopped = true));
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (!stopped) {
        const create = merchant.createInvoice();
        const created = await merchant.run(create);
        expect(created.status, JSON.stringify(created.body)).toBe(200);
        const paid = await merchant.run(merchant.deposit(created.body.data.id));
        expect(paid.status, JSON.stringify(paid.body)).toBe(200);
      }
    }),
  );
}

/**
 * What recovery must leave: every acknowledged invoice and deposit readable, one invoice per
 * orderId and at most one deposit per invoice (each got one), and a delivered callback for every
 * confirmed deposit, none for anything else.
 */
async function expectRecovered(gateway: GatewayProcess, dataDir: string, merchant: Merchant, receiver: CallbackReceiver): Promise<void> {
  const stack = await openRuntimeStack(dataDir);
  try {
    // One key reads them all, faster than its throttle allows: a 429 is waited out as its retry-after says.
    const get = async (path: string): Promise<number> => {
      for (;;) {
        const response = await fetch(`${gateway.baseUrl}${path}`, { headers: { 'x-api-key': gateway.apiKey } });
        await response.arrayBuffer();
        if (response.status !== 429) return response.status;
        await new Promise((resolve) => setTimeout(resolve, Number(response.headers.get('retry-after')) * 1000));
      }
    };
    for (const operation of merchant.operations.filter((op) => op.acknowledged)) {
      const path = operation.kind === 'create' ? `/api/v2/invoices/${operation.acknowledged.id}` : `/api/v2/transaction/${operation.acknowledged.id}`;
      expect(await get(path), path).toBe(200);
    }

    const scan = async (table: string) => {
      const items: Record<string, any>[] = [];
      let ExclusiveStartKey: Record<string, unknown> | undefined;
      do {
        const page = await stack.documentClient.send(new ScanCommand({ TableName: table, ConsistentRead: true, ExclusiveStartKey }));
        items.push(...(page.Items ?? []));
        ExclusiveStartKey = page.LastEvaluatedKey;
      } while (ExclusiveStartKey);
      return items;
    };
    const invoices = (await scan(stack.info.tables.invoices)).filter((invoice) => invoice.merchantId === stack.demoMerchantId);
    const transactions = (await scan(stack.info.tables.transactions)).filter((transaction) => transaction.merchantId === stack.demoMerchantId);
    const count = (values: string[]) => values.reduce((counts, value) => counts.set(value, (counts.get(value) ?? 0) + 1), new Map<string, number>());
    const doubledOrders = [...count(invoices.map((invoice) => invoice.orderId))].filter(([, n]) => n > 1);
    const doubledDeposits = [...count(transactions.map((transaction) => transaction.invoiceId))].filter(([, n]) => n > 1);
    expect(doubledOrders, 'orderIds with more than one invoice').toEqual([]);
    expect(doubledDeposits, 'invoices with more than one deposit').toEqual([]);
    expect(invoices.filter((invoice) => invoice.transactionIds.length > 1)).toEqual([]);
    expect(invoices.length).toBeGreaterThanOrEqual(merchant.operations.filter((op) => op.kind === 'create' && op.acknowledged).length);

    // At least once on the wire; after deduplication by webhook-id, once for every confirmed deposit.
    const expected = new Set(transactions.filter((transaction) => transaction.status === 'confirmed').map((transaction) => `${transaction.id}:confirmed`));
    const delivered = () => new Set(receiver.received.filter((callback) => callback.status < 300).map((callback) => callback.webhookId));
    await eventually(() => [...expected].every((id) => delivered().has(id)), { timeoutMs: 60_000, what: `callbacks of ${expected.size} deposits` });
    expect(
      [...delivered()].filter((id) => !expected.has(id)),
      'callbacks of no confirmed deposit',
    ).toEqual([]);
    expect(expected.size).toBeGreaterThanOrEqual(merchant.operations.filter((op) => op.kind === 'deposit' && op.acknowledged).length);
  } finally {
    stack.close();
  }
}

let cleanups: Array<() => Promise<unknown>> = [];

afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  cleanups = [];
});

/** A runtime whose DynamoDB Local and queue server the test runs, so that it can kill and restart them. */
async function runtimeOnOwnStores() {
  const dataDir = await mkdtemp(join(tmpdir(), 'gateway-faults-'));
  const dynamoDir = join(dataDir, 'external-dynamodb');
  // The runtime reaches the store with its data directory's credentials.
  const credentials = await localCredentials(dataDir);
  const stores = { dynamo: await startDynamoDbLocal({ dataDir: dynamoDir, credentials }), sqs: await startLocalSqs() };
  // The runtime reaches DynamoDB Local through a proxy the test can cut.
  const dynamoOutage = await startTcpOutage(stores.dynamo.endpoint);
  const receiver = await startCallbackReceiver();
  const gateway = await startGatewayProcess({
    dataDir,
    env: {
      AWS_ENDPOINT_URL_DYNAMODB: dynamoOutage.url,
      AWS_ENDPOINT_URL_SQS: stores.sqs.endpoint,
      GATEWAY_DEMO_CALLBACK_URL: receiver.url,
      GATEWAY_RETRY_SCALE: '0.001',
    },
  });
  cleanups.push(
    () => rm(dataDir, { recursive: true, force: true }),
    () => stores.dynamo.stop(),
    () => dynamoOutage.stop(),
    () => stores.sqs.stop(),
    () => receiver.close(),
    () => gateway.stop(),
  );
  return { dataDir, stores, dynamoOutage, receiver, gateway };
}

const portOf = (endpoint: string): number => Number(new URL(endpoint).port);

describe('faults under load', { timeout: 240_000 }, () => {
  it('DynamoDB out of reach mid-load, every connection dropped with requests in flight: acknowledged writes stay, nothing doubles, every callback arrives', async () => {
    const { dataDir, dynamoOutage, receiver, gateway } = await runtimeOnOwnStores();
    const merchant = new Merchant(() => gateway);
    let restored = false;
    const fault = (async () => {
      await sleep(2_000);
      // A dropped connection, not a stopped DynamoDB Local: that one, unlike DynamoDB, can lose
      // the last write it acknowledged, which no gateway could survive.
      dynamoOutage.cut();
      await sleep(3_000);
      dynamoOutage.restore();
      restored = true;
      await sleep(3_000);
    })();
    await load(merchant, 8, fault);
    expect(restored).toBe(true);
    expect(merchant.operations.filter((op) => op.acknowledged).length).toBeGreaterThan(10);
    // The outage was felt: requests failed, and were retried to an answer.
    expect(merchant.operations.filter((op) => (op.failedAttempts ?? 0) > 0).length).toBeGreaterThan(0);
    await expectRecovered(gateway, dataDir, merchant, receiver);
  });

  it('the queue server restarted mid-load: every callback still arrives once per webhook-id', async () => {
    const { dataDir, stores, receiver, gateway } = await runtimeOnOwnStores();
    const merchant = new Merchant(() => gateway);
    let restarted: LocalSqs | undefined;
    const fault = (async () => {
      await sleep(2_000);
      await stores.sqs.stop();
      await sleep(1_000);
      restarted = await startLocalSqs({ port: portOf(stores.sqs.endpoint) });
      cleanups.push(() => restarted!.stop());
      await sleep(3_000);
    })();
    await load(merchant, 8, fault);
    expect(restarted).toBeDefined();
    await expectRecovered(gateway, dataDir, merchant, receiver);
    expect(gateway.output()).toContain('The queue server restarted');
  });

  it('the runtime SIGKILLed during 200 concurrent creates and deposits: retried on the restarted runtime, nothing is lost or doubled', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'gateway-crash-'));
    const receiver = await startCallbackReceiver();
    const env = { GATEWAY_DEMO_CALLBACK_URL: receiver.url, GATEWAY_RETRY_SCALE: '0.001' };
    let gateway = await startGatewayProcess({ dataDir, ownStore: true, env });
    cleanups.push(
      () => rm(dataDir, { recursive: true, force: true }),
      async () => {
        for (const pid of dynamoDbLocalProcesses(dataDir)) process.kill(pid, 'SIGKILL');
      },
      () => receiver.close(),
      () => gateway.stop(),
    );
    const merchant = new Merchant(() => gateway);

    // 100 invoices to pay, then 100 more created while those are paid: 200 requests at once.
    const unpaid = [];
    for (let i = 0; i < 100; i += 20) {
      unpaid.push(...(await Promise.all(Array.from({ length: 20 }, async () => (await merchant.run(merchant.createInvoice())).body.data.id as string))));
    }
    const burst = [...unpaid.map((id) => merchant.deposit(id)), ...Array.from({ length: 100 }, () => merchant.createInvoice())];
    const sent = Promise.all(burst.map((operation) => merchant.once(operation)));
    // Mid-flight: some answered, many written or half-written, none of those answered.
    await sleep(CRASH_AFTER_MS);
    await gateway.crash();
    await sent;
    expect(burst.filter((operation) => operation.acknowledged).length).toBeLessThan(burst.length);

    gateway = await startGatewayProcess({ dataDir, ownStore: true, env });
    const unanswered = burst.filter((operation) => !operation.acknowledged);
    const retried: Answer[] = [];
    // As a merchant's client would: a few at a time, each until it is answered.
    for (let start = 0; start < unanswered.length; start += RETRY_CONCURRENCY) {
      retried.push(...(await Promise.all(unanswered.slice(start, start + RETRY_CONCURRENCY).map((operation) => merchant.run(operation)))));
    }
    expect(retried.filter((answer) => answer.status !== 200).map((answer) => JSON.stringify(answer.body))).toEqual([]);
    await expectRecovered(gateway, dataDir, merchant, receiver);
  });
});
