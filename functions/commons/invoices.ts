/** The invoice service of this container, wired once at load. */
import { randomUUID } from 'node:crypto';
import { config } from '../../shared/config.js';
import { offeredNetworks } from '../../shared/domain/networks.js';
import { InvoiceService, type CustomerWallets, type InvoiceServiceDeps } from '../../shared/domain/invoice-service.js';
import { logger } from '../../shared/observability/logger.js';
import { businessMetrics } from '../../shared/observability/metrics.js';
import { documentClient } from '../../shared/store/dynamo.js';
import { DynamoInvoiceStore } from '../../shared/store/invoices.js';
import { rateSource } from './rates.js';

const { stage, tables, invoiceLifetimeSeconds, providers, publicBaseUrl, chains } = config();

export const invoiceStore = new DynamoInvoiceStore(documentClient, tables);

/**
 * Reading invoices; with `wallets` (functions with `readsWalletKeys` only) and the provider
 * payments (`usesProviders`), creating them too.
 */
export const invoiceServiceWith = (wallets?: CustomerWallets, providerPayments?: InvoiceServiceDeps['providerPayments']): InvoiceService =>
  new InvoiceService({
    invoices: invoiceStore,
    wallets,
    providerPayments,
    log: logger,
    rates: rateSource,
    policy: { stage, lifetimeSeconds: invoiceLifetimeSeconds, providers, networks: offeredNetworks(stage, chains) },
    publicBaseUrl,
    metrics: businessMetrics,
    clock: () => new Date(),
    newId: randomUUID,
  });
