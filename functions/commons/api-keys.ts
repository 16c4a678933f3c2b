/**
 * The API keys of this container (docs/merchant-guide.md#authentication): listed by any function
 * that shows them; issued and revoked only by one given the registry (`managesApiKeys`, see
 * key-registry.ts), so that the others' bundles go without API Gateway's and SSM's clients.
 */
import { config } from '../../shared/config.js';
import { ApiKeyService, type KeyRegistry } from '../../shared/domain/merchants/index.js';
import { merchantStore } from './merchants.js';

const { stage } = config();

export const apiKeyServiceWith = (registry?: KeyRegistry): ApiKeyService => new ApiKeyService({ keys: merchantStore, merchants: merchantStore, registry, stage, clock: () => new Date() });
