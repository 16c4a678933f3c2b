/**
 * Merchants' API keys, issued with a name, listed and revoked (docs/merchant-guide.md#authentication):
 * the one place the admin CLI and the dashboard's functions do it, over small ports. A key is
 * registered at the gateway (API Gateway's usage plan, which throttles each key) before it is
 * stored, and revoked in the store before it leaves the gateway, so that a stored active key always
 * gets through and the authorizer refuses any other. Each key's last use is recorded by the
 * authorizer (`recordKeyUse`, shared/domain/merchants/merchants.ts).
 */
import * as z from 'zod';
import type { Stage } from '../../stage.js';
import { allowedIpsSchema, API_KEY_SCOPES, scopesOf, scopesSchema, type ApiKeyScope } from './api-key-scopes.js';
import { Invalid, isUuid, NotFound } from '../kernel/index.js';
import { newApiKey, type ApiKey, type ApiKeyStatus, type MerchantProfiles } from './merchants.js';

/** The gateway's side of a key: a key must be registered there to get past its throttling. */
export interface KeyRegistry {
  register(key: ApiKey): Promise<void>;
  /** Safe to repeat: a key the gateway does not hold is left alone. */
  unregister(key: ApiKey): Promise<void>;
}

/** Where keys are kept, by digest, and found by merchant. */
export interface ApiKeyStore {
  /** Refuses a key whose digest is stored already. */
  addKey(key: ApiKey): Promise<void>;
  listKeys(merchantId: string): Promise<ApiKey[]>;
  /** Revokes one of the merchant's keys, keeping the time of a first revocation; false when the merchant has no such key. */
  revokeKey(merchantId: string, keyId: string, now: Date): Promise<boolean>;
}

export const API_KEY_NAME_MAX_LENGTH = 64;

/** Control and format characters (bidirectional overrides among them), unassigned and private-use code points, line and paragraph separators. */
const UNPRINTABLE = /[\p{C}\p{Zl}\p{Zp}]/u;

/** A key's name, as the dashboard's form and the admin CLI take it: trimmed, 1 to 64 printable characters. */
export const apiKeyNameSchema = z
  .string()
  .trim()
  .min(1, 'must not be blank')
  .refine((name) => [...name].length <= API_KEY_NAME_MAX_LENGTH, `must be at most ${API_KEY_NAME_MAX_LENGTH} characters`)
  .refine((name) => !UNPRINTABLE.test(name), 'must hold printable characters only')
  .describe('What the merchant calls the key, shown beside it wherever keys are listed');

/** What a new key is: its name, its scopes (every scope unless given) and the addresses it may be used from (any unless given). */
export const newApiKeyRequestSchema = z.strictObject({ name: apiKeyNameSchema, scopes: scopesSchema.optional(), allowedIps: allowedIpsSchema.optional() });

/** A key as its merchant sees it: never its text or digest. */
export interface ApiKeyView {
  id: string;
  /** The same as `id`, as listings named it before keys had scopes. */
  keyId: string;
  /** null for a key made before keys had names. */
  name: string | null;
  /** The key's first characters, e.g. `gw_prod_AbCd…`. */
  hint: string;
  status: ApiKeyStatus;
  scopes: ApiKeyScope[];
  /** Empty: the key may be used from any address. */
  allowedIps: string[];
  createdAt: string;
  revokedAt: string | null;
  /** Within an hour or so of the key's latest request (docs/merchant-guide.md#authentication); null when it has had none. */
  lastUsedAt: string | null;
}

export const apiKeyView = (key: ApiKey): ApiKeyView => ({
  id: key.keyId,
  keyId: key.keyId,
  name: key.name ?? null,
  hint: key.hint,
  status: key.status,
  scopes: [...scopesOf(key)],
  allowedIps: key.allowedIps ?? [],
  createdAt: key.createdAt,
  revokedAt: key.revokedAt ?? null,
  lastUsedAt: key.lastUsedAt ?? null,
});

