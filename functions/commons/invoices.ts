/** The invoice service of this container, wired once at load. */
import { randomUUID } from 'node:crypto';
import { config } from '../../shared/config.js';
import { offeredNetworks } from '../../shared/domain/chains/index.js';
import { InvoiceService, type CustomerWallets, type InvoiceServiceDeps } from '../../shared/domain/invoicing/index.js';
import type { ProviderRegistry } from '../../shared/domain/providers/index.js';
import { logger } from '../../shared/observability/logger.js';
import { businessMetrics } from '../../shared/observability/metrics.js';
import { documentClient } from '../../shared/store/dynamo.js';
import { DynamoInvoiceStore } from '../../shared/store/invoices.js';
import { rateSource } from './rates.js';

const { stage, tables, invoiceLifetimeSeconds, publicBaseUrl, watchedNetworks } = config();

export const invoiceStore = new DynamoInvoiceStore(documentClient, tables);

/** What creating invoices takes of the stage's providers (functions with `usesProviders`, functions/commons/providers.ts). */
export interface InvoiceProviders {
  payments: NonNullable<InvoiceServiceDeps['providerPayments']>;
  registry: Pick<ProviderRegistry, 'routes'>;
}

/** Reading invoices; with `wallets` (functions with `readsWalletKeys` only) and the `providers`, creating them too. */
export const invoiceServiceWith = (wallets?: CustomerWallets, providers?: InvoiceProviders): InvoiceService =>
  new InvoiceService({
    invoices: invoiceStore,
    wallets,
    providerPayments: providers?.payments,
    log: logger,
    rates: rateSource,
    policy: {
      stage,
      lifetimeSeconds: invoiceLifetimeSeconds,
      networks: offeredNetworks(stage, watchedNetworks),
      // The stage's providers as its configuration stands when an invoice is made.
      get providers() {
        return providers?.registry.routes ?? [];
      },
    },
    publicBaseUrl,
    metrics: businessMetrics,
    clock: () => new Date(),
    newId: randomUUID,
  });
