/**
 * Transactions: the record of money that moved (docs/merchant-guide.md#transactions), its verification
 * hash (docs/merchant-guide.md#the-transaction-hash) and the views a merchant sees in retrieval and in callbacks. Pure.
 */
import { createHash } from 'node:crypto';
import * as z from 'zod';
import {
  CRYPTO_NETWORKS,
  createdRangeInOrder,
  type CryptoNetwork,
  Decimal,
  decimalsOf,
  formatAmount,
  formatRate,
  listedAs,
  PAYMENT_CURRENCIES,
  PRICED_CURRENCIES,
  pageParameters,
} from '../kernel/index.js';
import type { Invoice } from '../invoicing/index.js';
import type { TransactionEvidence } from './evidence.js';

/** `pending_approval`: a crypto payout above the merchant's `payoutApprovalAboveUsd`, until an owner approves or rejects it. */
export const TRANSACTION_STATUSES = ['processing', 'pending_approval', 'confirmed', 'failed'] as const;
export type TransactionStatus = (typeof TRANSACTION_STATUSES)[number];
/** `refund`: money of a confirmed deposit given back to the customer who paid it (decisions on refunds). */
export const TRANSACTION_TYPES = ['deposit', 'withdraw', 'refund'] as const;
export type TransactionType = (typeof TRANSACTION_TYPES)[number];

/** States after which a transaction never changes, and the merchant is called back. */
export const isFinalStatus = (status: TransactionStatus): status is 'confirmed' | 'failed' => status === 'confirmed' || status === 'failed';

const decimalString = z.string().regex(/^\d+(\.\d+)?$/);

export const transactionViewSchema = z.object({
  id: z.uuid(),
  invoiceId: z.uuid().nullable().describe("Null for withdrawals; a refund's is its deposit's"),
  type: z.enum(TRANSACTION_TYPES),
  status: z.enum(TRANSACTION_STATUSES),
  amount: decimalString,
  currency: listedAs(z.string(), PAYMENT_CURRENCIES),
  network: listedAs(z.string().nullable(), [...CRYPTO_NETWORKS, null]).describe('Blockchain network; null for fiat'),
  transactionHash: z.string().nullable().describe('Blockchain transaction hash; null for fiat, and for a crypto payout not yet signed'),
  address: z.string().optional().describe('A crypto payout or refund only: the address it is sent to'),
  refundOf: z.uuid().optional().describe('A refund only: the id of the deposit it gives back'),
  customerId: z.string(),
  orderId: z.string().nullable(),
  applicationId: z.string().nullable(),
  hash: z.string().describe('base64(SHA-512("{id}.{customerId|N/A}.{amount}.{currency}.{callbackSecret}"))'),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
  info: z.object({
    exchangeRate: decimalString,
    referenceAmount: decimalString,
    referenceCurrency: listedAs(z.string(), PRICED_CURRENCIES),
    referenceExchangeRate: decimalString,
    transactionAmount: decimalString,
    transactionCurrency: listedAs(z.string(), PAYMENT_CURRENCIES),
  }),
  fees: z.object({ processing: decimalString, technical: decimalString.nullable() }),
  eur: decimalString,
  usd: decimalString,
  senderDetails: z.object({ senderIban: z.string(), senderAccountNumber: z.string(), senderSortCode: z.string() }),
});

export type TransactionView = z.output<typeof transactionViewSchema>;

/** The stored record: the view's fields (but `hash`, which depends on the merchant's secret) and the owner. */
export interface Transaction extends Omit<TransactionView, 'hash' | 'fees'> {
  merchantId: string;
  /**
   * The view's fees and, on a crypto payout that failed on chain, the network fee its transaction
   * spent all the same, in the payout's currency: kept back from the released reserve. It lives in
   * `fees` because the books check reads a transaction's fees through its index's projection.
   */
  fees: TransactionView['fees'] & { networkSpent?: string };
  /** Where an on-chain deposit was seen: kept to follow it to its confirmations, or out of the chain. */
  chain?: ChainPosition;
  /** A deposit confirmed by UTR: the UTR the merchant gave. */
  utr?: string;
  /** A deposit confirmed by UTR, or a payout: the payment provider that decides it (docs/provider-protocol.md). */
  provider?: TransactionProvider;
  /** What shows the money moved, written with the state change it justifies; absent on records written before receipts. */
  evidence?: TransactionEvidence;
  /**
   * A confirmed deposit that was refunded: what its refunds that are not `failed` hold of it, at
   * its currency's precision. Written with each refund and with each refund's failure, on the
   * condition that it is still what the refund was decided on, so that refunds racing on one
   * deposit never give back more than it brought.
   */
  refundsHeld?: string;
  /** A payout or refund that waited for approval: the dashboard user who approved or rejected it. */
  decidedBy?: string;
  /**
   * Every balance entry of its current state is written (balances.ts): true of every transaction
   * recorded since the books exist; one recorded before lacks it until its next state change or
   * the admin CLI's rebuild books it.
   */
  booked?: true;
}

