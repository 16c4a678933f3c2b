/**
 * The payment providers of this container's stage (docs/provider-protocol.md), wired once at load:
 * their connectors, as the stage's configuration names them when they are used, each secret read
 * when first needed, and the requests the gateway sends them.
 */
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { config } from '../../shared/config.js';
import { ProviderRequests } from '../../shared/domain/payments/index.js';
import { traced } from '../../shared/observability/tracer.js';
import { providerRegistry, type SecretStoreReader } from '../../shared/connectors/registry.js';
import { secretsManagerReader } from '../../shared/connectors/secret-store.js';
import { invoiceStore } from './invoices.js';
import { stageConfiguration } from './stage-configuration.js';
import { transactionStore } from './stores.js';

const { publicBaseUrl } = config();

/** Secrets Manager's client is made when a secret is first read from it (AWS); providers given their secrets (one machine) never need it. */
let secretStore: SecretStoreReader | undefined;
const readSecretStore: SecretStoreReader = (arn) => (secretStore ??= secretsManagerReader(traced(new SecretsManagerClient({}))))(arn);

export const providerRegistryOfStage = providerRegistry(() => stageConfiguration.current().providers, readSecretStore);

export const providerRequests = new ProviderRequests({
  registry: providerRegistryOfStage,
  invoices: invoiceStore,
  transactions: transactionStore,
  publicBaseUrl,
  clock: () => new Date(),
});
