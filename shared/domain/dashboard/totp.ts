/**
 * Time-based one-time passwords (RFC 6238 over RFC 4226: HMAC-SHA1, 30-second steps, 6 digits),
 * the second factor of dashboard users, as authenticator apps read them from an `otpauth://` URI.
 * A code is taken from the step before to the step after the current one (clocks drift), and never
 * twice: the caller keeps the last step used.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { base32nopad } from '@scure/base';

export const TOTP_STEP_SECONDS = 30;
export const TOTP_DIGITS = 6;
/** Steps either side of the current one whose codes are still taken. */
const DRIFT_STEPS = 1;

/** A new secret of 20 random bytes (RFC 4226's recommended length), base32 as apps take it. */
export const newTotpSecret = (): string => base32nopad.encode(randomBytes(20));

/** The step of `at`: whole periods since the epoch. */
export const totpStep = (at: Date): number => Math.floor(at.getTime() / 1000 / TOTP_STEP_SECONDS);

/** The code of `step` for a base32 `secret` (RFC 4226's dynamic truncation). */
export function totpCode(secret: string, step: number, digits = TOTP_DIGITS): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(step));
  const mac = createHmac('sha1', Buffer.from(base32nopad.decode(secret.toUpperCase().replace(/=+$/, ''))))
    .update(counter)
    .digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** digits).padStart(digits, '0');
}

/**
 * The step whose code `code` is, within the drift allowed around `at` and after `lastUsedStep`
 * (a code used once is refused); undefined when it is none of them.
 */
export function verifyTotp(secret: string, code: string, at: Date, lastUsedStep?: number): number | undefined {
  if (!/^\d{6}$/.test(code)) return undefined;
  const now = totpStep(at);
  for (let step = now - DRIFT_STEPS; step <= now + DRIFT_STEPS; step++) {
    if (lastUsedStep !== undefined && step <= lastUsedStep) continue;
    if (timingSafeEqual(Buffer.from(totpCode(secret, step)), Buffer.from(code))) return step;
  }
  return undefined;
}

/** What an authenticator app scans to enrol: `otpauth://totp/{issuer}:{account}?…`. */
export function totpUri(secret: string, issuer: string, account: string): string {
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(account)}`;
  const query = new URLSearchParams({ secret, issuer, algorithm: 'SHA1', digits: String(TOTP_DIGITS), period: String(TOTP_STEP_SECONDS) });
  return `otpauth://totp/${label}?${query}`;
}
