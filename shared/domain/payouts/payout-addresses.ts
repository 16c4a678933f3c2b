/**
 * A merchant's payout addresses (docs/merchant-guide.md#payout-addresses): the only places its
 * crypto payouts may go. Added by an owner in the dashboard with a fresh TOTP code, or by the
 * operator; never through an API key. Each is `pending` for the merchant's delay, then `active`;
 * removing one is immediate. Every change is written with its audit entry. Pure: the store is a port.
 */
import * as z from 'zod';
import type { Stage } from '../../stage.js';
import type { AuditAction, AuditEntry, CodeUse } from '../dashboard/index.js';
import { Conflict, CRYPTO_NETWORKS, type CryptoNetwork, Invalid, isUuid, NotFound } from '../kernel/index.js';
import { type MerchantProfiles, payoutAddressDelaySecondsOf } from '../merchants/index.js';
import { destinationAddress } from './destination-addresses.js';

export const PAYOUT_ADDRESS_STATUSES = ['pending', 'active'] as const;
export type PayoutAddressStatus = (typeof PAYOUT_ADDRESS_STATUSES)[number];

export const MAX_PAYOUT_ADDRESS_LABEL = 64;

export interface PayoutAddress {
  merchantId: string;
  id: string;
  network: CryptoNetwork;
  /** In its network's canonical form (EIP-55 for EVM, lower case for segwit): one address, however it was typed. */
  address: string;
  label: string | null;
  /** When payouts may go to it: its creation plus the merchant's delay. */
  activatesAt: string;
  createdAt: string;
}

/** An address to add: what the dashboard's form and the admin CLI give. */
export const newPayoutAddressRequestSchema = z.strictObject({
  network: z.enum(CRYPTO_NETWORKS),
  address: z.string().trim().min(1).max(128),
  label: z
    .string()
    .trim()
    .max(MAX_PAYOUT_ADDRESS_LABEL)
    .regex(/^[^\p{Cc}]*$/u, 'must not contain control characters')
    .optional(),
});

export type NewPayoutAddressRequest = z.output<typeof newPayoutAddressRequestSchema>;

export const payoutAddressViewSchema = z.object({
  id: z.uuid(),
  network: z.enum(CRYPTO_NETWORKS),
  address: z.string().describe("The address, in its network's canonical form: EIP-55 checksummed (EVM), lower case (bech32)"),
  label: z.string().nullable().describe('What the merchant calls it'),
  status: z.enum(PAYOUT_ADDRESS_STATUSES).describe('`pending` until `activatesAt`, then `active`: payouts go to active addresses only'),
  activatesAt: z.iso.datetime(),
  createdAt: z.iso.datetime(),
});

export type PayoutAddressView = z.output<typeof payoutAddressViewSchema>;

/** `GET /api/v2/payout-addresses`: every address of the merchant, newest first, in one answer (no pages: a merchant has a few). */
export const payoutAddressListSchema = z.object({ items: z.array(payoutAddressViewSchema) });

export type PayoutAddressList = z.output<typeof payoutAddressListSchema>;

export const payoutAddressStatus = (address: Pick<PayoutAddress, 'activatesAt'>, now: Date): PayoutAddressStatus => (Date.parse(address.activatesAt) <= now.getTime() ? 'active' : 'pending');

export const payoutAddressView = ({ id, network, address, label, activatesAt, createdAt }: PayoutAddress, now: Date): PayoutAddressView => ({
  id,
  network,
  address,
  label,
  status: payoutAddressStatus({ activatesAt }, now),
  activatesAt,
  createdAt,
});

/**
 * `address` in its canonical form for `network` on `stage`; else a 422 on `address` saying what it
 * must be, and which networks it is an address of when it is one of others.
 */
