/**
 * Payout addresses on DynamoDB Local (docs/merchant-guide.md#payout-addresses): an owner's addition
 * written in one transaction with its audit entry and its TOTP code's use, so that the code confirms
 * nothing else and signs nobody in; the same address refused twice by the key; a removal conditional
 * on the address read; and `GET /api/v2/payout-addresses` through the gateway, with no way to add
 * one through an API key.
 */
import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { config } from '../../shared/config.js';
import type { CodeUse, SignedIn } from '../../shared/domain/dashboard/index.js';
import { totpCode, totpStep } from '../../shared/domain/dashboard/totp.js';
import { PayoutAddresses } from '../../shared/domain/payouts/index.js';
import { dynamoDashboardAccess } from '../../shared/store/dashboard-access.js';
import { documentClient } from '../../shared/store/dynamo.js';
import { DynamoPayoutAddressStore } from '../../shared/store/payout-addresses.js';
import { KeyFileDataKeySource } from '../../shared/vault/key-sources.js';
import { invoke, request } from '../support/invoke.js';
import { seedMerchant, testMerchantStore } from '../support/merchants.js';

const PASSWORD = 'plum-orbit-canvas-41';
const EVM = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const TRON = 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7';

const { tables, vaultKeys, stage } = config();
if (vaultKeys?.kind !== 'local') throw new Error('The test environment has no local vault key file');
const access = dynamoDashboardAccess(documentClient, tables, new KeyFileDataKeySource(vaultKeys.keyFile));
const store = new DynamoPayoutAddressStore(documentClient, tables);
const addresses = new PayoutAddresses({ addresses: store, merchants: testMerchantStore(), stage, clock: () => new Date(), newId: randomUUID });

const actions = async (merchantId: string) => (await access.auditLog(merchantId)).map(({ actor, action, subject }) => [actor, action, subject]);
const lastStepOf = async (email: string) => (await documentClient.send(new GetCommand({ TableName: tables.dashboardUsers, Key: { email }, ConsistentRead: true }))).Item?.lastTotpStep;

/** The use of a code the test knows is fresh. */
async function fresh(signedIn: SignedIn, code: string): Promise<CodeUse> {
  const use = await access.freshCode(signedIn, code);
  if (typeof use === 'string') throw new Error(`The code is ${use}`);
  return use;
}

/** A merchant's owner, joined with now's code and signed in with the next step's, as the dashboard has them; the code of the step after is fresh. */
async function signedInOwner() {
  const { merchant, apiKey } = await seedMerchant();
  const email = `owner-${randomUUID().slice(0, 8)}@shop.example`;
  const { token } = await access.invite(merchant.id, { email, role: 'owner' }, 'operator');
  const secret = access.newTotpSecret();
  const step = totpStep(new Date());
  const joined = await access.join(token, { password: PASSWORD, passwordAgain: PASSWORD, totpSecret: secret, code: totpCode(secret, step) });
  if ('problems' in joined) throw new Error(joined.problems.join());
  const signedIn = (await access.signedIn(joined.sessionToken))!;
  return { merchantId: merchant.id, apiKey, email, secret, step, signedIn, sessionToken: joined.sessionToken };
}

