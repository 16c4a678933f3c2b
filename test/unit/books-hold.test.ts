/**
 * A merchant's payouts held while its books are off (docs/operations.md#the-hourly-check), over
 * the in-memory ports: a withdrawal of a held merchant is refused as held, naming the check,
 * whatever its balance, and writes nothing; an operator clears the hold with a reason, only the
 * hold it read, and withdrawals are accepted again.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { booksHold } from '../../shared/domain/ledger/books-check.js';
import type { BooksHold } from '../../shared/domain/merchants/merchants.js';
import { withdrawalOrderClaimId } from '../../shared/domain/chains/claims.js';
import { Conflict, Held, Invalid, NotFound } from '../../shared/domain/kernel/errors.js';
import { withdrawalRequestSchema } from '../../shared/domain/transactions/withdrawals.js';
import { memoryGateway, refusal, type MemoryGateway } from '../support/memory/gateway.js';

const RUN = { at: '2026-11-29T04:00:00Z', id: 'run-1' };
const HELD = "Payouts are held: the books check of 2026-11-29T04:00:00Z found this merchant's books off; an operator must clear the hold";

const withdrawal = (fields: Record<string, unknown> = {}) => withdrawalRequestSchema.parse({ customerId: 'customer-1', amount: '100.00', currency: 'TRY', phoneNumber: '+905551234567', ...fields });

/** A merchant with 1000 TRY whose payouts the books check held, as the check holds them. */
async function heldMerchant(gateway: MemoryGateway): Promise<{ merchantId: string; hold: BooksHold }> {
  const merchantId = gateway.merchants.add().id;
  await gateway.fund(merchantId, 'TRY', '1000');
  const difference = { kind: 'balance' as const, merchantId, currency: 'TRY', balance: null, entries: null };
  const hold = (await gateway.merchants.holdPayouts(merchantId, booksHold([difference], RUN, gateway.clock())))!;
  return { merchantId, hold };
}

async function transactionsOf(gateway: MemoryGateway, merchantId: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const transaction of gateway.ledger.allOf(merchantId)) ids.push(transaction.id);
  return ids;
}

describe('a withdrawal of a merchant whose payouts are held', () => {
  it('is refused as held, naming the check, when the balance covers it and when it does not, writing nothing and sending nothing', async () => {
    const gateway = memoryGateway();
    const { merchantId } = await heldMerchant(gateway);
    const before = await gateway.balances.get(merchantId, 'TRY');
    expect(await refusal(gateway.fiatService.createWithdrawal(merchantId, withdrawal({ orderId: 'payout-1' })))).toEqual(new Held(HELD));
    // More than is available: still the hold, which comes first.
    expect(await refusal(gateway.fiatService.createWithdrawal(merchantId, withdrawal({ amount: '5000.00' })))).toEqual(new Held(HELD));
    expect(await gateway.balances.get(merchantId, 'TRY')).toEqual(before);
    expect(await transactionsOf(gateway, merchantId)).toEqual([]);
    expect(await gateway.ledger.getClaim(withdrawalOrderClaimId(merchantId, 'payout-1'))).toBeUndefined();
    expect(gateway.provider.payouts).toEqual([]);
  });

  it('is still refused for what is wrong with the request first: a 422 is the answer to fix', async () => {
    const gateway = memoryGateway();
    const { merchantId } = await heldMerchant(gateway);
    expect(await refusal(gateway.fiatService.createWithdrawal(merchantId, withdrawal({ phoneNumber: undefined })))).toBeInstanceOf(Invalid);
  });

  it('reads the merchant as last written, so that a hold placed a moment ago counts', async () => {
    const gateway = memoryGateway();
    const merchantId = gateway.merchants.add().id;
    await gateway.fund(merchantId, 'TRY', '1000');
    const read = vi.spyOn(gateway.merchants, 'getMerchant');
    await gateway.fiatService.createWithdrawal(merchantId, withdrawal());
    expect(read).toHaveBeenCalledWith(merchantId, { consistent: true });
  });

  it("leaves other merchants' payouts alone", async () => {
    const gateway = memoryGateway();
    await heldMerchant(gateway);
    const other = gateway.merchants.add().id;
    await gateway.fund(other, 'TRY', '1000');
    expect(await gateway.fiatService.createWithdrawal(other, withdrawal())).toMatchObject({ status: 'processing' });
  });
});

describe("an operator's clearing of the hold", () => {
  it('clears it with a reason, kept with the hold as the one cleared last, and withdrawals are accepted again', async () => {
    const gateway = memoryGateway();
    const { merchantId, hold } = await heldMerchant(gateway);
    gateway.advance(600);
    const cleared = await gateway.balanceService.clearHold(merchantId, '  Balance item restored from its entries  ');
    expect(cleared).toEqual({ ...hold, clearedAt: gateway.clock().toISOString(), reason: 'Balance item restored from its entries' });
    const merchant = (await gateway.merchants.getMerchant(merchantId))!;
    expect(merchant.booksHold).toBeUndefined();
    expect(merchant.booksHoldCleared).toEqual(cleared);
    expect((await gateway.balanceService.statement(merchantId)).booksHoldCleared).toEqual(cleared);
    expect(await gateway.fiatService.createWithdrawal(merchantId, withdrawal())).toMatchObject({ status: 'processing' });
  });

  it('clears only the hold it read: one placed meanwhile stays', async () => {
    const gateway = memoryGateway();
    const { merchantId } = await heldMerchant(gateway);
    const { merchants } = gateway;
    const read = merchants.getMerchant.bind(merchants);
    const later = { ...booksHold([], { at: '2026-11-29T05:00:00Z', id: 'run-2' }, gateway.clock()), heldAt: '2026-11-29T05:00:03.000Z' };
    // Between the read and the write, another operator clears the hold and the next run holds the payouts again.
    vi.spyOn(merchants, 'getMerchant').mockImplementationOnce(async (id) => {
      const merchant = await read(id);
      merchants.update(id, { booksHold: later });
      return merchant;
    });
    expect(await refusal(gateway.balanceService.clearHold(merchantId, 'Checked'))).toBeInstanceOf(Conflict);
    expect((await merchants.getMerchant(merchantId))!.booksHold).toEqual(later);
  });

  it('clears nothing of a merchant whose payouts are not held, and refuses an unknown merchant or a reason of nothing or too much, writing nothing', async () => {
    const gateway = memoryGateway();
    const free = gateway.merchants.add().id;
    expect(await gateway.balanceService.clearHold(free, 'Checked')).toBeUndefined();
    expect((await gateway.merchants.getMerchant(free))!.booksHoldCleared).toBeUndefined();
    expect(await refusal(gateway.balanceService.clearHold(randomUUID(), 'Checked'))).toEqual(new NotFound('Merchant'));
    const { merchantId, hold } = await heldMerchant(gateway);
    expect(await refusal(gateway.balanceService.clearHold(merchantId, '   '))).toEqual(Invalid.of('reason', 'reason must be 1 to 500 characters'));
    expect(await refusal(gateway.balanceService.clearHold(merchantId, 'x'.repeat(501)))).toBeInstanceOf(Invalid);
    expect((await gateway.merchants.getMerchant(merchantId))!.booksHold).toEqual(hold);
  });
});
