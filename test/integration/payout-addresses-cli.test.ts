/**
 * The operator's payout address commands (docs/operations.md#merchants-and-keys) against the test
 * run's tables: add (checked and canonical, pending for the merchant's delay, audited as operator),
 * list, remove, set the delay; and what they refuse, writing nothing.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { config } from '../../shared/config.js';
import { DynamoAuditLog } from '../../shared/store/audit-log.js';
import { documentClient } from '../../shared/store/dynamo.js';
import { invoke } from '../support/invoke.js';
import { merchantCliForTheseTests } from '../support/merchant-cli.js';
import { seedMerchant } from '../support/merchants.js';

const cli = merchantCliForTheseTests();
const audit = new DynamoAuditLog(documentClient, config().tables.auditLog);

const EVM = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const TRON = 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7';

const listed = async (merchantId: string) => JSON.parse((await cli(['payout-addresses', '--merchant', merchantId, '--json'])).out);

describe('payout addresses from the admin CLI', () => {
  it('adds an address in its canonical form, active at once on the demo stage, which the API lists; removes it at once; each change audited as operator', async () => {
    const { merchant, apiKey } = await seedMerchant();
    const added = await cli(['add-payout-address', '--merchant', merchant.id, '--network', 'ethereum', '--address', EVM.toLowerCase(), '--label', 'Treasury', '--json']);
    expect(added.err).toBe('');
    expect(added.code).toBe(0);
    const address = JSON.parse(added.out);
    expect(address).toEqual({ id: expect.any(String), network: 'ethereum', address: EVM, label: 'Treasury', status: 'active', activatesAt: address.createdAt, createdAt: expect.any(String) });
    expect((await invoke('list-payout-addresses', { apiKey })).body.data.items).toEqual([address]);
    expect(await listed(merchant.id)).toEqual([address]);

    const text = await cli(['payout-addresses', '--merchant', merchant.id]);
    expect(text.out).toBe(`${address.id}  ethereum  ${EVM}  "Treasury"  active  added ${address.createdAt}\n`);

    const removed = await cli(['remove-payout-address', '--merchant', merchant.id, '--id', address.id]);
    expect(removed).toEqual({ code: 0, out: `Removed payout address ${address.id} of merchant ${merchant.id}: no payout goes to it from now on.\n`, err: '' });
    expect(await listed(merchant.id)).toEqual([]);
    expect((await audit.list(merchant.id, 10)).map(({ actor, action, subject }) => [actor, action, subject])).toEqual([
      ['operator', 'payout_address.removed', `ethereum ${EVM} (Treasury)`],
      ['operator', 'payout_address.added', `ethereum ${EVM} (Treasury)`],
    ]);
  });

  it("sets the merchant's delay: addresses added after it are pending until it has passed, and GET /api/v2/merchant shows it", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const set = await cli(['set-payout-address-delay', '--merchant', merchant.id, '--seconds', '86400', '--json']);
    expect([set.code, JSON.parse(set.out)]).toEqual([0, { merchantId: merchant.id, payoutAddressDelaySeconds: 86400 }]);
    expect((await invoke('get-merchant', { apiKey })).body.data.payoutAddressDelaySeconds).toBe(86400);
    const added = await cli(['add-payout-address', '--merchant', merchant.id, '--network', 'tron', '--address', TRON]);
    expect(added.code, added.err).toBe(0);
    const [address] = await listed(merchant.id);
    expect(address).toMatchObject({ status: 'pending', label: null });
    expect(Date.parse(address.activatesAt) - Date.parse(address.createdAt)).toBe(86_400_000);
    expect(added.out).toBe(`Added payout address ${address.id} of merchant ${merchant.id} in the local gateway at http://localhost:3999: tron ${TRON}, active from ${address.activatesAt}.\n`);
  });

  it('refuses a malformed address, one of another network, one added already, an unknown network, and an unknown merchant or address, writing nothing', async () => {
    const { merchant } = await seedMerchant();
    const add = (network: string, address: string) => cli(['add-payout-address', '--merchant', merchant.id, '--network', network, '--address', address]);
    expect((await add('tron', TRON)).code).toBe(0);
    const before = await listed(merchant.id);

    expect(await add('ethereum', '0x1234')).toEqual({ code: 1, out: '', err: 'merchant: address is not an address of ethereum: it must be 0x and 40 hexadecimal digits\n' });
    expect(await add('bitcoin', EVM)).toEqual({ code: 1, out: '', err: 'merchant: address is not an address of bitcoin: it is one of ethereum, bsc, polygon, bahamut\n' });
    expect(await add('tron', TRON)).toEqual({ code: 1, out: '', err: `merchant: ${TRON} is a payout address of tron already\n` });
    const unknownNetwork = await add('solana', TRON);
    expect([unknownNetwork.code, unknownNetwork.err.split('\n')[0]]).toEqual([2, 'merchant: --network is one of bitcoin, ethereum, bsc, polygon, tron, bahamut']);
    const stranger = randomUUID();
    expect((await cli(['add-payout-address', '--merchant', stranger, '--network', 'tron', '--address', TRON])).err).toBe(`merchant: No merchant ${stranger}\n`);
    expect((await cli(['remove-payout-address', '--merchant', merchant.id, '--id', stranger])).err).toBe(`merchant: Merchant ${merchant.id} has no payout address ${stranger}\n`);
    const badDelay = await cli(['set-payout-address-delay', '--merchant', merchant.id, '--seconds', '-5']);
    expect(badDelay.code).toBe(2);

    expect(await listed(merchant.id)).toEqual(before);
    expect((await audit.list(merchant.id, 10)).map(({ action }) => action)).toEqual(['payout_address.added']);
  });
});
