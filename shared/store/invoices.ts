/** Invoices in DynamoDB, with their per-merchant orderId claims and the sparse expiry index. */
import { createHash } from 'node:crypto';
import { GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ApiError } from '../errors.js';
import type { CustomerDetails, Invoice } from '../domain/invoices.js';
import { noPayments } from '../domain/payments.js';
import type { CheckoutInvoices } from '../domain/checkout-service.js';
import type { CreateOutcome, ExpiringInvoiceRepository, InvoiceRepository } from '../domain/invoice-service.js';
import { isConditionFailure, isTransactionConflict } from './dynamo.js';


/**
 * Open invoices spread over this many index partitions, so no single partition takes every write;
 * the sweep reads each one.
 */
export const EXPIRY_SHARDS = 8;

export function expiryShardOf(invoiceId: string): string {
  return `open#${createHash('sha256').update(invoiceId).digest()[0]! % EXPIRY_SHARDS}`;
}

export const customerKeyOf = (merchantId: string, customerId: string): string => JSON.stringify([merchantId, customerId]);

const orderClaimId = (merchantId: string, orderId: string): string => `order#${JSON.stringify([merchantId, orderId])}`;

const TRANSACTION_ATTEMPTS = 5;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Strips storage-only attributes from an item read back. An invoice stored before payments were
 * counted reads as unpaid, or as paid in full once completed.
 */
function toInvoice(item: Record<string, unknown>): Invoice {
  const { expiryShard: _shard, customerKey: _customer, ...stored } = item;
  const invoice = stored as unknown as Invoice;
  if (invoice.paidAmount !== undefined) return invoice;
  const completed = invoice.status === 'completed';
  const paid = completed ? invoice.paymentAmount : noPayments(invoice.paymentCurrency).paidAmount;
  return { ...invoice, paidAmount: paid, paymentStatus: completed ? 'paid' : 'unpaid', transactionIds: [], completedAt: completed ? invoice.updatedAt : null };
}

/** An orderId claimed by a request with another body is a 409 (decisions 5). */
function refuseOtherRequest(claim: Record<string, unknown>, requestHash: string): void {
  if (claim.requestHash !== requestHash) throw new ApiError('conflict', 'An invoice with this orderId already exists with different details');
}

export class DynamoInvoiceStore implements InvoiceRepository, ExpiringInvoiceRepository, CheckoutInvoices {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tables: { invoices: string; uniques: string },
  ) {}

  async create(invoice: Invoice): Promise<CreateOutcome> {
    const claimId = orderClaimId(invoice.merchantId, invoice.orderId);
    for (let attempt = 1; ; attempt++) {
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
                  Item: { ...invoice, expiryShard: expiryShardOf(invoice.id), customerKey: customerKeyOf(invoice.merchantId, invoice.customerId) },
                  ConditionExpression: 'attribute_not_exists(id)',
                },
              },
            ],
          }),
        );
        return { invoice, created: true };
      } catch (error) {
        if (isTransactionConflict(error) && attempt < TRANSACTION_ATTEMPTS) {
          await pause(20 * attempt + Math.random() * 30);
          continue;
        }
        if (!isConditionFailure(error)) throw error;
        return { invoice: await this.existingForOrder(claimId, invoice.requestHash), created: false };
      }
    }
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

  /**
   * The customer's invoices, newest first, page by page as the caller reads on: `since` bounds
   * how far back, `paymentCurrency` keeps to one asset.
   */
  async *customerInvoices(merchantId: string, customerId: string, options: { since?: string; paymentCurrency?: string } = {}): AsyncGenerator<Invoice> {
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await this.client.send(
        new QueryCommand({
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
          ExclusiveStartKey,
        }),
      );
      for (const item of page.Items ?? []) yield toInvoice(item);
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
  }

  async listDue(now: Date): Promise<string[]> {
    const shards = Array.from({ length: EXPIRY_SHARDS }, (_, n) => `open#${n}`);
    const pages = await Promise.all(shards.map((shard) => this.dueInShard(shard, now.toISOString())));
    return pages.flat();
  }

  private async dueInShard(shard: string, nowIso: string): Promise<string[]> {
    const ids: string[] = [];
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await this.client.send(
        new QueryCommand({
          TableName: this.tables.invoices,
          IndexName: 'openByExpiry',
          KeyConditionExpression: 'expiryShard = :shard AND expiresAt <= :now',
          ExpressionAttributeValues: { ':shard': shard, ':now': nowIso },
          ExclusiveStartKey,
        }),
      );
      ids.push(...(page.Items ?? []).map((item) => item.id as string));
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
    return ids;
  }

  async activate(id: string, now: Date): Promise<boolean> {
    return this.updateIf({
      TableName: this.tables.invoices,
      Key: { id },
      UpdateExpression: 'SET #status = :active, updatedAt = :now',
      ConditionExpression: '#status = :created AND expiresAt > :now',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':active': 'active', ':created': 'created', ':now': now.toISOString() },
    });
  }

  async saveCustomerDetails(id: string, details: CustomerDetails, now: Date): Promise<boolean> {
    const fields = Object.entries(details).filter(([, value]) => value !== undefined);
    if (fields.length === 0) return false;
    return this.updateIf({
      TableName: this.tables.invoices,
      Key: { id },
      UpdateExpression: `SET ${fields.map((_, i) => `customer.#f${i} = :v${i}`).join(', ')}, updatedAt = :now`,
      ConditionExpression: [
        '#status IN (:created, :active) AND expiresAt > :now',
        ...fields.map((_, i) => `attribute_not_exists(customer.#f${i})`),
      ].join(' AND '),
      ExpressionAttributeNames: { '#status': 'status', ...Object.fromEntries(fields.map(([name], i) => [`#f${i}`, name])) },
      ExpressionAttributeValues: {
        ':created': 'created',
        ':active': 'active',
        ':now': now.toISOString(),
        ...Object.fromEntries(fields.map(([, value], i) => [`:v${i}`, value])),
      },
    });
  }

  async expire(id: string, now: Date): Promise<boolean> {
    return this.updateIf({
      TableName: this.tables.invoices,
      Key: { id },
      UpdateExpression: 'SET #status = :canceled, cancelReason = :expired, updatedAt = :now REMOVE expiryShard',
      ConditionExpression: '#status IN (:created, :active) AND expiresAt <= :now',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':canceled': 'canceled',
        ':expired': 'expired',
        ':now': now.toISOString(),
        ':created': 'created',
        ':active': 'active',
      },
    });
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
