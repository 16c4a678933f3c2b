/**
 * Payout addresses in memory, to the contract of DynamoPayoutAddressStore: one address per
 * (merchant, network, address), each change written whole with its audit entry and the code's use
 * on its user, or not at all.
 */
import type { AuditEntry, CodeUse } from '../../../shared/domain/dashboard/index.js';
import type { PayoutAddress, PayoutAddressStore } from '../../../shared/domain/payouts/index.js';

export class MemoryPayoutAddresses implements PayoutAddressStore {
  readonly addresses: PayoutAddress[] = [];
  readonly entries: AuditEntry[] = [];
  /** The dashboard's users as the store sees them: their merchant and the last TOTP step they used. */
  readonly users = new Map<string, { merchantId: string; lastTotpStep?: number }>();

  async list(merchantId: string): Promise<PayoutAddress[]> {
    return structuredClone(this.addresses.filter((address) => address.merchantId === merchantId));
  }

  async add(address: PayoutAddress, entry: AuditEntry, code?: CodeUse): Promise<'added' | 'duplicate' | 'code_used'> {
    if (this.addresses.some((each) => each.merchantId === address.merchantId && each.network === address.network && each.address === address.address)) return 'duplicate';
    const user = code && this.users.get(code.email);
    if (code && (!user || user.merchantId !== address.merchantId || (user.lastTotpStep !== undefined && user.lastTotpStep >= code.step))) return 'code_used';
    if (user && code) user.lastTotpStep = code.step;
    this.addresses.push(structuredClone(address));
    this.entries.push(entry);
    return 'added';
  }

  async remove(address: PayoutAddress, entry: AuditEntry): Promise<boolean> {
    const index = this.addresses.findIndex((each) => each.merchantId === address.merchantId && each.id === address.id);
    if (index < 0) return false;
    this.addresses.splice(index, 1);
    this.entries.push(entry);
    return true;
  }
}
