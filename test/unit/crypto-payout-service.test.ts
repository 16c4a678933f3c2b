/**
 * Crypto payouts (decisions on crypto payouts) over in-memory ports and an EVM network in memory:
 * what a payout must be, what it reserves, approval, and the state machine of sending and
 * settling it: stored before broadcast, replaced when stuck, settled once at depth, released less
 * the network fee when it fails. The real nodes are in test/integration/crypto-payouts.test.ts.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { defaultChains } from '../../shared/domain/chains/index.js';
import { AlreadyUsed, Conflict, InsufficientBalance, Invalid } from '../../shared/domain/kernel/errors.js';
import { CryptoPayoutService, type PayoutSendRequest } from '../../shared/domain/payments/crypto-payout-service.js';
import { PayoutSender, PayoutSettlement, PayoutWaits } from '../../shared/domain/payments/payout-sending.js';
import { cryptoPayoutRequestSchema } from '../../shared/domain/payouts/crypto-payouts.js';
import { DEFAULT_PAYOUT_FEES } from '../../shared/domain/payouts/index.js';
import { DEMO_USD_PRICES, StaticRateSource } from '../../shared/domain/rates/rates.js';
import type { CryptoPayoutTransaction } from '../../shared/domain/transactions/crypto-payouts.js';
import { transactionView } from '../../shared/domain/transactions/transactions.js';
import { memoryGateway, refusal } from '../support/memory/gateway.js';
import { MemoryPayoutAddresses } from '../support/memory/payout-addresses.js';
import { MemoryPayoutChain } from '../support/memory/payout-chain.js';

const DESTINATION = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const PENDING_DESTINATION = '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359';
const TRON_DESTINATION = 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7';
const USDT = defaultChains('demo').ethereum.tokens.USDT!.address;
const CONFIRMATIONS = 3;
const STUCK_SECONDS = 600;

/** A payout request as the route's schema reads it: 100 USDT on ethereum to the active address unless `fields` say otherwise. */
const request = (fields: Record<string, unknown> = {}) => cryptoPayoutRequestSchema.parse({ amount: '100', currency: 'USDT', network: 'ethereum', address: DESTINATION, ...fields }) as never;
/** An owner's fresh TOTP code, of time step `step`. */
const owner = (step: number) => ({ email: 'owner@shop.example', step });

function setup(merchantFields: { payoutApprovalAboveUsd?: string | null } = {}) {
  const gateway = memoryGateway();
  const merchant = gateway.merchants.add(merchantFields);
  const addresses = new MemoryPayoutAddresses();
  const past = new Date(gateway.clock().getTime() - 86_400_000).toISOString();
  const later = new Date(gateway.clock().getTime() + 86_400_000).toISOString();
  const address = (network: 'ethereum' | 'tron', value: string, activatesAt: string) =>
    addresses.addresses.push({ merchantId: merchant.id, id: randomUUID(), network, address: value, label: null, activatesAt, createdAt: past });
  address('ethereum', DESTINATION, past);
  address('ethereum', PENDING_DESTINATION, later);
  address('tron', TRON_DESTINATION, past);
  const chain = new MemoryPayoutChain('ethereum');
  chain.fund(null, 10n ** 18n);
  chain.fund(USDT, 10_000n * 10n ** 6n);
  const queued: PayoutSendRequest[] = [];
  const queue = { enqueue: async (request: PayoutSendRequest) => void queued.push(request) };
  const metrics = { treasuryShortfall: vi.fn() };
  const payouts = new CryptoPayoutService({
    ledger: gateway.ledger,
    balances: gateway.balances,
    merchants: gateway.merchants,
    addresses,
    feesOn: (network) => (network === 'ethereum' ? chain : undefined),
    configuration: () => ({ chains: defaultChains('demo'), payoutFees: DEFAULT_PAYOUT_FEES }),
    rates: new StaticRateSource(DEMO_USD_PRICES),
    queue,
    callbacks: gateway.callbacks,
    log: gateway.log,
    stage: 'demo',
    clock: gateway.clock,
    newId: randomUUID,
  });
  const sender = new PayoutSender({ records: gateway.ledger, chains: (network) => (network === 'ethereum' ? chain : undefined), metrics, clock: gateway.clock });
  const settlement = new PayoutSettlement({
    network: 'ethereum',
    confirmations: CONFIRMATIONS,
    records: gateway.ledger,
    chain,
    queue,
    transactions: gateway.transactionService,
    rates: new StaticRateSource(DEMO_USD_PRICES),
    stuckSeconds: STUCK_SECONDS,
    handOverSeconds: 120,
    clock: gateway.clock,
  });
  const pay = (fields: Record<string, unknown>) => payouts.create(merchant.id, request(fields));
  /** Hands every queued request to the sender, as the FIFO queue does, one after the other. */
  const drain = async () => {
    const outcomes: string[] = [];
    while (queued.length > 0) outcomes.push(await sender.handle(queued.shift()!));
    return outcomes;
  };
  const stored = async (id: string) => (await gateway.ledger.get(id)) as CryptoPayoutTransaction;
  const balance = async (currency: string) => gateway.balances.get(merchant.id, currency);
  return { gateway, merchant, chain, queued, metrics, payouts, sender, settlement, pay, drain, stored, balance };
}

