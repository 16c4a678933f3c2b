/**
 * The fiat service of this container, wired once at load: the card vault and the providers, and
 * the receipt store for the functions that confirm deposits (`fiatServiceWith(receiptStore)`).
 */
import { randomUUID } from 'node:crypto';
import { FiatService, type ReceiptStore } from '../../shared/domain/fiat-service.js';
import { logger } from '../../shared/observability/logger.js';
import { seal } from '../../shared/vault/envelope.js';
import { providerRegistryOfStage, providerRequests } from './providers.js';
import { rateSource } from './rates.js';
import { merchantStore, transactionStore } from './stores.js';
import { transactionService } from './transactions.js';
import { requireVault } from './vault.js';

const { dataKeys } = requireVault();

export const fiatServiceWith = (receipts?: ReceiptStore): FiatService =>
  new FiatService({
    transactions: transactionService,
    ledger: transactionStore,
    merchants: merchantStore,
    receipts,
    vault: { seal: (cardNumber, context) => seal(dataKeys, cardNumber, context) },
    providers: providerRegistryOfStage,
    requests: providerRequests,
    rates: rateSource,
    log: logger,
    clock: () => new Date(),
    newId: randomUUID,
  });
