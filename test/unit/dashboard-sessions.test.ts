/** Dashboard sessions: a digest stored, 12 hours idle at most, the cookie's attributes, and the CSRF token of each session. */
import { describe, expect, it } from 'vitest';
import { clearedSessionCookie, cookieScopeOf, isLive, newSession, SESSION_IDLE_SECONDS, sessionCookie, sessionTokenOf, touched, validCsrf } from '../../shared/domain/dashboard/dashboard-sessions.js';
import { tokenDigest } from '../../shared/domain/dashboard/dashboard-users.js';

const NOW = new Date('2026-11-25T10:00:00.000Z');
const later = (seconds: number) => new Date(NOW.getTime() + seconds * 1000);
const user = { merchantId: 'merchant-1', userId: 'user-1', role: 'developer' as const };

describe('dashboard sessions', () => {
  it('store the digest of the token the cookie carries, never the token', () => {
    const { token, session } = newSession(user, NOW);
    expect(session).toEqual({
      id: tokenDigest(token),
      ...user,
      createdAt: NOW.toISOString(),
      lastSeenAt: NOW.toISOString(),
      expiresAt: NOW.getTime() / 1000 + SESSION_IDLE_SECONDS,
      csrf: expect.any(String),
    });
    expect(JSON.stringify(session)).not.toContain(token);
    expect(session.csrf).not.toBe(newSession(user, NOW).session.csrf);
  });

  it('end after 12 hours without a request, and start over with each one', () => {
    const { session } = newSession(user, NOW);
    expect(isLive(session, later(SESSION_IDLE_SECONDS - 1))).toBe(true);
    expect(isLive(session, later(SESSION_IDLE_SECONDS))).toBe(false);
    const seen = touched(session, later(SESSION_IDLE_SECONDS - 1));
    expect(isLive(seen, later(2 * SESSION_IDLE_SECONDS - 2))).toBe(true);
    expect(seen.expiresAt).toBe(later(2 * SESSION_IDLE_SECONDS - 1).getTime() / 1000);
  });

  it('ride in a cookie scripts cannot read and other sites cannot send, Secure over https', () => {
    expect(sessionCookie('abc', cookieScopeOf('https://pay.example.com'))).toBe(`gw_session=abc; Path=/dashboard; HttpOnly; SameSite=Strict; Max-Age=${SESSION_IDLE_SECONDS}; Secure`);
    expect(sessionCookie('abc', cookieScopeOf('http://127.0.0.1:3000'))).toBe(`gw_session=abc; Path=/dashboard; HttpOnly; SameSite=Strict; Max-Age=${SESSION_IDLE_SECONDS}`);
    expect(clearedSessionCookie(cookieScopeOf('https://abc.execute-api.eu-west-1.amazonaws.com/prod/'))).toBe('gw_session=; Path=/prod/dashboard; HttpOnly; SameSite=Strict; Max-Age=0; Secure');
    expect(sessionTokenOf('theme=dark; gw_session=abc-_1; other=x')).toBe('abc-_1');
    for (const header of [undefined, '', 'gw_session=', 'gw_sessionx=abc', 'other=gw_session']) expect(sessionTokenOf(header)).toBeUndefined();
  });

  it("take a form's CSRF token only when it is its own session's", () => {
    const { session } = newSession(user, NOW);
    const other = newSession(user, NOW).session;
    const token = session.csrf;
    expect(validCsrf(session, token)).toBe(true);
    expect(validCsrf(other, token)).toBe(false);
    for (const submitted of [undefined, '', token.slice(1), `${token}x`]) expect(validCsrf(session, submitted)).toBe(false);
  });
});