describe('asking for a crypto payout', () => {
  it('quotes both fees in the currency, reserves the amount with them, and hands the payout to its network', async () => {
    const { gateway, merchant, pay, queued, balance } = setup();
    await gateway.fund(merchant.id, 'USDT', '500');
    const payout = await pay({ orderId: 'settle-1' });

    // 21,000 gas at 1 gwei is 0.000021 ETH, at 3,200 USDT an ETH: 0.0672 USDT.
    expect(payout).toMatchObject({ type: 'withdraw', status: 'processing', amount: '100.000000', currency: 'USDT', network: 'ethereum', address: DESTINATION, transactionHash: null });
    expect(payout.fees).toEqual({ processing: '1.000000', technical: '0.067200' });
    expect(payout.payout).toMatchObject({ token: USDT, units: '100000000', unitDecimals: 6, attempts: [] });
    expect(await balance('USDT')).toMatchObject({ available: '398.932800', reserved: '101.067200' });
    expect(queued).toEqual([{ kind: 'send', network: 'ethereum', transactionId: payout.id }]);
    expect(transactionView(payout, 'secret')).toMatchObject({ address: DESTINATION, fees: { processing: '1.000000', technical: '0.067200' } });
  });

  it.each([
    ['an address not on the allowlist', { address: '0x0000000000000000000000000000000000000001' }, 'address', /not one of your payout addresses/],
    ['an address still pending', { address: PENDING_DESTINATION }, 'address', /pending until/],
    ['an address of another network', { address: TRON_DESTINATION }, 'address', /it is one of tron/],
    ['a malformed address', { address: '0x1234' }, 'address', /not an address of ethereum/],
    ['a currency the network does not carry', { currency: 'TRX' }, 'network', /not carried on ethereum/],
    ['an amount under the deposit minimum', { amount: '4.99' }, 'amount', /at least 5 USDT/],
    ['an amount with too many decimals', { amount: '10.1234567' }, 'amount', /decimal/],
  ])('refuses %s on its field, reserving and queueing nothing', async (_case, fields, field, message) => {
    const { gateway, merchant, pay, queued, balance } = setup();
    await gateway.fund(merchant.id, 'USDT', '500');
    const error = (await refusal(pay(fields))) as Invalid;
    expect(error).toBeInstanceOf(Invalid);
    expect(error.problems[0]!.field).toBe(field);
    expect(error.message).toMatch(message);
    expect(await balance('USDT')).toMatchObject({ available: '500.000000', reserved: '0.000000' });
    expect(queued).toEqual([]);
  });

  it('refuses what the available balance cannot hold with its fees (402), and an orderId used before (409)', async () => {
    const { gateway, merchant, pay, queued } = setup();
    await gateway.fund(merchant.id, 'USDT', '101');
    expect(await refusal(pay({}))).toBeInstanceOf(InsufficientBalance);
    await gateway.fund(merchant.id, 'USDT', '200');
    await pay({ orderId: 'once' });
    expect(await refusal(pay({ orderId: 'once' }))).toBeInstanceOf(AlreadyUsed);
    expect(queued).toHaveLength(1);
  });

  it('never lets racing payouts take more than the balance holds', async () => {
    const { gateway, merchant, pay, balance } = setup();
    await gateway.fund(merchant.id, 'USDT', '1010.672');
    const outcomes = await Promise.allSettled(Array.from({ length: 20 }, () => pay({})));
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(10);
    expect(outcomes.filter((outcome) => outcome.status === 'rejected').every((outcome) => outcome.reason instanceof InsufficientBalance)).toBe(true);
    expect(await balance('USDT')).toMatchObject({ available: '0.000000', reserved: '1010.672000' });
  });

  it("waits for approval above the merchant's threshold: reserved, and not handed to the sender", async () => {
    const { gateway, merchant, pay, queued, balance } = setup({ payoutApprovalAboveUsd: '99.99' });
    await gateway.fund(merchant.id, 'USDT', '500');
    const small = await pay({ amount: '99.99' });
    const large = await pay({ amount: '100' });
    expect([small.status, large.status]).toEqual(['processing', 'pending_approval']);
    expect(queued.map((request) => request.transactionId)).toEqual([small.id]);
    expect((await balance('USDT'))!.reserved).toBe('202.124400');
  });
});

