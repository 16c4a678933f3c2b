/**
 * Transactions in DynamoDB. Every write that moves money is one transaction with the invoice
 * change it causes (conditional on the invoice state it was decided on), the balance entries it
 * brings (balances.ts), what it adds to the merchant's day totals (daily-totals.ts) and the
 * callback it owes.
 */
import { GetCommand, paginateQuery, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type BalancePosting, type CheckedTransaction, countsOfLedgerWrite, type RecordPosition, type ReportRange } from '../domain/ledger/index.js';
import type { CallbackEntry } from '../domain/callbacks/index.js';
import { type CommitResult, CRYPTO_NETWORKS, type Listing, listingFilters, type Page } from '../domain/kernel/index.js';
import type { QueuedPayout, QueuedPayouts } from '../domain/payouts/index.js';
import type { InvoiceUpdate } from '../domain/invoicing/index.js';
import type { Ledger, PayoutRecords, PersonsDecision, RefundHold, TreasuryNonce, UniqueClaim } from '../domain/payments/index.js';
import { auditPut, codeUseUpdate } from './audit-log.js';
import {
  type CryptoPayoutTransaction,
  followedOnChain,
  isCryptoPayout,
  type Transaction,
  type TransactionFilters,
  type TransactionProvider,
  type TransactionStatus,
} from '../domain/transactions/index.js';
import { changedBetween, changeShardOf, commitTransaction, createdRangeQuery, isConditionFailure, queryItems, queryPartition, type TransactItem } from './dynamo.js';
import { invoiceStatusKey } from './invoices.js';
import { outboxPut } from './outbox.js';
import { postingWrites, type BalanceTables } from './balances.js';
import { dailyTotalWrites } from './daily-totals.js';
import { IndexPager, type IndexQuery } from './pages.js';

export interface TransactionTables extends BalanceTables {
  transactions: string;
  /** The chain watchers' state, which also keeps each network's EVM treasury nonce (`treasury#{network}`). */
  chain: string;
  /** Where a person's decision on a transaction (a payout's approval) is logged, and the user whose code confirmed it. */
  auditLog: string;
  dashboardUsers: string;
  invoices: string;
  outbox: string;
  uniques: string;
  dailyTotals: string;
}

const treasuryNonceId = (network: string): string => `treasury#${network}`;

/** Keys of the merchant's listing indexes: JSON [merchantId, value]. */
const merchantKey = (merchantId: string, value: string): string => JSON.stringify([merchantId, value]);

/**
 * The record with the keys of the indexes it belongs to, derived anew with every version written.
 * `invoiceId` keys the byInvoice index, which takes no null: a withdrawal (no invoice) is stored
 * without the attribute, and so stays out of the index; likewise a transaction without an orderId
 * stays out of byOrder. An on-chain deposit short of its confirmations, or a crypto payout being
 * sent, carries its network in `pendingChain`, for the pendingOnChain index; a transaction a provider decides, its provider in
 * `awaitingProvider` while it is processing, for the reconciliation's index of that name. Every
 * version carries its `changeShard`, for the books check's `changes` index.
 * Exported for bulk loads (the reports bench and tests).
 */
export function transactionItem(transaction: Transaction): Record<string, unknown> {
  const { invoiceId, ...rest } = transaction;
  const pending = followedOnChain(transaction) ? { pendingChain: transaction.network } : {};
  const awaiting = transaction.provider && transaction.status === 'processing' ? { awaitingProvider: transaction.provider.id } : {};
  return {
    ...(invoiceId === null ? rest : transaction),
    ...pending,
    ...awaiting,
    merchantStatus: merchantKey(transaction.merchantId, transaction.status),
    merchantType: merchantKey(transaction.merchantId, transaction.type),
    ...(transaction.orderId === null ? {} : { orderKey: merchantKey(transaction.merchantId, transaction.orderId) }),
    changeShard: changeShardOf(transaction.id),
  };
}

function fromItem(item: Record<string, unknown>): Transaction {
  const { pendingChain: _pending, awaitingProvider: _awaiting, merchantStatus: _status, merchantType: _type, orderKey: _order, changeShard: _shard, ...transaction } = item;
  return { ...transaction, invoiceId: (item.invoiceId as string | undefined) ?? null } as Transaction;
}

