/** Payment receipts in memory: kept as given under their key, read back by the reference `put` answered. */
import type { Receipt } from '../../../shared/domain/invoicing/deposit-confirmation.js';
import type { ReceiptStore } from '../../../shared/domain/payments/fiat-service.js';

export class MemoryReceiptStore implements ReceiptStore {
  private readonly receipts = new Map<string, Receipt>();

  async put(key: string, receipt: Receipt): Promise<string> {
    const reference = `memory://receipts/${key}`;
    this.receipts.set(reference, { ...receipt, content: Buffer.from(receipt.content) });
    return reference;
  }

  async get(reference: string): Promise<Receipt> {
    const receipt = this.receipts.get(reference);
    if (!receipt) throw new Error(`No receipt ${reference}`);
    return { ...receipt, content: Buffer.from(receipt.content) };
  }

  /** The references of every receipt kept. */
  get references(): string[] {
    return [...this.receipts.keys()];
  }
}