describe('sending and settling a payout', () => {
  it('stores the signed transaction before broadcasting it: a broadcast that failed is retried with the same bytes, signed once', async () => {
    const { gateway, merchant, chain, pay, sender, queued, stored } = setup();
    await gateway.fund(merchant.id, 'USDT', '500');
    const payout = await pay({});
    chain.failBroadcasts = 1;
    await expect(sender.handle(queued[0]!)).rejects.toThrow(/unreachable/);
    const signed = (await stored(payout.id)).payout.attempts;
    expect(signed).toHaveLength(1);
    expect(await sender.handle(queued[0]!)).toBe('rebroadcast');
    expect(chain.signed).toBe(1);
    expect(chain.pool.size).toBe(1);
    expect((await stored(payout.id)).transactionHash).toBe(signed[0]!.transactionHash);
  });

  it("confirms it once its transaction has the network's confirmations, paying the reserve out with the callback", async () => {
    const { gateway, merchant, chain, pay, drain, settlement, stored, balance } = setup();
    await gateway.fund(merchant.id, 'USDT', '500');
    const payout = await pay({});
    expect(await drain()).toEqual(['sent']);
    chain.mineBlocks(CONFIRMATIONS - 1);
    expect(await settlement.run()).toMatchObject({ waiting: 1, confirmed: 0 });
    chain.mine();
    expect(await settlement.run()).toMatchObject({ confirmed: 1 });
    expect(await settlement.run()).toMatchObject({ confirmed: 0, waiting: 0 });
    const settled = await stored(payout.id);
    expect(settled).toMatchObject({ status: 'confirmed', transactionHash: settled.payout.attempts[0]!.transactionHash });
    // Its receipt's evidence, whole: the block by number and hash, the token's Transfer log, the depth it was settled at.
    expect(settled.evidence).toEqual({
      source: 'chain',
      network: 'ethereum',
      transactionHash: settled.transactionHash,
      blockNumber: expect.any(Number),
      blockHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      logIndex: 0,
      to: DESTINATION,
      contract: USDT,
      confirmations: CONFIRMATIONS,
    });
    expect(chain.received.get(`${DESTINATION}/${USDT}`)).toBe(100_000_000n);
    expect(await balance('USDT')).toMatchObject({ available: '398.932800', reserved: '0.000000' });
    expect(gateway.callbacks.published).toHaveLength(1);
  });

  it('replaces a transaction stuck past GATEWAY_PAYOUT_STUCK_S, and settles the replacement', async () => {
    const { gateway, merchant, chain, pay, drain, settlement, stored } = setup();
    await gateway.fund(merchant.id, 'USDT', '500');
    const payout = await pay({});
    await drain();
    expect(await settlement.run()).toMatchObject({ waiting: 1 });
    gateway.advance(STUCK_SECONDS);
    expect(await settlement.run()).toMatchObject({ replacing: 1 });
    expect(await drain()).toEqual(['replaced']);
    const [first, second] = (await stored(payout.id)).payout.attempts;
    expect(second!.transactionHash).not.toBe(first!.transactionHash);
    chain.mineBlocks(CONFIRMATIONS);
    await settlement.run();
    expect(await stored(payout.id)).toMatchObject({ status: 'confirmed', transactionHash: second!.transactionHash });
    expect(chain.received.get(`${DESTINATION}/${USDT}`)).toBe(100_000_000n);
  });

  it('fails a reverted transaction, releasing the reserve less the network fee it spent', async () => {
    const { gateway, merchant, chain, pay, drain, settlement, stored, balance } = setup();
    await gateway.fund(merchant.id, 'USDT', '500');
    const payout = await pay({});
    await drain();
    chain.reverting.add((await stored(payout.id)).transactionHash!);
    chain.mineBlocks(CONFIRMATIONS);
    expect(await settlement.run()).toMatchObject({ failed: 1 });
    expect(await stored(payout.id)).toMatchObject({ status: 'failed', fees: { processing: '1.000000', technical: '0.067200', networkSpent: '0.067200' } });
    expect(await balance('USDT')).toMatchObject({ available: '499.932800', reserved: '0.000000' });
  });

  it('hands over again a payout whose message was lost', async () => {
    const { gateway, merchant, pay, queued, settlement } = setup();
    await gateway.fund(merchant.id, 'USDT', '500');
    const payout = await pay({});
    queued.length = 0;
    expect(await settlement.run()).toMatchObject({ waiting: 1 });
    gateway.advance(120);
    expect(await settlement.run()).toMatchObject({ handedOver: 1 });
    expect(queued).toEqual([{ kind: 'send', network: 'ethereum', transactionId: payout.id }]);
  });

  it('waits while the treasury is short, saying of what and how much, and sends once it is funded', async () => {
    const { gateway, merchant, chain, pay, sender, queued, metrics, stored } = setup();
    await gateway.fund(merchant.id, 'USDT', '20000');
    const payout = await pay({ amount: '10050' });
    await expect(sender.handle(queued[0]!)).rejects.toBeInstanceOf(PayoutWaits);
    expect(metrics.treasuryShortfall).toHaveBeenCalledWith('ethereum', 'USDT', 50);
    expect((await stored(payout.id)).payout.attempts).toEqual([]);
    chain.fund(USDT, 50n * 10n ** 6n);
    expect(await sender.handle(queued[0]!)).toBe('sent');
  });

  it('never sends two payouts that each fit the treasury but not together: the second waits, then is short once the first is paid', async () => {
    const { gateway, merchant, chain, pay, sender, settlement, queued, metrics, stored } = setup();
    await gateway.fund(merchant.id, 'USDT', '20000');
    const [first, second] = [await pay({ amount: '6000' }), await pay({ amount: '6000' })];
    expect(await sender.handle(queued[0]!)).toBe('sent');
    await expect(sender.handle(queued[1]!)).rejects.toBeInstanceOf(PayoutWaits);
    expect(metrics.treasuryShortfall).not.toHaveBeenCalled();
    expect((await stored(second.id)).payout.attempts).toEqual([]);

    chain.mineBlocks(12);
    await settlement.run();
    expect((await stored(first.id)).status).toBe('confirmed');
    await expect(sender.handle(queued[1]!)).rejects.toBeInstanceOf(PayoutWaits);
    expect(metrics.treasuryShortfall).toHaveBeenCalledWith('ethereum', 'USDT', 2000);
    chain.fund(USDT, 2000n * 10n ** 6n);
    expect(await sender.handle(queued[1]!)).toBe('sent');
  });

  it('waits, reporting no shortfall, while the treasury waits for its own transactions to be mined', async () => {
    const { gateway, merchant, chain, pay, sender, queued, metrics, stored } = setup();
    await gateway.fund(merchant.id, 'USDT', '500');
    const payout = await pay({});
    chain.busy = true;
    await expect(sender.handle(queued[0]!)).rejects.toBeInstanceOf(PayoutWaits);
    expect(metrics.treasuryShortfall).not.toHaveBeenCalled();
    expect((await stored(payout.id)).payout.attempts).toEqual([]);
    chain.busy = false;
    expect(await sender.handle(queued[0]!)).toBe('sent');
  });
});

