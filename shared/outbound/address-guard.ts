/**
 * Where the gateway may send a merchant's callbacks (docs/merchant-guide.md#callbacks): deployed stages call public
 * addresses only. Every address is judged after normalising it: an IPv4-mapped or -compatible
 * IPv6 address is judged as the IPv4 address it carries, and every special-purpose range of
 * IANA's registries (loopback, private, link-local, CGN, NAT64, 6to4, Teredo, documentation,
 * benchmarking, multicast, reserved) is refused by ipaddr.js's classification.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/** Which addresses a delivery may reach: `public` in every deployed stage, `any` on one machine. */
export type CallbackTargets = 'public' | 'any';

export const CALLBACK_TARGETS = ['public', 'any'] as const satisfies readonly CallbackTargets[];

/** The IPv6 global unicast space (2000::/3): anything outside it is unallocated or special. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/** `::a.b.c.d` (deprecated IPv4-compatible form): the first 96 bits zero, beside `::` and `::1`. */
function ipv4Compatible(address: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const parts = address.parts;
  if (parts.slice(0, 6).some((part) => part !== 0) || (parts[6] === 0 && parts[7]! <= 1)) return undefined;
  return ipaddr.IPv4.parse(`${parts[6]! >> 8}.${parts[6]! & 0xff}.${parts[7]! >> 8}.${parts[7]! & 0xff}`);
}

/**
 * Whether `address` (an IP literal, either family, with or without brackets) may never be a
 * callback target of a deployed stage. Text that is no IP address is non-public too.
 */
export function isNonPublicAddress(address: string): boolean {
  const text = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (!ipaddr.isValid(text)) return true;
  // `process` turns an IPv4-mapped IPv6 address into the IPv4 address it carries.
  const parsed = ipaddr.process(text);
  if (parsed.kind() === 'ipv4') return parsed.range() !== 'unicast';
  const v6 = parsed as ipaddr.IPv6;
  const embedded = ipv4Compatible(v6);
  if (embedded) return embedded.range() !== 'unicast';
  return v6.range() !== 'unicast' || !v6.match(GLOBAL_UNICAST_V6);
}

/** A callback host that is an IP literal, as URL.hostname writes it (IPv6 in brackets). */
export const isIpLiteral = (hostname: string): boolean => ipaddr.isValid(hostname.replace(/^\[|\]$/g, ''));

export class NonPublicAddressError extends Error {
  constructor(hostname: string) {
    super(`${hostname} resolves to a non-public address`);
    this.name = 'NonPublicAddressError';
  }
}

/**
 * A DNS lookup for `http(s).request` that fails when any address the name resolves to is
 * non-public: the check is made on the very answer the connection uses, so DNS cannot change
 * between the check and the request.
 */
export const publicOnlyLookup: LookupFunction = (host, options, callback) =>
  dnsLookup(host, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error, '', 0);
    if (addresses.length === 0 || addresses.some((a) => isNonPublicAddress(a.address))) return callback(new NonPublicAddressError(host), '', 0);
    if (options.all) return (callback as unknown as (e: null, all: LookupAddress[]) => void)(null, addresses);
    callback(null, addresses[0]!.address, addresses[0]!.family);
  });

/** What a lookup of a name answered: its addresses, or none when the name does not resolve (yet). */
export type Resolve = (hostname: string) => Promise<string[]>;

const RESOLVE_TIMEOUT_MS = 3_000;

export const systemResolve: Resolve = (hostname) =>
  new Promise((resolve) => {
    const timer = setTimeout(() => resolve([]), RESOLVE_TIMEOUT_MS);
    dnsLookup(hostname, { all: true }, (error, addresses) => {
      clearTimeout(timer);
      resolve(error ? [] : addresses.map((a) => a.address));
    });
  });

/**
 * Why a URL may not be a callback target of a deployed stage, or undefined. A name that does not
 * resolve now is accepted: delivery checks it again on every connection.
 */
export async function nonPublicUrlProblem(url: string, resolve: Resolve = systemResolve): Promise<string | undefined> {
  let hostname: string;
  try {
    hostname = new URL(url).hostname;
  } catch {
    return undefined; // the URL rules report it
  }
  if (isIpLiteral(hostname)) return isNonPublicAddress(hostname) ? 'must not point at a loopback, private or other non-public address' : undefined;
  const addresses = await resolve(hostname);
  return addresses.some(isNonPublicAddress) ? 'must not resolve to a loopback, private or other non-public address' : undefined;
}