export interface TransactionProvider {
  id: string;
  /** The provider's reference: of the invoice's payment for a UTR deposit, of the payout for a withdrawal, of the refund for a refund (once it answered). */
  reference?: string;
  /** When the provider took the UTR or the payout request; until then the reconciliation sends it again. */
  requestedAt?: string;
  /** A refund: the provider's reference of the payment it gives back. */
  paymentReference?: string;
}

export interface ChainPosition {
  blockNumber: number;
  blockHash: string;
  /** The token transfer's log index; null for a native transfer. */
  logIndex: number | null;
}

/** What a callback announces: a transaction's state, or a sample sent on the merchant's request. */
export const CALLBACK_TYPES = ['transaction', 'test'] as const;

/** The callback body: the transaction without the retrieval-only fields. */
export const callbackPayloadSchema = transactionViewSchema
  .omit({ createdAt: true, updatedAt: true, senderDetails: true })
  .extend({ callbackType: z.enum(CALLBACK_TYPES).describe('`test` for a sample sent by POST /api/v2/webhooks/test') });

export type CallbackPayload = z.output<typeof callbackPayloadSchema>;

/** What a callback announces, fixed when the state is written; `hash` is added when it is signed. */
export type CallbackFields = Omit<CallbackPayload, 'hash'>;

/** docs/merchant-guide.md#the-transaction-hash: the value existing merchant integrations verify. */
export function transactionHash(transaction: Pick<Transaction, 'id' | 'customerId' | 'amount' | 'currency'>, callbackSecret: string): string {
  const customerId = transaction.customerId === '' ? 'N/A' : transaction.customerId;
  const message = `${transaction.id}.${customerId}.${transaction.amount}.${transaction.currency}.${callbackSecret}`;
  return createHash('sha512').update(message, 'utf8').digest('base64');
}

const VIEW_FIELDS = Object.keys(transactionViewSchema.shape) as (keyof TransactionView)[];
const RETRIEVAL_ONLY: ReadonlySet<keyof TransactionView> = new Set(['createdAt', 'updatedAt', 'senderDetails']);
const CALLBACK_FIELDS = VIEW_FIELDS.filter((field) => field !== 'hash' && !RETRIEVAL_ONLY.has(field)) as (keyof CallbackFields)[];

/** A record's field as the merchant sees it: its fees without what only the books need. */
const shown = (transaction: Transaction, field: keyof TransactionView | keyof CallbackFields) =>
  field === 'fees' ? { processing: transaction.fees.processing, technical: transaction.fees.technical } : transaction[field as keyof Transaction];

/** Exactly the fields of docs/merchant-guide.md#transactions, in its order; whatever else the record holds stays inside. */
export function transactionView(transaction: Transaction, callbackSecret: string): TransactionView {
  const hash = transactionHash(transaction, callbackSecret);
  return Object.fromEntries(VIEW_FIELDS.map((field) => [field, field === 'hash' ? hash : shown(transaction, field)])) as TransactionView;
}

export function callbackFields(transaction: Transaction, callbackType: CallbackFields['callbackType'] = 'transaction'): CallbackFields {
  return { ...Object.fromEntries(CALLBACK_FIELDS.map((field) => [field, shown(transaction, field)])), callbackType } as CallbackFields;
}

