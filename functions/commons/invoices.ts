/** The invoice service of this container, wired once at load. */
import { randomUUID } from 'node:crypto';
import { config } from '../../shared/config.js';
import { InvoiceService, type CustomerWallets } from '../../shared/domain/invoice-service.js';
import { businessMetrics } from '../../shared/observability/metrics.js';
import { documentClient } from '../../shared/store/dynamo.js';
import { DynamoInvoiceStore } from '../../shared/store/invoices.js';
import { rateSource } from './rates.js';

const { stage, tables, invoiceLifetimeSeconds, providers, publicBaseUrl } = config();

export const invoiceStore = new DynamoInvoiceStore(documentClient, tables);

/** Reading invoices; `wallets` (functions with `readsWalletKeys` only) for creating them too. */
export const invoiceServiceWith = (wallets?: CustomerWallets): InvoiceService =>
  new InvoiceService({
    invoices: invoiceStore,
    wallets,
    rates: rateSource,
    policy: { stage, lifetimeSeconds: invoiceLifetimeSeconds, providers },
    publicBaseUrl,
    metrics: businessMetrics,
    clock: () => new Date(),
    newId: randomUUID,
  });
