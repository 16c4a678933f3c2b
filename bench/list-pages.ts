/**
 * What a page of the merchant's listings costs in DynamoDB read capacity (docs/merchant-guide.md#listings-and-pagination): the
 * functions run in this process behind the local API Gateway emulation, against DynamoDB Local,
 * with every read asked to return its consumed capacity. Each listing's page of 20 (the first and
 * the second, through its cursor) is printed beside the floor: what reading exactly the items on
 * the page costs, 0.5 RCU per 4 KB of them (an eventually consistent read, sizes by DynamoDB's
 * rules). The page itself reads one item more, to tell whether a next page exists; the request
 * also looks its key up and, for transactions, the merchant (to compute each `hash`).
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { startBenchStores } from './bench-stores.js';
import { eventuallyConsistentRcu, itemSize } from './capacity-meter.js';

export const DESCRIPTION = 'read capacity of a page of 20 of GET /api/v2/invoices and /api/v2/transactions, beside the floor';

const PAGE = 20;

interface Read {
  command: string;
  table: string;
  index?: string;
  capacity: number;
  scanned?: number;
  items: Record<string, unknown>[];
}

export async function listPagesBenchmark(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, strict: true, options: { invoices: { type: 'string', default: '60' } } });
  const count = Number(values.invoices);
  if (!Number.isInteger(count) || count < 2 * PAGE + 1) throw new Error(`--invoices must be an integer of at least ${2 * PAGE + 1}, for two full pages`);

  const stores = await startBenchStores('list-pages');
  try {
    const [{ dynamoClient }, { createTestGateway, invoke }, { seedMerchant }, { TokenBucketThrottle }] = await Promise.all([
      import('../shared/store/dynamo.js'),
      import('../test/support/invoke.js'),
      import('../test/support/merchants.js'),
      import('../infra/local/throttle.js'),
    ]);
    const gateway = createTestGateway({ throttle: new TokenBucketThrottle({ ratePerSecond: 1_000_000, burst: 1_000_000 }) });
    const merchant = await seedMerchant({ name: 'Bench shop' });

    const started = performance.now();
    let next = 0;
    const invoices: { id: string }[] = [];
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let i = next++; i < count; i = next++) {
          const created = await invoke('create-invoice', {
            gateway,
            apiKey: merchant.apiKey,
            body: { orderId: `bench-${i}-${randomUUID().slice(0, 8)}`, customerId: `cust-${i % 4}`, baseCurrency: 'USDT', amount: 25 },
          });
          if (created.status !== 200) throw new Error(`create-invoice answered ${created.status}: ${JSON.stringify(created.body)}`);
          invoices.push(created.body.data);
          const paid = await invoke('simulate-deposit', { gateway, apiKey: merchant.apiKey, body: { invoiceId: created.body.data.id } });
          if (paid.status !== 200) throw new Error(`simulate-deposit answered ${paid.status}: ${JSON.stringify(paid.body)}`);
        }
      }),
    );
    console.log(`${count} invoices with a confirmed deposit each, made in ${((performance.now() - started) / 1000).toFixed(1)} s`);

    // From here on every read reports what it consumed.
    let reads: Read[] = [];
    // Before the request is serialized: ReturnConsumedCapacity still reaches it.
    dynamoClient.middlewareStack.add(
      (nextStep, context) => async (argsIn) => {
        const input = argsIn.input as Record<string, any>;
        if (context.commandName === 'QueryCommand' || context.commandName === 'GetItemCommand') input.ReturnConsumedCapacity = 'TOTAL';
        const result = await nextStep(argsIn);
        const output = result.output as Record<string, any>;
        if (output.ConsumedCapacity) {
          reads.push({
            command: context.commandName as string,
            table: input.TableName,
            index: input.IndexName,
            capacity: output.ConsumedCapacity.CapacityUnits,
            scanned: output.ScannedCount,
            items: output.Items ?? (output.Item ? [output.Item] : []),
          });
        }
        return result;
      },
      { step: 'serialize', priority: 'high', name: 'consumedCapacity' },
    );

    const cases: Array<[string, 'list-invoices' | 'list-transactions', Record<string, string>]> = [
      ['invoices', 'list-invoices', {}],
      ['invoices, status', 'list-invoices', { status: 'completed' }],
      ['invoices, customerId', 'list-invoices', { customerId: 'cust-1' }],
      ['transactions', 'list-transactions', {}],
      ['transactions, type', 'list-transactions', { type: 'deposit' }],
      ['transactions, status', 'list-transactions', { status: 'confirmed' }],
      ['transactions, invoiceId', 'list-transactions', { invoiceId: invoices[0]!.id }],
    ];
    console.log('listing                       page   items  read  page RCU  floor RCU  request RCU');
    for (const [label, route, query] of cases) {
      let cursor: string | null = null;
      for (const pageNumber of [1, 2]) {
        reads = [];
        const response = await invoke(route, { gateway, apiKey: merchant.apiKey, query: { ...query, limit: String(PAGE), ...(cursor ? { cursor } : {}) } });
        if (response.status !== 200) throw new Error(`${route} answered ${response.status}: ${JSON.stringify(response.body)}`);
        const pageQuery = reads.find((read) => read.command === 'QueryCommand');
        const returned = response.body.data.items.length as number;
        const returnedItems = (pageQuery?.items ?? []).slice(0, returned);
        const floor = eventuallyConsistentRcu(returnedItems.reduce((sum, item) => sum + itemSize(item), 0));
        const total = reads.reduce((sum, read) => sum + read.capacity, 0);
        console.log(
          `${label.padEnd(30)}${String(pageNumber).padStart(4)}${String(returned).padStart(8)}${String(pageQuery?.scanned ?? 0).padStart(6)}` +
            `${(pageQuery?.capacity ?? 0).toFixed(1).padStart(10)}${floor.toFixed(1).padStart(11)}${total.toFixed(1).padStart(13)}`,
        );
        cursor = response.body.data.nextCursor;
        if (cursor === null) break;
      }
    }
    console.log('items: on the page; read: index entries the query read; request: the key lookup, the merchant and any ownership check included');
    dynamoClient.destroy();
  } finally {
    await stores.stop();
  }
}
