/**
 * The dashboard's access on DynamoDB Local, for what only a real store shows: an invitation taken
 * once by racing joins (one transaction with the user and its audit entry), racing sign-ins with
 * one code, the TOTP seed sealed with the vault, sessions carrying their TTL and ended by the
 * user's index, the audit log newest first by merchant.
 */
import { randomUUID } from 'node:crypto';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { config } from '../../shared/config.js';
import { SESSION_IDLE_SECONDS } from '../../shared/domain/dashboard/dashboard-sessions.js';
import { LOCKOUT_SECONDS, tokenDigest } from '../../shared/domain/dashboard/dashboard-users.js';
import { totpCode, totpStep } from '../../shared/domain/dashboard/totp.js';
import { dynamoDashboardAccess } from '../../shared/store/dashboard-access.js';
import { documentClient } from '../../shared/store/dynamo.js';
import { KeyFileDataKeySource } from '../../shared/vault/key-sources.js';

const PASSWORD = 'plum-orbit-canvas-41';
const { tables, vaultKeys } = config();
if (vaultKeys?.kind !== 'local') throw new Error('The test environment has no local vault key file');
const access = dynamoDashboardAccess(documentClient, tables, new KeyFileDataKeySource(vaultKeys.keyFile));

const item = async (table: string, key: Record<string, string>) => (await documentClient.send(new GetCommand({ TableName: table, Key: key, ConsistentRead: true }))).Item;

async function joinedOwner() {
  const merchantId = randomUUID();
  const email = `owner-${randomUUID().slice(0, 8)}@shop.example`;
  const { token } = await access.invite(merchantId, { email, role: 'owner' }, 'operator');
  const secret = access.newTotpSecret();
  const joined = await access.join(token, { password: PASSWORD, passwordAgain: PASSWORD, totpSecret: secret, code: totpCode(secret, totpStep(new Date())) });
  if ('problems' in joined) throw new Error(joined.problems.join());
  return { merchantId, email, secret, token, joined };
}

describe('the dashboard on DynamoDB', () => {
  it('takes an invitation once when two joins race, the user and its audit entry written with it', async () => {
    const merchantId = randomUUID();
    const email = `dev-${randomUUID().slice(0, 8)}@shop.example`;
    const { token } = await access.invite(merchantId, { email, role: 'developer' }, 'operator');
    const outcomes = await Promise.allSettled([access.join(token, { password: PASSWORD, passwordAgain: PASSWORD }), access.join(token, { password: PASSWORD, passwordAgain: PASSWORD })]);
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    expect(await item(tables.dashboardInvitations, { id: tokenDigest(token) })).toBeUndefined();
    expect(await access.users(merchantId)).toMatchObject([{ email, role: 'developer', merchantId }]);
    expect((await access.auditLog(merchantId)).map((entry) => entry.action)).toEqual(['user.joined', 'user.invited']);
  });

  it('keeps the TOTP seed sealed, and lets one of two sign-ins with the same code in', async () => {
    const { email, secret } = await joinedOwner();
    const stored = await item(tables.dashboardUsers, { email });
    expect(JSON.stringify(stored)).not.toContain(secret);
    expect(stored?.totpSecret).toMatchObject({ algorithm: 'AES-256-GCM' });
    // The next step's code: the join took this one, and one step of drift is allowed.
    const code = totpCode(secret, totpStep(new Date()) + 1);
    const both = await Promise.all([access.signIn(email, PASSWORD, code), access.signIn(email, PASSWORD, code)]);
    expect(both.filter(Boolean)).toHaveLength(1);
  });

  it('counts every one of 20 wrong sign-ins sent at once: locked once for 15 minutes, the right sign-in refused until the lock ends', async () => {
    const { merchantId, email, secret } = await joinedOwner();
    const step = totpStep(new Date());
    const startedAt = Date.now();
    const wrong = await Promise.all(Array.from({ length: 20 }, () => access.signIn(email, 'wrong-password-here', totpCode(secret, step + 1))));
    expect(wrong.filter(Boolean)).toEqual([]);
    const locked = await item(tables.dashboardUsers, { email });
    expect(locked?.failedSignIns).toBe(0);
    const until = Date.parse(String(locked?.lockedUntil));
    expect(until).toBeGreaterThanOrEqual(startedAt + LOCKOUT_SECONDS * 1000);
    expect(until).toBeLessThanOrEqual(Date.now() + LOCKOUT_SECONDS * 1000);
    expect((await access.auditLog(merchantId)).filter((entry) => entry.action === 'user.locked')).toHaveLength(1);

    expect(await access.signIn(email, PASSWORD, totpCode(secret, step + 1))).toBeUndefined();
    // The lock's end, brought forward: the right password and a code get in again, and the count starts from zero.
    await documentClient.send(
      new UpdateCommand({
        TableName: tables.dashboardUsers,
        Key: { email },
        UpdateExpression: 'SET lockedUntil = :past',
        ExpressionAttributeValues: { ':past': new Date(Date.now() - 1000).toISOString() },
      }),
    );
    expect(await access.signIn(email, PASSWORD, totpCode(secret, step + 1))).toBeDefined();
    expect(await item(tables.dashboardUsers, { email })).toMatchObject({ failedSignIns: 0 });
    expect((await item(tables.dashboardUsers, { email }))?.lockedUntil).toBeUndefined();
  });

  it('stores sessions by digest with their TTL, and ends every one of a user', async () => {
    const { joined } = await joinedOwner();
    const session = await item(tables.dashboardSessions, { id: tokenDigest(joined.sessionToken) });
    expect(session).toMatchObject({ userId: joined.user.email });
    expect(session!.expiresAt).toBeGreaterThan(Date.now() / 1000 + SESSION_IDLE_SECONDS - 60);
    const signedIn = await access.signedIn(joined.sessionToken);
    await access.signOutEverywhere(signedIn!);
    expect(await item(tables.dashboardSessions, { id: tokenDigest(joined.sessionToken) })).toBeUndefined();
    expect(await access.signedIn(joined.sessionToken)).toBeUndefined();
  });
});
