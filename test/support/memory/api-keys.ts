/** API keys in memory, held to the DynamoDB store's contract (test/integration/store-contracts.test.ts). */
import type { ApiKeyStore } from '../../../shared/domain/merchants/api-key-service.js';
import type { ApiKey, KeyUseRecorder } from '../../../shared/domain/merchants/merchants.js';

export class MemoryApiKeys implements ApiKeyStore, KeyUseRecorder {
  private readonly keys = new Map<string, ApiKey>();

  async addKey(key: ApiKey): Promise<void> {
    if (this.keys.has(key.digest)) throw new Error(`ConditionalCheckFailedException: a key with digest ${key.digest} is stored`);
    this.keys.set(key.digest, structuredClone(key));
  }

  async findKeyByDigest(digest: string): Promise<ApiKey | undefined> {
    const key = this.keys.get(digest);
    return key && structuredClone(key);
  }

  /** Oldest first, as the merchant index orders them. */
  async listKeys(merchantId: string): Promise<ApiKey[]> {
    return [...this.keys.values()]
      .filter((key) => key.merchantId === merchantId)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt))
      .map((key) => structuredClone(key));
  }

  async revokeKey(merchantId: string, keyId: string, now: Date): Promise<boolean> {
    const key = [...this.keys.values()].find((candidate) => candidate.merchantId === merchantId && candidate.keyId === keyId);
    if (!key) return false;
    key.status = 'revoked';
    key.revokedAt ??= now.toISOString();
    return true;
  }

  async recordKeyUse(digest: string, at: Date, since: Date): Promise<boolean> {
    const key = this.keys.get(digest);
    if (!key || (key.lastUsedAt !== undefined && key.lastUsedAt >= since.toISOString())) return false;
    key.lastUsedAt = at.toISOString();
    return true;
  }
}
