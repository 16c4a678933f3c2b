/**
 * A merchant's own tools for its callbacks (docs/merchant-guide.md#the-delivery-log-resending-and-testing): the delivery log of a transaction's
 * callbacks or of an invoice's events, resending the latest one, and a signed sample sent at once. The same signing and the
 * same delivery (with production's URL guard) as every callback.
 */
import { callbackDelivery, type CallbackDelivery, type CallbackRecord, type CallbackSecretOpener, type Deliver, deliveryFailed, pausedUntil, signCallback, signingSecrets } from '../callbacks/index.js';
import { callbackPayload, testCallbackFields, testWebhookId, type Transaction } from '../transactions/index.js';
import type { Merchant } from '../merchants/index.js';
import { Conflict, type Page } from '../kernel/index.js';

const NO_CALLBACK_URL = 'The merchant has no callback URL: set one with PATCH /api/v2/merchant';

export interface CallbackLogDeps {
  transactions: { owned(merchantId: string, transactionId: string): Promise<Transaction> };
  /** The merchant's own invoice (a view of it); another's is a NotFound. */
  invoices: { get(merchantId: string, invoiceId: string): Promise<{ id: string }> };
  outbox: {
    /** The transaction's callbacks, oldest first. */
    forTransaction(transactionId: string): Promise<CallbackRecord[]>;
    /** The invoice's events, oldest first. */
    forInvoice(invoiceId: string): Promise<CallbackRecord[]>;
    /** A page of the merchant's callbacks of every kind, newest first, those `keep` keeps (`filters` name it, for the cursor). */
    forMerchant(merchantId: string, keep: (record: CallbackRecord) => boolean, filters: Record<string, string>, limit: number, cursor?: string): Promise<Page<CallbackRecord>>;
    /** Delivers the callback again with a fresh window: `requeued` when it must be published. */
    resend(id: string, now: Date): Promise<'requeued' | 'inFlight'>;
  };
  merchants: { getMerchant(id: string): Promise<Merchant | undefined> };
  publisher: { publish(callbackIds: string[]): Promise<number> };
  clock: () => Date;
}

/** A callback in the merchant's log of every delivery: what it announces, and when it was written. */
export interface LoggedDelivery extends CallbackDelivery {
  transactionId: string | null;
  invoiceId: string | null;
  createdAt: string;
}

/** A page of the merchant's log: every callback, or only those whose delivery failed (`deliveryFailed`). */
export interface DeliveryLogQuery {
  failedOnly: boolean;
  limit: number;
  cursor?: string;
}

export class CallbackLog {
  constructor(private readonly deps: CallbackLogDeps) {}

  /**
   * The callbacks of the merchant's own transaction, oldest first, each pending one with the pause
   * of deliveries to the merchant's URL if there is one; anything else is a 404.
   */
  async deliveries(merchantId: string, transactionId: string): Promise<CallbackDelivery[]> {
    const transaction = await this.deps.transactions.owned(merchantId, transactionId);
    return this.logOf(merchantId, await this.deps.outbox.forTransaction(transaction.id));
  }

  /** The events of the merchant's own invoice (docs/merchant-guide.md#invoice-events), as `deliveries` shows a transaction's. */
  async invoiceDeliveries(merchantId: string, invoiceId: string): Promise<CallbackDelivery[]> {
    const invoice = await this.deps.invoices.get(merchantId, invoiceId);
    return this.logOf(merchantId, await this.deps.outbox.forInvoice(invoice.id));
  }

  /** The merchant's callbacks of every kind (transactions' and invoices'), newest first, a page at a time. */
  async merchantLog(merchantId: string, { failedOnly, limit, cursor }: DeliveryLogQuery): Promise<Page<LoggedDelivery>> {
    const page = await this.deps.outbox.forMerchant(merchantId, failedOnly ? deliveryFailed : () => true, failedOnly ? { failed: 'yes' } : {}, limit, cursor);
    const deliveries = await this.logOf(merchantId, page.items);
    return {
      items: page.items.map((record, i) => ({ ...deliveries[i]!, transactionId: record.transactionId ?? null, invoiceId: record.invoiceId ?? null, createdAt: record.createdAt })),
      nextCursor: page.nextCursor,
    };
  }

  /**
   * Queues the transaction's latest callback again with a fresh 72-hour window, whatever became
   * of it: delivered, parked, or still being retried.
   */
  async resend(merchantId: string, transactionId: string): Promise<{ webhookId: string }> {
    const transaction = await this.deps.transactions.owned(merchantId, transactionId);
    const latest = (await this.deps.outbox.forTransaction(transaction.id)).at(-1);
    if (!latest) throw new Conflict(`Transaction is ${transaction.status}: it has no callback until it is confirmed or failed`);
    return this.resendEntry(merchantId, latest);
  }

  /** Queues the invoice's latest event again, as `resend` does a transaction's callback. */
  async resendInvoiceEvent(merchantId: string, invoiceId: string): Promise<{ webhookId: string }> {
    const invoice = await this.deps.invoices.get(merchantId, invoiceId);
    const latest = (await this.deps.outbox.forInvoice(invoice.id)).at(-1);
    if (!latest) throw new Conflict('The invoice has announced no event: invoice events are sent once invoiceCallbacks is on (PATCH /api/v2/merchant)');
    return this.resendEntry(merchantId, latest);
  }

  private async logOf(merchantId: string, records: CallbackRecord[]): Promise<CallbackDelivery[]> {
    const merchant = await this.deps.merchants.getMerchant(merchantId);
    const paused = merchant ? pausedUntil(merchant, this.deps.clock()) : null;
    return records.map((record) => callbackDelivery(record, paused));
  }

  private async resendEntry(merchantId: string, latest: CallbackRecord): Promise<{ webhookId: string }> {
    const merchant = await this.deps.merchants.getMerchant(merchantId);
    if (!merchant?.callbackUrl) throw new Conflict(NO_CALLBACK_URL);
    if ((await this.deps.outbox.resend(latest.id, this.deps.clock())) === 'requeued') await this.deps.publisher.publish([latest.id]);
    return { webhookId: latest.id };
  }
}

export interface TestCallbackDeps {
  merchants: { getMerchant(id: string): Promise<Merchant | undefined> };
  secrets: CallbackSecretOpener;
  deliver: Deliver;
  clock: () => Date;
  newId: () => string;
}

export interface TestCallbackResult {
  webhookId: string;
  at: string;
  status: number | null;
  latencyMs: number;
  error: string | null;
}

/** Posts a signed sample callback (`callbackType: "test"`) to the merchant's callback URL now, once. */
export async function sendTestCallback(deps: TestCallbackDeps, merchantId: string): Promise<TestCallbackResult> {
  const merchant = await deps.merchants.getMerchant(merchantId);
  if (!merchant) throw new Error(`Authenticated merchant ${merchantId} has no profile`);
  if (!merchant.callbackUrl) throw new Conflict(NO_CALLBACK_URL);
  const at = deps.clock();
  const secrets = await signingSecrets(merchant, deps.secrets, at);
  const webhookId = testWebhookId(deps.newId());
  const body = JSON.stringify(callbackPayload(testCallbackFields(merchant.id, at), secrets[0]!));
  const { status, latencyMs, error } = await deps.deliver(merchant.callbackUrl, signCallback(secrets, webhookId, body, at));
  return { webhookId, at: at.toISOString(), status, latencyMs, error: error ?? null };
}
