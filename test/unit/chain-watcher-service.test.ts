/**
 * On-chain deposits (docs/merchant-guide.md "On-chain deposits") through the chain watcher over
 * in-memory ports: a chain mined and reorganised as the test says, and the transaction service
 * over in-memory stores. The watcher against a real node, its RPC failures and the DynamoDB
 * actions its route allows are tested in test/integration/chain-watcher.test.ts.
 */
import { describe, expect, it, vi } from 'vitest';
import { webhookId } from '../../shared/domain/transactions/transaction-callbacks.js';
import { ChainWatcher } from '../../shared/domain/payments/chain-watcher.js';
import type { ChainReader } from '../../shared/domain/chains/chain.js';
import { transferClaimId } from '../../shared/domain/chains/claims.js';
import type { Invoice } from '../../shared/domain/invoicing/invoice.js';
import type { Merchant } from '../../shared/domain/merchants/merchants.js';
import { MemoryChain, type ChainPayment } from '../support/memory/chain.js';
import { MemoryChainState } from '../support/memory/chain-state.js';
import { INVOICE_LIFETIME_SECONDS, memoryGateway, type MemoryGateway } from '../support/memory/gateway.js';

/** Few, so that tests mine little; the production defaults are in docs/merchant-guide.md. */
const CONFIRMATIONS = 3;
const USDT_CONTRACT = `0x${'d7'.repeat(20)}`;
const UNWATCHED_CONTRACT = `0x${'fa'.repeat(20)}`;
const STRANGER = `0x${'5e'.repeat(20)}`;
const ETHER = 10n ** 18n;

let gateway: MemoryGateway;
let merchant: Merchant;
let chain: MemoryChain;
let state: MemoryChainState;
const log = { info: vi.fn(), warn: vi.fn() };

function setup(merchantFields: Partial<Merchant> = {}) {
  gateway = memoryGateway();
  merchant = gateway.merchants.add(merchantFields);
  chain = new MemoryChain();
  state = new MemoryChainState();
}

/** A watcher of the test chain (or of `reader`, the chain as some node tells it); every one shares the chain's state, as every run of a network does. */
const watcher = (maxBlocksPerRun = 100, reader: ChainReader = chain) =>
  new ChainWatcher({
    network: 'ethereum',
    chain: { confirmations: CONFIRMATIONS, tokens: { USDT: { address: USDT_CONTRACT, decimals: 6 } } },
    reader,
    state,
    owners: gateway.wallets,
    invoices: gateway.invoices,
    merchants: gateway.merchants,
    transactions: gateway.transactionService,
    pending: gateway.ledger,
    stage: 'demo',
    invoiceLifetimeSeconds: INVOICE_LIFETIME_SECONDS,
    maxBlocksPerRun,
    clock: gateway.clock,
    log,
  });

const run = () => watcher().run();

const ethInvoice = (customerId = 'alice') => gateway.createInvoice(merchant.id, { customerId, baseCurrency: 'ETH', amount: 0.5 });

/** Mines the payments in one block, with enough blocks on top for its confirmations; their hashes. */
function mineConfirmed(...payments: ChainPayment[]): string[] {
  const hashes = chain.mine(...payments);
  chain.mineEmpty(CONFIRMATIONS - 1);
  return hashes;
}

const addressOf = (invoice: Invoice) => invoice.wallet!.address;
const stored = async (invoice: Invoice) => (await gateway.invoices.get(invoice.id))!;
const depositsOf = (invoice: Invoice) => gateway.ledger.listByInvoice(invoice.id);

