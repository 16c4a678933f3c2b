import { describe, expect, it } from 'vitest';
import { isNonPublicAddress, nonPublicUrlProblem } from '../../shared/outbound/address-guard.js';
import { DELIVERY_FAILURES, deliveryFailure } from '../../shared/outbound/http-delivery.js';

describe('which addresses a deployed stage may call back (docs/merchant-guide.md#callbacks)', () => {
  it.each([
    '127.0.0.1',
    '127.1.2.3',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '192.0.0.8',
    '192.0.2.1',
    '198.18.0.1',
    '198.51.100.7',
    '203.0.113.9',
    '224.0.0.1',
    '240.0.0.1',
    '255.255.255.255',
    '::',
    '::1',
    '[::1]',
    'fd00::1',
    'fc00::1',
    'fe80::1',
    'fe80::1%eth0',
    'fec0::1',
    'ff02::1',
    // IPv4-mapped, in every spelling the URL parser or a resolver may give
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '[::ffff:7f00:1]',
    '0:0:0:0:0:ffff:7f00:1',
    '::ffff:0.0.0.0',
    '::ffff:a9fe:a9fe',
    '::ffff:a00:1',
    '::ffff:c0a8:1',
    // IPv4-compatible (deprecated), NAT64, 6to4, Teredo
    '::7f00:1',
    '::a9fe:a9fe',
    '64:ff9b::7f00:1',
    '64:ff9b::808:808',
    '64:ff9b:1::1',
    '2002:7f00:1::',
    '2002:808:808::1',
    '2001::1',
    // documentation, benchmarking, ORCHID, discard-only, unallocated space
    '2001:db8::1',
    '2001:2::1',
    '2001:20::1',
    '100::1',
    '4000::1',
    'not an address',
    '',
  ])('%s is not public', (address) => {
    expect(isNonPublicAddress(address)).toBe(true);
  });

  it.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '93.184.216.34', '::ffff:808:808', '::ffff:8.8.8.8', '2606:4700::1111', '[2a00:1450:4001::200e]'])('%s is public', (address) => {
    expect(isNonPublicAddress(address)).toBe(false);
  });

  it('judges a URL by its literal address, or by every address its name resolves to', async () => {
    const resolve = async (host: string) => ({ 'shop.example': ['93.184.216.34'], 'inside.example': ['93.184.216.34', '10.0.0.5'] })[host] ?? [];
    expect(await nonPublicUrlProblem('https://[::ffff:127.0.0.1]:8443/hook', resolve)).toMatch(/non-public/);
    expect(await nonPublicUrlProblem('https://127.1/hook', resolve)).toMatch(/non-public/);
    expect(await nonPublicUrlProblem('https://0x7f.1/hook', resolve)).toMatch(/non-public/);
    expect(await nonPublicUrlProblem('https://2130706433/hook', resolve)).toMatch(/non-public/);
    expect(await nonPublicUrlProblem('https://inside.example/hook', resolve)).toMatch(/non-public/);
    expect(await nonPublicUrlProblem('https://shop.example/hook', resolve)).toBeUndefined();
    // Not resolvable yet: delivery checks every connection it makes.
    expect(await nonPublicUrlProblem('https://new.example/hook', resolve)).toBeUndefined();
  });
});

describe("a failed delivery's error", () => {
  it.each([
    [{ code: 'ECONNREFUSED', message: 'connect ECONNREFUSED 10.0.0.7:5432' }, DELIVERY_FAILURES.refused],
    [{ code: 'ENOTFOUND', message: 'getaddrinfo ENOTFOUND internal.corp' }, DELIVERY_FAILURES.notFound],
    [{ code: 'ERR_SSL_WRONG_VERSION_NUMBER', message: 'wrong version number' }, DELIVERY_FAILURES.tls],
    [{ code: 'DEPTH_ZERO_SELF_SIGNED_CERT', message: 'self-signed certificate' }, DELIVERY_FAILURES.tls],
    [{ code: 'ECONNRESET', message: 'socket hang up' }, DELIVERY_FAILURES.failed],
    [new Error('anything else'), DELIVERY_FAILURES.failed],
  ])('is a category that says nothing of the network: %o', (error, expected) => {
    expect(deliveryFailure(error)).toBe(expected);
  });
});