describe('approving a payout', () => {
  it('sends an approved payout, written with its audit entry and the code it took', async () => {
    const { gateway, merchant, pay, payouts, queued } = setup({ payoutApprovalAboveUsd: '10' });
    await gateway.fund(merchant.id, 'USDT', '500');
    const payout = await pay({});
    const approved = await payouts.decide(merchant.id, payout.id, 'approve', owner(100));
    expect(approved).toMatchObject({ status: 'processing', decidedBy: 'owner@shop.example' });
    expect(queued).toEqual([{ kind: 'send', network: 'ethereum', transactionId: payout.id }]);
    expect(gateway.ledger.auditEntries).toMatchObject([{ action: 'payout.approved', actor: 'owner@shop.example', merchantId: merchant.id }]);
  });

  it('releases a rejected payout whole, with its callback, and signs nothing', async () => {
    const { gateway, merchant, pay, payouts, queued, balance } = setup({ payoutApprovalAboveUsd: '10' });
    await gateway.fund(merchant.id, 'USDT', '500');
    const payout = await pay({});
    expect(await payouts.decide(merchant.id, payout.id, 'reject', owner(100))).toMatchObject({ status: 'failed' });
    expect(await balance('USDT')).toMatchObject({ available: '500.000000', reserved: '0.000000' });
    expect(queued).toEqual([]);
    expect(gateway.callbacks.published).toHaveLength(1);
  });

  it('refuses a code used before, and a payout decided already, changing nothing', async () => {
    const { gateway, merchant, pay, payouts, queued } = setup({ payoutApprovalAboveUsd: '10' });
    await gateway.fund(merchant.id, 'USDT', '500');
    const [first, second] = [await pay({}), await pay({})];
    await payouts.decide(merchant.id, first.id, 'approve', owner(100));
    expect(await refusal(payouts.decide(merchant.id, second.id, 'approve', owner(100)))).toBeInstanceOf(Invalid);
    expect(await refusal(payouts.decide(merchant.id, first.id, 'reject', owner(101)))).toBeInstanceOf(Conflict);
    expect((await gateway.ledger.get(second.id))!.status).toBe('pending_approval');
    expect(queued).toHaveLength(1);
  });
});

