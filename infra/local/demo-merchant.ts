/**
 * The local stack's demo merchant: created on the first start, its credentials kept in
 * `{dataDir}/demo-merchant.json` so every later start prints the same ones (decisions 13).
 * The GATEWAY_DEMO_* variables, when set, are applied on every start and kept from then on.
 */
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { digestApiKey, generateCallbackSecret, isCallbackSecret, isWellFormedApiKey, newApiKey, newMerchant } from '../../shared/domain/merchants.js';
import type { MerchantStore } from '../../shared/store/merchants.js';
import { LOCAL_STAGE } from './environment.js';
import { readJsonFile } from './json-file.js';

const DEMO_MERCHANT_NAME = 'Demo merchant';

const credentialsSchema = z.object({
  merchantId: z.string().min(1),
  apiKey: z.string().refine(isWellFormedApiKey),
  callbackSecret: z.string().refine(isCallbackSecret),
});

export type DemoCredentials = z.infer<typeof credentialsSchema>;

export interface DemoMerchant extends DemoCredentials {
  callbackUrl: string | null;
}

export interface DemoOverrides {
  apiKey?: string;
  callbackUrl?: string;
  callbackSecret?: string;
}

export const demoMerchantFile = (dataDir: string): string => join(dataDir, 'demo-merchant.json');

const readSavedCredentials = (file: string): Promise<DemoCredentials | undefined> =>
  readJsonFile(file, credentialsSchema, 'does not hold demo merchant credentials; remove it to start afresh');

/** Registers `text` as a key of the merchant unless it is known already; says whether it can be used. */
async function adoptKey(store: MerchantStore, merchantId: string, text: string, now: Date): Promise<'usable' | 'revoked' | 'foreign'> {
  const existing = await store.findKeyByDigest(digestApiKey(text));
  if (existing === undefined) {
    await store.addKey(newApiKey(merchantId, LOCAL_STAGE, now, text).record);
    return 'usable';
  }
  if (existing.merchantId !== merchantId) return 'foreign';
  return existing.status === 'active' ? 'usable' : 'revoked';
}

async function demoApiKey(
  store: MerchantStore,
  merchantId: string,
  requested: string | undefined,
  saved: string | undefined,
  now: Date,
): Promise<string> {
  if (requested !== undefined) {
    const state = await adoptKey(store, merchantId, requested, now);
    if (state === 'revoked') throw new Error('GATEWAY_DEMO_API_KEY has been revoked; choose another key');
    if (state === 'foreign') throw new Error('GATEWAY_DEMO_API_KEY belongs to another merchant; choose another key');
    return requested;
  }
  // A saved key that was revoked since (through the admin CLI) gives way to a new one.
  if (saved !== undefined && (await adoptKey(store, merchantId, saved, now)) === 'usable') return saved;
  const key = newApiKey(merchantId, LOCAL_STAGE, now);
  await store.addKey(key.record);
  return key.text;
}

export async function ensureDemoMerchant(
  store: MerchantStore,
  dataDir: string,
  overrides: DemoOverrides,
  now = new Date(),
): Promise<DemoMerchant> {
  const file = demoMerchantFile(dataDir);
  const saved = await readSavedCredentials(file);
  const callbackSecret = overrides.callbackSecret ?? saved?.callbackSecret ?? generateCallbackSecret();
  const callbackUrl = overrides.callbackUrl ?? null;

  const existing = saved && (await store.updateMerchant(saved.merchantId, { callbackUrl, callbackSecret }));
  // Without its record (the store was wiped), the demo merchant is made again under its old id.
  const merchant = existing ?? { ...newMerchant({ name: DEMO_MERCHANT_NAME, callbackUrl, callbackSecret }, now), ...(saved && { id: saved.merchantId }) };
  if (!existing) await store.createMerchant(merchant);

  const apiKey = await demoApiKey(store, merchant.id, overrides.apiKey, saved?.apiKey, now);
  const credentials: DemoCredentials = { merchantId: merchant.id, apiKey, callbackSecret };
  await writeFile(file, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  // The mode above applies to a new file only.
  await chmod(file, 0o600);
  return { ...credentials, callbackUrl };
}
