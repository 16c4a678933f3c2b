/** Dashboard users: what each role may do, password hashes, the lockout, one-time tokens and recovery codes. */
import { describe, expect, it } from 'vitest';
import {
  can,
  DASHBOARD_ROLES,
  hashPassword,
  isLocked,
  signInFailure,
  LOCKOUT_SECONDS,
  MAX_FAILED_SIGN_INS,
  newRecoveryCodes,
  newToken,
  PERMISSIONS,
  requiresSecondFactor,
  tokenDigest,
  useRecoveryCode,
  verifyPassword,
  type SignInRecord,
} from '../../shared/domain/dashboard/dashboard-users.js';

const NOW = new Date('2026-11-25T10:00:00.000Z');
const later = (seconds: number) => new Date(NOW.getTime() + seconds * 1000);

describe('roles', () => {
  it('lets an owner do everything, a developer keys, callbacks and settings, a viewer only read', () => {
    const allowed = Object.fromEntries(DASHBOARD_ROLES.map((role) => [role, PERMISSIONS.filter((permission) => can(role, permission))]));
    expect(allowed).toEqual({
      owner: [...PERMISSIONS],
      developer: ['read', 'keys', 'callbacks', 'settings'],
      viewer: ['read'],
    });
    expect(DASHBOARD_ROLES.filter(requiresSecondFactor)).toEqual(['owner']);
  });
});

describe('passwords', () => {
  it('are kept as salted scrypt hashes that match the password alone', async () => {
    const stored = await hashPassword('correct horse battery staple');
    expect(stored).toMatch(/^scrypt\$32768\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    expect(stored).not.toContain('correct');
    expect(await hashPassword('correct horse battery staple')).not.toBe(stored);
    expect(await verifyPassword('correct horse battery staple', stored)).toBe(true);
    expect(await verifyPassword('correct horse battery stapl', stored)).toBe(false);
    expect(await verifyPassword('Correct horse battery staple', stored)).toBe(false);
  });

  it('match what a user types however Unicode composes it, and nothing stored in another shape', async () => {
    const stored = await hashPassword('caf\u00e9 au lait 2026');
    expect(await verifyPassword('cafe\u0301 au lait 2026', stored)).toBe(true);
    for (const other of ['', 'plain', 'bcrypt$10$abc$def', 'scrypt$32768$8$1$$']) expect(await verifyPassword('anything at all', other)).toBe(false);
  });
});

describe('the lockout', () => {
  it('is 15 minutes from the failure that makes five in a row, and ends on the minute', () => {
    expect(signInFailure(NOW)).toEqual({ at: NOW, maxFailures: MAX_FAILED_SIGN_INS, lockedUntil: later(LOCKOUT_SECONDS).toISOString() });
    expect(MAX_FAILED_SIGN_INS).toBe(5);
    const record: SignInRecord = { failedSignIns: 0, lockedUntil: later(LOCKOUT_SECONDS).toISOString() };
    expect(isLocked(record, later(LOCKOUT_SECONDS - 1))).toBe(true);
    expect(isLocked(record, later(LOCKOUT_SECONDS))).toBe(false);
    expect(isLocked({ failedSignIns: 4 }, NOW)).toBe(false);
  });
});

describe('one-time tokens and recovery codes', () => {
  it('makes tokens of 32 random bytes, kept as SHA-256 digests', () => {
    const token = newToken();
    expect(Buffer.from(token, 'base64url')).toHaveLength(32);
    expect(newToken()).not.toBe(token);
    expect(tokenDigest(token)).toMatch(/^[0-9a-f]{64}$/);
    expect(tokenDigest(token)).toBe(tokenDigest(token));
  });

  it('makes ten recovery codes, each taken once, however it is typed', () => {
    const { codes, digests } = newRecoveryCodes();
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const code of codes) expect(code).toMatch(/^[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$/);
    expect(digests.join()).not.toContain(codes[0]!);
    const typed = ` ${codes[3]!.toLowerCase().replaceAll('-', '')} `;
    const left = useRecoveryCode(digests, typed)!;
    expect(left).toHaveLength(9);
    expect(useRecoveryCode(left, codes[3]!)).toBeUndefined();
    expect(useRecoveryCode(left, 'AAAA-BBBB-CCCC')).toBeUndefined();
  });
});