export class DynamoTransactionStore implements Ledger, PayoutRecords, QueuedPayouts {
  private readonly pager: IndexPager;

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tables: TransactionTables,
  ) {
    this.pager = new IndexPager(client);
  }

  async get(id: string): Promise<Transaction | undefined> {
    const { Item } = await this.client.send(new GetCommand({ TableName: this.tables.transactions, Key: { id }, ConsistentRead: true }));
    return Item ? fromItem(Item) : undefined;
  }

  async listByInvoice(invoiceId: string): Promise<Transaction[]> {
    const items = await queryPartition(this.client, this.tables.transactions, 'byInvoice', 'invoiceId', invoiceId);
    return items.map(fromItem);
  }

  /**
   * A page of the merchant's transactions, newest first, from the index that serves the most
   * selective filter; the other filters are checked on the entries it reads.
   */
  async list(merchantId: string, listing: Listing<TransactionFilters>): Promise<Page<Transaction>> {
    const { type, status, invoiceId, orderId } = listing.filters;
    const where = (filters: Record<string, string | undefined>) => Object.fromEntries(Object.entries(filters).filter((entry): entry is [string, string] => entry[1] !== undefined));
    const range = { table: 'transactions', tableName: this.tables.transactions, from: listing.createdFrom, to: listing.createdTo } as const;
    let query: IndexQuery;
    if (orderId !== undefined) {
      query = { ...range, index: 'byOrder', partition: merchantKey(merchantId, orderId), where: where({ type, status, invoiceId }) };
    } else if (invoiceId !== undefined) {
      // The byInvoice index is not the merchant's alone: another merchant's invoice lists as an
      // unknown one, before a page or a cursor could tell anything of its transactions.
      if (!(await this.ownsInvoice(merchantId, invoiceId))) return { items: [], nextCursor: null };
      query = { ...range, index: 'byInvoice', partition: invoiceId, where: where({ type, status }) };
    } else if (status !== undefined) {
      query = { ...range, index: 'byMerchantStatus', partition: merchantKey(merchantId, status), where: where({ type }) };
    } else if (type !== undefined) {
      query = { ...range, index: 'byMerchantType', partition: merchantKey(merchantId, type) };
    } else {
      query = { ...range, index: 'byMerchant', partition: merchantId };
    }
    const page = await this.pager.page(query, listingFilters(listing), listing.limit, listing.cursor);
    return { items: page.items.map(fromItem), nextCursor: page.nextCursor };
  }

  /**
   * The payout with its new signed transaction, if it is still processing with `attempts` of them,
   * and with an EVM nonce the treasury's next one, if it is still the one the nonce was decided on.
   */
  async recordAttempt(next: CryptoPayoutTransaction, attempts: number, nonce?: TreasuryNonce): Promise<boolean> {
    const nonceWrite: TransactItem[] = nonce
      ? [
          {
            Put: {
              TableName: this.tables.chain,
              Item: { id: treasuryNonceId(nonce.network), nextNonce: nonce.used + 1, updatedAt: next.updatedAt },
              ...(nonce.expected === undefined
                ? { ConditionExpression: 'attribute_not_exists(id)' }
                : { ConditionExpression: 'nextNonce = :expected', ExpressionAttributeValues: { ':expected': nonce.expected } }),
            },
          },
        ]
      : [];
    const result = await commitTransaction(this.client, [
      {
        Put: {
          TableName: this.tables.transactions,
          Item: transactionItem(next),
          ConditionExpression: '#status = :processing AND size(#payout.#attempts) = :attempts',
          ExpressionAttributeNames: { '#status': 'status', '#payout': 'payout', '#attempts': 'attempts' },
          ExpressionAttributeValues: { ':processing': 'processing', ':attempts': attempts },
        },
      },
      ...nonceWrite,
    ]);
    return result === 'committed';
  }

  /** The crypto payouts waiting to be sent, nothing signed for them yet: what they take of the treasury (the admin CLI's `treasury`). */
  async queued(): Promise<QueuedPayout[]> {
    const followed = await Promise.all(CRYPTO_NETWORKS.map((network) => this.pendingOnChain(network)));
    return followed
      .flat()
      .filter(isCryptoPayout)
      .filter((payout) => payout.payout.attempts.length === 0)
      .map(({ network, currency, amount }) => ({ network, currency, amount }));
  }

  /** The EVM treasury's next nonce on the network, as the payout sender stored it. */
  async treasuryNonce(network: string): Promise<number | undefined> {
    const { Item } = await this.client.send(new GetCommand({ TableName: this.tables.chain, Key: { id: treasuryNonceId(network) }, ConsistentRead: true }));
    return Item ? Number(Item.nextNonce) : undefined;
  }

  /** On-chain deposits on `network` still short of their confirmations, and crypto payouts being sent, oldest first. */
  async pendingOnChain(network: string): Promise<Transaction[]> {
    const items = await queryPartition(this.client, this.tables.transactions, 'pendingOnChain', 'pendingChain', network);
    return items.map(fromItem);
  }

  /** Transactions still processing at `providerId`, oldest first. */
  async awaitingProvider(providerId: string): Promise<Transaction[]> {
    const items = await queryPartition(this.client, this.tables.transactions, 'awaitingProvider', 'awaitingProvider', providerId);
    return items.map(fromItem);
  }

  /** What the provider took of a processing transaction's request (its reference, when); a settled one keeps its record as it was. */
  async recordProviderRequest(transactionId: string, provider: TransactionProvider): Promise<void> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tables.transactions,
          Key: { id: transactionId },
          UpdateExpression: 'SET provider = :provider',
          ConditionExpression: '#status = :processing AND provider.id = :id',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':provider': provider, ':processing': 'processing', ':id': provider.id },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }

  /** Whether the invoice exists and is the merchant's (read consistently: it may be seconds old). */
  private async ownsInvoice(merchantId: string, invoiceId: string): Promise<boolean> {
    const { Item } = await this.client.send(new GetCommand({ TableName: this.tables.invoices, Key: { id: invoiceId }, ProjectionExpression: 'merchantId', ConsistentRead: true }));
    return Item?.merchantId === merchantId;
  }

  async getClaim(id: string): Promise<UniqueClaim | undefined> {
    const { Item } = await this.client.send(new GetCommand({ TableName: this.tables.uniques, Key: { id }, ConsistentRead: true }));
    return Item ? { id, owner: Item.owner as Record<string, string> } : undefined;
  }

  /**
   * A new transaction with the invoice change it brings, its balance entries and what they count
   * towards the day totals, its callbacks (its own when it is final, an invoice event), and the
   * claims it takes; asked for by a person with a fresh code, its audit entry and the code's use.
   */
  async insert(
    transaction: Transaction,
    options: { invoice?: InvoiceUpdate; posting?: BalancePosting; callbacks?: CallbackEntry[]; claims?: UniqueClaim[]; decision?: PersonsDecision; refundHold?: RefundHold } = {},
  ): Promise<CommitResult> {
    const { decision } = options;
    return commitTransaction(this.client, [
      { Put: { TableName: this.tables.transactions, Item: transactionItem(transaction), ConditionExpression: 'attribute_not_exists(id)' } },
      ...(options.invoice ? [this.invoiceWrite(options.invoice, transaction)] : []),
      ...(options.posting ? postingWrites(this.tables, options.posting) : []),
      ...dailyTotalWrites(this.tables.dailyTotals, countsOfLedgerWrite(transaction, options.posting, options.invoice)),
      ...(options.callbacks ?? []).map((callback) => outboxPut(this.tables.outbox, callback)),
      ...(options.claims ?? []).map((claim) => ({
        Put: {
          TableName: this.tables.uniques,
          Item: { id: claim.id, owner: claim.owner, createdAt: transaction.createdAt },
          ConditionExpression: 'attribute_not_exists(id)',
        },
      })),
      ...(decision ? [auditPut(this.tables.auditLog, decision.entry), codeUseUpdate(this.tables.dashboardUsers, decision.code, transaction.merchantId)] : []),
      ...(options.refundHold ? [this.refundHoldWrite(options.refundHold)] : []),
    ]);
  }

  /** Moves a transaction from `from` to its new state (already applied to `next`), with the invoice change, balance entries and their day totals, and callbacks. */
  async transition(
    next: Transaction,
    from: TransactionStatus,
    options: { invoice?: InvoiceUpdate; posting?: BalancePosting; callbacks?: CallbackEntry[]; releaseClaims?: string[]; decision?: PersonsDecision; refundHold?: RefundHold } = {},
  ): Promise<CommitResult> {
    const { decision } = options;
    return commitTransaction(this.client, [
      {
        Put: {
          TableName: this.tables.transactions,
          Item: transactionItem(next),
          ConditionExpression: '#status = :from',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':from': from },
        },
      },
      ...(options.invoice ? [this.invoiceWrite(options.invoice, next)] : []),
      ...(options.posting ? postingWrites(this.tables, options.posting) : []),
      ...dailyTotalWrites(this.tables.dailyTotals, countsOfLedgerWrite(next, options.posting, options.invoice)),
      ...(options.callbacks ?? []).map((callback) => outboxPut(this.tables.outbox, callback)),
      ...(options.releaseClaims ?? []).map((id) => ({ Delete: { TableName: this.tables.uniques, Key: { id } } })),
      ...(decision ? [auditPut(this.tables.auditLog, decision.entry), codeUseUpdate(this.tables.dashboardUsers, decision.code, next.merchantId)] : []),
      ...(options.refundHold ? [this.refundHoldWrite(options.refundHold)] : []),
    ]);
  }

  /**
   * The deposit's refunds held, set to what the refund makes them, if the deposit is still
   * confirmed and holds what the refund was decided on. Its `updatedAt` stays: the books check's
   * `changes` index follows money, and the deposit's own entries do not change.
   */
  private refundHoldWrite({ depositId, expected, next }: RefundHold): TransactItem {
    return {
      Update: {
        TableName: this.tables.transactions,
        Key: { id: depositId },
        UpdateExpression: 'SET refundsHeld = :next',
        ConditionExpression: `#status = :confirmed AND #type = :deposit AND ${expected === undefined ? 'attribute_not_exists(refundsHeld)' : 'refundsHeld = :expected'}`,
        ExpressionAttributeNames: { '#status': 'status', '#type': 'type' },
        ExpressionAttributeValues: { ':next': next, ':confirmed': 'confirmed', ':deposit': 'deposit', ...(expected === undefined ? {} : { ':expected': expected }) },
      },
    };
  }

  /**
   * Books a transaction recorded before the books existed: its entries (`posting`), written with
   * the mark that they are, only if it is still in the state they were computed from and unbooked.
   * It counts nothing towards the day totals: a deposit booked so was confirmed before the books,
   * and so before the totals, existed; its day is counted by the recount of the merchant's totals
   * (DailyTotalsRecount), which sets them instead of adding, so neither counts it twice.
   */
  async book(transaction: Transaction, posting: BalancePosting): Promise<CommitResult> {
    return commitTransaction(this.client, [
      {
        Update: {
          TableName: this.tables.transactions,
          Key: { id: transaction.id },
          UpdateExpression: 'SET booked = :booked',
          ConditionExpression: '#status = :status AND attribute_not_exists(booked)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':booked': true, ':status': transaction.status },
        },
      },
      ...postingWrites(this.tables, posting),
    ]);
  }

  /** Every transaction of the merchant, oldest first. */
  async *allOf(merchantId: string): AsyncIterable<Transaction> {
    for await (const page of this.ofMerchant(merchantId, null)) yield* page;
  }

  /** The merchant's transactions after `after` (all of them from null), oldest first, a page at a time. */
  async *ofMerchant(merchantId: string, after: RecordPosition | null): AsyncIterable<Transaction[]> {
    const pages = paginateQuery(
      { client: this.client },
      {
        TableName: this.tables.transactions,
        IndexName: 'byMerchant',
        KeyConditionExpression: 'merchantId = :merchant',
        ExpressionAttributeValues: { ':merchant': merchantId },
        ...(after ? { ExclusiveStartKey: { id: after.id, merchantId, createdAt: after.createdAt } } : {}),
      },
    );
    for await (const page of pages) yield (page.Items ?? []).map(fromItem);
  }

  /** The transactions changed from `from` to `to`, as the `changes` index holds them: what their states call for in the books. */
  async *changedBetween(from: string, to: string): AsyncIterable<CheckedTransaction[]> {
    for await (const items of changedBetween(this.client, this.tables.transactions, from, to)) {
      yield items.map(({ id, merchantId, type, status, amount, fees }) => ({ id, merchantId, type, status, amount, fees }) as CheckedTransaction);
    }
  }

  /** The merchant's transactions created in the range, oldest first, after `after` when given, read a page at a time (a report's rows). */
  async *createdBetween({ merchantId, createdFrom, createdTo, currency }: ReportRange, after: RecordPosition | null = null): AsyncIterable<Transaction> {
    const query = createdRangeQuery(this.tables.transactions, 'byMerchant', { attribute: 'merchantId', value: merchantId }, createdFrom, createdTo, currency ? { currency } : {});
    if (after) query.ExclusiveStartKey = { id: after.id, merchantId, createdAt: after.createdAt };
    for await (const item of queryItems(this.client, query)) yield fromItem(item);
  }

  /**
   * The invoice's part of the write: its new fields, conditional on the status, amount paid and
   * number of transactions the decision was made on. Invoices written before payments were
   * counted lack the last two until their first deposit, which the condition allows for. A deposit
   * is on its own merchant's invoice, so a new status takes the status index key of that merchant.
   */
  private invoiceWrite({ id, expected, set, appendTransactionId, settlesProviderPayment }: InvoiceUpdate, { updatedAt: at, merchantId }: Transaction): TransactItem {
    const fields = Object.entries(set).filter(([, value]) => value !== undefined);
    const names: Record<string, string> = { '#status': 'status' };
    const values: Record<string, unknown> = { ':expectedStatus': expected.status, ':expectedPaid': expected.paidAmount, ':expectedCount': expected.transactionCount };
    const condition = [
      '#status = :expectedStatus',
      '(paidAmount = :expectedPaid OR attribute_not_exists(paidAmount))',
      '(size(transactionIds) = :expectedCount OR attribute_not_exists(transactionIds))',
      // Absent until the first refund is confirmed: the one that writes it first wins.
      ...(expected.refundedAmount === undefined ? [] : ['(refundedAmount = :expectedRefunded OR attribute_not_exists(refundedAmount))']),
    ].join(' AND ');
    if (expected.refundedAmount !== undefined) values[':expectedRefunded'] = expected.refundedAmount;
    if (fields.length === 0 && !appendTransactionId && !settlesProviderPayment) {
      return { ConditionCheck: { TableName: this.tables.invoices, Key: { id }, ConditionExpression: condition, ExpressionAttributeNames: names, ExpressionAttributeValues: values } };
    }
    const assignments = fields.map(([name, value], i) => {
      names[`#f${i}`] = name;
      values[`:v${i}`] = value;
      return `#f${i} = :v${i}`;
    });
    assignments.push('updatedAt = :at');
    values[':at'] = at;
    if (set.status !== undefined) {
      assignments.push('merchantStatus = :statusKey');
      values[':statusKey'] = invoiceStatusKey(merchantId, set.status);
    }
    if (appendTransactionId) {
      assignments.push('transactionIds = list_append(if_not_exists(transactionIds, :none), :appended)');
      values[':none'] = [];
      values[':appended'] = [appendTransactionId];
    }
    // Leaving the open states also leaves the expiry index; a decided provider payment, the reconciliation's.
    const removed = [...(set.status === 'completed' || set.status === 'canceled' ? ['expiryShard'] : []), ...(settlesProviderPayment ? ['awaitingProvider'] : [])];
    return {
      Update: {
        TableName: this.tables.invoices,
        Key: { id },
        UpdateExpression: `SET ${assignments.join(', ')}${removed.length > 0 ? ` REMOVE ${removed.join(', ')}` : ''}`,
        ConditionExpression: condition,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      },
    };
  }
}
