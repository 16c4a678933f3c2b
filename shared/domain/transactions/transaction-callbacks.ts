/**
 * The callbacks that announce a transaction's states (docs/merchant-guide.md#callbacks): their
 * `webhook-id`, the entry written with the state, the body sent with the transaction's `hash`
 * under the merchant's secret, and the sample a test callback sends.
 */
import type { CallbackEntry } from '../callbacks/index.js';
import { callbackFields, callbackPayload, type CallbackFields, type Transaction, type TransactionStatus } from './transactions.js';

/** One id per transaction state, so a receiver can drop duplicates of the same event. */
export const webhookId = (transactionId: string, status: TransactionStatus): string => `${transactionId}:${status}`;

/** The callback announcing a transaction's final state. */
export function callbackEntry(transaction: Transaction, now: Date): CallbackEntry {
  return {
    id: webhookId(transaction.id, transaction.status),
    merchantId: transaction.merchantId,
    transactionId: transaction.id,
    payload: JSON.stringify(callbackFields(transaction)),
    createdAt: now.toISOString(),
  };
}

/** The body a callback entry is sent with: its fields and the transaction's `hash`, in the merchant guide's order (docs/merchant-guide.md#body-and-headers). */
export const callbackBody = (entry: Pick<CallbackEntry, 'payload' | 'invoiceId'>, callbackSecret: string): string =>
  entry.invoiceId === undefined ? JSON.stringify(callbackPayload(JSON.parse(entry.payload) as CallbackFields, callbackSecret)) : entry.payload;

/** The transaction a test callback shows (docs/merchant-guide.md#the-delivery-log-resending-and-testing): a fixed id no real transaction has. */
export const TEST_TRANSACTION_ID = '00000000-0000-4000-8000-000000000000';

/** A confirmed crypto deposit, with `callbackType: "test"`; `id` and `hash` are those of no real transaction. */
export function testCallbackFields(merchantId: string, at: Date): CallbackFields {
  const time = at.toISOString();
  const sample: Transaction = {
    id: TEST_TRANSACTION_ID,
    merchantId,
    invoiceId: '00000000-0000-4000-8000-000000000001',
    type: 'deposit',
    status: 'confirmed',
    amount: '25.000000',
    currency: 'USDT',
    network: 'ethereum',
    transactionHash: `0x${'0'.repeat(64)}`,
    customerId: 'test-customer',
    orderId: 'test-order',
    applicationId: null,
    createdAt: time,
    updatedAt: time,
    info: {
      exchangeRate: '1',
      referenceAmount: '25.000000',
      referenceCurrency: 'USDT',
      referenceExchangeRate: '1',
      transactionAmount: '25.000000',
      transactionCurrency: 'USDT',
    },
    fees: { processing: '0.000000', technical: null },
    eur: '23.15',
    usd: '25.00',
    senderDetails: { senderIban: '', senderAccountNumber: '', senderSortCode: '' },
  };
  return callbackFields(sample, 'test');
}

/** A test callback's `webhook-id`: the sample's id and a part of its own, so that no receiver takes it for a repeat. */
export const testWebhookId = (unique: string): string => `${TEST_TRANSACTION_ID}:test:${unique}`;
