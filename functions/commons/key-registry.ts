/** Where this container registers the keys it issues (`managesApiKeys`): the stage's usage plan in AWS, nowhere on one machine. */
import { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import { SSMClient } from '@aws-sdk/client-ssm';
import { config } from '../../shared/config.js';
import { traced } from '../../shared/observability/tracer.js';
import { configuredKeyRegistry } from '../../shared/store/api-gateway-keys.js';

export const keyRegistry = configuredKeyRegistry(config().apiKeyRegistry, { apiGateway: () => traced(new APIGatewayClient({})), ssm: () => traced(new SSMClient({})) });