/** The callback body as sent: the fields in the merchant guide's order with the record's `hash`. */
export function callbackPayload(fields: CallbackFields, callbackSecret: string): CallbackPayload {
  const hash = transactionHash(fields, callbackSecret);
  const ordered = VIEW_FIELDS.filter((field) => !RETRIEVAL_ONLY.has(field)).map((field) => [field, field === 'hash' ? hash : fields[field as keyof CallbackFields]]);
  return { ...Object.fromEntries(ordered), callbackType: fields.callbackType } as CallbackPayload;
}

/** Processing fee: the merchant's percentage of the amount, half-up at the currency's precision. */
export function processingFee(amount: Decimal, currency: string, feePercent: string): string {
  return formatAmount(amount.mul(feePercent).div(100), decimalsOf(currency));
}

export interface DepositDetails {
  id: string;
  amount: Decimal;
  currency: string;
  status: TransactionStatus;
  network: CryptoNetwork | null;
  transactionHash: string | null;
  senderDetails?: Partial<TransactionView['senderDetails']>;
  chain?: ChainPosition;
  evidence?: TransactionEvidence;
  /** Rates of a deposit in another currency than the invoice's, at the time it arrived. */
  valuation?: DepositValuation;
  now: Date;
}

/** Units of the deposit's currency per unit of the invoice's base currency, and its USD and EUR value. */
export type DepositValuation = Pick<Invoice, 'exchangeRate' | 'usdRate' | 'eurRate'>;

/** A deposit into an invoice, valued at the invoice's fixed rates (or, in another currency, at its own). */
export function depositTransaction(invoice: Invoice, deposit: DepositDetails, feePercent: string): Transaction {
  const decimals = decimalsOf(deposit.currency);
  const valuation = deposit.valuation ?? invoice;
  const rate = new Decimal(valuation.exchangeRate);
  const at = deposit.now.toISOString();
  return {
    id: deposit.id,
    merchantId: invoice.merchantId,
    invoiceId: invoice.id,
    type: 'deposit',
    status: deposit.status,
    amount: formatAmount(deposit.amount, decimals),
    currency: deposit.currency,
    network: deposit.network,
    transactionHash: deposit.transactionHash,
    customerId: invoice.customerId,
    orderId: invoice.orderId,
    applicationId: invoice.applicationId,
    createdAt: at,
    updatedAt: at,
    info: {
      exchangeRate: valuation.exchangeRate,
      referenceAmount: formatAmount(deposit.amount.div(rate), decimalsOf(invoice.baseCurrency)),
      referenceCurrency: invoice.baseCurrency,
      referenceExchangeRate: formatRate(new Decimal(1).div(rate)),
      transactionAmount: formatAmount(deposit.amount, decimals),
      transactionCurrency: deposit.currency,
    },
    fees: { processing: processingFee(deposit.amount, deposit.currency, feePercent), technical: null },
    usd: formatAmount(deposit.amount.mul(valuation.usdRate), 2),
    eur: formatAmount(deposit.amount.mul(valuation.eurRate), 2),
    senderDetails: { senderIban: '', senderAccountNumber: '', senderSortCode: '', ...deposit.senderDetails },
    ...(deposit.chain ? { chain: deposit.chain } : {}),
    ...(deposit.evidence ? { evidence: deposit.evidence } : {}),
    booked: true,
  };
}

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** `GET /api/v2/transactions` (docs/merchant-guide.md#listings-and-pagination): the filters, each served by an index of its own. */
export const listTransactionsQuerySchema = z
  .strictObject({
    type: z.enum(TRANSACTION_TYPES).optional().describe('Only deposits, or only withdrawals'),
    status: z.enum(TRANSACTION_STATUSES).optional().describe('Only transactions in this status'),
    invoiceId: z.string().toLowerCase().regex(UUID_PATTERN, 'invoiceId must be an invoice id (a UUID)').optional().describe('The deposits of this invoice'),
    orderId: z.string().trim().min(1).max(128).optional().describe("The deposits of this order's invoice and the withdrawal of this orderId"),
    ...pageParameters,
  })
  .refine(...createdRangeInOrder);

export type ListTransactionsQuery = z.output<typeof listTransactionsQuerySchema>;
export type TransactionFilters = Pick<ListTransactionsQuery, 'type' | 'status' | 'invoiceId' | 'orderId'>;
