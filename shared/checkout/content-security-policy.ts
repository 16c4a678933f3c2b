/**
 * The checkout's Content-Security-Policy: nothing loads but the page's own inline style and script,
 * admitted by a nonce drawn anew for each response, its images (data: URIs) and its status polls.
 */
import { randomBytes } from 'node:crypto';
import { isFrameAncestorSource } from '../domain/merchants/index.js';

export interface EmbeddingPolicy {
  /** Origins allowed to frame the page. */
  frameAncestors: readonly string[];
  /** Origins a form's redirects may end at, besides the checkout's own. */
  formTargets: readonly string[];
}

/** Unguessable per response, so that no markup injected into a page could carry it. */
export const newNonce = (): string => randomBytes(16).toString('base64');

/**
 * CSP sources for `frame-ancestors` from the merchant's setting. Anything but a source could end
 * the directive early, so it is left out; with nothing left, no one may frame the page.
 */
function frameAncestorSources(allowed: readonly string[]): string {
  const sources = allowed.filter(isFrameAncestorSource);
  return sources.length > 0 ? sources.join(' ') : "'none'";
}

export function contentSecurityPolicy(nonce: string, policy: EmbeddingPolicy): string {
  return [
    "default-src 'none'",
    "img-src 'self' data:",
    `style-src 'nonce-${nonce}'`,
    `script-src 'nonce-${nonce}'`,
    "connect-src 'self'",
    `form-action ${["'self'", ...policy.formTargets].join(' ')}`,
    `frame-ancestors ${frameAncestorSources(policy.frameAncestors)}`,
    "base-uri 'none'",
  ].join('; ');
}
