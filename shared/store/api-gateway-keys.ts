/**
 * The gateway's record of merchants' keys (`KeyRegistry`). In AWS, keys in the stage's usage plan:
 * API Gateway identifies a caller by the `usageIdentifierKey` the authorizer returns, the key's
 * SHA-256 digest, so the digest is the value API Gateway holds, never the key text. On one machine
 * the local gateway throttles by that digest itself and keeps no list.
 */
import { CreateApiKeyCommand, CreateUsagePlanKeyCommand, DeleteApiKeyCommand, GetApiKeysCommand, type APIGatewayClient } from '@aws-sdk/client-api-gateway';
import { GetParameterCommand, type SSMClient } from '@aws-sdk/client-ssm';
import type { ApiKeyRegistryConfig } from '../config.js';
import type { ApiKey, KeyRegistry } from '../domain/merchants/index.js';

/** One API Gateway key per merchant key, found again by this name. */
export const apiGatewayKeyName = (key: ApiKey): string => `merchant-key-${key.keyId}`;

/** The id of the usage plan keys are added to: known (the admin CLI reads it from the stack's outputs), or read when first needed. */
export type UsagePlanId = string | (() => Promise<string>);

/**
 * What it calls, and all a function that manages keys is granted (infra/aws/gateway-function.ts):
 * POST /apikeys, POST /usageplans/{id}/keys, GET /apikeys, DELETE /apikeys/{id}. No tags on the
 * keys, which would take tagging rights too: the name holds the key id, `customerId` the merchant.
 */
export class ApiGatewayKeyRegistry implements KeyRegistry {
  constructor(
    private readonly client: Pick<APIGatewayClient, 'send'>,
    private readonly usagePlanId: UsagePlanId,
  ) {}

  async register(key: ApiKey): Promise<void> {
    const usagePlanId = typeof this.usagePlanId === 'string' ? this.usagePlanId : await this.usagePlanId();
    const created = await this.client.send(
      new CreateApiKeyCommand({
        name: apiGatewayKeyName(key),
        description: `Key ${key.hint} of merchant ${key.merchantId}`,
        enabled: true,
        value: key.digest,
        customerId: key.merchantId,
      }),
    );
    if (!created.id) throw new Error('API Gateway created an API key without an id');
    try {
      await this.client.send(new CreateUsagePlanKeyCommand({ usagePlanId, keyId: created.id, keyType: 'API_KEY' }));
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

/** The local gateway throttles by the digest the authorizer returns; it keeps no list of keys. */
export const localKeyRegistry: KeyRegistry = {
  register: async () => undefined,
  unregister: async () => undefined,
};

/** The usage plan's id from its SSM parameter, read on first use and kept; a failed read is not kept, the next call reads again. */
export function usagePlanIdParameter(ssm: Pick<SSMClient, 'send'>, parameterName: string): () => Promise<string> {
  let id: Promise<string> | undefined;
  return () => {
    id ??= ssm
      .send(new GetParameterCommand({ Name: parameterName }))
      .then(({ Parameter }) => {
        if (!Parameter?.Value) throw new Error(`The usage plan parameter ${parameterName} has no value`);
        return Parameter.Value;
      })
      .catch((error: unknown) => {
        id = undefined;
        throw error;
      });
    return id;
  };
}

/** The registry the configuration names (the functions with `managesApiKeys` have one); the clients are made only where they are used. */
export function configuredKeyRegistry(config: ApiKeyRegistryConfig | undefined, clients: { apiGateway: () => Pick<APIGatewayClient, 'send'>; ssm: () => Pick<SSMClient, 'send'> }): KeyRegistry {
  if (!config) {
    throw new Error('Invalid environment: API_KEY_USAGE_PLAN_PARAMETER (AWS) or GATEWAY_API_KEY_REGISTRY=local (one machine) is required to issue or revoke API keys');
  }
  if (config.kind === 'local') return localKeyRegistry;
  return new ApiGatewayKeyRegistry(clients.apiGateway(), usagePlanIdParameter(clients.ssm(), config.usagePlanParameter));
}
