/** The dashboard's access over in-memory stores: invitations, joining, sign-in with its lockout and second factor, sessions, removal, the audit log. */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import {
  DashboardAccess,
  type AuditEntry,
  type AuditLog,
  type DashboardUser,
  type DashboardUserStore,
  type Invitation,
  type InvitationStore,
  type SessionStore,
  type SignInState,
} from '../../shared/domain/dashboard/dashboard-access.js';
import type { DashboardSession } from '../../shared/domain/dashboard/dashboard-sessions.js';
import { INVITATION_SECONDS, isLocked, LOCKOUT_SECONDS, tokenDigest } from '../../shared/domain/dashboard/dashboard-users.js';
import { NotFound, Conflict } from '../../shared/domain/kernel/errors.js';
import { totpCode, totpStep } from '../../shared/domain/dashboard/totp.js';

// The rules here, not the hash's cost: passwords are hashed in the gateway's format with scrypt's
// cost at 2^10 rather than 2^15 (dashboard-users.test.ts hashes at the real cost), and checked by
// the real verifyPassword, which reads the cost from the hash. Each sign-in takes a millisecond
// rather than a tenth of a second, seconds rather than tens of seconds for this file on a busy machine.
vi.mock('../../shared/domain/dashboard/dashboard-users.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../shared/domain/dashboard/dashboard-users.js')>();
  const { randomBytes, scrypt } = await import('node:crypto');
  const { promisify } = await import('node:util');
  const [cost, blockSize, parallelism, keyBytes] = [2 ** 10, 8, 1, 32];
  const derive = promisify(scrypt) as (password: string, salt: Buffer, keyLength: number, options: { N: number; r: number; p: number }) => Promise<Buffer>;
  return {
    ...actual,
    hashPassword: async (password: string): Promise<string> => {
      const salt = randomBytes(16);
      const key = await derive(password.normalize('NFKC'), salt, keyBytes, { N: cost, r: blockSize, p: parallelism });
      return ['scrypt', cost, blockSize, parallelism, salt.toString('base64url'), key.toString('base64url')].join('$');
    },
  };
});

const PASSWORD = 'plum-orbit-canvas-41';
const MERCHANT = 'merchant-1';

class Memory {
  readonly users = new Map<string, DashboardUser<string>>();
  readonly invitations = new Map<string, Invitation>();
  readonly sessions = new Map<string, DashboardSession>();
  readonly entries: AuditEntry[] = [];

  readonly userStore: DashboardUserStore<string> = {
    get: async (email) => structuredClone(this.users.get(email)),
    listByMerchant: async (merchantId) => [...this.users.values()].filter((user) => user.merchantId === merchantId).map((user) => structuredClone(user)),
    join: async (user, invitationId, entry) => {
      if (!this.invitations.has(invitationId) || this.users.has(user.email)) return false;
      this.invitations.delete(invitationId);
      this.users.set(user.email, structuredClone(user));
      this.entries.push(entry);
      return true;
    },
    recordSignIn: async (before, state: SignInState, at) => {
      const now = this.users.get(before.email);
      if (!now || isLocked(now, at) || now.failedSignIns !== before.failedSignIns || now.lastTotpStep !== before.lastTotpStep || now.recoveryCodeDigests.length !== before.recoveryCodeDigests.length)
        return false;
      Object.assign(now, state, { failedSignIns: 0 });
      delete now.lockedUntil;
      return true;
    },
    // As DynamoDB's atomic ADD then conditional lock: no await between reading and writing.
    countFailedSignIn: async (email, { at, maxFailures, lockedUntil }) => {
      const now = this.users.get(email);
      if (!now || isLocked(now, at)) return 'locked_already';
      now.failedSignIns++;
      if (now.failedSignIns < maxFailures) return 'counted';
      Object.assign(now, { failedSignIns: 0, lockedUntil });
      return 'locked';
    },
    remove: async (merchantId, email, entry) => {
      if (this.users.get(email)?.merchantId !== merchantId) return false;
      this.users.delete(email);
      this.entries.push(entry);
      return true;
    },
  };
  readonly invitationStore: InvitationStore = {
    put: async (invitation, entry) => {
      this.invitations.set(invitation.id, structuredClone(invitation));
      this.entries.push(entry);
    },
    get: async (id) => structuredClone(this.invitations.get(id)),
  };
  readonly sessionStore: SessionStore = {
    put: async (session) => void this.sessions.set(session.id, structuredClone(session)),
    get: async (id) => structuredClone(this.sessions.get(id)),
    touch: async (session) => void (this.sessions.has(session.id) && this.sessions.set(session.id, structuredClone(session))),
    delete: async (id) => void this.sessions.delete(id),
    deleteAllOf: async (email) => {
      for (const [id, session] of this.sessions) if (session.userId === email) this.sessions.delete(id);
    },
  };
  readonly auditLog: AuditLog = {
    append: async (entry) => void this.entries.push(entry),
    list: async (merchantId, limit) =>
      this.entries
        .filter((entry) => entry.merchantId === merchantId)
        .reverse()
        .slice(0, limit),
  };
}

