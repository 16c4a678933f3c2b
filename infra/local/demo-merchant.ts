/**
 * The local stack's demo merchant: created on the first start, its credentials kept in
 * `{dataDir}/demo-merchant.json` so every later start prints the same ones (docs/operations.md#local-configuration).
 * The GATEWAY_DEMO_* variables, when set, are applied on every start and kept from then on.
 */
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';
import { digestApiKey, isWellFormedApiKey, newApiKey, newMerchant } from '../../shared/domain/merchants/index.js';
import type { CallbackSecretVault } from '../../shared/vault/callback-secrets.js';
import type { MerchantStore } from '../../shared/store/merchants.js';
import { LOCAL_STAGE } from './environment.js';
import { readJsonFile } from './json-file.js';

const DEMO_MERCHANT_NAME = 'Demo merchant';
const DEMO_KEY_NAME = 'Demo key';

/** What is kept to print the same credentials every start: the key exists nowhere else in clear. */
const savedSchema = z.object({
  merchantId: z.string().min(1),
  apiKey: z.string().refine(isWellFormedApiKey),
});

type SavedCredentials = z.infer<typeof savedSchema>;

export interface DemoMerchant extends SavedCredentials {
  /** Opened from the merchant's sealed secret for the banner; never written to a file. */
  callbackSecret: string;
  callbackUrl: string | null;
}

export interface DemoOverrides {
  apiKey?: string;
  callbackUrl?: string;
  callbackSecret?: string;
}

export const demoMerchantFile = (dataDir: string): string => join(dataDir, 'demo-merchant.json');

const readSavedCredentials = (file: string): Promise<SavedCredentials | undefined> => readJsonFile(file, savedSchema, 'does not hold demo merchant credentials; remove it to start afresh');

/** Registers `text` as a key of the merchant unless it is known already; says whether it can be used. */
async function adoptKey(store: MerchantStore, merchantId: string, text: string, now: Date): Promise<'usable' | 'revoked' | 'foreign'> {
  const existing = await store.findKeyByDigest(digestApiKey(text));
  if (existing === undefined) {
    await store.addKey(newApiKey(merchantId, LOCAL_STAGE, now, { text, name: DEMO_KEY_NAME }).record);
    return 'usable';
  }
  if (existing.merchantId !== merchantId) return 'foreign';
  return existing.status === 'active' ? 'usable' : 'revoked';
}

async function demoApiKey(store: MerchantStore, merchantId: string, requested: string | undefined, saved: string | undefined, now: Date): Promise<string> {
  if (requested !== undefined) {
    const state = await adoptKey(store, merchantId, requested, now);
    if (state === 'revoked') throw new Error('GATEWAY_DEMO_API_KEY has been revoked; choose another key');
    if (state === 'foreign') throw new Error('GATEWAY_DEMO_API_KEY belongs to another merchant; choose another key');
    return requested;
  }
  // A saved key that was revoked since (through the admin CLI) gives way to a new one.
  if (saved !== undefined && (await adoptKey(store, merchantId, saved, now)) === 'usable') return saved;
  const key = newApiKey(merchantId, LOCAL_STAGE, now, { name: DEMO_KEY_NAME });
  await store.addKey(key.record);
  return key.text;
}

export async function ensureDemoMerchant(store: MerchantStore, secrets: CallbackSecretVault, dataDir: string, overrides: DemoOverrides, now = new Date()): Promise<DemoMerchant> {
  const file = demoMerchantFile(dataDir);
  const saved = await readSavedCredentials(file);
  const callbackUrl = overrides.callbackUrl ?? null;

  let merchant = saved && (await store.getMerchant(saved.merchantId));
  let callbackSecret: string;
  if (merchant) {
    callbackSecret = overrides.callbackSecret ?? (await secrets.open(merchant.id, merchant.sealedCallbackSecret));
    const sealedCallbackSecret = overrides.callbackSecret ? await secrets.seal(merchant.id, callbackSecret) : undefined;
    merchant = await store.updateMerchant(merchant.id, { callbackUrl, sealedCallbackSecret });
  } else {
    // Without its record (a first start, or the store was wiped), the demo merchant is made, under its old id if it had one.
    const created = await newMerchant({ id: saved?.merchantId, name: DEMO_MERCHANT_NAME, callbackUrl, callbackSecret: overrides.callbackSecret, onchainDeposits: true }, secrets, now);
    await store.createMerchant(created.merchant);
    ({ merchant, callbackSecret } = created);
  }
  if (!merchant) throw new Error(`The demo merchant ${saved?.merchantId} vanished while it was being updated`);

  const apiKey = await demoApiKey(store, merchant.id, overrides.apiKey, saved?.apiKey, now);
  const credentials: SavedCredentials = { merchantId: merchant.id, apiKey };
  await writeFile(file, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  // The mode above applies to a new file only.
  await chmod(file, 0o600);
  return { ...credentials, callbackSecret, callbackUrl };
}
