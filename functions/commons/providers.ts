/**
 * The payment providers of this container's stage (decisions 18), wired once at load: their
 * connectors, each secret read once when first needed, and the requests the gateway sends them.
 */
import { config } from '../../shared/config.js';
import { ProviderRequests } from '../../shared/domain/provider-requests.js';
import { providerRegistry } from '../../shared/providers/registry.js';
import { invoiceStore } from './invoices.js';
import { transactionStore } from './stores.js';

const { providers, publicBaseUrl } = config();

export const providerRegistryOfStage = providerRegistry(providers);

export const providerRequests = new ProviderRequests({
  registry: providerRegistryOfStage,
  invoices: invoiceStore,
  transactions: transactionStore,
  publicBaseUrl,
  clock: () => new Date(),
});
