/**
 * The chain watchers' customer addresses held in memory (shared/store/address-owners.ts) against
 * DynamoDB Local, each test over a wallets table of its own: a stranger's transfer costs no read,
 * an address allocated after the load is seen at the next look-up, and a table with wallets from
 * before the index is read in full until it is backfilled.
 */
import { randomUUID } from 'node:crypto';
import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { ensureTable } from '../../infra/local/dynamodb.js';
import { config } from '../../shared/config.js';
import { segwitScript } from '../../shared/domain/chains/wallets.js';
import { CachedAddressOwners } from '../../shared/store/address-owners.js';
import { documentClient, dynamoClient } from '../../shared/store/dynamo.js';
import { TABLES } from '../../shared/store/tables.js';
import { configuredWalletKeys } from '../../shared/store/wallet-keys.js';
import { DynamoWalletStore } from '../../shared/store/wallets.js';

const keys = configuredWalletKeys(config().walletKeys, () => {
  throw new Error('The test environment carries the keys themselves');
});

/** A wallets table of its own, its store, and the keys each owner look-up asked DynamoDB for. */
async function freshWallets() {
  const tableName = `wallets-${randomUUID()}`;
  await ensureTable(dynamoClient, tableName, TABLES.wallets);
  const store = new DynamoWalletStore(documentClient, tableName, { keys, stage: 'demo' });
  const asked: string[][] = [];
  const counting = Object.assign(Object.create(store) as DynamoWalletStore, {
    ownersOf: (family: Parameters<DynamoWalletStore['ownersOf']>[0], keys: readonly string[]) => {
      asked.push([...keys]);
      return store.ownersOf(family, keys);
    },
  });
  return { tableName, store, asked, owners: new CachedAddressOwners(counting) };
}

const STRANGERS = Array.from({ length: 500 }, (_, i) => `0x${(i + 1).toString(16).padStart(40, 'f')}`);

describe('customer addresses held in memory', () => {
  it('reads the owners of customers only: a block of strangers costs no read', async () => {
    const { store, asked, owners } = await freshWallets();
    const { addresses } = await store.addressesFor('m-1', 'c-1');
    const found = await owners.ownersOf('evm', [...STRANGERS, addresses.evm.toLowerCase()]);
    expect(found).toEqual(new Map([[addresses.evm.toLowerCase(), { merchantId: 'm-1', customerId: 'c-1' }]]));
    expect(asked).toEqual([[addresses.evm.toLowerCase()]]);
    expect(await owners.ownersOf('evm', STRANGERS)).toEqual(new Map());
    expect(asked).toHaveLength(1);
  });

  it('sees an address allocated after the load at the next look-up, in every family', async () => {
    const { store, owners } = await freshWallets();
    await store.addressesFor('m-1', 'first');
    expect(await owners.ownersOf('btc', [`0014${'00'.repeat(20)}`])).toEqual(new Map());
    const { addresses } = await store.addressesFor('m-1', 'just-now');
    const owner = { merchantId: 'm-1', customerId: 'just-now' };
    expect(await owners.ownersOf('btc', [segwitScript(addresses.btc)])).toEqual(new Map([[segwitScript(addresses.btc), owner]]));
    expect(await owners.ownersOf('tron', [addresses.tron])).toEqual(new Map([[addresses.tron, owner]]));
    expect(await owners.ownersOf('evm', [addresses.evm.toLowerCase()])).toEqual(new Map([[addresses.evm.toLowerCase(), owner]]));
  });

  it('sees an allocation whose time is earlier than one already loaded: its write committed late', async () => {
    const { store, tableName, owners } = await freshWallets();
    const late = await store.addressesFor('m-1', 'late');
    // As if its transaction committed only now, after a later allocation was loaded.
    const lateKey = late.addresses.evm.toLowerCase();
    await documentClient.send(new DeleteCommand({ TableName: tableName, Key: { id: `address#evm#${lateKey}` } }));
    await store.addressesFor('m-1', 'later');
    expect(await owners.ownersOf('evm', [lateKey])).toEqual(new Map());
    await store.backfillOwners();
    expect(await owners.ownersOf('evm', [lateKey])).toEqual(new Map([[lateKey, { merchantId: 'm-1', customerId: 'late' }]]));
  });

  it('reads every key of a table whose wallets predate the index, until backfill-addresses marks it', async () => {
    const { store, tableName, asked, owners } = await freshWallets();
    const { addresses } = await store.addressesFor('m-1', 'before-the-index');
    const key = addresses.evm.toLowerCase();
    // As such a table holds it: no marker, and the owner item without its index attributes.
    await documentClient.send(new DeleteCommand({ TableName: tableName, Key: { id: 'marker#ownersByFamily' } }));
    await documentClient.send(new UpdateCommand({ TableName: tableName, Key: { id: `address#evm#${key}` }, UpdateExpression: 'REMOVE addressFamily, createdAt' }));

    expect(await owners.ownersOf('evm', [STRANGERS[0]!, key])).toEqual(new Map([[key, { merchantId: 'm-1', customerId: 'before-the-index' }]]));
    expect(asked.at(-1)).toEqual([STRANGERS[0], key]);

    expect((await store.backfillOwners()).written).toBe(1);
    expect(await owners.ownersOf('evm', [STRANGERS[0]!, key])).toEqual(new Map([[key, { merchantId: 'm-1', customerId: 'before-the-index' }]]));
    expect(asked.at(-1)).toEqual([key]);
  });
});
