/**
 * A crypto payout's request, its rules on the network, its fees and its approval (the payouts
 * module, shared/domain/payouts/crypto-payouts.ts).
 */
import { describe, expect, it } from 'vitest';
import { Decimal, Invalid } from '../../shared/domain/kernel/index.js';
import { type CryptoPayoutRequest, cryptoPayoutFees, cryptoPayoutHeld, cryptoPayoutProblem, cryptoPayoutRequestSchema, needsApproval } from '../../shared/domain/payouts/index.js';

const ADDRESS = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';

const parsed = (body: Record<string, unknown>) => cryptoPayoutRequestSchema.parse(body) as CryptoPayoutRequest;
const problemOf = (body: Record<string, unknown>) => {
  const problem = cryptoPayoutProblem(parsed(body));
  return problem && { field: problem.problems[0]!.field, message: problem.message };
};

describe('a crypto payout request', () => {
  it('takes an amount as a decimal string, an asset in any case and a network, and keeps the amount exact', () => {
    const request = parsed({ amount: '75.123456', currency: 'usdt', network: 'tron', address: ' TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH ', orderId: 'payout-1' });
    expect(request.amount.toFixed()).toBe('75.123456');
    expect(request.currency).toBe('USDT');
    expect(request.address).toBe('TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH');
    expect(cryptoPayoutProblem(request)).toBeUndefined();
  });

  it.each([
    ['an amount as a number', { amount: 75, currency: 'USDT', network: 'tron', address: ADDRESS }, 'amount'],
    ['a fiat currency', { amount: '75', currency: 'TRY', network: 'tron', address: ADDRESS }, 'currency'],
    ['an unknown network', { amount: '75', currency: 'USDT', network: 'solana', address: ADDRESS }, 'network'],
    ['no address', { amount: '75', currency: 'USDT', network: 'tron' }, 'address'],
    ['a property of its own', { amount: '75', currency: 'USDT', network: 'tron', address: ADDRESS, memo: 'x' }, ''],
  ])('refuses %s, naming the field', (_, body, field) => {
    const result = cryptoPayoutRequestSchema.safeParse(body);
    expect(result.success).toBe(false);
    expect(result.error!.issues.map((issue) => issue.path.join('.'))).toContain(field);
  });

  it('refuses a currency its network does not carry, naming where it is carried', () => {
    expect(problemOf({ amount: '75', currency: 'USDT', network: 'bitcoin', address: ADDRESS })).toEqual({ field: 'network', message: 'USDT is not carried on bitcoin; it is on ethereum, bsc, tron' });
  });

  it("refuses more decimals than the asset has, and less than the asset's deposit minimum on the network", () => {
    expect(problemOf({ amount: '5.0000001', currency: 'USDT', network: 'ethereum', address: ADDRESS })).toEqual({ field: 'amount', message: 'amount must have at most 6 decimal places for USDT' });
    expect(problemOf({ amount: '4.999999', currency: 'USDT', network: 'ethereum', address: ADDRESS })).toEqual({ field: 'amount', message: 'amount must be at least 5 USDT on ethereum' });
    expect(problemOf({ amount: '5', currency: 'USDT', network: 'ethereum', address: ADDRESS })).toBeUndefined();
    expect(problemOf({ amount: '0.00008199', currency: 'BTC', network: 'bitcoin', address: 'bc1q' })).toEqual({ field: 'amount', message: 'amount must be at least 0.000082 BTC on bitcoin' });
  });
});

describe("a crypto payout's fees", () => {
  const prices = { ETH: new Decimal('3000'), USDT: new Decimal('1') };

  it("charge the network fee in the payout's currency at the live rate, rounded up, beside the gateway's fee", () => {
    // 0.000042 ETH of gas at 3,000 USD is 0.126 USDT; 0.0000420001 ETH is 0.1260003, charged 0.126001.
    expect(cryptoPayoutFees({ currency: 'USDT', network: 'ethereum' }, { payoutFee: '1', networkFee: new Decimal('0.000042'), prices })).toEqual({ processing: '1.000000', technical: '0.126000' });
    expect(cryptoPayoutFees({ currency: 'USDT', network: 'ethereum' }, { payoutFee: '1', networkFee: new Decimal('0.0000420001'), prices })).toEqual({ processing: '1.000000', technical: '0.126001' });
  });

  it("are the network's coin itself when the payout is in it", () => {
    expect(cryptoPayoutFees({ currency: 'ETH', network: 'ethereum' }, { payoutFee: '0.0005', networkFee: new Decimal('0.000042'), prices })).toEqual({
      processing: '0.000500000000000000',
      technical: '0.000042000000000000',
    });
  });

  it('refuse a payout whose network coin has no price', () => {
    const { ETH: _eth, ...withoutEth } = prices;
    expect(() => cryptoPayoutFees({ currency: 'USDT', network: 'ethereum' }, { payoutFee: '1', networkFee: new Decimal('0.000042'), prices: withoutEth })).toThrow(Invalid);
  });

  it('are reserved with the amount', () => {
    expect(cryptoPayoutHeld(new Decimal('75'), { processing: '1.000000', technical: '0.126001' }).toFixed()).toBe('76.126001');
  });
});

describe("a crypto payout's approval", () => {
  it("is needed only above the merchant's threshold, when one is set", () => {
    expect(needsApproval(new Decimal('1000.01'), '1000')).toBe(true);
    expect(needsApproval(new Decimal('1000'), '1000')).toBe(false);
    expect(needsApproval(new Decimal('1000000'), null)).toBe(false);
    expect(needsApproval(new Decimal('0.01'), '0')).toBe(true);
  });
});
