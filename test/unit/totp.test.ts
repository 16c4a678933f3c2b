/** TOTP (RFC 6238) for dashboard users: the RFC's test vectors, the drift allowed, a code never taken twice, the enrolment URI. */
import { base32nopad } from '@scure/base';
import { describe, expect, it } from 'vitest';
import { newTotpSecret, totpCode, totpStep, totpUri, verifyTotp } from '../../shared/domain/dashboard/totp.js';

// RFC 6238 appendix B: the SHA-1 key is the ASCII of "12345678901234567890".
const RFC_SECRET = base32nopad.encode(new TextEncoder().encode('12345678901234567890'));

describe('TOTP', () => {
  it.each([
    [59, '94287082'],
    [1111111109, '07081804'],
    [1111111111, '14050471'],
    [1234567890, '89005924'],
    [2000000000, '69279037'],
    [20000000000, '65353130'],
  ])("gives RFC 6238's code at %i s", (seconds, code) => {
    expect(totpCode(RFC_SECRET, totpStep(new Date(seconds * 1000)), 8)).toBe(code);
    expect(totpCode(RFC_SECRET, totpStep(new Date(seconds * 1000)))).toBe(code.slice(-6));
  });

  it('takes the code of the step before and after the current one, no further, and never one at or before the last used', () => {
    const secret = newTotpSecret();
    const at = new Date('2026-11-25T10:00:15.000Z');
    const step = totpStep(at);
    expect(verifyTotp(secret, totpCode(secret, step), at)).toBe(step);
    expect(verifyTotp(secret, totpCode(secret, step - 1), at)).toBe(step - 1);
    expect(verifyTotp(secret, totpCode(secret, step + 1), at)).toBe(step + 1);
    expect(verifyTotp(secret, totpCode(secret, step - 2), at)).toBeUndefined();
    expect(verifyTotp(secret, totpCode(secret, step + 2), at)).toBeUndefined();
    expect(verifyTotp(secret, totpCode(secret, step), at, step)).toBeUndefined();
    expect(verifyTotp(secret, totpCode(secret, step + 1), at, step)).toBe(step + 1);
    for (const wrong of ['', '12345', '1234567', 'abcdef', ' 123456']) expect(verifyTotp(secret, wrong, at)).toBeUndefined();
  });

  it('makes 20-byte secrets and an otpauth URI an authenticator app scans', () => {
    const secret = newTotpSecret();
    expect(base32nopad.decode(secret)).toHaveLength(20);
    expect(newTotpSecret()).not.toBe(secret);
    const uri = new URL(totpUri(secret, 'Payment Gateway', 'owner@shop.example'));
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.host).toBe('totp');
    expect(decodeURIComponent(uri.pathname)).toBe('/Payment Gateway:owner@shop.example');
    expect(Object.fromEntries(uri.searchParams)).toEqual({ secret, issuer: 'Payment Gateway', algorithm: 'SHA1', digits: '6', period: '30' });
  });
});
