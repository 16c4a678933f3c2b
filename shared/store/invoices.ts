/** Invoices in DynamoDB, with their per-merchant orderId claims, the sparse expiry index, and their count in the merchant's day totals. */
import { GetCommand, paginateQuery, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  type CreateOutcome,
  type CustomerDetails,
  type DueInvoice,
  type ExpiringInvoices,
  type ExpiryAnnouncement,
  type Invoice,
  type InvoiceFilters,
  type InvoiceRepository,
  type InvoiceStatus,
  noPayments,
} from '../domain/invoicing/index.js';
import type { ProviderPayment } from '../domain/providers/index.js';
import type { CheckoutInvoices } from '../domain/payments/index.js';
import { countOfNewInvoice } from '../domain/ledger/index.js';
import { Conflict, Invalid, type Listing, listingFilters, optimisticAttempts, type Page } from '../domain/kernel/index.js';
import { commitTransaction, isConditionFailure, isTransactionConflict, queryAll, queryPartition, shardOf } from './dynamo.js';
import { dailyTotalWrites } from './daily-totals.js';
import { outboxPut } from './outbox.js';
import { IndexPager, type IndexQuery } from './pages.js';
import { orderClaimId } from '../domain/chains/index.js';

/**
 * Open invoices spread over this many index partitions, so no single partition takes every write;
 * the sweep reads each one.
 */
export const EXPIRY_SHARDS = 8;

export function expiryShardOf(invoiceId: string): string {
  return `open#${shardOf(invoiceId, EXPIRY_SHARDS)}`;
}

/** Key of the `byCustomer` index: a customer's invoices. */
export const customerKeyOf = (merchantId: string, customerId: string): string => JSON.stringify([merchantId, customerId]);

/** Key of the `byMerchantStatus` index: rewritten by every write that moves an invoice's status. */
export const invoiceStatusKey = (merchantId: string, status: InvoiceStatus): string => JSON.stringify([merchantId, status]);

/** The item of a new invoice: the record and the keys of the indexes it belongs to. */
const newInvoiceItem = (invoice: Invoice) => ({
  ...invoice,
  expiryShard: expiryShardOf(invoice.id),
  merchantStatus: invoiceStatusKey(invoice.merchantId, invoice.status),
  customerKey: customerKeyOf(invoice.merchantId, invoice.customerId),
});

/**
 * Strips storage-only attributes from an item read back. An invoice stored before payments were
 * counted reads as unpaid, or as paid in full once completed.
 */
function toInvoice(item: Record<string, unknown>): Invoice {
  const { expiryShard: _shard, merchantStatus: _status, customerKey: _customer, awaitingProvider: _awaiting, ...stored } = item;
  const invoice = stored as unknown as Invoice;
  if (invoice.paidAmount !== undefined) return invoice;
  const completed = invoice.status === 'completed';
  const paid = completed ? invoice.paymentAmount : noPayments(invoice.paymentCurrency).paidAmount;
  return { ...invoice, paidAmount: paid, paymentStatus: completed ? 'paid' : 'unpaid', transactionIds: [], completedAt: completed ? invoice.updatedAt : null };
}

/** An orderId claimed by a request with another body is a 409 (docs/merchant-guide.md#creating-an-invoice). */
function refuseOtherRequest(claim: Record<string, unknown>, requestHash: string): void {
  if (claim.requestHash !== requestHash) throw new Conflict('An invoice with this orderId already exists with different details');
}

