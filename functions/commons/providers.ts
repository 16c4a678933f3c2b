/**
 * The payment providers of this container's stage (docs/provider-protocol.md), wired once at load: their
 * connectors, each secret read once when first needed, and the requests the gateway sends them.
 */
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { config } from '../../shared/config.js';
import { ProviderRequests } from '../../shared/domain/provider-requests.js';
import { traced } from '../../shared/observability/tracer.js';
import { providerRegistry } from '../../shared/providers/registry.js';
import { secretsManagerReader } from '../../shared/providers/secret-store.js';
import { invoiceStore } from './invoices.js';
import { transactionStore } from './stores.js';

const { providers, publicBaseUrl } = config();

/** Only a stage whose providers keep their secrets in Secrets Manager (AWS) loads its client. */
const readSecretStore = providers.some((provider) => provider.secret.kind === 'secretsManager')
  ? secretsManagerReader(traced(new SecretsManagerClient({})))
  : undefined;

export const providerRegistryOfStage = providerRegistry(providers, readSecretStore);

export const providerRequests = new ProviderRequests({
  registry: providerRegistryOfStage,
  invoices: invoiceStore,
  transactions: transactionStore,
  publicBaseUrl,
  clock: () => new Date(),
});
