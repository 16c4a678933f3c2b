/**
 * Dashboard sessions: kept server-side (only a digest of the session's token is stored), ended
 * after 12 hours without a request, carried by a cookie that scripts cannot read and other sites
 * cannot send, and a random CSRF token per session that every form carries back. Pure but for node:crypto.
 */
import { timingSafeEqual } from 'node:crypto';
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
  /** What every form of the session carries back: random, kept with the session, never in the cookie. */
  csrf: string;
}

/** A new session and the token its cookie carries (shown to the browser once, never stored). */
export function newSession(user: { merchantId: string; userId: string; role: DashboardRole }, now: Date): { token: string; session: DashboardSession } {
  const token = newToken();
  const session = { id: tokenDigest(token), ...user, createdAt: now.toISOString(), lastSeenAt: now.toISOString(), expiresAt: idleExpiry(now), csrf: newToken() };
  return { token, session };
}

const idleExpiry = (now: Date): number => Math.floor(now.getTime() / 1000) + SESSION_IDLE_SECONDS;

/** Whether the session is still alive at `now`: seen within the idle limit. */
export const isLive = (session: Pick<DashboardSession, 'lastSeenAt'>, now: Date): boolean => now.getTime() - Date.parse(session.lastSeenAt) < SESSION_IDLE_SECONDS * 1000;

/** The session seen again at `now`: its idle limit starts over. */
export const touched = (session: DashboardSession, now: Date): DashboardSession => ({ ...session, lastSeenAt: now.toISOString(), expiresAt: idleExpiry(now) });

/** Where the cookie is sent and how: under the dashboard's path, `Secure` wherever the dashboard is served over https. */
export interface CookieScope {
  /** The dashboard's URL path, e.g. `/dashboard` or `/prod/dashboard` on an execute-api endpoint. */
  path: string;
  secure: boolean;
}

/** The scope of the dashboard's cookie on the gateway's public origin. */
export function cookieScopeOf(publicBaseUrl: string): CookieScope {
  const url = new URL(publicBaseUrl);
  return { path: `${url.pathname.replace(/\/+$/, '')}/dashboard`, secure: url.protocol === 'https:' };
}

const cookie = (value: string, maxAge: number, { path, secure }: CookieScope): string =>
  [`${SESSION_COOKIE}=${value}`, `Path=${path}`, 'HttpOnly', 'SameSite=Strict', `Max-Age=${maxAge}`, ...(secure ? ['Secure'] : [])].join('; ');

/** The `Set-Cookie` value of a session's token. */
export const sessionCookie = (token: string, scope: CookieScope): string => cookie(token, SESSION_IDLE_SECONDS, scope);

/** The `Set-Cookie` value that removes the session's cookie (sign-out). */
export const clearedSessionCookie = (scope: CookieScope): string => cookie('', 0, scope);

/** The session token a request's `Cookie` header carries, if any. */
export function sessionTokenOf(cookieHeader: string | undefined): string | undefined {
  for (const part of (cookieHeader ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === SESSION_COOKIE && value.length > 0) return value.join('=') || undefined;
  }
  return undefined;
}

/** Whether a form's CSRF token is its session's. */
export function validCsrf(session: Pick<DashboardSession, 'csrf'>, submitted: string | undefined): boolean {
  if (!submitted) return false;
  const expected = Buffer.from(session.csrf);
  const given = Buffer.from(submitted);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