let memory: Memory;
let now: Date;
let access: DashboardAccess<string>;

beforeEach(() => {
  memory = new Memory();
  now = new Date('2026-11-25T10:00:00.000Z');
  access = new DashboardAccess<string>({
    users: memory.userStore,
    invitations: memory.invitationStore,
    sessions: memory.sessionStore,
    audit: memory.auditLog,
    // Reversible and visible: the test sees that the seed is stored sealed, under its user's context.
    secrets: { seal: async (context, secret) => `sealed(${context}):${secret}`, open: async (context, sealed) => sealed.replace(`sealed(${context}):`, '') },
    clock: () => now,
  });
});

const later = (seconds: number) => (now = new Date(now.getTime() + seconds * 1000));

/** An owner who joined with a second factor; its seed and recovery codes. */
async function owner(email = 'Owner@Shop.example') {
  const { token } = await access.invite(MERCHANT, { email: email.toLowerCase(), role: 'owner' }, 'operator');
  const secret = access.newTotpSecret();
  const joined = await access.join(token, { password: PASSWORD, passwordAgain: PASSWORD, totpSecret: secret, code: totpCode(secret, totpStep(now)) });
  if ('problems' in joined) throw new Error(joined.problems.join());
  later(30);
  return { email: email.toLowerCase(), secret, recoveryCodes: joined.recoveryCodes, token };
}

const code = (secret: string) => totpCode(secret, totpStep(now));

describe('invitations', () => {
  it('are one-time links kept as digests, expiring after 72 hours', async () => {
    const { token, invitation } = await access.invite(MERCHANT, { email: 'dev@shop.example', role: 'developer' }, 'owner@shop.example');
    expect(invitation.id).toBe(tokenDigest(token));
    expect(JSON.stringify([...memory.invitations.values()])).not.toContain(token);
    expect(await access.invitation(token)).toMatchObject({ email: 'dev@shop.example', role: 'developer' });
    later(INVITATION_SECONDS);
    expect(await access.invitation(token)).toBeUndefined();
    await expect(access.join(token, { password: PASSWORD, passwordAgain: PASSWORD })).rejects.toThrow(NotFound);
  });

  it('are taken once', async () => {
    const { token } = await owner();
    await expect(access.join(token, { password: PASSWORD, passwordAgain: PASSWORD })).rejects.toThrow(NotFound);
  });

  it("are refused for an address that is the merchant's user already", async () => {
    const { email } = await owner();
    await expect(access.invite(MERCHANT, { email, role: 'viewer' }, 'operator')).rejects.toThrow(Conflict);
  });

  it("are made for another merchant's user as for an unknown address, the same writes and answer, and cannot be taken", async () => {
    const { email } = await owner();
    const writes = (action: () => Promise<unknown>) => async () => {
      const before = { invitations: memory.invitations.size, entries: memory.entries.length };
      const answer = await action();
      return { answer, invitations: memory.invitations.size - before.invitations, entries: memory.entries.length - before.entries };
    };
    const taken = await writes(() => access.invite('merchant-2', { email, role: 'viewer' }, 'rival@other.example'))();
    const unknown = await writes(() => access.invite('merchant-2', { email: 'nobody@shop.example', role: 'viewer' }, 'rival@other.example'))();
    const shape = (outcome: typeof taken) => ({ ...outcome, answer: Object.keys(outcome.answer as object) });
    expect(shape(taken)).toEqual(shape(unknown));
    expect((taken.answer as { invitation: Invitation }).invitation).toMatchObject({ merchantId: 'merchant-2', email, role: 'viewer' });
    // The address stays its own merchant's user.
    const { token } = taken.answer as { token: string };
    await expect(access.join(token, { password: PASSWORD, passwordAgain: PASSWORD })).rejects.toThrow(NotFound);
    expect(memory.users.get(email)).toMatchObject({ merchantId: MERCHANT, role: 'owner' });
  });
});

