/**
 * Examples of the OpenAPI document: one request and one answer per operation, written as a
 * merchant's client sends and receives them. Tests parse each with the schema it illustrates.
 */
import type { BalanceEntryView, BalanceView, CreateReportRequest, ReportView } from './domain/ledger/index.js';
import type { CallbackDelivery } from './domain/callbacks/index.js';
import type { TestCallbackResult } from './domain/payments/index.js';
import type { InvoiceEventBody, InvoiceView } from './domain/invoicing/index.js';
import type { MerchantSettings, MerchantView, RotatedSecret } from './domain/merchants/index.js';
import type { Page } from './domain/kernel/index.js';
import type { CallbackPayload, TransactionView } from './domain/transactions/index.js';

const INVOICE_ID = '3f1c9a52-7d4e-4b8a-9c61-2e5f0a7b8d13';
const TRANSACTION_ID = '8b2d4e6f-1a3c-4d5e-8f70-9a1b2c3d4e5f';
const WITHDRAWAL_ID = 'c7e8f9a0-b1c2-4d3e-8f4a-5b6c7d8e9f01';
const MERCHANT_ID = '5a6b7c8d-9e0f-4a1b-8c2d-3e4f5a6b7c8d';
const REPORT_ID = 'e4a1b2c3-d5e6-4f7a-8b9c-0d1e2f3a4b5c';
const ADDRESS = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';
const CREATED_AT = '2025-06-01T10:00:00.000Z';

export const EXAMPLE_IDS = { invoiceId: INVOICE_ID, transactionId: TRANSACTION_ID, reportId: REPORT_ID } as const;

export const createInvoiceExample = { orderId: '1001', customerId: 'cust-42', baseCurrency: 'USDT', invoiceStrategy: 'fixed', amount: 25 };

export const invoiceExample: InvoiceView = {
  id: INVOICE_ID,
  link: `https://pay.example.com/checkout/${INVOICE_ID}`,
  status: 'created',
  amount: '25.000000',
  baseCurrency: 'USDT',
  paymentCurrency: 'USDT',
  paymentAmount: '25.000000',
  exchangeRate: '1',
  paymentMethod: 'crypto',
  directOpen: false,
  customerId: 'cust-42',
  orderId: '1001',
  applicationId: null,
  redirectUrl: null,
  expiresAt: '2025-06-01T10:15:00.000Z',
  createdAt: CREATED_AT,
  paidAmount: '0.000000',
  paymentStatus: 'unpaid',
  transactionIds: [],
  completedAt: null,
  wallet: {
    address: ADDRESS,
    networks: ['ethereum', 'bsc', 'polygon', 'tron'],
    addresses: [
      { network: 'ethereum', address: ADDRESS },
      { network: 'bsc', address: ADDRESS },
      { network: 'polygon', address: ADDRESS },
      { network: 'tron', address: 'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH' },
    ],
  },
};

export const transactionExample: TransactionView = {
  id: TRANSACTION_ID,
  invoiceId: INVOICE_ID,
  type: 'deposit',
  status: 'confirmed',
  amount: '25.000000',
  currency: 'USDT',
  network: 'ethereum',
  transactionHash: '0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060',
  customerId: 'cust-42',
  orderId: '1001',
  applicationId: null,
  hash: 'Z/BLK8SR5JoTSb30tthnHL0zj+CN6Ze6yCGz/x2UT2cpoY/dg9pE3mB3NgtJAdzde9T4jnGDlJiLMqnriLo5Jw==',
  createdAt: '2025-06-01T10:04:12.000Z',
  updatedAt: '2025-06-01T10:04:12.000Z',
  info: {
    exchangeRate: '1',
    referenceAmount: '25.000000',
    referenceCurrency: 'USDT',
    referenceExchangeRate: '1',
    transactionAmount: '25.000000',
    transactionCurrency: 'USDT',
  },
  fees: { processing: '0.500000', technical: null },
  eur: '23.15',
  usd: '25.00',
  senderDetails: { senderIban: '', senderAccountNumber: '', senderSortCode: '' },
};

export const withdrawalExample: TransactionView = {
  ...transactionExample,
  id: WITHDRAWAL_ID,
  invoiceId: null,
  type: 'withdraw',
  status: 'processing',
  amount: '1500.00',
  currency: 'TRY',
  network: null,
  transactionHash: null,
  customerId: 'cust-42',
  orderId: 'payout-77',
  info: { exchangeRate: '1', referenceAmount: '1500.00', referenceCurrency: 'TRY', referenceExchangeRate: '1', transactionAmount: '1500.00', transactionCurrency: 'TRY' },
  fees: { processing: '0.00', technical: null },
  eur: '41.67',
  usd: '45.00',
};

const { createdAt: _created, updatedAt: _updated, senderDetails: _sender, ...callbackFields } = transactionExample;
export const callbackPayloadExample: CallbackPayload = { ...callbackFields, callbackType: 'transaction' };

export const simulateDepositExample = { invoiceId: INVOICE_ID };
export const simulateWithdrawalExample = { transactionId: WITHDRAWAL_ID, status: 'confirmed' };
export const confirmDepositExample = { invoiceId: INVOICE_ID, utr: '123456789012' };
export const createWithdrawalExample = {
  customerId: 'cust-42',
  amount: '1500.00',
  currency: 'TRY',
  orderId: 'payout-77',
  cardHolderName: 'Ayse Yilmaz',
  cardNumber: '4111111111111111',
};

const CURSOR = 'eyJ0YWJsZSI6Imludm9pY2VzIiwiaW5kZXgiOiJieU1lcmNoYW50In0';

