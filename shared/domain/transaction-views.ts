/**
 * What a merchant sees of its transactions: the record's fields with the `hash` of decisions 7,
 * computed under the merchant's callback secret, which only the functions that present or sign
 * transactions can open.
 */
import type { Merchant } from './merchants.js';
import { transactionView, type Transaction, type TransactionView } from './transactions.js';

/** Opens a merchant's sealed callback secret. */
export interface CallbackSecretOpener {
  open(merchantId: string, sealed: Merchant['sealedCallbackSecret']): Promise<string>;
}

export interface TransactionViewsDeps {
  transactions: { owned(merchantId: string, transactionId: string): Promise<Transaction> };
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
    const merchant = await this.deps.merchants.getMerchant(transaction.merchantId);
    if (!merchant) throw new Error(`Merchant ${transaction.merchantId} of transaction ${transaction.id} has no profile`);
    return transactionView(transaction, await this.deps.secrets.open(merchant.id, merchant.sealedCallbackSecret));
  }
}
