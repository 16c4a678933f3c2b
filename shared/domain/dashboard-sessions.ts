/**
 * Dashboard sessions: kept server-side (only a digest of the session's token is stored), ended
 * after 12 hours without a request, carried by a cookie that scripts cannot read and other sites
 * cannot send, and a CSRF token per session that every form carries back. Pure but for node:crypto.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { newToken, tokenDigest, type DashboardRole } from './dashboard-users.js';

export const SESSION_IDLE_SECONDS = 12 * 3600;
export const SESSION_COOKIE = 'gw_session';

export interface DashboardSession {
  /** The digest of the token the cookie carries (`tokenDigest`): a stolen table holds no usable session. */
  id: string;
  merchantId: string;
  userId: string;
  role: DashboardRole;
  createdAt: string;
  lastSeenAt: string;
  /** When the store forgets it unless it is seen again (the table's TTL, epoch seconds). */
  expiresAt: number;
}

/** A new session and the token its cookie carries (shown to the browser once, never stored). */
export function newSession(user: { merchantId: string; userId: string; role: DashboardRole }, now: Date): { token: string; session: DashboardSession } {
  const token = newToken();
  return { token, session: { id: tokenDigest(token), ...user, createdAt: now.toISOString(), lastSeenAt: now.toISOString(), expiresAt: idleExpiry(now) } };
}

const idleExpiry = (now: Date): number => Math.floor(now.getTime() / 1000) + SESSION_IDLE_SECONDS;

/** Whether the session is still alive at `now`: seen within the idle limit. */
export const isLive = (session: Pick<DashboardSession, 'lastSeenAt'>, now: Date): boolean => now.getTime() - Date.parse(session.lastSeenAt) < SESSION_IDLE_SECONDS * 1000;

/** The session seen again at `now`: its idle limit starts over. */
export const touched = (session: DashboardSession, now: Date): DashboardSession => ({ ...session, lastSeenAt: now.toISOString(), expiresAt: idleExpiry(now) });

/** The `Set-Cookie` value of a session's token: `Secure` wherever the dashboard is served over https. */
export function sessionCookie(token: string, secure: boolean): string {
  return [`${SESSION_COOKIE}=${token}`, 'Path=/dashboard', 'HttpOnly', 'SameSite=Strict', `Max-Age=${SESSION_IDLE_SECONDS}`, ...(secure ? ['Secure'] : [])].join('; ');
}

/** The `Set-Cookie` value that removes the session's cookie (sign-out). */
export const clearedSessionCookie = (secure: boolean): string =>
  [`${SESSION_COOKIE}=`, 'Path=/dashboard', 'HttpOnly', 'SameSite=Strict', 'Max-Age=0', ...(secure ? ['Secure'] : [])].join('; ');

/** The session token a request's `Cookie` header carries, if any. */
export function sessionTokenOf(cookieHeader: string | undefined): string | undefined {
  for (const part of (cookieHeader ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === SESSION_COOKIE && value.length > 0) return value.join('=') || undefined;
  }
  return undefined;
}

/** The CSRF token of a session: an HMAC of its id under the gateway's key, so nothing more is stored. */
export const csrfToken = (sessionId: string, key: Uint8Array): string => createHmac('sha256', key).update(`csrf:${sessionId}`).digest('base64url');

/** Whether a form's CSRF token is its session's. */
export function validCsrf(sessionId: string, key: Uint8Array, submitted: string | undefined): boolean {
  if (!submitted) return false;
  const expected = Buffer.from(csrfToken(sessionId, key));
  const given = Buffer.from(submitted);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