export class DynamoInvoiceStore implements InvoiceRepository, ExpiringInvoices, CheckoutInvoices {
  private readonly pager: IndexPager;

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tables: { invoices: string; uniques: string; dailyTotals: string; outbox?: string },
  ) {
    this.pager = new IndexPager(client);
  }

  /** The invoice with its orderId's claim and its count on the day it is created, together or not at all. */
  async create(invoice: Invoice): Promise<CreateOutcome> {
    const claimId = orderClaimId(invoice.merchantId, invoice.orderId);
    let lost: unknown;
    for await (const _attempt of optimisticAttempts()) {
      try {
        await this.client.send(
          new TransactWriteCommand({
            TransactItems: [
              {
                Put: {
                  TableName: this.tables.uniques,
                  Item: { id: claimId, kind: 'order', invoiceId: invoice.id, requestHash: invoice.requestHash, createdAt: invoice.createdAt },
                  ConditionExpression: 'attribute_not_exists(id)',
                },
              },
              {
                Put: {
                  TableName: this.tables.invoices,
                  Item: newInvoiceItem(invoice),
                  ConditionExpression: 'attribute_not_exists(id)',
                },
              },
              ...dailyTotalWrites(this.tables.dailyTotals, [countOfNewInvoice(invoice)]),
            ],
          }),
        );
        return { invoice, created: true };
      } catch (error) {
        if (isTransactionConflict(error)) {
          lost = error;
          continue;
        }
        if (!isConditionFailure(error)) throw error;
        return { invoice: await this.existingForOrder(claimId, invoice.requestHash), created: false };
      }
    }
    throw lost;
  }

  async refuseTakenOrder(invoice: Invoice): Promise<void> {
    const claim = await this.orderClaim(orderClaimId(invoice.merchantId, invoice.orderId));
    if (claim) refuseOtherRequest(claim, invoice.requestHash);
  }

  private async orderClaim(claimId: string): Promise<Record<string, unknown> | undefined> {
    const { Item } = await this.client.send(new GetCommand({ TableName: this.tables.uniques, Key: { id: claimId }, ConsistentRead: true }));
    return Item;
  }

  private async existingForOrder(claimId: string, requestHash: string): Promise<Invoice> {
    const claim = await this.orderClaim(claimId);
    if (!claim) throw new Error(`Order claim ${claimId} vanished after a failed condition`);
    refuseOtherRequest(claim, requestHash);
    const existing = await this.get(claim.invoiceId as string);
    if (!existing) throw new Error(`Invoice ${String(claim.invoiceId)} of an order claim is missing`);
    return existing;
  }

  async get(id: string): Promise<Invoice | undefined> {
    const { Item } = await this.client.send(new GetCommand({ TableName: this.tables.invoices, Key: { id }, ConsistentRead: true }));
    return Item ? toInvoice(Item) : undefined;
  }

  /** The merchant's invoice for `orderId`, found through the order's uniqueness claim. */
  private async findByOrder(merchantId: string, orderId: string): Promise<Invoice | undefined> {
    const { Item: claim } = await this.client.send(new GetCommand({ TableName: this.tables.uniques, Key: { id: orderClaimId(merchantId, orderId) }, ConsistentRead: true }));
    return claim ? this.get(claim.invoiceId as string) : undefined;
  }

  /**
   * A page of the merchant's invoices, newest first, from the index that serves the most selective
   * filter; an orderId names at most one invoice, read by key.
   */
  async list(merchantId: string, listing: Listing<InvoiceFilters>): Promise<Page<Invoice>> {
    const { status, orderId, customerId } = listing.filters;
    if (orderId !== undefined) {
      // One invoice at most: there is never a next page to continue.
      if (listing.cursor !== undefined) throw Invalid.of('cursor', 'cursor does not continue this listing: an orderId names one invoice, on one page');
      const invoice = await this.findByOrder(merchantId, orderId);
      const matches =
        invoice !== undefined &&
        (status === undefined || invoice.status === status) &&
        (customerId === undefined || invoice.customerId === customerId) &&
        (listing.createdFrom === undefined || invoice.createdAt >= listing.createdFrom) &&
        (listing.createdTo === undefined || invoice.createdAt <= listing.createdTo);
      return { items: matches ? [invoice] : [], nextCursor: null };
    }
    const range = { table: 'invoices', tableName: this.tables.invoices, from: listing.createdFrom, to: listing.createdTo } as const;
    let query: IndexQuery;
    if (customerId !== undefined) {
      query = { ...range, index: 'byCustomer', partition: customerKeyOf(merchantId, customerId), where: status === undefined ? {} : { status } };
    } else if (status !== undefined) {
      query = { ...range, index: 'byMerchantStatus', partition: invoiceStatusKey(merchantId, status) };
    } else {
      query = { ...range, index: 'byMerchant', partition: merchantId };
    }
    const page = await this.pager.page(query, listingFilters(listing), listing.limit, listing.cursor);
    return { items: page.items.map(toInvoice), nextCursor: page.nextCursor };
  }

  /**
   * The customer's invoices, newest first, page by page as the caller reads on: `since` bounds
   * how far back, `paymentCurrency` keeps to one asset.
   */
  async *customerInvoices(merchantId: string, customerId: string, options: { since?: string; paymentCurrency?: string } = {}): AsyncGenerator<Invoice> {
    const pages = paginateQuery(
      { client: this.client },
      {
        TableName: this.tables.invoices,
        IndexName: 'byCustomer',
        KeyConditionExpression: options.since ? 'customerKey = :customer AND createdAt >= :since' : 'customerKey = :customer',
        ...(options.paymentCurrency ? { FilterExpression: 'paymentCurrency = :currency' } : {}),
        ExpressionAttributeValues: {
          ':customer': customerKeyOf(merchantId, customerId),
          ...(options.since ? { ':since': options.since } : {}),
          ...(options.paymentCurrency ? { ':currency': options.paymentCurrency } : {}),
        },
        ScanIndexForward: false,
      },
    );
    for await (const page of pages) for (const item of page.Items ?? []) yield toInvoice(item);
  }

  async listDue(now: Date): Promise<DueInvoice[]> {
    const shards = Array.from({ length: EXPIRY_SHARDS }, (_, n) => `open#${n}`);
    const pages = await Promise.all(shards.map((shard) => this.dueInShard(shard, now.toISOString())));
    return pages.flat();
  }

  private async dueInShard(shard: string, nowIso: string): Promise<DueInvoice[]> {
    const items = await queryAll(this.client, {
      TableName: this.tables.invoices,
      IndexName: 'openByExpiry',
      KeyConditionExpression: 'expiryShard = :shard AND expiresAt <= :now',
      ExpressionAttributeValues: { ':shard': shard, ':now': nowIso },
    });
    return items.map((item) => ({ id: item.id as string, merchantId: item.merchantId as string | undefined }));
  }

  async activate(id: string, now: Date): Promise<boolean> {
    const merchantId = await this.merchantOf(id);
    if (merchantId === undefined) return false;
    return this.updateIf({
      TableName: this.tables.invoices,
      Key: { id },
      UpdateExpression: 'SET #status = :active, merchantStatus = :statusKey, updatedAt = :now',
      ConditionExpression: '#status = :created AND expiresAt > :now',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':active': 'active', ':statusKey': invoiceStatusKey(merchantId, 'active'), ':created': 'created', ':now': now.toISOString() },
    });
  }

  async saveCustomerDetails(id: string, details: CustomerDetails, now: Date): Promise<boolean> {
    const fields = Object.entries(details).filter(([, value]) => value !== undefined);
    if (fields.length === 0) return false;
    return this.updateIf({
      TableName: this.tables.invoices,
      Key: { id },
      UpdateExpression: `SET ${fields.map((_, i) => `customer.#f${i} = :v${i}`).join(', ')}, updatedAt = :now`,
      ConditionExpression: ['#status IN (:created, :active) AND expiresAt > :now', ...fields.map((_, i) => `attribute_not_exists(customer.#f${i})`)].join(' AND '),
      ExpressionAttributeNames: { '#status': 'status', ...Object.fromEntries(fields.map(([name], i) => [`#f${i}`, name])) },
      ExpressionAttributeValues: {
        ':created': 'created',
        ':active': 'active',
        ':now': now.toISOString(),
        ...Object.fromEntries(fields.map(([, value], i) => [`:v${i}`, value])),
      },
    });
  }

  async expire({ id, merchantId: indexedOwner }: DueInvoice, now: Date, announcement?: ExpiryAnnouncement): Promise<boolean> {
    const merchantId = indexedOwner ?? (await this.merchantOf(id));
    if (merchantId === undefined) return false;
    const update = {
      TableName: this.tables.invoices,
      Key: { id },
      UpdateExpression: `SET #status = :canceled, merchantStatus = :statusKey, cancelReason = :expired, updatedAt = :now${announcement ? ', invoiceEvents = :events' : ''} REMOVE expiryShard`,
      ConditionExpression: '#status IN (:created, :active) AND expiresAt <= :now',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':canceled': 'canceled',
        ':statusKey': invoiceStatusKey(merchantId, 'canceled'),
        ':expired': 'expired',
        ':now': now.toISOString(),
        ':created': 'created',
        ':active': 'active',
        ...(announcement ? { ':events': announcement.invoiceEvents } : {}),
      },
    };
    if (!announcement) return this.updateIf(update);
    // The cancellation and its invoice event, together or not at all.
    if (!this.tables.outbox) throw new Error('This invoice store has no outbox table to announce an expiry in');
    return (await commitTransaction(this.client, [{ Update: update }, outboxPut(this.tables.outbox, announcement.event)])) === 'committed';
  }

  /**
   * Keeps the payment created at a provider for the invoice, unless it has one; from then on the
   * invoice waits for the provider's decision in the `awaitingProvider` index.
   */
  async attachProviderPayment(id: string, payment: ProviderPayment): Promise<boolean> {
    return this.updateIf({
      TableName: this.tables.invoices,
      Key: { id },
      UpdateExpression: 'SET providerPayment = :payment, awaitingProvider = :provider',
      ConditionExpression: 'attribute_exists(id) AND attribute_not_exists(providerPayment)',
      ExpressionAttributeValues: { ':payment': payment, ':provider': payment.providerId },
    });
  }

  /** Invoices whose payment at `providerId` is not decided yet, oldest first. */
  async awaitingProvider(providerId: string): Promise<Invoice[]> {
    const items = await queryPartition(this.client, this.tables.invoices, 'awaitingProvider', 'awaitingProvider', providerId);
    return items.map(toInvoice);
  }

  /** The reconciliation gives up on a payment its provider never decided (the invoice long closed). */
  async stopAwaitingProvider(id: string): Promise<void> {
    await this.client.send(new UpdateCommand({ TableName: this.tables.invoices, Key: { id }, UpdateExpression: 'REMOVE awaitingProvider' }));
  }

  /**
   * The owner of an invoice, which never changes: the status index key a status write sets names
   * it, and the checkout (and the sweep, on an index entry without it) know invoices by id only.
   */
  private async merchantOf(id: string): Promise<string | undefined> {
    const { Item } = await this.client.send(new GetCommand({ TableName: this.tables.invoices, Key: { id }, ProjectionExpression: 'merchantId' }));
    return Item?.merchantId as string | undefined;
  }

  /** Applies a conditional update; false when its condition no longer holds. */
  private async updateIf(input: ConstructorParameters<typeof UpdateCommand>[0]): Promise<boolean> {
    try {
      await this.client.send(new UpdateCommand(input));
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }
}
