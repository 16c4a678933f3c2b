/**
 * Refunds in this container: what crypto payouts are wired with (functions/commons/payouts.ts), and
 * the stage's providers, which refund the deposits they took.
 */
import { RefundService } from '../../shared/domain/payments/index.js';
import { payoutDeps } from './payouts.js';
import { providerRequests } from './providers.js';
import { invoiceStore } from './invoices.js';
import { transactionService } from './transactions.js';

export const refundService = (): RefundService => new RefundService({ ...payoutDeps(), invoices: invoiceStore, requests: providerRequests, transactions: transactionService });
