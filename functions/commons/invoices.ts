/** The invoice service of this container, wired once at load. */
import { randomUUID } from 'node:crypto';
import { config } from '../../shared/config.js';
import { InvoiceService } from '../../shared/domain/invoice-service.js';
import { DEMO_USD_PRICES, StaticRateSource } from '../../shared/domain/rates.js';
import { documentClient } from '../../shared/store/dynamo.js';
import { DynamoInvoiceStore } from '../../shared/store/invoices.js';
import { DynamoWalletStore } from '../../shared/store/wallets.js';

const { stage, tables, invoiceLifetimeSeconds, fiatLimits, walletKeys, publicBaseUrl } = config();

export const invoiceStore = new DynamoInvoiceStore(documentClient, tables);

export const invoiceService = new InvoiceService({
  invoices: invoiceStore,
  wallets: new DynamoWalletStore(documentClient, tables.wallets, walletKeys),
  rates: new StaticRateSource(DEMO_USD_PRICES),
  policy: { stage, lifetimeSeconds: invoiceLifetimeSeconds, fiatLimits },
  publicBaseUrl,
  clock: () => new Date(),
  newId: randomUUID,
});
