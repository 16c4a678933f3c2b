export { callbackBody, callbackEntry, testCallbackFields, testWebhookId } from './transaction-callbacks.js';
export { TransactionViews } from './transaction-views.js';
export { callbackPayload, callbackPayloadSchema, depositTransaction, isFinalStatus, listTransactionsQuerySchema, TRANSACTION_STATUSES, TRANSACTION_TYPES, transactionViewSchema } from './transactions.js';
export type {
  CallbackPayload,
  ChainPosition,
  DepositValuation,
  ListTransactionsQuery,
  Transaction,
  TransactionFilters,
  TransactionProvider,
  TransactionStatus,
  TransactionType,
  TransactionView,
} from './transactions.js';
export { payoutRecipient, withdrawalRecipient, withdrawalRequestSchema, withdrawalVariant, withdrawTransaction, withMaskedCard } from './withdrawals.js';
export type { WithdrawalRequest, WithdrawTransaction } from './withdrawals.js';
export { cryptoPayoutTransaction, followedOnChain, isCryptoPayout, lastAttempt, payoutOrderOf, withAttempt } from './crypto-payouts.js';
export type { CryptoPayoutTransaction } from './crypto-payouts.js';
export { isRefund, isSimulatedCryptoDeposit, refundableOf, refundRequestSchema, refundsHeldAfter, refundTransaction } from './refunds.js';
export type { RefundRequest, RefundRoute, RefundTransaction } from './refunds.js';
export { providerEvidence } from './evidence.js';
export type { ChainEvidence, ProviderEventStamp, TransactionEvidence } from './evidence.js';
