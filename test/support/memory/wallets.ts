/**
 * Customers' permanent deposit addresses in memory, to the contract of DynamoWalletStore: a new
 * customer takes the next derivation index (from the public test keys) only after
 * `beforeAllocating` let it; a concurrent first request that stored its wallet first wins, the
 * index taken meanwhile staying unused; each address of each family names its owner for the chain
 * watchers, by its `ownerKey`.
 */
import type { AddressOwner } from '../../../shared/domain/payments/chain-watcher.js';
import type { CustomerWallets } from '../../../shared/domain/invoicing/invoice-service.js';
import { TEST_WALLET_XPUBS } from '../../../shared/domain/chains/test-wallet-keys.js';
import { ADDRESS_FAMILIES, deriveCustomerAddresses, ownerKey, parseWalletXpubs, type AddressFamily, type CustomerAddresses } from '../../../shared/domain/chains/wallets.js';

const TEST_KEYS = parseWalletXpubs(TEST_WALLET_XPUBS);

export class MemoryWallets implements CustomerWallets {
  private readonly customers = new Map<string, CustomerAddresses>();
  private readonly owners = new Map<string, AddressOwner>();
  private indexesTaken = 0;

  /** How many derivation indexes have been used up. */
  get allocated(): number {
    return this.indexesTaken;
  }

  async addressesFor(merchantId: string, customerId: string, beforeAllocating?: () => Promise<void>): Promise<{ addresses: CustomerAddresses }> {
    const key = JSON.stringify([merchantId, customerId]);
    const existing = this.customers.get(key);
    if (existing) return { addresses: existing };
    await beforeAllocating?.();
    const addresses = deriveCustomerAddresses(TEST_KEYS, this.indexesTaken++, 'demo');
    const winner = this.customers.get(key);
    if (winner) return { addresses: winner };
    this.customers.set(key, addresses);
    for (const family of ADDRESS_FAMILIES) this.owners.set(`${family}#${ownerKey(family, addresses[family])}`, { merchantId, customerId });
    return { addresses };
  }

  /** The owners of those of `keys` (`ownerKey`s of `family`) that are customers' addresses, by key. */
  async ownersOf(family: AddressFamily, keys: readonly string[]): Promise<Map<string, AddressOwner>> {
    return new Map(
      keys.flatMap((key) => {
        const owner = this.owners.get(`${family}#${key}`);
        return owner ? [[key, owner] as const] : [];
      }),
    );
  }
}
