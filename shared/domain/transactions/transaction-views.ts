/**
 * What a merchant sees of its transactions: the record's fields with the `hash` of docs/merchant-guide.md#the-transaction-hash,
 * computed under the merchant's callback secret, which only the functions that present or sign
 * transactions can open.
 */
import type { Merchant } from '../merchants/index.js';
import { listingOf, type Listing, type Page } from '../kernel/index.js';
import { transactionView, type ListTransactionsQuery, type Transaction, type TransactionFilters, type TransactionView } from './transactions.js';
import type { CallbackSecretOpener } from '../callbacks/index.js';

export interface TransactionViewsDeps {
  transactions: { owned(merchantId: string, transactionId: string): Promise<Transaction> };
  /** A page of the merchant's transactions, newest first; a cursor that does not continue this listing is a 422. */
  ledger: { list(merchantId: string, listing: Listing<TransactionFilters>): Promise<Page<Transaction>> };
  merchants: { getMerchant(id: string): Promise<Merchant | undefined> };
  secrets: CallbackSecretOpener;
}

export class TransactionViews {
  constructor(private readonly deps: TransactionViewsDeps) {}

  /** The merchant's own transaction; anything else is as unknown as a missing one (404). */
  async view(merchantId: string, transactionId: string): Promise<TransactionView> {
    return this.present(await this.deps.transactions.owned(merchantId, transactionId));
  }

  async present(transaction: Transaction): Promise<TransactionView> {
    const [view] = await this.presentAll(transaction.merchantId, [transaction]);
    return view!;
  }

  /** The merchant's own transactions, newest first, a page at a time (docs/merchant-guide.md#listings-and-pagination). */
  async list(merchantId: string, query: ListTransactionsQuery): Promise<Page<TransactionView>> {
    const page = await this.deps.ledger.list(merchantId, listingOf(query));
    return { items: await this.presentAll(merchantId, page.items), nextCursor: page.nextCursor };
  }

  /** Transactions of one merchant, its secret opened once for all of them. */
  private async presentAll(merchantId: string, transactions: Transaction[]): Promise<TransactionView[]> {
    if (transactions.length === 0) return [];
    const merchant = await this.deps.merchants.getMerchant(merchantId);
    if (!merchant) throw new Error(`Merchant ${merchantId} of transactions ${transactions.map((t) => t.id).join(', ')} has no profile`);
    const secret = await this.deps.secrets.open(merchant.id, merchant.sealedCallbackSecret);
    return transactions.map((transaction) => transactionView(transaction, secret));
  }
}
