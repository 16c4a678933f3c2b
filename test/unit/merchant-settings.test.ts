/** The rules of the merchant's own settings, and which secrets sign its callbacks around a rotation (docs/merchant-guide.md#merchant-settings, #rotating-the-callback-secret). */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signCallback, signingSecrets } from '../../shared/domain/callbacks.js';
import { generateCallbackSecret, isFrameAncestorSource, merchantUrlProblem, newMerchant, rotatedCallbackSecret, settingsChanges, type Merchant } from '../../shared/domain/merchants.js';
import { Invalid } from '../../shared/domain/errors.js';
import { CallbackSecretVault } from '../../shared/vault/callback-secrets.js';
import { KeyFileDataKeySource } from '../../shared/vault/key-sources.js';

describe('settings a merchant changes itself', () => {
  it('take http URLs in demo, https only in production', () => {
    expect(merchantUrlProblem('http://shop.example/hooks', 'demo')).toBeUndefined();
    expect(merchantUrlProblem('http://shop.example/hooks', 'prod')).toBe('must be an https URL');
    expect(merchantUrlProblem('https://shop.example/hooks', 'prod')).toBeUndefined();
    expect(merchantUrlProblem('/hooks', 'demo')).toBe('must be an absolute URL');
    expect(merchantUrlProblem('javascript:alert(1)', 'demo')).toBe('must be an https or http URL');
  });

  it('name every field at fault, in production too', () => {
    const problems = (request: Parameters<typeof settingsChanges>[0]) => {
      try {
        settingsChanges(request, 'prod');
        return [];
      } catch (error) {
        if (!(error instanceof Invalid)) throw error;
        return error.problems.map((problem) => problem.field);
      }
    };
    expect(problems({ callbackUrl: 'http://shop.example/hooks', returnUrl: 'http://shop.example/thanks' })).toEqual(['callbackUrl', 'returnUrl']);
    expect(problems({ frameAncestors: ['https://shop.example', 'bad source', "'none'"] })).toEqual(['frameAncestors.1', 'frameAncestors']);
    expect(problems({ callbackUrl: null, returnUrl: 'https://shop.example/thanks', frameAncestors: [] })).toEqual([]);
  });

  it('refuse control characters, and keep URLs in the form they are sent in: punycode host, percent-encoded path', () => {
    expect(merchantUrlProblem('https://shop.example/ok\u0007', 'demo')).toBe('must not contain control characters');
    expect(merchantUrlProblem('https://shop.example/o\nk', 'demo')).toBe('must not contain control characters');
    expect(merchantUrlProblem('https://shop.example/\u0085', 'demo')).toBe('must not contain control characters');
    expect(settingsChanges({ callbackUrl: 'https://магазин.example/hooks', returnUrl: 'https://shop.example/sipariş/tamam' }, 'prod')).toEqual({
      callbackUrl: 'https://xn--80aairftm.example/hooks',
      returnUrl: 'https://shop.example/sipari%C5%9F/tamam',
    });
  });

  it('keep only what was given, null included', () => {
    expect(settingsChanges({ callbackUrl: null }, 'demo')).toEqual({ callbackUrl: null });
    expect(settingsChanges({}, 'demo')).toEqual({});
  });

  it.each([
    ['*', true],
    ["'self'", true],
    ["'none'", true],
    ['https:', true],
    ['https://shop.example', true],
    ['https://*.shop.example:8443', true],
    ['shop.example', true],
    ["https://shop.example 'unsafe-inline'", false],
    ['https://shop.example;script-src', false],
    ['', false],
  ])('frame-ancestors source %j: %s', (source, valid) => {
    expect(isFrameAncestorSource(source)).toBe(valid);
  });
});

describe('callback signatures around a rotation', () => {
  let dir: string;
  let vault: CallbackSecretVault;
  let merchant: Merchant;
  let original: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rotation-'));
    vault = new CallbackSecretVault(new KeyFileDataKeySource(join(dir, 'master.key')));
    ({ merchant, callbackSecret: original } = await newMerchant({ name: 'Rotating' }, vault, new Date()));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('are made with the new secret and the replaced one until the overlap ends, then with the new one alone', async () => {
    const now = new Date('2025-06-01T10:00:00.000Z');
    const { secret, changes } = await rotatedCallbackSecret(merchant, vault, now, 24 * 3600);
    expect(changes.previousCallbackSecret).toEqual({ sealed: merchant.sealedCallbackSecret, expiresAt: '2025-06-02T10:00:00.000Z' });
    const rotated = { ...merchant, ...changes };
    expect(await signingSecrets(rotated, vault, new Date('2025-06-02T09:59:59.999Z'))).toEqual([secret, original]);
    expect(await signingSecrets(rotated, vault, new Date('2025-06-02T10:00:00.000Z'))).toEqual([secret]);
    expect(await signingSecrets(merchant, vault, now)).toEqual([original]);
  });

  it('carry one v1 signature per secret, space-separated, each verifying on its own', () => {
    const next = generateCallbackSecret();
    const at = new Date();
    const signed = signCallback([next, original], 'tx:confirmed', '{"id":"tx"}', at);
    const signatures = signed.headers['webhook-signature']!.split(' ');
    expect(signatures).toHaveLength(2);
    expect(signatures[0]).toBe(new Webhook(next).sign('tx:confirmed', at, '{"id":"tx"}'));
    expect(signatures[1]).toBe(new Webhook(original).sign('tx:confirmed', at, '{"id":"tx"}'));
    for (const secret of [next, original]) expect(new Webhook(secret).verify(signed.body, signed.headers)).toEqual({ id: 'tx' });
    expect(() => new Webhook(generateCallbackSecret()).verify(signed.body, signed.headers)).toThrow();
  });
});
