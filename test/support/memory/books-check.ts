/** The books check's state in memory, to the contract of DynamoBooksCheckStore: the runs' attributes and the operator's apart. */
import type { BalanceKey, BooksCheckState, BooksCheckStore, EntrySums } from '../../../shared/domain/ledger/books-check.js';

export class MemoryBooksCheckState implements BooksCheckStore {
  /** As stored: a test may change them as a fault would. */
  current: BooksCheckState = {};
  readonly checkpoints = new Map<string, EntrySums>();

  async state(): Promise<BooksCheckState> {
    return structuredClone(this.current);
  }

  async saveState({ checkedTo, pass, lastPass }: Omit<BooksCheckState, 'passAskedAt'>): Promise<void> {
    const { passAskedAt } = this.current;
    this.current = structuredClone({ checkedTo, ...(pass ? { pass } : {}), ...(lastPass ? { lastPass } : {}), ...(passAskedAt ? { passAskedAt } : {}) });
  }

  async askForPass(at: Date): Promise<void> {
    this.current.passAskedAt = at.toISOString();
  }

  async checkpoint({ merchantId, currency }: BalanceKey): Promise<EntrySums | undefined> {
    const sums = this.checkpoints.get(JSON.stringify([merchantId, currency]));
    return sums && structuredClone(sums);
  }

  async saveCheckpoint({ merchantId, currency }: BalanceKey, sums: EntrySums): Promise<void> {
    this.checkpoints.set(JSON.stringify([merchantId, currency]), structuredClone(sums));
  }
}
