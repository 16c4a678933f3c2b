/** Merchants and their API keys: generation, digests and constant-time checks. No I/O. */
import { createHash, randomBytes, randomInt, randomUUID, timingSafeEqual } from 'node:crypto';
import * as z from 'zod';
import type { Stage } from '../../stage.js';
import { amountRuleProblem, Conflict, decimalStringAmount, type FieldProblem, Invalid, type SealedSecret } from '../kernel/index.js';
import { API_KEY_SCOPES, type ApiKeyScope } from './api-key-scopes.js';

export interface Merchant {
  id: string;
  name: string;
  /** Where transaction callbacks go; null sends none. */
  callbackUrl: string | null;
  /**
   * `whsec_` + base64 of 32 random bytes, keying the callback signatures and transaction hashes;
   * stored only sealed (see `SecretSealer`).
   */
  sealedCallbackSecret: SealedSecret;
  /** Processing fee as a decimal string of percent of the transaction amount. */
  processingFeePercent: string;
  /** Static URL the customer returns to when an invoice has no `redirectUrl`. */
  returnUrl: string | null;
  /** Origins allowed to embed the checkout in a frame (CSP `frame-ancestors`). */
  frameAncestors: string[];
  /**
   * Whether transfers seen on chain are credited (docs/merchant-guide.md#on-chain-deposits); while off they are held. Absent
   * on merchants made before the setting existed: see `takesOnchainDeposits`.
   */
  onchainDeposits?: boolean;
  /** Whether invoice events are sent beside transaction callbacks (docs/merchant-guide.md#invoice-events); absent is off. */
  invoiceCallbacks?: boolean;
  /**
   * How long a new payout address waits before payouts may go to it (docs/merchant-guide.md#payout-addresses);
   * set by the operator alone. Absent: the stage's default, `payoutAddressDelaySecondsOf`.
   */
  payoutAddressDelaySeconds?: number;
  /** Payouts worth more USD than this wait for an owner's approval; absent or null: none waits. Two decimal places. */
  payoutApprovalAboveUsd?: string | null;
  createdAt: string;
  /**
   * The secrets rotations replaced, newest first, as the last rotation left them: each signs callbacks
   * beside the current one until its own `expiresAt` (`signingSecrets`).
   */
  previousCallbackSecrets?: PreviousCallbackSecret[];
  /** Timeouts of the callback URL and the pause of its deliveries, kept by the callback sender alone. */
  callbackPause?: CallbackPause;
  /** The hold on its payouts while its books are off: placed by the books check, cleared by an operator alone. */
  booksHold?: BooksHold;
  /** The hold an operator cleared last. */
  booksHoldCleared?: ClearedBooksHold;
}

/** How a profile is read: `consistent`, as the last write left it, where a change of a moment ago must count. */
export interface MerchantRead {
  consistent: boolean;
}

/** A callback secret a rotation replaced, and when its overlap ends. */
export interface PreviousCallbackSecret {
  sealed: SealedSecret;
  expiresAt: string;
}

/** Where merchants' profiles are read from. */
export interface MerchantProfiles {
  getMerchant(id: string, read?: MerchantRead): Promise<Merchant | undefined>;
}

/** The profile of the merchant a request was authenticated as: a key without one is a fault, not a refusal. */
export async function authenticatedMerchant(merchants: MerchantProfiles, merchantId: string, read?: MerchantRead): Promise<Merchant> {
  const merchant = await merchants.getMerchant(merchantId, read);
  if (!merchant) throw new Error(`Authenticated merchant ${merchantId} has no profile`);
  return merchant;
}

/** On for the demo and locally, off in production, unless the merchant's setting says otherwise. */
export const onchainDepositsByDefault = (stage: Stage): boolean => stage !== 'prod';

export const takesOnchainDeposits = (merchant: Pick<Merchant, 'onchainDeposits'>, stage: Stage): boolean => merchant.onchainDeposits ?? onchainDepositsByDefault(stage);

/**
 * How long a new payout address waits before it is active, unless the operator set the merchant's
 * own: a day in production, time to notice an address added by someone who should not have; none
 * on the demo stage and locally, where nothing real is paid out.
 */