/** A new key: its text, shown this once and stored nowhere, and the key as listed from then on. */
export interface IssuedApiKey {
  apiKey: string;
  key: ApiKeyView;
}

export interface ApiKeyServiceDeps {
  keys: ApiKeyStore;
  /** A key is issued to a merchant that exists. */
  merchants: MerchantProfiles;
  /** Where keys are registered; only functions that issue or revoke keys have one (`managesApiKeys`). */
  registry?: KeyRegistry;
  /** The environment in the key's text: `gw_{stage}_…`. */
  stage: Stage;
  clock: () => Date;
}

const KEY = 'API key';

export class ApiKeyService {
  constructor(private readonly deps: ApiKeyServiceDeps) {}

  /**
   * A new active key of the merchant, named (trimmed) and scoped as asked, within `reach`: the
   * scopes its maker may give (docs/merchant-guide.md#key-scopes; every scope for the operator).
   * The gateway first: a key the store holds always gets through.
   */
  async issue(merchantId: string, request: z.input<typeof newApiKeyRequestSchema>, reach: readonly ApiKeyScope[] = API_KEY_SCOPES): Promise<IssuedApiKey> {
    const parsed = newApiKeyRequestSchema.safeParse(request);
    if (!parsed.success) throw new Invalid(parsed.error.issues.map((issue) => ({ field: issue.path.join('.'), message: `${issue.path.join('.')} ${issue.message}` })));
    const scopes = parsed.data.scopes ?? [...API_KEY_SCOPES];
    const beyond = scopes.filter((scope) => !reach.includes(scope));
    if (beyond.length > 0) throw Invalid.of('scopes', `scopes may not include ${beyond.join(', ')}: a key never does more than its maker may`);
    if (!(await this.deps.merchants.getMerchant(merchantId))) throw new NotFound('Merchant');
    const { text, record } = newApiKey(merchantId, this.deps.stage, this.deps.clock(), { name: parsed.data.name, scopes, allowedIps: parsed.data.allowedIps ?? [] });
    const registry = this.registry();
    await registry.register(record);
    try {
      await this.deps.keys.addKey(record);
    } catch (error) {
      // Unstored, the key gets through nowhere; the gateway's copy would only take a place in its quota.
      await registry.unregister(record).catch(() => undefined);
      throw error;
    }
    return { apiKey: text, key: apiKeyView(record) };
  }

  /**
   * Revokes one of the merchant's keys: in the store first, from when the authorizer refuses it
   * (docs/merchant-guide.md#authentication says how soon the API does), then at the gateway.
   * Revoking a revoked key changes nothing in the store and removes it from the gateway again, so
   * a revocation the gateway failed is finished by repeating it. Another merchant's key is not found.
   */
  async revoke(merchantId: string, keyId: string): Promise<ApiKeyView> {
    const registry = this.registry();
    const key = isUuid(keyId) ? (await this.deps.keys.listKeys(merchantId)).find((candidate) => candidate.keyId === keyId) : undefined;
    const now = this.deps.clock();
    if (!key || !(await this.deps.keys.revokeKey(merchantId, keyId, now))) throw new NotFound(KEY);
    await registry.unregister(key);
    return apiKeyView({ ...key, status: 'revoked', revokedAt: key.revokedAt ?? now.toISOString() });
  }

  /** The merchant's keys, active and revoked, newest first. */
  async list(merchantId: string): Promise<ApiKeyView[]> {
    const keys = await this.deps.keys.listKeys(merchantId);
    return keys.sort((a, b) => b.createdAt.localeCompare(a.createdAt) || a.keyId.localeCompare(b.keyId)).map(apiKeyView);
  }

  private registry(): KeyRegistry {
    if (!this.deps.registry) throw new Error('This API key service was given no registry: it lists keys only');
    return this.deps.registry;
  }
}
