/**
 * What an API key may do and from where (docs/merchant-guide.md#key-scopes): its scopes, each
 * naming a set of the merchant API's routes, and the source addresses it may call from. A key
 * never does more than the person who made it could do in the dashboard. Pure.
 */
import ipaddr from 'ipaddr.js';
import * as z from 'zod';

/**
 * `read`: every GET of the merchant API; `payments`: invoices, UTR confirmations, the simulation
 * API; `payouts`: withdrawals, crypto payouts, refunds; `reports`: asking for reports;
 * `settings`: the merchant's settings, the callback secret, the test callback and resends.
 */
export const API_KEY_SCOPES = ['read', 'payments', 'payouts', 'reports', 'settings'] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

/** At most this many addresses or ranges per key. */
export const MAX_ALLOWED_IPS = 20;

/** Keys made before scopes existed have every scope. */
export const scopesOf = (key: { scopes?: readonly ApiKeyScope[] }): readonly ApiKeyScope[] => key.scopes ?? API_KEY_SCOPES;

/** The scopes in the canonical order, each once. */
export const orderedScopes = (scopes: Iterable<ApiKeyScope>): ApiKeyScope[] => {
  const given = new Set(scopes);
  return API_KEY_SCOPES.filter((scope) => given.has(scope));
};

/** The refusal of a call outside the key's scopes; names the scope the route needs. */
export const missingScopeMessage = (scope: ApiKeyScope): string => `This API key lacks the scope ${scope}`;

export const DISALLOWED_ADDRESS_MESSAGE = 'This API key is not allowed from this address';

/** An IPv4 address in four decimal parts, or an IPv6 address: not the shorthands (`127.1`) that ipaddr.js also reads. */
const isStrictAddress = (text: string): boolean => (text.includes(':') ? ipaddr.IPv6.isValid(text) : ipaddr.IPv4.isValidFourPartDecimal(text));

/** An address or a CIDR range in its canonical text (`10.0.0.0/8`, `2001:db8::/32`, `203.0.113.7`); undefined when it is neither. */
export function canonicalAddressRange(text: string): string | undefined {
  const [address = '', bits, ...rest] = text.trim().split('/');
  if (rest.length > 0 || !isStrictAddress(address)) return undefined;
  if (bits === undefined) return ipaddr.process(address).toString();
  if (!/^\d{1,3}$/.test(bits)) return undefined;
  try {
    const cidr = `${address}/${bits}`;
    // The range's own first address: `10.1.2.3/8` is written as the `10.0.0.0/8` it means.
    const network = address.includes(':') ? ipaddr.IPv6.networkAddressFromCIDR(cidr) : ipaddr.IPv4.networkAddressFromCIDR(cidr);
    return `${network.toString()}/${Number(bits)}`;
  } catch {
    return undefined;
  }
}

/** A key's `allowedIps` as given: up to 20 IPv4 or IPv6 addresses or CIDR ranges, kept canonical and each once. */
export const allowedIpsSchema = z
  .array(z.string().max(64))
  .max(MAX_ALLOWED_IPS, `must hold at most ${MAX_ALLOWED_IPS} addresses or ranges`)
  .superRefine((entries, context) => {
    entries.forEach((entry, index) => {
      if (canonicalAddressRange(entry) === undefined) context.addIssue({ code: 'custom', path: [index], message: `${JSON.stringify(entry)} is not an IPv4 or IPv6 address or CIDR range` });
    });
  })
  .transform((entries) => [...new Set(entries.map((entry) => canonicalAddressRange(entry)!))])
  .describe('The source addresses (IPv4, IPv6, CIDR ranges) the key may be used from; absent or empty: any');

export const scopesSchema = z
  .array(z.enum(API_KEY_SCOPES))
  .min(1, 'must name at least one scope')
  .transform(orderedScopes)
  .describe(`What the key may do: ${API_KEY_SCOPES.join(', ')}`);

/**
 * Whether a call from `sourceIp` may use a key limited to `allowedIps` (none: from anywhere). An
 * IPv4 address seen as IPv4-mapped IPv6 (`::ffff:203.0.113.7`, as dual-stack sockets report it)
 * is the IPv4 address it maps.
 */
export function isAllowedSource(allowedIps: readonly string[] | undefined, sourceIp: string | undefined): boolean {
  if (!allowedIps || allowedIps.length === 0) return true;
  if (!sourceIp || !ipaddr.isValid(sourceIp)) return false;
  const source = ipaddr.process(sourceIp);
  return allowedIps.some((entry) => {
    const [address, bits] = ipaddr.parseCIDR(entry.includes('/') ? entry : `${entry}/${ipaddr.parse(entry).kind() === 'ipv4' ? 32 : 128}`);
    return address.kind() === source.kind() && source.match(address, bits);
  });
}

/**
 * How a key's limits travel in the authorizer's context, whose values are strings: the scopes
 * space-separated, the allowed addresses comma-separated (empty: any).
 */
export const encodeKeyReach = (key: { scopes?: readonly ApiKeyScope[]; allowedIps?: readonly string[] }): { scopes: string; allowedIps: string } => ({
  scopes: scopesOf(key).join(' '),
  allowedIps: (key.allowedIps ?? []).join(','),
});

export function decodeKeyReach(context: { scopes?: unknown; allowedIps?: unknown }): { scopes: ApiKeyScope[]; allowedIps: string[] } {
  const scopes = typeof context.scopes === 'string' ? context.scopes.split(' ').filter((scope): scope is ApiKeyScope => (API_KEY_SCOPES as readonly string[]).includes(scope)) : [];
  const allowedIps = typeof context.allowedIps === 'string' && context.allowedIps !== '' ? context.allowedIps.split(',') : [];
  return { scopes, allowedIps };
}

export type KeyRefusal = { reason: 'scope'; message: string } | { reason: 'address'; message: string };

/** Why a call needing `scope` from `sourceIp` is beyond the key's reach, or undefined when it is within it. */
export function keyRefusal(reach: { scopes: readonly ApiKeyScope[]; allowedIps: readonly string[] }, scope: ApiKeyScope, sourceIp: string | undefined): KeyRefusal | undefined {
  if (!isAllowedSource(reach.allowedIps, sourceIp)) return { reason: 'address', message: DISALLOWED_ADDRESS_MESSAGE };
  if (!reach.scopes.includes(scope)) return { reason: 'scope', message: missingScopeMessage(scope) };
  return undefined;
}