describe('joining', () => {
  it('names each problem: a short, a common or a mismatched password, an owner without a code, a wrong code', async () => {
    const { token } = await access.invite(MERCHANT, { email: 'o@shop.example', role: 'owner' }, 'operator');
    const secret = access.newTotpSecret();
    expect(await access.join(token, { password: 'short', passwordAgain: 'short', totpSecret: secret })).toEqual({ problems: ['too_short', 'code_required'] });
    expect(await access.join(token, { password: 'password1234', passwordAgain: 'password1234', totpSecret: secret, code: '000000' })).toEqual({ problems: ['too_common', 'code_wrong'] });
    expect(await access.join(token, { password: PASSWORD, passwordAgain: `${PASSWORD}x`, totpSecret: secret, code: code(secret) })).toEqual({ problems: ['passwords_differ'] });
    expect(memory.users.size).toBe(0);
  });

  it('keeps the password as a scrypt hash and the seed sealed, and gives an owner ten recovery codes', async () => {
    const { email, secret, recoveryCodes } = await owner();
    const user = memory.users.get(email)!;
    expect(user.passwordHash).toMatch(/^scrypt\$/);
    expect(JSON.stringify(user)).not.toContain(PASSWORD);
    expect(user.totpSecret).toBe(`sealed(dashboard-totp:${email}):${secret}`);
    expect(recoveryCodes).toHaveLength(10);
    expect(memory.entries.map((entry) => entry.action)).toEqual(['user.invited', 'user.joined']);
  });

  it('lets a viewer go without a second factor', async () => {
    const { token } = await access.invite(MERCHANT, { email: 'v@shop.example', role: 'viewer' }, 'operator');
    const joined = await access.join(token, { password: PASSWORD, passwordAgain: PASSWORD, totpSecret: access.newTotpSecret(), code: '' });
    expect(joined).toMatchObject({ recoveryCodes: [] });
    expect(memory.users.get('v@shop.example')!.totpSecret).toBeUndefined();
    expect(await access.signIn('v@shop.example', PASSWORD, '')).toBeDefined();
  });
});

describe('sign-in', () => {
  it('takes the password and the current code, each code once, whatever the case of the address', async () => {
    const { email, secret } = await owner();
    const first = await access.signIn(email.toUpperCase(), PASSWORD, code(secret));
    expect(first).toBeDefined();
    expect(await access.signIn(email, PASSWORD, code(secret))).toBeUndefined();
    later(30);
    expect(await access.signIn(email, PASSWORD, code(secret))).toBeDefined();
  });

  it('lets one of two sign-ins racing with the same code in, not both', async () => {
    const { email, secret } = await owner();
    const sessionsBefore = memory.sessions.size;
    const both = await Promise.all([access.signIn(email, PASSWORD, code(secret)), access.signIn(email, PASSWORD, code(secret))]);
    expect(both.filter(Boolean)).toHaveLength(1);
    expect(memory.sessions.size).toBe(sessionsBefore + 1);
  });

  it('refuses a wrong password, a wrong or missing code and an unknown address alike', async () => {
    const { email, secret } = await owner();
    const refusals = await Promise.all([
      access.signIn(email, `${PASSWORD}!`, code(secret)),
      access.signIn('nobody@shop.example', PASSWORD, code(secret)),
      access.signIn('', PASSWORD, code(secret)),
      access.signIn('not an address', PASSWORD, code(secret)),
    ]);
    expect(refusals).toEqual([undefined, undefined, undefined, undefined]);
    expect(await access.signIn(email, PASSWORD, '')).toBeUndefined();
    expect(await access.signIn(email, PASSWORD, '123456')).toBeUndefined();
  });

  it('locks the account for 15 minutes after five failures, a right sign-in refused meanwhile', async () => {
    const { email, secret } = await owner();
    for (let i = 0; i < 5; i++) expect(await access.signIn(email, 'wrong-password-here', code(secret))).toBeUndefined();
    expect(memory.users.get(email)!.lockedUntil).toBe(new Date(now.getTime() + LOCKOUT_SECONDS * 1000).toISOString());
    later(LOCKOUT_SECONDS - 60);
    expect(await access.signIn(email, PASSWORD, code(secret))).toBeUndefined();
    later(60);
    expect(await access.signIn(email, PASSWORD, code(secret))).toBeDefined();
    expect(memory.users.get(email)).toMatchObject({ failedSignIns: 0 });
    expect(memory.users.get(email)!.lockedUntil).toBeUndefined();
    expect(memory.entries.map((entry) => entry.action)).toContain('user.locked');
  });

  it('counts every one of 20 wrong sign-ins sent at once: the account locks once, and the right sign-in is refused until the lock ends', async () => {
    const { email, secret } = await owner();
    const refusals = await Promise.all(Array.from({ length: 20 }, () => access.signIn(email, 'wrong-password-here', code(secret))));
    expect(refusals.every((refusal) => refusal === undefined)).toBe(true);
    expect(memory.users.get(email)!.lockedUntil).toBe(new Date(now.getTime() + LOCKOUT_SECONDS * 1000).toISOString());
    expect(memory.entries.filter((entry) => entry.action === 'user.locked')).toHaveLength(1);
    later(LOCKOUT_SECONDS - 1);
    expect(await access.signIn(email, PASSWORD, code(secret))).toBeUndefined();
    later(1);
    expect(await access.signIn(email, PASSWORD, code(secret))).toBeDefined();
  });

  it('takes a recovery code once, in place of the code', async () => {
    const { email, recoveryCodes } = await owner();
    const [recovery] = recoveryCodes;
    expect(await access.signIn(email, PASSWORD, recovery!.toLowerCase().replace(/-/g, ' '))).toBeDefined();
    expect(await access.signIn(email, PASSWORD, recovery!)).toBeUndefined();
    expect(memory.users.get(email)!.recoveryCodeDigests).toHaveLength(9);
  });
});