export function checkedPayoutAddress(network: CryptoNetwork, address: string, stage: Stage): string {
  const checked = destinationAddress(network, address, stage);
  if ('address' in checked) return checked.address;
  const elsewhere = CRYPTO_NETWORKS.filter((other) => 'address' in destinationAddress(other, address, stage));
  const message = elsewhere.length > 0 ? `address is not an address of ${network}: it is one of ${elsewhere.join(', ')}` : `address is not an address of ${network}: it ${checked.problem}`;
  throw Invalid.of('address', message);
}

export interface PayoutAddressStore {
  list(merchantId: string): Promise<PayoutAddress[]>;
  /**
   * Writes the address, its audit entry and, when a code confirmed it, the code's use, in one
   * transaction of conditional writes: `duplicate` when the merchant has the address on the network
   * already, `code_used` when the user took a code of the step or a later one meanwhile, or is no
   * user of the address's merchant.
   */
  add(address: PayoutAddress, entry: AuditEntry, code?: CodeUse): Promise<'added' | 'duplicate' | 'code_used'>;
  /** Deletes the address, as read, with its audit entry, in one transaction; false when it is gone already. */
  remove(address: PayoutAddress, entry: AuditEntry): Promise<boolean>;
}

export interface PayoutAddressesDeps {
  addresses: PayoutAddressStore;
  merchants: MerchantProfiles;
  stage: Stage;
  clock: () => Date;
  newId: () => string;
}

/** Who adds an address: a dashboard user with the fresh code that confirms it, or the operator. */
export type PayoutAddressAuthority = CodeUse | 'operator';

const subjectOf = ({ network, address, label }: PayoutAddress): string => `${network} ${address}${label === null ? '' : ` (${label})`}`;

export class PayoutAddresses {
  constructor(private readonly deps: PayoutAddressesDeps) {}

  async list(merchantId: string): Promise<PayoutAddressList> {
    const now = this.deps.clock();
    const addresses = await this.deps.addresses.list(merchantId);
    return { items: addresses.sort((a, b) => b.createdAt.localeCompare(a.createdAt) || a.id.localeCompare(b.id)).map((address) => payoutAddressView(address, now)) };
  }

  /** Adds the address, active after the merchant's delay. The same address twice on a network is a 409. */
  async add(merchantId: string, request: NewPayoutAddressRequest, by: PayoutAddressAuthority): Promise<PayoutAddressView> {
    const canonical = checkedPayoutAddress(request.network, request.address, this.deps.stage);
    const merchant = await this.deps.merchants.getMerchant(merchantId, { consistent: true });
    if (!merchant) throw new NotFound('Merchant');
    const now = this.deps.clock();
    const address: PayoutAddress = {
      merchantId,
      id: this.deps.newId(),
      network: request.network,
      address: canonical,
      label: request.label ? request.label : null,
      activatesAt: new Date(now.getTime() + payoutAddressDelaySecondsOf(merchant, this.deps.stage) * 1000).toISOString(),
      createdAt: now.toISOString(),
    };
    const code = by === 'operator' ? undefined : by;
    const outcome = await this.deps.addresses.add(address, this.entry(address, code?.email ?? 'operator', 'payout_address.added', now), code);
    if (outcome === 'duplicate') throw new Conflict(`${canonical} is a payout address of ${request.network} already`);
    if (outcome === 'code_used') throw Invalid.of('code', 'code was used already: enter the next one');
    return payoutAddressView(address, now);
  }

  /** Removes the address at once, no payout goes to it from now on; `actor` is a user's e-mail, or `operator`. */
  async remove(merchantId: string, id: string, actor: string): Promise<void> {
    const address = isUuid(id) ? (await this.deps.addresses.list(merchantId)).find((each) => each.id === id) : undefined;
    if (!address || !(await this.deps.addresses.remove(address, this.entry(address, actor, 'payout_address.removed', this.deps.clock())))) throw new NotFound('Payout address');
  }

  private entry(address: PayoutAddress, actor: string, action: AuditAction, at: Date): AuditEntry {
    return { merchantId: address.merchantId, id: this.deps.newId(), at: at.toISOString(), actor, action, subject: subjectOf(address) };
  }
}
