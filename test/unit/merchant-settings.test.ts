/**
 * The rules of the merchant's own settings, and which secrets sign its callbacks around rotations,
 * made by the merchant's account over in-memory merchants (docs/merchant-guide.md#merchant-settings, #rotating-the-callback-secret).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { signCallback, signingSecrets } from '../../shared/domain/callbacks/callbacks.js';
import { MerchantAccount } from '../../shared/domain/merchants/merchant-account.js';
import {
  generateCallbackSecret,
  isFrameAncestorSource,
  MAX_PREVIOUS_CALLBACK_SECRETS,
  merchantSettingsRequestSchema,
  merchantUrlProblem,
  merchantView,
  settingsChanges,
  type Merchant,
} from '../../shared/domain/merchants/merchants.js';
import { Conflict, Invalid } from '../../shared/domain/kernel/errors.js';
import { apiErrorOf } from '../../shared/http/errors.js';
import { CallbackSecretVault } from '../../shared/vault/callback-secrets.js';
import { KeyFileDataKeySource } from '../../shared/vault/key-sources.js';
import { interleave } from '../support/memory/interleave.js';
import { MemoryMerchants } from '../support/memory/merchants.js';

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

  it('take the payouts approval threshold as a positive decimal string of cents, kept with two places, or null', () => {
    const changes = (value: unknown) => settingsChanges(merchantSettingsRequestSchema.parse({ payoutApprovalAboveUsd: value }), 'prod');
    expect(changes('5000')).toEqual({ payoutApprovalAboveUsd: '5000.00' });
    expect(changes('0.5')).toEqual({ payoutApprovalAboveUsd: '0.50' });
    expect(changes(null)).toEqual({ payoutApprovalAboveUsd: null });
    for (const refused of [5000, '-1', '0', 'lots']) expect(merchantSettingsRequestSchema.safeParse({ payoutApprovalAboveUsd: refused }).success, String(refused)).toBe(false);
    expect(() => changes('10.005')).toThrow(new Invalid([{ field: 'payoutApprovalAboveUsd', message: 'payoutApprovalAboveUsd must have at most 2 decimal places for USD' }]));
    // The delay of payout addresses is the operator's: no request sets it.
    expect(merchantSettingsRequestSchema.safeParse({ payoutAddressDelaySeconds: 0 }).success).toBe(false);
  });

  it("show the threshold, none unless set, and the payout addresses' delay: the operator's, else a day in production and none on the demo stage", () => {
    const merchant = new MemoryMerchants().add();
    expect([merchantView(merchant, 'prod'), merchantView(merchant, 'demo')].map(({ payoutApprovalAboveUsd, payoutAddressDelaySeconds }) => [payoutApprovalAboveUsd, payoutAddressDelaySeconds])).toEqual([
      [null, 86400],
      [null, 0],
    ]);
    expect(merchantView({ ...merchant, payoutApprovalAboveUsd: '250.00', payoutAddressDelaySeconds: 600 }, 'demo')).toMatchObject({ payoutApprovalAboveUsd: '250.00', payoutAddressDelaySeconds: 600 });
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

describe('callback signatures around rotations', () => {
  const OVERLAP_S = 24 * 3600;
  const T0 = new Date('2025-06-01T10:00:00.000Z');
  const at = (hours: number) => new Date(T0.getTime() + hours * 3600_000);
  let dir: string;
  let vault: CallbackSecretVault;
  let merchants: MemoryMerchants;
  let merchant: Merchant;
  let original: string;
  let now: Date;
  let account: MerchantAccount;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rotation-'));
    vault = new CallbackSecretVault(new KeyFileDataKeySource(join(dir, 'master.key')));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  beforeEach(async () => {
    merchants = new MemoryMerchants();
    const { id } = merchants.add();
    original = generateCallbackSecret();
    merchants.update(id, { sealedCallbackSecret: await vault.seal(id, original) });
    merchant = (await merchants.getMerchant(id))!;
    now = T0;
    account = new MerchantAccount({ merchants, stage: 'demo', clock: () => now });
  });

  const rotate = async () => (await account.rotateCallbackSecret(merchant.id, vault, OVERLAP_S)).callbackSecret;
  const signingAt = async (time: Date) => signingSecrets((await merchants.getMerchant(merchant.id))!, vault, time);

  it('are made with the new secret and the replaced one until the overlap ends, then with the new one alone', async () => {
    const answer = await account.rotateCallbackSecret(merchant.id, vault, OVERLAP_S);
    expect(answer.previousSecretExpiresAt).toBe('2025-06-02T10:00:00.000Z');
    expect(await signingAt(new Date('2025-06-02T09:59:59.999Z'))).toEqual([answer.callbackSecret, original]);
    expect(await signingAt(new Date('2025-06-02T10:00:00.000Z'))).toEqual([answer.callbackSecret]);
    expect(await signingSecrets(merchant, vault, T0)).toEqual([original]);
  });

  it('keep every secret a rotation answered signing until its own overlap ends, newest first, when rotations follow one another', async () => {
    const answered: string[] = [];
    for (const hour of [0, 1, 2, 3]) {
      now = at(hour);
      answered.push(await rotate());
    }
    const [first, second, third, fourth] = answered;
    expect(await signingAt(at(3))).toEqual([fourth, third, second, first, original]);
    // Each replaced secret for 24 hours from the rotation that replaced it.
    expect(await signingAt(at(24))).toEqual([fourth, third, second, first]);
    expect(await signingAt(at(25))).toEqual([fourth, third, second]);
    expect(await signingAt(at(27))).toEqual([fourth]);

    // The next rotation drops the secrets whose overlap has ended, and keeps the others.
    now = at(25.5);
    const fifth = await rotate();
    expect((await merchants.getMerchant(merchant.id))!.previousCallbackSecrets).toHaveLength(3);
    expect(await signingAt(now)).toEqual([fifth, fourth, third, second]);
  });

  it('keep every secret answered signing when rotations interleave: one that read a secret another has replaced since is made again on it', async () => {
    // Each rotation reads the merchant, then lets the next one run to its end before it writes:
    // the last one is written first, and each other one finds the secret it read replaced.
    const answered: string[] = [];
    const nested = async (n: number): Promise<void> => {
      if (n < 4) interleave(merchants, 'getMerchant', () => nested(n + 1));
      answered.push(await rotate());
    };
    await nested(0);
    expect(answered).toHaveLength(5);
    const signing = await signingAt(now);
    expect(signing).toHaveLength(6);
    expect(signing).toEqual(expect.arrayContaining([...answered, original]));
    // Current first: the one written last.
    expect(signing[0]).toBe(answered.at(-1));
  });

  it(`answer every one of ${MAX_PREVIOUS_CALLBACK_SECRETS} concurrent rotations, each secret signing`, async () => {
    const answered = await Promise.all(Array.from({ length: MAX_PREVIOUS_CALLBACK_SECRETS }, rotate));
    const signing = await signingAt(now);
    expect(signing).toHaveLength(MAX_PREVIOUS_CALLBACK_SECRETS + 1);
    expect(signing).toEqual(expect.arrayContaining([...answered, original]));
  });

  it(`refuse a rotation while ${MAX_PREVIOUS_CALLBACK_SECRETS} replaced secrets still sign, changing nothing, until the oldest one's overlap ends`, async () => {
    const answered: string[] = [];
    for (let n = 0; n < MAX_PREVIOUS_CALLBACK_SECRETS; n++) {
      now = at(n);
      answered.push(await rotate());
    }
    const full = await merchants.getMerchant(merchant.id);
    now = at(23.9);
    const refusal = await rotate().catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(Conflict);
    expect(apiErrorOf(refusal)?.status).toBe(409);
    expect((refusal as Conflict).message).toMatch(/this rotation changed nothing; the next is possible from 2025-06-02T10:00:00\.000Z$/);
    expect(await merchants.getMerchant(merchant.id)).toEqual(full);
    expect(await signingAt(now)).toEqual([...answered].reverse().concat(original));

    // A burst at the cap: every one refused, none written.
    expect((await Promise.allSettled(Array.from({ length: 5 }, rotate))).map((outcome) => outcome.status)).toEqual(Array(5).fill('rejected'));
    expect(await merchants.getMerchant(merchant.id)).toEqual(full);

    now = at(24);
    const next = await rotate();
    expect(await signingAt(now)).toEqual([next, ...[...answered].reverse()]);
  });

  it(`answer at most ${MAX_PREVIOUS_CALLBACK_SECRETS} of 20 concurrent rotations, the others refused having changed nothing, and every secret answered signs`, async () => {
    const outcomes = await Promise.allSettled(Array.from({ length: 20 }, rotate));
    const answered = outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
    expect(answered).toHaveLength(MAX_PREVIOUS_CALLBACK_SECRETS);
    for (const outcome of outcomes) if (outcome.status === 'rejected') expect(outcome.reason).toBeInstanceOf(Conflict);
    const signing = await signingAt(now);
    expect(signing).toHaveLength(MAX_PREVIOUS_CALLBACK_SECRETS + 1);
    expect(signing).toEqual(expect.arrayContaining([...answered, original]));
  });

  it('carry one v1 signature per secret, space-separated, in their order, each verifying on its own', () => {
    const secrets = [generateCallbackSecret(), generateCallbackSecret(), original];
    const time = new Date();
    const signed = signCallback(secrets, 'tx:confirmed', '{"id":"tx"}', time);
    expect(signed.headers['webhook-signature']!.split(' ')).toEqual(secrets.map((secret) => new Webhook(secret).sign('tx:confirmed', time, '{"id":"tx"}')));
    for (const secret of secrets) expect(new Webhook(secret).verify(signed.body, signed.headers)).toEqual({ id: 'tx' });
    expect(() => new Webhook(generateCallbackSecret()).verify(signed.body, signed.headers)).toThrow();
  });
});