describe('payout addresses on DynamoDB', () => {
  it("writes an owner's address with its audit entry and the code's use; the code then confirms no other address and signs nobody in", async () => {
    const { merchantId, email, secret, step, signedIn, sessionToken } = await signedInOwner();
    const code = await fresh(signedIn, totpCode(secret, step + 1));
    expect(code).toEqual({ email, step: step + 1 });
    const added = await addresses.add(merchantId, { network: 'ethereum', address: EVM.toLowerCase(), label: 'Treasury' }, code);
    expect(added).toMatchObject({ network: 'ethereum', address: EVM, label: 'Treasury', status: 'active' });
    expect(await lastStepOf(email)).toBe(step + 1);
    expect(await actions(merchantId)).toEqual([
      [email, 'payout_address.added', `ethereum ${EVM} (Treasury)`],
      [email, 'user.joined', 'owner'],
      ['operator', 'user.invited', `${email} (owner)`],
    ]);

    // The same code, read fresh before the first took it (two forms sent at once), is refused by the store's condition.
    await expect(addresses.add(merchantId, { network: 'tron', address: TRON }, code)).rejects.toMatchObject({ problems: [{ field: 'code' }] });
    expect(await access.freshCode((await access.signedIn(sessionToken))!, totpCode(secret, step + 1))).toBe('used');
    expect(await access.signIn(email, PASSWORD, totpCode(secret, step + 1))).toBeUndefined();
    expect((await addresses.list(merchantId)).items.map(({ address }) => address)).toEqual([EVM]);
    expect(await actions(merchantId)).toHaveLength(3);
  });

  it('refuses the same address twice on a network by its key, writing nothing and taking no code', async () => {
    const { merchantId, email, secret, step, signedIn } = await signedInOwner();
    await addresses.add(merchantId, { network: 'tron', address: TRON }, 'operator');
    const code = await fresh(signedIn, totpCode(secret, step + 1));
    await expect(addresses.add(merchantId, { network: 'tron', address: TRON, label: 'again' }, code)).rejects.toThrow(`${TRON} is a payout address of tron already`);
    expect(await lastStepOf(email)).toBe(step);
    expect((await addresses.list(merchantId)).items).toHaveLength(1);
    expect((await actions(merchantId)).filter(([, action]) => action === 'payout_address.added')).toHaveLength(1);
  });

  it("refuses a code of another merchant's user, as one taken", async () => {
    const { merchantId } = await signedInOwner();
    const other = await signedInOwner();
    const code = await fresh(other.signedIn, totpCode(other.secret, other.step + 1));
    await expect(addresses.add(merchantId, { network: 'tron', address: TRON }, code)).rejects.toMatchObject({ problems: [{ field: 'code' }] });
    expect((await addresses.list(merchantId)).items).toEqual([]);
  });

  it('removes the address as read, with its audit entry, and not one removed and added again meanwhile', async () => {
    const { merchant } = await seedMerchant();
    const first = await addresses.add(merchant.id, { network: 'bsc', address: EVM }, 'operator');
    const [read] = await store.list(merchant.id);
    await addresses.remove(merchant.id, first.id, 'operator');
    await addresses.add(merchant.id, { network: 'bsc', address: EVM }, 'operator');
    expect(await store.remove(read!, { merchantId: merchant.id, id: randomUUID(), at: new Date().toISOString(), actor: 'operator', action: 'payout_address.removed', subject: 'stale' })).toBe(false);
    expect((await addresses.list(merchant.id)).items.map(({ network, address }) => `${network} ${address}`)).toEqual([`bsc ${EVM}`]);
    expect((await actions(merchant.id)).map(([, action]) => action)).toEqual(['payout_address.added', 'payout_address.removed', 'payout_address.added']);
  });
});

describe('GET /api/v2/payout-addresses', () => {
  it("answers the merchant's own addresses, newest first, with their status; another merchant's key sees none", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const older = await addresses.add(merchant.id, { network: 'tron', address: TRON, label: 'Exchange' }, 'operator');
    await testMerchantStore().updateMerchant(merchant.id, { payoutAddressDelaySeconds: 3600 });
    const newer = await addresses.add(merchant.id, { network: 'ethereum', address: EVM }, 'operator');

    const listed = await invoke('list-payout-addresses', { apiKey });
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({
      success: true,
      data: {
        items: [
          { id: newer.id, network: 'ethereum', address: EVM, label: null, status: 'pending', activatesAt: newer.activatesAt, createdAt: newer.createdAt },
          { id: older.id, network: 'tron', address: TRON, label: 'Exchange', status: 'active', activatesAt: older.activatesAt, createdAt: older.createdAt },
        ],
      },
    });
    expect(Date.parse(newer.activatesAt) - Date.parse(newer.createdAt)).toBe(3600_000);
    const merchantView = await invoke('get-merchant', { apiKey });
    expect(merchantView.body.data).toMatchObject({ payoutAddressDelaySeconds: 3600, payoutApprovalAboveUsd: null });

    const stranger = await seedMerchant();
    expect((await invoke('list-payout-addresses', { apiKey: stranger.apiKey })).body).toEqual({ success: true, data: { items: [] } });
  });

  it('takes no address from an API key, whatever the method: nothing is written', async () => {
    const { merchant, apiKey } = await seedMerchant();
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      const refused = await request(method, '/api/v2/payout-addresses', { apiKey, body: { network: 'tron', address: TRON }, headers: { 'idempotency-key': randomUUID() } });
      expect([refused.status, refused.body.errors[0].code], method).toEqual([405, 'method_not_allowed']);
    }
    expect((await addresses.list(merchant.id)).items).toEqual([]);
  });

  it('sets and shows the payouts approval threshold through PATCH /api/v2/merchant, never the delay', async () => {
    const { apiKey } = await seedMerchant();
    const patched = await invoke('update-merchant', { apiKey, body: { payoutApprovalAboveUsd: '2500.5' } });
    expect([patched.status, patched.body.data.payoutApprovalAboveUsd]).toEqual([200, '2500.50']);
    expect((await invoke('get-merchant', { apiKey })).body.data.payoutApprovalAboveUsd).toBe('2500.50');
    const refused = await invoke('update-merchant', { apiKey, body: { payoutApprovalAboveUsd: 2500, payoutAddressDelaySeconds: 0 } });
    expect(refused.status).toBe(422);
    expect(refused.body.errors.map(({ field }: { field: string }) => field)).toEqual(['payoutApprovalAboveUsd', 'payoutAddressDelaySeconds']);
    const cleared = await invoke('update-merchant', { apiKey, body: { payoutApprovalAboveUsd: null } });
    expect(cleared.body.data).toMatchObject({ payoutApprovalAboveUsd: null, payoutAddressDelaySeconds: 0 });
  });
});