const PAGE_QUERY_EXAMPLE = { createdFrom: '2025-06-01T00:00:00Z', createdTo: '2025-06-30T23:59:59Z', limit: 20, cursor: CURSOR };
export const listInvoicesQueryExample = { status: 'completed', orderId: '1001', customerId: 'cust-42', ...PAGE_QUERY_EXAMPLE };
export const listTransactionsQueryExample = { type: 'deposit', status: 'confirmed', invoiceId: INVOICE_ID, orderId: '1001', ...PAGE_QUERY_EXAMPLE };

export const invoicePageExample: Page<InvoiceView> = { items: [invoiceExample], nextCursor: CURSOR };
export const transactionPageExample: Page<TransactionView> = { items: [transactionExample], nextCursor: null };

export const balancesExample: { items: BalanceView[] } = {
  items: [
    { currency: 'TRY', available: '8500.00', reserved: '1500.00' },
    { currency: 'USDT', available: '24.500000', reserved: '0.000000' },
  ],
};

export const listBalanceEntriesQueryExample = { currency: 'USDT', type: 'deposit', transactionId: TRANSACTION_ID, ...PAGE_QUERY_EXAMPLE };

/** The deposit of transactionExample and its fee, posted together. */
export const balanceEntryPageExample: Page<BalanceEntryView> = {
  items: [
    {
      id: '0b8f4a52-3c1e-5d7a-9e26-4f1a8c3b7d90',
      transactionId: TRANSACTION_ID,
      type: 'fee',
      currency: 'USDT',
      amount: '-0.500000',
      availableAfter: '24.500000',
      reservedAfter: '0.000000',
      createdAt: '2025-06-01T10:04:12.000Z',
    },
    {
      id: '5d2c7e19-8a4b-5f3c-a1d6-9e0b2f4c6a83',
      transactionId: TRANSACTION_ID,
      type: 'deposit',
      currency: 'USDT',
      amount: '25.000000',
      availableAfter: '25.000000',
      reservedAfter: '0.000000',
      createdAt: '2025-06-01T10:04:12.000Z',
    },
  ],
  nextCursor: null,
};

export const createReportExample: CreateReportRequest = { type: 'transactions', createdFrom: '2025-06-01T00:00:00Z', createdTo: '2025-07-01T00:00:00Z', currency: 'USDT' };

export const reportAcceptedExample = { id: REPORT_ID, status: 'pending' as const };

export const reportExample: ReportView = {
  id: REPORT_ID,
  type: 'transactions',
  status: 'ready',
  rows: 1284,
  url: `https://reports.example.s3.amazonaws.com/${MERCHANT_ID}/${REPORT_ID}.csv?X-Amz-Expires=900&X-Amz-Signature=…`,
  expiresAt: '2025-07-01T09:15:00.000Z',
};

export const callbackLogExample: CallbackDelivery[] = [
  {
    webhookId: `${TRANSACTION_ID}:confirmed`,
    state: 'delivered',
    attempts: [
      { at: '2025-06-01T10:04:12.300Z', status: 503, latencyMs: 412, error: null },
      { at: '2025-06-01T10:05:12.900Z', status: 200, latencyMs: 187, error: null },
    ],
    pausedUntil: null,
  },
];

export const resendExample = { webhookId: `${TRANSACTION_ID}:confirmed` };

export const invoiceCallbackLogExample: CallbackDelivery[] = [
  { webhookId: `invoice:${INVOICE_ID}:invoice.paid:1`, state: 'delivered', attempts: [{ at: '2025-06-01T10:04:12.500Z', status: 200, latencyMs: 164, error: null }], pausedUntil: null },
];

export const invoiceResendExample = { webhookId: `invoice:${INVOICE_ID}:invoice.paid:1` };

export const invoiceEventExample: InvoiceEventBody = {
  callbackType: 'invoice',
  event: 'invoice.paid',
  invoice: { ...invoiceExample, status: 'completed', paidAmount: invoiceExample.paymentAmount, paymentStatus: 'paid', transactionIds: [TRANSACTION_ID], completedAt: '2025-06-01T10:04:12.000Z' },
};

export const testCallbackExample: TestCallbackResult = {
  webhookId: '00000000-0000-4000-8000-000000000000:test:0d9e8f7a-6b5c-4d3e-8f2a-1b0c9d8e7f6a',
  at: '2025-06-01T11:00:00.000Z',
  status: 200,
  latencyMs: 143,
  error: null,
};

export const merchantExample: MerchantView = {
  merchantId: MERCHANT_ID,
  name: 'Acme',
  callbackUrl: 'https://shop.example/callbacks',
  returnUrl: 'https://shop.example/thanks',
  frameAncestors: ['https://shop.example'],
  onchainDeposits: false,
  invoiceCallbacks: true,
};

export const merchantSettingsExample: MerchantSettings = { callbackUrl: 'https://shop.example/callbacks', frameAncestors: ['https://shop.example'], invoiceCallbacks: true };

export const rotatedSecretExample: RotatedSecret = {
  callbackSecret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw0Dc9zGBSUdQ=',
  previousSecretExpiresAt: '2025-06-02T11:00:00.000Z',
};

/** A shortened first line of each: the documents themselves are long. */
export const providerEventExample = {
  type: 'payment.confirmed',
  reference: INVOICE_ID,
  providerReference: 'pay_8f2k',
  amount: '1500.00',
  currency: 'INR',
  utr: '412345678901',
  senderDetails: { senderIban: '', senderAccountNumber: '123456789012', senderSortCode: '' },
};

export const providerEventReceivedExample = { received: true };

export const openApiDocumentExample = { openapi: '3.0.3', info: { title: 'Payment Gateway Merchant API', version: '2' } };
export const docsPageExample = '<!doctype html>\n<html lang="en">…</html>';