describe('deposits found on chain', () => {
  it('records a transfer short of its confirmations as processing without a callback, and confirms it at depth, calling back then', async () => {
    setup();
    const invoice = await ethInvoice();
    const [hash] = chain.mine({ to: addressOf(invoice), value: ETHER / 2n });
    expect(await run()).toMatchObject({ head: 1, cursor: 1, recorded: 1, confirmed: 0 });
    const [pending] = await depositsOf(invoice);
    expect(pending).toMatchObject({ status: 'processing', amount: '0.500000000000000000', currency: 'ETH', network: 'ethereum', transactionHash: hash, chain: { blockNumber: 1, logIndex: null } });
    const block = await chain.blockHash(1);
    const evidence = { source: 'chain', network: 'ethereum', transactionHash: hash, blockNumber: 1, blockHash: block, logIndex: null, to: addressOf(invoice), contract: null };
    expect(pending!.evidence).toEqual({ ...evidence, confirmations: 1 });
    expect(await stored(invoice)).toMatchObject({ status: 'created', paymentStatus: 'unpaid' });
    expect(gateway.callbacks.published).toEqual([]);

    chain.mineEmpty(CONFIRMATIONS - 2);
    expect(await run()).toMatchObject({ confirmed: 0 });
    chain.mineEmpty(1);
    expect(await run()).toMatchObject({ confirmed: 1, recorded: 0 });
    expect(await stored(invoice)).toMatchObject({ status: 'completed', paymentStatus: 'paid' });
    // The receipt's evidence states the depth it was confirmed at, written with the confirmation.
    expect((await depositsOf(invoice))[0]!.evidence).toEqual({ ...evidence, confirmations: CONFIRMATIONS });
    expect(gateway.callbacks.published).toEqual([webhookId(pending!.id, 'confirmed')]);
    expect(gateway.metrics.depositSettled).toHaveBeenCalledExactlyOnceWith('chain', 'confirmed');
  });

  it('confirms at once a transfer first seen at its depth, exact to the wei', async () => {
    setup();
    const invoice = await ethInvoice();
    mineConfirmed({ to: addressOf(invoice), value: 123_456_789_012_345_678n });
    await run();
    expect(await depositsOf(invoice)).toMatchObject([{ status: 'confirmed', amount: '0.123456789012345678' }]);
    expect(await stored(invoice)).toMatchObject({ paidAmount: '0.123456789012345678', paymentStatus: 'partial' });
  });

  it("reads transfers of the watched tokens only, and only to customers' addresses", async () => {
    setup();
    const invoice = await gateway.createInvoice(merchant.id, { baseCurrency: 'USDT', amount: 25 });
    const [paid] = mineConfirmed(
      { token: UNWATCHED_CONTRACT, to: addressOf(invoice), value: 25_000_000n },
      { token: USDT_CONTRACT, to: STRANGER, value: 25_000_000n },
      { to: STRANGER, value: ETHER },
      { token: USDT_CONTRACT, to: addressOf(invoice), value: 25_000_000n },
    ).slice(-1);
    expect(await run()).toMatchObject({ recorded: 1, held: 0 });
    expect(await depositsOf(invoice)).toMatchObject([
      {
        status: 'confirmed',
        amount: '25.000000',
        currency: 'USDT',
        transactionHash: paid,
        chain: { logIndex: 2 },
        evidence: { logIndex: 2, contract: USDT_CONTRACT, to: addressOf(invoice), confirmations: CONFIRMATIONS },
      },
    ]);
    expect(await stored(invoice)).toMatchObject({ status: 'completed', paymentStatus: 'paid' });
  });

  it('scans a bounded range of blocks a run, each run going on where the last stopped', async () => {
    setup();
    const invoice = await ethInvoice();
    chain.mineEmpty(4);
    mineConfirmed({ to: addressOf(invoice), value: ETHER / 2n });
    expect(chain.head).toBe(7);
    const bounded = watcher(3);
    expect(await bounded.run()).toMatchObject({ scanned: 3, cursor: 3, recorded: 0 });
    expect(await bounded.run()).toMatchObject({ scanned: 3, cursor: 6, recorded: 1 });
    expect(await bounded.run()).toMatchObject({ scanned: 1, cursor: 7, recorded: 0 });
  });
});

