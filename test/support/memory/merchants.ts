/**
 * Merchants' profiles in memory: made as the admin CLI makes them, changed as the settings route
 * changes them, their payouts held and cleared to the contract of DynamoMerchantStore.
 */
import { randomUUID } from 'node:crypto';
import type { RecordPosition } from '../../../shared/domain/ledger/books-check.js';
import type { BooksHolds } from '../../../shared/domain/ledger/books-hold.js';
import type { BooksHold, ClearedBooksHold, Merchant, MerchantProfiles, RotatedSecretChanges } from '../../../shared/domain/merchants/merchants.js';

/** Stands in for a sealed callback secret where none is opened; a test that signs seals a real one. */
const SEALED_SECRET: Merchant['sealedCallbackSecret'] = { algorithm: 'AES-256-GCM', encryptedKey: 'key', iv: 'iv', tag: 'tag', ciphertext: 'secret' };

export class MemoryMerchants implements MerchantProfiles, BooksHolds {
  private readonly merchants = new Map<string, Merchant>();

  /** A new merchant with no processing fee unless `fields` say otherwise. */
  add(fields: Partial<Omit<Merchant, 'id'>> = {}): Merchant {
    const merchant: Merchant = {
      id: randomUUID(),
      name: 'Shop',
      callbackUrl: 'https://shop.example/callbacks',
      sealedCallbackSecret: SEALED_SECRET,
      processingFeePercent: '0',
      returnUrl: null,
      frameAncestors: ['*'],
      createdAt: new Date(0).toISOString(),
      ...fields,
    };
    this.merchants.set(merchant.id, merchant);
    return structuredClone(merchant);
  }

  async getMerchant(id: string): Promise<Merchant | undefined> {
    const merchant = this.merchants.get(id);
    return merchant && structuredClone(merchant);
  }

  update(id: string, changes: Partial<Omit<Merchant, 'id'>>): void {
    Object.assign(this.merchants.get(id)!, changes);
  }

  async updateMerchant(id: string, changes: Partial<Omit<Merchant, 'id'>>): Promise<Merchant | undefined> {
    if (!this.merchants.has(id)) return undefined;
    this.update(id, structuredClone(changes));
    return this.getMerchant(id);
  }

  /** As the DynamoDB store: written only while the sealed secret is still the one the rotation read. */
  async replaceCallbackSecret(id: string, current: Merchant['sealedCallbackSecret'], changes: RotatedSecretChanges): Promise<boolean> {
    if (this.merchants.get(id)?.sealedCallbackSecret.ciphertext !== current.ciphertext) return false;
    this.update(id, structuredClone(changes));
    return true;
  }

  async holdPayouts(id: string, hold: BooksHold): Promise<BooksHold | undefined> {
    const merchant = this.merchants.get(id);
    if (!merchant) return undefined;
    merchant.booksHold ??= structuredClone(hold);
    return structuredClone(merchant.booksHold);
  }

  async clearPayoutsHold(id: string, cleared: ClearedBooksHold): Promise<boolean> {
    const merchant = this.merchants.get(id);
    if (merchant?.booksHold?.heldAt !== cleared.heldAt || merchant.booksHold.run.id !== cleared.run.id) return false;
    delete merchant.booksHold;
    merchant.booksHoldCleared = structuredClone(cleared);
    return true;
  }

  /** Every merchant is listed from its creation here (none predates the directory), oldest first. */
  async *directory(after: RecordPosition | null): AsyncIterable<RecordPosition> {
    const listed = [...this.merchants.values()].map(({ id, createdAt }) => ({ id, createdAt })).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    yield* listed.slice(after ? listed.findIndex(({ id }) => id === after.id) + 1 : 0);
  }

  async enterDirectory(): Promise<boolean> {
    return false;
  }
}
