/** Merchants and their API keys: generation, digests and constant-time checks. No I/O. */
import { createHash, randomBytes, randomInt, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Stage } from '../routes.js';
import type { SealedSecret } from '../vault/envelope.js';

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
   * Whether transfers seen on chain are credited (decisions 15); while off they are held. Absent
   * on merchants made before the setting existed: see `takesOnchainDeposits`.
   */
  onchainDeposits?: boolean;
  createdAt: string;
}

/** On for the demo and locally, off in production, unless the merchant's setting says otherwise. */
export const onchainDepositsByDefault = (stage: Stage): boolean => stage !== 'prod';

export const takesOnchainDeposits = (merchant: Pick<Merchant, 'onchainDeposits'>, stage: Stage): boolean =>
  merchant.onchainDeposits ?? onchainDepositsByDefault(stage);

export type ApiKeyStatus = 'active' | 'revoked';

export interface ApiKey {
  /** SHA-256 of the key text, hex. The key text itself is never stored. */
  digest: string;
  keyId: string;
  merchantId: string;
  /** First characters of the key, enough for a person to tell keys apart. */
  hint: string;
  status: ApiKeyStatus;
  createdAt: string;
  revokedAt?: string;
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

export function newApiKey(merchantId: string, stage: Stage, now: Date, text = generateApiKeyText(stage)): { text: string; record: ApiKey } {
  return {
    text,
    record: {
      digest: digestApiKey(text),
      keyId: randomUUID(),
      merchantId,
      hint: `${text.slice(0, text.lastIndexOf('_') + 5)}…`,
      status: 'active',
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
export async function newMerchant(
  input: NewMerchantInput & { id?: string },
  sealer: SecretSealer,
  now: Date,
): Promise<{ merchant: Merchant; callbackSecret: string }> {
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
