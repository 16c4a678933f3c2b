/** What this container's stage does with its providers' decisions: events, and the reconciliation of what they missed. */
import { config } from '../../shared/config.js';
import { ProviderSettlement, type ProviderSettlementDeps } from '../../shared/domain/payments/index.js';
import { logger } from '../../shared/observability/logger.js';
import { invoiceStore } from './invoices.js';
import { providerRegistryOfStage } from './providers.js';
import { transactionStore } from './stores.js';
import { transactionService } from './transactions.js';

const { reconciliationPolicy } = config();

export const providerSettlementWith = (resend?: ProviderSettlementDeps['resend']): ProviderSettlement =>
  new ProviderSettlement({
    registry: providerRegistryOfStage,
    transactions: transactionService,
    ledger: transactionStore,
    invoices: invoiceStore,
    resend,
    policy: reconciliationPolicy,
    log: logger,
    clock: () => new Date(),
  });

/** The events route's: it sends nothing again. */
export const providerSettlement = providerSettlementWith();