export const PAYOUT_ADDRESS_DELAY_SECONDS_BY_STAGE: Readonly<Record<Stage, number>> = { prod: 24 * 3600, demo: 0 };

/** The longest delay the operator may set: thirty days. */
export const MAX_PAYOUT_ADDRESS_DELAY_SECONDS = 30 * 24 * 3600;

export const payoutAddressDelaySecondsOf = (merchant: Pick<Merchant, 'payoutAddressDelaySeconds'>, stage: Stage): number =>
  merchant.payoutAddressDelaySeconds ?? PAYOUT_ADDRESS_DELAY_SECONDS_BY_STAGE[stage];

export type ApiKeyStatus = 'active' | 'revoked';

export interface ApiKey {
  /** SHA-256 of the key text, hex. The key text itself is never stored. */
  digest: string;
  keyId: string;
  merchantId: string;
  /** First characters of the key, enough for a person to tell keys apart. */
  hint: string;
  status: ApiKeyStatus;
  /** What the merchant calls the key (docs/merchant-guide.md#authentication); keys made before keys had names have none. */
  name?: string;
  createdAt: string;
  revokedAt?: string;
  /**
   * When a request with the key last passed the authorizer, recorded at most once per
   * `LAST_USED_GRANULARITY_SECONDS` (`recordKeyUse`); absent until its first use.
   */
  lastUsedAt?: string;
  /** What the key may do (docs/merchant-guide.md#key-scopes); keys made before scopes existed have none stored, and every scope. */
  scopes?: ApiKeyScope[];
  /** The source addresses and ranges the key may be used from; absent: any. Never changed after the key is made. */
  allowedIps?: string[];
}

/** Where the authorizer records keys' uses. */
export interface KeyUseRecorder {
  /**
   * Sets the key's `lastUsedAt` to `at`, unless it holds a time from `since` on already (another
   * request recorded it first) or there is no such key; false when nothing was written.
   */
  recordKeyUse(digest: string, at: Date, since: Date): Promise<boolean>;
}

/** How stale a key's recorded last use may get before a request records it again: one write per key an hour at most. */
export const LAST_USED_GRANULARITY_SECONDS = 3600;

/**
 * Records that a request with `key` passed at `now`, unless the key shows a use within the
 * granularity already: the read the authorizer made answers that, so most requests write nothing.
 */
export async function recordKeyUse(uses: KeyUseRecorder, key: Pick<ApiKey, 'digest' | 'lastUsedAt'>, now: Date): Promise<void> {
  const since = new Date(now.getTime() - LAST_USED_GRANULARITY_SECONDS * 1000);
  if (key.lastUsedAt !== undefined && key.lastUsedAt >= since.toISOString()) return;
  await uses.recordKeyUse(key.digest, now, since);
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_PATTERN = /^gw_(prod|demo)_[0-9A-Za-z]{32}$/;

export function generateApiKeyText(stage: Stage): string {
  let body = '';
  for (let i = 0; i < 32; i++) body += BASE62[randomInt(BASE62.length)];
  return `gw_${stage}_${body}`;
}

export const isWellFormedApiKey = (text: string): boolean => KEY_PATTERN.test(text);

export const digestApiKey = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/** Compares two hex digests without leaking, through timing, how much of them matched. */
export function digestsEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && left.length > 0 && timingSafeEqual(left, right);
}

export const generateCallbackSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

export const isCallbackSecret = (text: string): boolean => /^whsec_[A-Za-z0-9+/]{43}=$/.test(text);

/** A new key of the merchant: its text, to be shown once, and the record stored of it (`text` given: a key chosen beforehand, the local demo key). */
export function newApiKey(
  merchantId: string,
  stage: Stage,
  now: Date,
  { text = generateApiKeyText(stage), name, scopes = [...API_KEY_SCOPES], allowedIps = [] }: { text?: string; name?: string; scopes?: ApiKeyScope[]; allowedIps?: string[] } = {},
): { text: string; record: ApiKey } {
  return {
    text,
    record: {
      digest: digestApiKey(text),
      keyId: randomUUID(),
      merchantId,
      hint: `${text.slice(0, text.lastIndexOf('_') + 5)}…`,
      status: 'active',
      ...(name === undefined ? {} : { name }),
      scopes,
      ...(allowedIps.length === 0 ? {} : { allowedIps }),
      createdAt: now.toISOString(),
    },
  };
}

