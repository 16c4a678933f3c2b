/**
 * The API keys of this container (docs/merchant-guide.md#authentication): listed by any function
 * that shows them; issued and revoked only by one with `managesApiKeys`, which registers them with
 * the stage's usage plan (AWS) or nowhere (one machine).
 */
import { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import { SSMClient } from '@aws-sdk/client-ssm';
import { config } from '../../shared/config.js';
import { ApiKeyService } from '../../shared/domain/api-key-service.js';
import { traced } from '../../shared/observability/tracer.js';
import { configuredKeyRegistry } from '../../shared/store/api-gateway-keys.js';
import { merchantStore } from './merchants.js';

const { stage, apiKeyRegistry } = config();

export const apiKeyServiceWith = ({ manages }: { manages: boolean }): ApiKeyService =>
  new ApiKeyService({
    keys: merchantStore,
    merchants: merchantStore,
    registry: manages ? configuredKeyRegistry(apiKeyRegistry, { apiGateway: () => traced(new APIGatewayClient({})), ssm: () => traced(new SSMClient({})) }) : undefined,
    stage,
    clock: () => new Date(),
  });