describe('which invoice a transfer pays', () => {
  it("the customer's oldest open invoice in the asset, then the next", async () => {
    setup();
    const older = await ethInvoice();
    gateway.advance(60);
    const newer = await ethInvoice();
    mineConfirmed({ to: addressOf(older), value: ETHER / 2n });
    await run();
    mineConfirmed({ to: addressOf(older), value: ETHER / 2n });
    await run();
    expect(await stored(older)).toMatchObject({ status: 'completed', transactionIds: [expect.any(String)] });
    expect(await stored(newer)).toMatchObject({ status: 'completed', transactionIds: [expect.any(String)] });
  });

  it('with none open, the latest in the asset: an expired one completes late', async () => {
    setup();
    const invoice = await ethInvoice();
    gateway.advance(INVOICE_LIFETIME_SECONDS);
    await gateway.sweep();
    mineConfirmed({ to: addressOf(invoice), value: ETHER / 2n });
    await run();
    expect(await stored(invoice)).toMatchObject({ status: 'completed', cancelReason: 'expired', paidLate: true });
  });

  it("with none in the asset, the customer's latest crypto invoice, recorded there without paying it", async () => {
    setup();
    const invoice = await gateway.createInvoice(merchant.id, { customerId: 'alice', baseCurrency: 'USDT', amount: 25 });
    mineConfirmed({ to: addressOf(invoice), value: ETHER / 100n });
    await run();
    expect(await depositsOf(invoice)).toMatchObject([{ status: 'confirmed', currency: 'ETH', amount: '0.010000000000000000' }]);
    expect(await stored(invoice)).toMatchObject({ status: 'created', paymentStatus: 'unpaid' });
  });
});

describe('each transfer once', () => {
  it('however often the chain is read: a run that lost its cursor reads the same blocks again and records nothing new', async () => {
    setup();
    const invoice = await ethInvoice();
    mineConfirmed({ to: addressOf(invoice), value: ETHER / 4n });
    await run();
    state = new MemoryChainState();
    await run();
    expect(await depositsOf(invoice)).toHaveLength(1);
    expect(await stored(invoice)).toMatchObject({ paidAmount: '0.250000000000000000' });
  });

  it('when two runs race: both record it as one deposit, and the run whose cursor lost says so', async () => {
    setup();
    const invoice = await ethInvoice();
    mineConfirmed({ to: addressOf(invoice), value: ETHER / 2n });
    const outcomes = await Promise.allSettled([run(), run()]);
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(outcomes.find((outcome) => outcome.status === 'rejected')!.reason.message).toBe("The ethereum cursor was moved by another run; this run's writes stand and the next run carries on");
    expect(await depositsOf(invoice)).toHaveLength(1);
    expect(gateway.callbacks.published).toHaveLength(1);
  });
});

