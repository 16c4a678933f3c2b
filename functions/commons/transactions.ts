/**
 * The transaction service of this container, wired once at load: it moves money and owes callbacks.
 * `transactionServiceOver` wires the same over another ledger and balances (a benchmark's metered ones).
 */
import { randomUUID } from 'node:crypto';
import { config } from '../../shared/config.js';
import type { BalanceReader } from '../../shared/domain/ledger/index.js';
import { TransactionService, type Ledger } from '../../shared/domain/payments/index.js';
import { businessMetrics } from '../../shared/observability/metrics.js';
import { documentClient } from '../../shared/store/dynamo.js';
import { DynamoInvoiceStore } from '../../shared/store/invoices.js';
import { callbackPublisher } from './callbacks.js';
import { rateSource } from './rates.js';
import { balanceStore, merchantStore, transactionStore } from './stores.js';

const { tables, publicBaseUrl } = config();
const invoices = new DynamoInvoiceStore(documentClient, tables);

export const transactionServiceOver = (ledger: Ledger, balances: BalanceReader): TransactionService =>
  new TransactionService({
    ledger,
    balances,
    invoices,
    merchants: merchantStore,
    callbacks: callbackPublisher,
    rates: rateSource,
    metrics: businessMetrics,
    clock: () => new Date(),
    newId: randomUUID,
    publicBaseUrl,
  });

export const transactionService = transactionServiceOver(transactionStore, balanceStore);
