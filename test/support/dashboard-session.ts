/** A dashboard session over plain HTTP (no browser), for benchmarks and tests that only fetch pages. */
import { totpCode, totpStep } from '../../shared/domain/dashboard/totp.js';
import type { GatewayProcess } from './gateway-process.js';

/**
 * Signs the demo owner in; the `Cookie` header of its session. A code is taken once, and the owner
 * joined with the current step's: the next step's is used (one step of drift is allowed), so one
 * sign-in every 30 seconds.
 */
export async function signInOwner(gateway: Pick<GatewayProcess, 'baseUrl' | 'owner'>): Promise<string> {
  const { email, password, totpKey } = gateway.owner;
  const code = totpCode(totpKey, totpStep(new Date()) + 1);
  const answer = await fetch(`${gateway.baseUrl}/dashboard/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: new URL(gateway.baseUrl).origin },
    body: new URLSearchParams({ email, password, code }).toString(),
  });
  const cookie = answer.headers.get('set-cookie')?.split(';')[0];
  if (answer.status !== 303 || !cookie) throw new Error(`The demo owner's sign-in failed: ${answer.status}`);
  return cookie;
}
