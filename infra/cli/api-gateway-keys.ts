/**
 * Keys in a deployed environment's usage plan. API Gateway identifies a caller by the
 * `usageIdentifierKey` the authorizer returns, the key's SHA-256 digest, so the digest is the
 * value API Gateway holds: it never sees the key text.
 */
import {
  CreateApiKeyCommand,
  CreateUsagePlanKeyCommand,
  DeleteApiKeyCommand,
  GetApiKeysCommand,
  type APIGatewayClient,
} from '@aws-sdk/client-api-gateway';
import type { ApiKey } from '../../shared/domain/merchants.js';
import type { KeyRegistry } from './merchant-admin.js';

/** One API Gateway key per merchant key, found again by this name. */
export const apiGatewayKeyName = (key: ApiKey): string => `merchant-key-${key.keyId}`;

export class ApiGatewayKeyRegistry implements KeyRegistry {
  constructor(
    private readonly client: Pick<APIGatewayClient, 'send'>,
    private readonly usagePlanId: string,
  ) {}

  async register(key: ApiKey): Promise<void> {
    const created = await this.client.send(
      new CreateApiKeyCommand({
        name: apiGatewayKeyName(key),
        description: `Key ${key.hint} of merchant ${key.merchantId}`,
        enabled: true,
        value: key.digest,
        customerId: key.merchantId,
        tags: { merchantId: key.merchantId, keyId: key.keyId },
      }),
    );
    if (!created.id) throw new Error('API Gateway created an API key without an id');
    try {
      await this.client.send(new CreateUsagePlanKeyCommand({ usagePlanId: this.usagePlanId, keyId: created.id, keyType: 'API_KEY' }));
    } catch (error) {
      // A key outside the usage plan is of no use; leave nothing half-made behind.
      await this.client.send(new DeleteApiKeyCommand({ apiKey: created.id }));
      throw error;
    }
  }

  async unregister(key: ApiKey): Promise<void> {
    const name = apiGatewayKeyName(key);
    const { items } = await this.client.send(new GetApiKeysCommand({ nameQuery: name, includeValues: false }));
    // Deleting the key takes it out of the usage plan too.
    for (const item of items ?? []) {
      if (item.name === name && item.id) await this.client.send(new DeleteApiKeyCommand({ apiKey: item.id }));
    }
  }
}
