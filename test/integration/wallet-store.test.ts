/**
 * DynamoWalletStore against the wallets table of the test run. Other test files share the table
 * (and its one index counter), so every test uses merchants of its own and the counter is only
 * compared with itself.
 */
import { randomUUID } from 'node:crypto';
import { DeleteCommand, GetCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { bech32 } from '@scure/base';
import { beforeAll, describe, expect, it } from 'vitest';
import { config } from '../../shared/config.js';
import { documentClient, dynamoClient } from '../../shared/store/dynamo.js';
import { ensureTable } from '../../infra/local/dynamodb.js';
import { TABLES } from '../../shared/store/tables.js';
import { ownerKey, segwitScript } from '../../shared/domain/chains/wallets.js';
import { configuredWalletKeys, type WalletKeySource } from '../../shared/store/wallet-keys.js';
import { DynamoWalletStore } from '../../shared/store/wallets.js';

const CREATED_AT = new Date('2025-01-02T03:04:05.000Z');

let tableName: string;
let store: DynamoWalletStore;

let keys: WalletKeySource;

beforeAll(() => {
  tableName = config().tables.wallets;
  keys = configuredWalletKeys(config().walletKeys, () => {
    throw new Error('The test environment carries the keys themselves');
  });
  store = new DynamoWalletStore(documentClient, tableName, { keys, stage: 'prod' }, () => CREATED_AT);
});

/** A merchant id no other test uses. */
const merchantId = (label = 'merchant') => `${label}-${randomUUID()}`;

/** Every item naming the customer: its wallet and the owner item of its EVM address. */
async function customerItems(merchant: string, customerId: string): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await documentClient.send(
      new ScanCommand({
        TableName: tableName,
        ConsistentRead: true,
        FilterExpression: 'merchantId = :m AND customerId = :c',
        ExpressionAttributeValues: { ':m': merchant, ':c': customerId },
        ExclusiveStartKey,
      }),
    );
    items.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items;
}

async function allocatedIndexes(): Promise<number> {
  const { Item } = await documentClient.send(new GetCommand({ TableName: tableName, Key: { id: 'counter#hd' }, ConsistentRead: true }));
  return (Item?.allocated as number | undefined) ?? 0;
}