describe('quoting a payout, and asking for one in the dashboard', () => {
  it('quotes the fees, what leaves the balance and what arrives, writing nothing', async () => {
    const { gateway, merchant, payouts, queued, balance } = setup({ payoutApprovalAboveUsd: '150' });
    await gateway.fund(merchant.id, 'USDT', '500');
    const quote = await payouts.quote(merchant.id, request());
    expect(quote).toEqual({
      amount: '100.000000',
      currency: 'USDT',
      network: 'ethereum',
      address: DESTINATION,
      fees: { processing: '1.000000', technical: '0.067200' },
      total: '101.067200',
      arrives: '100.000000',
      waitsForApproval: false,
    });
    expect((await payouts.quote(merchant.id, request({ amount: '150.01' }))).waitsForApproval).toBe(true);
    expect(await balance('USDT')).toMatchObject({ available: '500.000000', reserved: '0.000000' });
    expect(queued).toEqual([]);
    expect(gateway.ledger.auditEntries).toEqual([]);
  });

  it('refuses to quote what create refuses: a pending address, a currency the network does not carry', async () => {
    const { gateway, merchant, payouts } = setup();
    await gateway.fund(merchant.id, 'USDT', '500');
    expect(((await refusal(payouts.quote(merchant.id, request({ address: PENDING_DESTINATION })))) as Invalid).problems[0]!.field).toBe('address');
    expect(((await refusal(payouts.quote(merchant.id, request({ currency: 'TRX' })))) as Invalid).problems[0]!.field).toBe('network');
  });

  it("writes an owner's payout with its audit entry and the code's use; the same code again is refused, asking for nothing twice", async () => {
    const { gateway, merchant, payouts, queued, balance } = setup();
    await gateway.fund(merchant.id, 'USDT', '500');
    const payout = await payouts.create(merchant.id, request(), owner(200));
    expect(payout.status).toBe('processing');
    expect(gateway.ledger.auditEntries).toMatchObject([{ action: 'payout.requested', actor: 'owner@shop.example', merchantId: merchant.id, subject: expect.stringContaining(payout.id) }]);
    expect(gateway.ledger.codeSteps.get('owner@shop.example')).toBe(200);

    const again = (await refusal(payouts.create(merchant.id, request(), owner(200)))) as Invalid;
    expect(again).toBeInstanceOf(Invalid);
    expect(again.problems[0]!.field).toBe('code');
    expect(await balance('USDT')).toMatchObject({ available: '398.932800', reserved: '101.067200' });
    expect(queued).toHaveLength(1);
    expect(gateway.ledger.auditEntries).toHaveLength(1);
  });
});