/** Seals a merchant's callback secret for storage, bound to the merchant. */
export interface SecretSealer {
  seal(merchantId: string, secret: string): Promise<SealedSecret>;
}

export interface NewMerchantInput {
  name: string;
  callbackUrl?: string | null;
  callbackSecret?: string;
  processingFeePercent?: string;
  returnUrl?: string | null;
  frameAncestors?: string[];
  onchainDeposits?: boolean;
}

/** A new merchant record, and its callback secret in clear: to be shown once, never stored so. */
export async function newMerchant(input: NewMerchantInput & { id?: string }, sealer: SecretSealer, now: Date): Promise<{ merchant: Merchant; callbackSecret: string }> {
  const id = input.id ?? randomUUID();
  const callbackSecret = input.callbackSecret ?? generateCallbackSecret();
  return {
    callbackSecret,
    merchant: {
      id,
      name: input.name,
      callbackUrl: input.callbackUrl ?? null,
      sealedCallbackSecret: await sealer.seal(id, callbackSecret),
      processingFeePercent: input.processingFeePercent ?? '0',
      returnUrl: input.returnUrl ?? null,
      frameAncestors: input.frameAncestors ?? ['*'],
      ...(input.onchainDeposits === undefined ? {} : { onchainDeposits: input.onchainDeposits }),
      createdAt: now.toISOString(),
    },
  };
}

/** C0 and C1 control characters: the URL parser would drop some silently and keep others. */
const CONTROL_CHARACTERS = /\p{Cc}/u;

/**
 * The rules of a URL a merchant gives (callback and return URLs, an invoice's `redirectUrl`):
 * absolute, https in production (demo and local take http too), no control characters.
 */
export function merchantUrlProblem(value: string, stage: Stage): string | undefined {
  if (CONTROL_CHARACTERS.test(value)) return 'must not contain control characters';
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    return 'must be an absolute URL';
  }
  const protocols = stage === 'prod' ? ['https:'] : ['https:', 'http:'];
  if (!protocols.includes(parsed.protocol)) return `must be an ${protocols.join(' or ').replaceAll(':', '')} URL`;
  return undefined;
}

/**
 * A valid merchant URL as it is stored and sent: the URL parser's form, with the host in punycode
 * and the path, query and fragment percent-encoded, so that it can stand in a `Location` header.
 */
export const normalizedUrl = (value: string): string => new URL(value).href;

/**
 * A CSP `frame-ancestors` source: `*`, a keyword, a scheme, or an origin (with a `*.` host
 * wildcard and an optional port). Anything else could end the directive early.
 */
