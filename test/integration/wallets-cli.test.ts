/**
 * The admin CLI's backfill of address owners (docs/operations.md#watching-chains), against the
 * test run's stores as it finds them beside a running gateway: a customer whose wallet was
 * allocated while only EVM addresses named their owner is seen on Bitcoin and Tron afterwards.
 */
import { randomUUID } from 'node:crypto';
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { config } from '../../shared/config.js';
import { segwitScript } from '../../shared/domain/chains/wallets.js';
import { documentClient } from '../../shared/store/dynamo.js';
import { DynamoWalletStore } from '../../shared/store/wallets.js';
import { invoke } from '../support/invoke.js';
import { testMerchantCli, type TestCli } from '../support/merchant-cli.js';
import { seedMerchant } from '../support/merchants.js';

let testCli: TestCli;

beforeAll(async () => {
  testCli = await testMerchantCli();
});

afterAll(async () => {
  await testCli.remove();
});

it('backfill-addresses names the owners a wallet lacks, and running it again keeps them', async () => {
  const { merchant, apiKey } = await seedMerchant();
  const created = await invoke('create-invoice', { apiKey, body: { orderId: randomUUID(), customerId: 'early-customer', baseCurrency: 'BTC', amount: 0.001 } });
  expect(created.status).toBe(200);
  const addresses = new Map<string, string>(created.body.data.wallet.addresses.map((a: { network: string; address: string }) => [a.network, a.address]));
  const script = segwitScript(addresses.get('bitcoin')!);
  const tron = (await invoke('create-invoice', { apiKey, body: { orderId: randomUUID(), customerId: 'early-customer', baseCurrency: 'TRX', amount: 30 } })).body.data.wallet.address as string;
  const wallets = new DynamoWalletStore(documentClient, config().tables.wallets);
  for (const id of [`address#btc#${script}`, `address#tron#${tron}`]) await documentClient.send(new DeleteCommand({ TableName: config().tables.wallets, Key: { id } }));
  expect(await wallets.ownersOf('btc', [script])).toEqual(new Map());

  const first = await testCli.run(['backfill-addresses', '--json']);
  expect(first.code, first.err).toBe(0);
  // Counts are the whole shared table's, where other files' tests write too: the owners are what is checked.
  expect(JSON.parse(first.out)).toEqual({ customers: expect.any(Number), written: expect.any(Number) });
  const owner = { merchantId: merchant.id, customerId: 'early-customer' };
  expect(await wallets.ownersOf('btc', [script])).toEqual(new Map([[script, owner]]));
  expect(await wallets.ownersOf('tron', [tron])).toEqual(new Map([[tron, owner]]));

  const again = await testCli.run(['backfill-addresses']);
  expect(again.out).toMatch(/^Read \d+ customer wallets? in the local gateway at \S+ and named the owner of \d+ address(es)? that had none\.\n$/);
  expect(await wallets.ownersOf('btc', [script])).toEqual(new Map([[script, owner]]));
});
