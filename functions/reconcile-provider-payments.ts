/**
 * Every 5 minutes (docs/provider-protocol.md): asks each provider about the payments and payouts whose decision
 * is overdue, settles what it answers, sends again the UTRs and payouts a provider never took, and
 * reports what has been processing for over a day (alarmed).
 */
import { payoutRecipient, type Transaction, type WithdrawTransaction } from '../shared/domain/transactions/index.js';
import type { StoredReceipt } from '../shared/domain/payments/index.js';
import { logScheduledRun } from '../shared/observability/logger.js';
import { businessMetrics } from '../shared/observability/metrics.js';
import { observed } from '../shared/observability/tracer.js';
import { open } from '../shared/vault/envelope.js';
import { providerSettlementWith } from './commons/provider-settlement.js';
import { providerRequests } from './commons/providers.js';
import { receiptStore } from './commons/receipts.js';
import { requireVault } from './commons/vault.js';

const { dataKeys } = requireVault();

const settlement = providerSettlementWith({
  requests: providerRequests,
  receiptOf: async (deposit: Transaction & { receipt?: StoredReceipt }) => (deposit.receipt ? receiptStore.get(deposit.receipt.reference) : undefined),
  recipientOf: async (transaction) => {
    const withdrawal = transaction as WithdrawTransaction;
    const sealed = withdrawal.recipient.sealedCardNumber;
    return payoutRecipient(withdrawal, sealed ? await open(dataKeys, sealed, withdrawal.id) : undefined);
  },
});

export const handler = observed(async () => {
  const report = await settlement.reconcile();
  businessMetrics.reconciled(report);
  // Asking about payments the providers have not decided yet is routine; what it settled, sent again or could not do is not.
  logScheduledRun('Provider reconciliation', { ...report }, report.settled + report.resent + report.overdue + report.failures > 0);
  return report;
});