export const isFrameAncestorSource = (value: string): boolean => /^(\*|'self'|'none'|[a-z][a-z0-9+.-]*:|([a-z][a-z0-9+.-]*:\/\/)?(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*(:(\d{1,5}|\*))?)$/i.test(value);

const urlSetting = (what: string) => z.string().max(2048).nullable().optional().describe(`${what}; null removes it`);

/** `PATCH /api/v2/merchant`: the settings a merchant changes itself; any other property is a 422. */
export const merchantSettingsRequestSchema = z.strictObject({
  callbackUrl: urlSetting('Where callbacks are posted (https in production)'),
  returnUrl: urlSetting('Where the checkout sends the customer back when an invoice has no redirectUrl'),
  frameAncestors: z
    .array(z.string().min(1).max(255))
    .max(32)
    .optional()
    .describe("Origins that may show the checkout in a frame, as CSP frame-ancestors sources (`https://shop.example`, `https://*.shop.example`, `*`, `'self'`, `'none'` alone)"),
  invoiceCallbacks: z.boolean().optional().describe('Whether the callback URL also receives invoice events (`invoice.paid`, `invoice.expired`, ...)'),
  payoutApprovalAboveUsd: decimalStringAmount(
    'Crypto payouts worth more USD than this wait for an owner to approve them in the dashboard; null: none waits. Changed only by a key with the payouts scope besides settings',
  )
    .nullable()
    .optional(),
});

export type MerchantSettings = z.output<typeof merchantSettingsRequestSchema>;

/** The changes a settings request makes, once every value passes the rules of `stage`; else a 422 naming each. */
export function settingsChanges(request: MerchantSettings, stage: Stage): Partial<Pick<Merchant, 'callbackUrl' | 'returnUrl' | 'frameAncestors' | 'invoiceCallbacks' | 'payoutApprovalAboveUsd'>> {
  const problems: FieldProblem[] = [];
  for (const field of ['callbackUrl', 'returnUrl'] as const) {
    const value = request[field];
    const problem = typeof value === 'string' ? merchantUrlProblem(value, stage) : undefined;
    if (problem) problems.push({ field, message: `${field} ${problem}` });
  }
  request.frameAncestors?.forEach((source, i) => {
    if (!isFrameAncestorSource(source)) problems.push({ field: `frameAncestors.${i}`, message: `frameAncestors.${i} is not a frame-ancestors source` });
  });
  if (request.frameAncestors?.includes("'none'") && request.frameAncestors.length > 1) {
    problems.push({ field: 'frameAncestors', message: "frameAncestors: 'none' stands alone" });
  }
  const threshold = request.payoutApprovalAboveUsd;
  const thresholdProblem = threshold ? amountRuleProblem(threshold, 'USD', 'payoutApprovalAboveUsd') : undefined;
  if (thresholdProblem) problems.push({ field: 'payoutApprovalAboveUsd', message: thresholdProblem });
  if (problems.length > 0) throw new Invalid(problems);
  const { callbackUrl, returnUrl, frameAncestors, invoiceCallbacks } = request;
  const url = (value: string | null | undefined) => (typeof value === 'string' ? normalizedUrl(value) : value);
  // Kept with its two places of cents, as the transactions' `usd` is written.
  const payoutApprovalAboveUsd = threshold ? threshold.toFixed(2) : threshold;
  return Object.fromEntries(
    Object.entries({ callbackUrl: url(callbackUrl), returnUrl: url(returnUrl), frameAncestors, invoiceCallbacks, payoutApprovalAboveUsd }).filter(([, value]) => value !== undefined),
  );
}

/** `GET /api/v2/merchant` and the answer of `PATCH`. */
export const merchantViewSchema = z.object({
  merchantId: z.uuid(),
  name: z.string(),
  callbackUrl: z.string().nullable().describe('Where callbacks are posted; null sends none'),
  returnUrl: z.string().nullable().describe('Where the checkout sends the customer back when an invoice has no redirectUrl'),
  frameAncestors: z.array(z.string()).describe('Origins that may show the checkout in a frame'),
  onchainDeposits: z.boolean().describe('Whether transfers seen on chain are credited; when off they are held'),
  invoiceCallbacks: z.boolean().describe('Whether the callback URL also receives invoice events; off unless turned on'),
  payoutApprovalAboveUsd: z.string().nullable().describe('Crypto payouts worth more USD than this wait for an owner to approve them; null: none waits'),
  payoutAddressDelaySeconds: z.int().describe("How long a new payout address waits before payouts may go to it, in seconds; set by the gateway's operator"),
});

export type MerchantView = z.output<typeof merchantViewSchema>;

export const merchantView = (merchant: Merchant, stage: Stage): MerchantView => ({
  merchantId: merchant.id,
  name: merchant.name,
  callbackUrl: merchant.callbackUrl,
  returnUrl: merchant.returnUrl,
  frameAncestors: merchant.frameAncestors,
  onchainDeposits: takesOnchainDeposits(merchant, stage),
  invoiceCallbacks: merchant.invoiceCallbacks ?? false,
  payoutApprovalAboveUsd: merchant.payoutApprovalAboveUsd ?? null,
  payoutAddressDelaySeconds: payoutAddressDelaySecondsOf(merchant, stage),
});

/** `POST /api/v2/merchant/callback-secret/rotate`: the new secret, shown this once. */
export const rotatedSecretSchema = z.object({
  callbackSecret: z.string().describe('The new `whsec_…` secret; it is not shown again'),
  previousSecretExpiresAt: z.iso.datetime().describe('Until then callbacks also carry a signature with the secret it replaced; secrets replaced before keep signing until their own overlap ends'),
});

export type RotatedSecret = z.output<typeof rotatedSecretSchema>;

export type RotatedSecretChanges = Required<Pick<Merchant, 'sealedCallbackSecret' | 'previousCallbackSecrets'>>;

/**
 * How many replaced secrets may still be signing when a rotation is made; a rotation beyond them,
 * within their overlap, is refused. Each one signs every callback until its overlap ends: it costs
 * each callback an opening (a KMS decryption per container) and a signature, and the merchant's
 * item about 450 bytes, sealed under a KMS data key. Ten keep the item near 5.5 KB (two 4 KB read
 * units, where DynamoDB allows 400 KB) and the `webhook-signature` header under 600 bytes, and are
 * more rotations in a day than replacing a leaked secret or moving receivers takes.
 */
export const MAX_PREVIOUS_CALLBACK_SECRETS = 10;

/** The replaced secrets still signing at `at`, newest first. */
export const previousSecretsAt = (merchant: Pick<Merchant, 'previousCallbackSecrets'>, at: Date): PreviousCallbackSecret[] =>
  (merchant.previousCallbackSecrets ?? []).filter((previous) => Date.parse(previous.expiresAt) > at.getTime());

/**
 * What a rotation to the sealed `next` secret writes: the current secret joins the replaced ones
 * still signing, for `overlapSeconds` from `now`, and those whose overlap has ended are dropped.
 * Refused while `MAX_PREVIOUS_CALLBACK_SECRETS` are still signing.
 */
export function rotationChanges(merchant: Pick<Merchant, 'sealedCallbackSecret' | 'previousCallbackSecrets'>, next: SealedSecret, now: Date, overlapSeconds: number): RotatedSecretChanges {
  const signing = previousSecretsAt(merchant, now);
  if (signing.length >= MAX_PREVIOUS_CALLBACK_SECRETS) {
    const freed = signing.map((previous) => previous.expiresAt).sort()[0];
    throw new Conflict(`${signing.length} replaced callback secrets still sign beside the current one, the most there may be: this rotation changed nothing; the next is possible from ${freed}`);
  }
  const expiresAt = new Date(now.getTime() + overlapSeconds * 1000).toISOString();
  return { sealedCallbackSecret: next, previousCallbackSecrets: [{ sealed: merchant.sealedCallbackSecret, expiresAt }, ...signing] };
}

/** What the merchant's record keeps about its callback URL's timeouts (`Merchant.callbackPause`). */
export interface CallbackPause {
  /** The callback URL this is about: a new URL starts afresh. */
  url: string;
  /** Timed-out attempts in a row on the URL. */
  timeouts: number;
  /** Pauses in a row so far; the next lasts twice as long as the last. */
  pauses: number;
  /** No attempt goes to the URL before then; a probe's hold moves it on while the probe runs. */
  pausedUntil?: string;
}

/** One run of the books check. */
export interface BooksCheckRun {
  /** When it ran, to the second: an hourly run's scheduled time. */
  at: string;
  /** Its invocation's request id, which each of its log lines carries. */
  id: string;
}

/** The hold on a merchant's payouts, as the merchant's item keeps it. */
export interface BooksHold {
  /** When it was placed: a later run that finds the books off keeps the hold as it is. */
  heldAt: string;
  /** The run that found the books off. */
  run: BooksCheckRun;
  /** How many differences that run found. */
  differences: number;
  /** The currencies whose balance is not the sums of its entries. */
  currencies: string[];
  /** Transactions without an entry their state calls for, the first `TRANSACTIONS_NAMED` of them. */
  transactionIds: string[];
}

/** The hold an operator cleared last, with when and why: the merchant's item keeps it. */
export interface ClearedBooksHold extends BooksHold {
  clearedAt: string;
  reason: string;
}