describe('reorganisations', () => {
  it('fail a deposit whose block leaves the chain before its confirmations, without a callback; mined again, it is a new deposit', async () => {
    setup();
    const invoice = await ethInvoice();
    const payment = { to: addressOf(invoice), value: ETHER / 2n };
    const [hash] = chain.mine(payment);
    await run();
    const [first] = await depositsOf(invoice);

    chain.fork(0);
    chain.mineEmpty(2);
    expect(await run()).toMatchObject({ failed: 1, reorg: { from: 1, to: 0 } });
    expect(await gateway.ledger.get(first!.id)).toMatchObject({ status: 'failed' });
    expect(await stored(invoice)).toMatchObject({ status: 'created', paymentStatus: 'unpaid' });
    expect(gateway.callbacks.published).toEqual([]);
    expect(await gateway.ledger.getClaim(transferClaimId({ network: 'ethereum', transactionHash: hash!, logIndex: null }))).toBeUndefined();

    mineConfirmed({ ...payment, hash });
    await run();
    const deposits = await depositsOf(invoice);
    expect(deposits.map((deposit) => [deposit.transactionHash, deposit.status])).toEqual([
      [hash, 'failed'],
      [hash, 'confirmed'],
    ]);
    expect(await stored(invoice)).toMatchObject({ status: 'completed', paymentStatus: 'paid' });
    expect(gateway.callbacks.published).toEqual([webhookId(deposits[1]!.id, 'confirmed')]);
  });

  it('are not read into a node whose head is behind the cursor (resyncing, a lagging backend): the run fails and changes nothing, and confirms once the node is back', async () => {
    setup();
    const invoice = await ethInvoice();
    chain.mineEmpty(2);
    chain.mine({ to: addressOf(invoice), value: ETHER / 2n });
    expect(await run()).toMatchObject({ head: 3, cursor: 3, recorded: 1 });

    // The same chain, as a node two blocks behind tells it.
    const behind: ChainReader = Object.assign(Object.create(chain) as ChainReader, { headNumber: async () => 1 });
    await expect(watcher(100, behind).run()).rejects.toThrow("The ethereum node's head 1 is below block 3, already read: it is behind, and this run reads nothing");
    expect((await state.cursor('ethereum'))?.number).toBe(3);
    const [deposit] = await depositsOf(invoice);
    expect(deposit).toMatchObject({ status: 'processing' });

    chain.mineEmpty(CONFIRMATIONS - 1);
    expect(await run()).toMatchObject({ confirmed: 1, failed: 0 });
    expect(await depositsOf(invoice)).toEqual([expect.objectContaining({ id: deposit!.id, status: 'confirmed' })]);
  });
});

describe('transfers held', () => {
  it('for a merchant that takes no on-chain deposits, once, credited once the merchant does', async () => {
    setup({ onchainDeposits: false });
    const invoice = await ethInvoice();
    mineConfirmed({ to: addressOf(invoice), value: ETHER / 2n });
    expect(await run()).toMatchObject({ recorded: 0, held: 1 });
    chain.mineEmpty(1);
    expect(await run()).toMatchObject({ held: 0, credited: 0 });
    expect(await state.held('ethereum')).toMatchObject([{ reason: 'onchain-deposits-off', merchantId: merchant.id, customerId: 'alice', amount: '0.500000000000000000' }]);
    expect(await depositsOf(invoice)).toEqual([]);

    gateway.merchants.update(merchant.id, { onchainDeposits: true });
    expect(await run()).toMatchObject({ credited: 1 });
    expect(await state.held('ethereum')).toEqual([]);
    expect(await stored(invoice)).toMatchObject({ status: 'completed', paymentStatus: 'paid' });
  });

  it('for a customer with no crypto invoice, credited to the first one they get', async () => {
    setup();
    const { addresses } = await gateway.wallets.addressesFor(merchant.id, 'bob');
    mineConfirmed({ to: addresses.evm, value: ETHER / 2n });
    expect(await run()).toMatchObject({ held: 1 });
    expect(await state.held('ethereum')).toMatchObject([{ reason: 'no-invoice', customerId: 'bob' }]);

    const invoice = await ethInvoice('bob');
    expect(await run()).toMatchObject({ credited: 1 });
    expect(await stored(invoice)).toMatchObject({ status: 'completed', paymentStatus: 'paid' });
  });

  it('dropped when its block leaves the chain before it is credited', async () => {
    setup({ onchainDeposits: false });
    const invoice = await ethInvoice();
    mineConfirmed({ token: USDT_CONTRACT, to: addressOf(invoice), value: 25_000_000n });
    await run();
    chain.fork(0);
    chain.mineEmpty(CONFIRMATIONS);
    gateway.merchants.update(merchant.id, { onchainDeposits: true });
    expect(await run()).toMatchObject({ credited: 0 });
    expect(await state.held('ethereum')).toEqual([]);
    expect(await depositsOf(invoice)).toEqual([]);
  });
});
