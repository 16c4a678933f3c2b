/**
 * The people of a merchant who sign in to the dashboard: their roles and what each may do, their
 * passwords (scrypt, the platform's memory-hard hash), the lockout after failed sign-ins, the
 * one-time tokens of invitations (kept only as digests) and the recovery codes of the second
 * factor. Pure but for node:crypto.
 */
import { createHash, randomBytes, randomInt, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { ZxcvbnFactory } from '@zxcvbn-ts/core';
import * as commonLanguage from '@zxcvbn-ts/language-common';
import { API_KEY_SCOPES, type ApiKeyScope } from '../merchants/index.js';

export const DASHBOARD_ROLES = ['owner', 'developer', 'viewer'] as const;
export type DashboardRole = (typeof DASHBOARD_ROLES)[number];

/** What a page or a form needs of its user. */
export const PERMISSIONS = ['read', 'keys', 'callbacks', 'settings', 'payouts', 'reports', 'users', 'audit'] as const;
export type Permission = (typeof PERMISSIONS)[number];

/** `owner`: everything; `developer`: keys, callbacks and settings; `viewer`: reads. */
const GRANTS: Record<DashboardRole, readonly Permission[]> = {
  owner: PERMISSIONS,
  developer: ['read', 'keys', 'callbacks', 'settings'],
  viewer: ['read'],
};

export const can = (role: DashboardRole, permission: Permission): boolean => GRANTS[role].includes(permission);

/**
 * The scopes of the API keys a role may make: what the role may do itself, so that a key never
 * does more than its maker could (docs/merchant-guide.md#key-scopes). A developer may not pay out
 * or ask for reports; a viewer makes no keys.
 */
const KEY_SCOPES: Record<DashboardRole, readonly ApiKeyScope[]> = {
  owner: API_KEY_SCOPES,
  developer: ['read', 'payments', 'settings'],
  viewer: [],
};

export const keyScopesOf = (role: DashboardRole): readonly ApiKeyScope[] => KEY_SCOPES[role];

/** Owners must have a second factor; the others may. */
export const requiresSecondFactor = (role: DashboardRole): boolean => role === 'owner';

export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 256;

/** OWASP's scrypt parameters (N=2^17 would be stronger, at 128 MB a hash: too much for a 512 MB function under load). */
const SCRYPT_COST = 2 ** 15;
const SCRYPT_BLOCK_SIZE = 8;
const SCRYPT_PARALLELISM = 1;
const SCRYPT_KEY_BYTES = 32;

const derive = (password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> =>
  new Promise((resolve, reject) =>
    scrypt(password.normalize('NFKC'), salt, SCRYPT_KEY_BYTES, { ...options, maxmem: 256 * options.N! * options.r! }, (error, key) => (error ? reject(error) : resolve(key))),
  );

/** `scrypt$N$r$p$salt$hash` (base64url): the parameters travel with the hash, so they can be raised later. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, { N: SCRYPT_COST, r: SCRYPT_BLOCK_SIZE, p: SCRYPT_PARALLELISM });
  return ['scrypt', SCRYPT_COST, SCRYPT_BLOCK_SIZE, SCRYPT_PARALLELISM, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** Whether `password` is the one `stored` was made from; a stored value of another shape matches nothing. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash || password.length > PASSWORD_MAX_LENGTH) return false;
  const expected = Buffer.from(hash, 'base64url');
  const key = await derive(password, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

export const MAX_FAILED_SIGN_INS = 5;
export const LOCKOUT_SECONDS = 15 * 60;

export interface SignInRecord {
  /** Failed sign-ins in a row since the last success or lockout. */
  failedSignIns: number;
  lockedUntil?: string;
}

export const isLocked = (record: SignInRecord, now: Date): boolean => record.lockedUntil !== undefined && Date.parse(record.lockedUntil) > now.getTime();

/**
 * What a failed sign-in at `now` does, for the store to apply atomically (so that failures sent at
 * once are all counted): while locked, nothing; otherwise it counts one more, and the failure that
 * makes five in a row locks the account for 15 minutes and starts the count again.
 */
export interface SignInFailure {
  at: Date;
  maxFailures: number;
  lockedUntil: string;
}

export const signInFailure = (now: Date): SignInFailure => ({
  at: now,
  maxFailures: MAX_FAILED_SIGN_INS,
  lockedUntil: new Date(now.getTime() + LOCKOUT_SECONDS * 1000).toISOString(),
});

/** How long an invitation's link may be used. */
export const INVITATION_SECONDS = 72 * 3600;

/** A one-time token for a link (an invitation): 32 random bytes, base64url. Only its digest is stored. */
export const newToken = (): string => randomBytes(32).toString('base64url');

/** What is stored of a token or a recovery code: its SHA-256, hex (they carry enough entropy that no slow hash is needed). */
export const tokenDigest = (token: string): string => createHash('sha256').update(token).digest('hex');

export const RECOVERY_CODES = 10;
/** Crockford's base32 without I, L, O, U: nothing to mistake when typed from paper. */
const RECOVERY_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

const recoveryCode = (): string => Array.from({ length: 3 }, () => Array.from({ length: 4 }, () => RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)]).join('')).join('-');

/** Normalized as typed: upper case, no spaces, dashes as given or not. */
const normalizedRecoveryCode = (code: string): string => code.toUpperCase().replace(/[\s-]/g, '');

/** Ten recovery codes (`XXXX-XXXX-XXXX`, 60 bits each), shown once, and the digests kept of them. */
export function newRecoveryCodes(): { codes: string[]; digests: string[] } {
  const codes = Array.from({ length: RECOVERY_CODES }, recoveryCode);
  return { codes, digests: codes.map((code) => tokenDigest(normalizedRecoveryCode(code))) };
}

/** The digests left once `code` is used; undefined when it is none of them (used already, or never one). */
export function useRecoveryCode(digests: readonly string[], code: string): string[] | undefined {
  const digest = tokenDigest(normalizedRecoveryCode(code));
  return digests.includes(digest) ? digests.filter((each) => each !== digest) : undefined;
}

/** Common passwords and the variations people make of them, as zxcvbn knows them (its English and common lists). */
const strength = new ZxcvbnFactory({ dictionary: { ...commonLanguage.dictionary }, graphs: commonLanguage.adjacencyGraphs });

/** zxcvbn's "safely unguessable" score: at least 10^8 guesses. Below it a password is one of the commonest or a close variation. */
const LEAST_SCORE = 3;

export type PasswordProblem = 'too_short' | 'too_long' | 'too_common';

/** What is wrong with a new password, if anything: at least 12 characters, and not one of the commonest (docs/merchant-guide.md#dashboard). */
export function passwordProblem(password: string, context: readonly string[] = []): PasswordProblem | undefined {
  if ([...password].length < PASSWORD_MIN_LENGTH) return 'too_short';
  if (password.length > PASSWORD_MAX_LENGTH) return 'too_long';
  return strength.check(password, [...context]).score < LEAST_SCORE ? 'too_common' : undefined;
}
