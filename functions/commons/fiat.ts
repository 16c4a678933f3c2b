/**
 * The fiat service of this container, wired once at load: the card vault and the providers, and
 * the receipt store for the functions that confirm deposits (`fiatServiceWith(receiptStore)`).
 */
import { randomUUID } from 'node:crypto';
import type { BalanceReader } from '../../shared/domain/ledger/index.js';
import { FiatService, type Ledger, type ReceiptStore } from '../../shared/domain/payments/index.js';
import { logger } from '../../shared/observability/logger.js';
import { seal } from '../../shared/vault/envelope.js';
import { providerRegistryOfStage, providerRequests } from './providers.js';
import { rateSource } from './rates.js';
import { balanceStore, merchantStore, transactionStore } from './stores.js';
import { transactionService, transactionServiceOver } from './transactions.js';
import { requireVault } from './vault.js';

const { dataKeys } = requireVault();

/** `over`: another ledger and balances than the container's stores (a benchmark's metered ones). */
export const fiatServiceWith = (receipts?: ReceiptStore, over?: { ledger: Ledger; balances: BalanceReader }): FiatService =>
  new FiatService({
    transactions: over ? transactionServiceOver(over.ledger, over.balances) : transactionService,
    ledger: over?.ledger ?? transactionStore,
    balances: over?.balances ?? balanceStore,
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
