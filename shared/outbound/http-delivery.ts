/**
 * A callback's HTTP delivery (docs/merchant-guide.md#callbacks): one POST, no redirects followed, 10 s for the whole
 * exchange, behind the address guard of the deployment. A failure is reported in one of a few
 * categories, never with the system's own error text: that would tell a closed port from an open
 * one and map the network behind the URL.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { DELIVERY_TIMEOUT_MS, type Deliver } from '../domain/callbacks/index.js';
import { isIpLiteral, isNonPublicAddress, NonPublicAddressError, publicOnlyLookup, type CallbackTargets } from './address-guard.js';

/** What a failed delivery reports as its `error`: the category, and nothing of the network. */
export const DELIVERY_FAILURES = {
  invalidUrl: 'callback URL is not a URL',
  notHttps: 'callback URL must use https',
  nonPublic: 'callback URL is a non-public address',
  notFound: 'host not found',
  refused: 'connection refused',
  timedOut: 'timed out',
  tls: 'TLS handshake failed',
  failed: 'connection failed',
} as const;

export type DeliveryFailure = (typeof DELIVERY_FAILURES)[keyof typeof DELIVERY_FAILURES];

export interface DeliveryGuard {
  /** Production calls https URLs only; demo and local take http too. */
  httpsOnly: boolean;
  targets: CallbackTargets;
}

class DeliveryTimeout extends Error {}

/** The category of a failed exchange, from Node's error. */
export function deliveryFailure(error: unknown): DeliveryFailure {
  if (error instanceof DeliveryTimeout) return DELIVERY_FAILURES.timedOut;
  if (error instanceof NonPublicAddressError) return DELIVERY_FAILURES.nonPublic;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return DELIVERY_FAILURES.failed;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_FAIL' || code === 'EAI_NODATA') return DELIVERY_FAILURES.notFound;
  if (code === 'ECONNREFUSED') return DELIVERY_FAILURES.refused;
  if (code === 'ETIMEDOUT' || code === 'ESOCKETTIMEDOUT') return DELIVERY_FAILURES.timedOut;
  if (code === 'EPROTO' || /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH)/.test(code)) return DELIVERY_FAILURES.tls;
  return DELIVERY_FAILURES.failed;
}

export function httpDeliver({ guard, timeoutMs = DELIVERY_TIMEOUT_MS }: { guard: DeliveryGuard; timeoutMs?: number }): Deliver {
  const publicOnly = guard.targets === 'public';
  return (url, callback) =>
    new Promise((resolve) => {
      const started = performance.now();
      const done = (status: number | null, error?: DeliveryFailure) => resolve({ status, latencyMs: Math.round(performance.now() - started), ...(error ? { error } : {}) });
      let target: URL;
      try {
        target = new URL(url);
      } catch {
        return done(null, DELIVERY_FAILURES.invalidUrl);
      }
      if (target.protocol !== 'https:' && (guard.httpsOnly || target.protocol !== 'http:')) return done(null, DELIVERY_FAILURES.notHttps);
      // An IP literal is never looked up, so the lookup's check would not see it.
      if (publicOnly && isIpLiteral(target.hostname) && isNonPublicAddress(target.hostname)) return done(null, DELIVERY_FAILURES.nonPublic);
      const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
      const request = send(
        target,
        {
          method: 'POST',
          headers: { ...callback.headers, 'content-length': Buffer.byteLength(callback.body), 'user-agent': 'payment-gateway-callbacks' },
          timeout: timeoutMs,
          ...(publicOnly ? { lookup: publicOnlyLookup } : {}),
        },
        (response) => {
          response.resume();
          response.on('end', () => done(response.statusCode ?? null));
          response.on('error', (error) => done(response.statusCode ?? null, deliveryFailure(error)));
        },
      );
      const expire = () => request.destroy(new DeliveryTimeout());
      // `timeout` only covers idle sockets; the deadline covers a receiver that trickles.
      const deadline = setTimeout(expire, timeoutMs);
      request.on('close', () => clearTimeout(deadline));
      request.on('timeout', expire);
      request.on('error', (error) => done(null, deliveryFailure(error)));
      request.end(callback.body);
    });
}