describe('DynamoWalletStore', () => {
  it('gives a customer the same wallet on every call', async () => {
    const merchant = merchantId();
    const first = await store.addressesFor(merchant, 'customer-1');
    const again = await store.addressesFor(merchant, 'customer-1');
    expect(again).toEqual(first);
    expect(first.createdAt).toBe(CREATED_AT.toISOString());
    expect(first.addresses.evm).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(first.addresses.btc).toMatch(/^bc1q/);
    expect(first.addresses.tron).toMatch(/^T/);
  });

  it('gives different customers different addresses', async () => {
    const merchant = merchantId();
    const one = await store.addressesFor(merchant, 'customer-2');
    const two = await store.addressesFor(merchant, 'customer-3');
    expect(two.index).not.toBe(one.index);
    expect(two.addresses.evm).not.toBe(one.addresses.evm);
    expect(two.addresses.btc).not.toBe(one.addresses.btc);
    expect(two.addresses.tron).not.toBe(one.addresses.tron);
  });

  it('gives the same customerId under two merchants different addresses', async () => {
    const underA = await store.addressesFor(merchantId('merchant-a'), 'shared-customer');
    const underB = await store.addressesFor(merchantId('merchant-b'), 'shared-customer');
    expect(underB.addresses.evm).not.toBe(underA.addresses.evm);
  });

  it("keeps ids apart when a '#' could shift the boundary between merchant and customer", async () => {
    const merchant = merchantId();
    const left = await store.addressesFor(`${merchant}#x`, 'y');
    const right = await store.addressesFor(merchant, 'x#y');
    expect(right.addresses.evm).not.toBe(left.addresses.evm);
  });

  it('settles 20 concurrent first calls on one wallet stored once', async () => {
    const merchant = merchantId();
    const allocatedBefore = await allocatedIndexes();
    // Every call allocates only once all 20 have found no wallet: each then really races the others
    // to store one, however fast the first would otherwise have stored its own.
    const CALLS = 20;
    let waiting = 0;
    let allFoundNone!: () => void;
    const everyCallRead = new Promise<void>((resolveRead) => (allFoundNone = resolveRead));
    const afterEveryRead = async () => {
      if (++waiting === CALLS) allFoundNone();
      await everyCallRead;
    };
    const wallets = await Promise.all(Array.from({ length: CALLS }, () => store.addressesFor(merchant, 'racing-customer', afterEveryRead)));
    for (const wallet of wallets) expect(wallet).toEqual(wallets[0]);
    const items = await customerItems(merchant, 'racing-customer');
    const kind = (id: string) => (id.startsWith('address#') ? id.split('#').slice(0, 2).join('#') : id.split('#')[0]);
    expect(items.map((item) => kind(String(item.id))).sort()).toEqual(['address#btc', 'address#evm', 'address#tron', 'customer']);
    expect(await store.ownersOf('evm', [ownerKey('evm', wallets[0]!.addresses.evm.toUpperCase().replace('0X', '0x')), '0x000000000000000000000000000000000000dead'])).toEqual(
      new Map([[wallets[0]!.addresses.evm.toLowerCase(), { merchantId: merchant, customerId: 'racing-customer' }]]),
    );
    // Every call allocated an index; the losers' indexes stay unused. Other files allocate from the
    // same counter meanwhile, which only adds to the difference.
    expect(await allocatedIndexes()).toBeGreaterThanOrEqual(allocatedBefore + CALLS);
    expect(await store.addressesFor(merchant, 'racing-customer')).toEqual(wallets[0]);
  });

  it("names each address's owner as the chain watchers know it: a Bitcoin address by the script it pays on any network, a Tron address as written", async () => {
    const merchant = merchantId();
    const { addresses } = await store.addressesFor(merchant, 'watched');
    const owner = { merchantId: merchant, customerId: 'watched' };
    const script = segwitScript(addresses.btc);
    expect(script).toMatch(/^0014[0-9a-f]{40}$/);
    // The same script, written with a regtest node's prefix.
    expect(segwitScript(bech32.encode('bcrt', bech32.decode(addresses.btc as `${string}1${string}`).words))).toBe(script);
    expect(await store.ownersOf('btc', [script, `0014${'00'.repeat(20)}`])).toEqual(new Map([[script, owner]]));
    expect(await store.ownersOf('tron', [addresses.tron, addresses.tron.toLowerCase()])).toEqual(new Map([[addresses.tron, owner]]));
    expect(await store.ownersOf('evm', [addresses.evm.toLowerCase()])).toEqual(new Map([[addresses.evm.toLowerCase(), owner]]));
  });

  it('writes demo addresses for the test networks, with the scripts of the production ones', async () => {
    const demo = new DynamoWalletStore(documentClient, tableName, { keys, stage: 'demo' }, () => CREATED_AT);
    const merchant = merchantId();
    const { addresses } = await demo.addressesFor(merchant, 'tester');
    expect(addresses.btc).toMatch(/^tb1q[02-9ac-hj-np-z]{38}$/);
    expect(await demo.ownersOf('btc', [segwitScript(addresses.btc)])).toEqual(new Map([[segwitScript(addresses.btc), { merchantId: merchant, customerId: 'tester' }]]));
  });

  it('backfills the Bitcoin and Tron owners of wallets allocated when only EVM addresses had them, once', async () => {
    // A table of its own: another file's backfill would write into the shared one meanwhile.
    const ownTable = `wallets-${randomUUID()}`;
    await ensureTable(dynamoClient, ownTable, TABLES.wallets);
    const own = new DynamoWalletStore(documentClient, ownTable, { keys, stage: 'prod' }, () => CREATED_AT);
    const { addresses } = await own.addressesFor('m-1', 'before-bitcoin');
    const script = segwitScript(addresses.btc);
    // As such a wallet was stored: its EVM owner item alone.
    for (const id of [`address#btc#${script}`, `address#tron#${addresses.tron}`]) await documentClient.send(new DeleteCommand({ TableName: ownTable, Key: { id } }));
    expect(await own.ownersOf('btc', [script])).toEqual(new Map());

    expect(await own.backfillOwners()).toEqual({ customers: 1, written: 2 });
    const owner = { merchantId: 'm-1', customerId: 'before-bitcoin' };
    expect(await own.ownersOf('btc', [script])).toEqual(new Map([[script, owner]]));
    expect(await own.ownersOf('tron', [addresses.tron])).toEqual(new Map([[addresses.tron, owner]]));
    expect(await own.backfillOwners()).toEqual({ customers: 1, written: 0 });
  });
});