describe('sessions', () => {
  it('end after 12 hours idle, and move on with each page', async () => {
    const { email, secret } = await owner();
    const { sessionToken } = (await access.signIn(email, PASSWORD, code(secret)))!;
    later(11 * 3600);
    expect(await access.signedIn(sessionToken)).toBeDefined();
    later(11 * 3600);
    expect(await access.signedIn(sessionToken)).toBeDefined();
    later(12 * 3600);
    expect(await access.signedIn(sessionToken)).toBeUndefined();
    expect(await access.signedIn(undefined)).toBeUndefined();
    expect(await access.signedIn('not-a-token')).toBeUndefined();
  });

  it('all end when the user signs out everywhere, or is removed', async () => {
    const { email, secret } = await owner();
    const one = (await access.signIn(email, PASSWORD, code(secret)))!;
    later(30);
    const two = (await access.signIn(email, PASSWORD, code(secret)))!;
    await access.signOutEverywhere((await access.signedIn(one.sessionToken))!);
    expect(await access.signedIn(two.sessionToken)).toBeUndefined();

    const { token } = await access.invite(MERCHANT, { email: 'v@shop.example', role: 'viewer' }, email);
    const viewer = await access.join(token, { password: PASSWORD, passwordAgain: PASSWORD });
    if ('problems' in viewer) throw new Error('viewer did not join');
    later(30);
    const ownerSession = (await access.signIn(email, PASSWORD, code(secret)))!;
    const by = (await access.signedIn(ownerSession.sessionToken))!;
    await expect(access.removeUser(by, email)).rejects.toThrow(Conflict);
    await access.removeUser(by, 'v@shop.example');
    expect(await access.signedIn(viewer.sessionToken)).toBeUndefined();
    await expect(access.removeUser(by, 'v@shop.example')).rejects.toThrow(NotFound);
    expect((await access.auditLog(MERCHANT)).map((entry) => entry.action).slice(0, 3)).toEqual(['user.removed', 'user.signed_in', 'user.joined']);
  });
});

describe('a fresh code confirming a change', () => {
  /** The owner signed in with the code of now, as the dashboard has them. */
  async function signedInOwner() {
    const { email, secret, recoveryCodes } = await owner();
    const { sessionToken } = (await access.signIn(email, PASSWORD, code(secret)))!;
    return { secret, recoveryCodes, signedIn: (await access.signedIn(sessionToken))! };
  }

  it("is a code of the owner's app after the last one taken, within a step of now, one taken already told apart; nothing is written until the change takes it", async () => {
    const { secret, signedIn } = await signedInOwner();
    const step = totpStep(now);
    // Now's code confirmed the sign-in; the next step's, which the app shows within 30 seconds, is fresh.
    expect(await access.freshCode(signedIn, code(secret))).toBe('used');
    expect(await access.freshCode(signedIn, ` ${totpCode(secret, step + 1)} `)).toEqual({ email: signedIn.user.email, step: step + 1 });
    expect(memory.users.get(signedIn.user.email)?.lastTotpStep).toBe(step);
    expect(await access.freshCode(signedIn, totpCode(secret, step + 2))).toBe('wrong');
  });

  it('is never a wrong code, a recovery code, or an empty one, each told wrong', async () => {
    const { secret, recoveryCodes, signedIn } = await signedInOwner();
    const next = totpCode(secret, totpStep(now) + 1);
    for (const wrong of [String((Number(next) + 1) % 1_000_000).padStart(6, '0'), recoveryCodes[0]!, '', '12345']) expect(await access.freshCode(signedIn, wrong), wrong).toBe('wrong');
  });

  it('is none for a user without a second factor', async () => {
    const { token } = await access.invite(MERCHANT, { email: 'v@shop.example', role: 'viewer' }, 'operator');
    await access.join(token, { password: PASSWORD, passwordAgain: PASSWORD });
    const { sessionToken } = (await access.signIn('v@shop.example', PASSWORD, ''))!;
    expect(await access.freshCode((await access.signedIn(sessionToken))!, '123456')).toBe('wrong');
  });
});
