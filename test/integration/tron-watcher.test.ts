/**
 * The chain watcher on Tron (docs/merchant-guide.md#on-chain-deposits): the watch-chain function,
 * configured as a deployment is (GATEWAY_RPC_TRON, GATEWAY_TOKENS_TRON,
 * GATEWAY_CONFIRMATIONS_TRON), over the test run's tables, reading a Tron full node's HTTP API
 * served from a chain the tests build (test/support/tron-node.ts): TRX and TRC-20 USDT credited
 * exactly, failed transactions, other contracts and strangers ignored, reorganisations before the
 * confirmations, restarts, held deposits, and a node that fails.
 */
import { afterAll, beforeAll, describe, expect, it, type MockInstance, vi } from 'vitest';
import { tronAddress } from '../../shared/chain/tron-reader.js';
import { localStageConfiguration } from '../support/stage-configuration.js';
import { transactionHash } from '../../shared/domain/transactions/transactions.js';
import { logger } from '../../shared/observability/logger.js';
import { addressOn, callbackFor, createInvoice, creditsOf, depositsOf, getInvoice, getTransaction, setEnvironment, total, watcherOf } from '../support/chain-watch.js';
import { expireInvoice } from '../support/invoke.js';
import { testMerchantCli, type TestCli } from '../support/merchant-cli.js';
import { seedMerchant, testChainStore, type SeededMerchant } from '../support/merchants.js';
import { trc20, trx, TronNode, type TronNodeFault } from '../support/tron-node.js';

/** Few, so that tests add few blocks; the default (19, solidified) has a test of its own. */
const CONFIRMATIONS = 3;
/** The deployment's USDT contract: not the stage's built-in one, so that only GATEWAY_TOKENS_TRON names it. */
const USDT = tronAddress(`41${'a1'.repeat(20)}`);
/** A TRC-20 contract the deployment does not configure. */
const UNCONFIGURED_TOKEN = tronAddress(`41${'b2'.repeat(20)}`);
/** An address no customer owns. */
const STRANGER = tronAddress(`41${'c3'.repeat(20)}`);

let node: TronNode;
let merchant: SeededMerchant;
let testCli: TestCli;
const watcher = watcherOf('tron');

beforeAll(async () => {
  node = await TronNode.start();
  node.mineEmpty(5);
  setEnvironment({
    GATEWAY_RPC_TRON: node.url,
    GATEWAY_TOKENS_TRON: JSON.stringify({ USDT }),
    GATEWAY_CONFIRMATIONS_TRON: String(CONFIRMATIONS),
  });
  expect(localStageConfiguration().chains.tron).toMatchObject({ rpcUrl: node.url, confirmations: CONFIRMATIONS, tokens: { USDT: { address: USDT, decimals: 6 } } });
  [merchant, testCli] = await Promise.all([seedMerchant(), testMerchantCli()]);
  await watcher.catchUp();
});

afterAll(async () => {
  node?.close();
  await testCli?.remove();
});

/** Adds empty blocks until a transfer in block `height` has its confirmations. */
function confirm(height: number): void {
  node.mineEmpty(Math.max(0, height + CONFIRMATIONS - 1 - node.head));
}

/** Sun or a 6-decimal token's smallest unit. */
const units = (amount: string): bigint => {
  const [whole, fraction = ''] = amount.split('.');
  return BigInt(whole!) * 1_000_000n + BigInt(fraction.padEnd(6, '0'));
};

describe('TRX and TRC-20 USDT deposits', () => {
  it('credits TRX to the sun: processing below the confirmations, confirmed with a callback at them', async () => {
    const invoice = await createInvoice(merchant, { baseCurrency: 'TRX', amount: 112.345678 });
    expect(invoice.paymentAmount).toBe('112.345678');
    const paid = trx(addressOn(invoice, 'tron'), units('112.345678'));
    const height = node.mine(paid);

    expect(total(await watcher.catchUp(), 'recorded')).toBe(1);
    const [pending, ...others] = await depositsOf(invoice.id);
    expect(others).toEqual([]);
    expect(pending).toMatchObject({
      status: 'processing',
      amount: '112.345678',
      currency: 'TRX',
      network: 'tron',
      transactionHash: paid.txID,
      chain: { blockNumber: height, blockHash: node.hashAt(height), logIndex: null },
    });
    expect(await callbackFor(merchant, pending!.id, 'processing')).toBeUndefined();
    expect(await getInvoice(merchant, invoice.id)).toMatchObject({ status: 'created', paidAmount: '0.000000', paymentStatus: 'unpaid' });
    expect(await creditsOf(merchant, pending!.id)).toEqual([]);

    // One block short of the confirmations: still processing.
    node.mineEmpty(CONFIRMATIONS - 2);
    expect(total(await watcher.catchUp(), 'confirmed')).toBe(0);
    node.mineEmpty(1);
    expect(total(await watcher.catchUp(), 'confirmed')).toBe(1);
    const confirmed = await getTransaction(merchant, pending!.id);
    expect(confirmed).toMatchObject({ status: 'confirmed', amount: '112.345678', currency: 'TRX', transactionHash: paid.txID });
    expect(confirmed.hash).toBe(transactionHash(confirmed, merchant.callbackSecret));
    expect(await callbackFor(merchant, pending!.id, 'confirmed')).toMatchObject({
      id: pending!.id,
      status: 'confirmed',
      amount: '112.345678',
      currency: 'TRX',
      network: 'tron',
      transactionHash: paid.txID,
      hash: confirmed.hash,
    });
    expect(await getInvoice(merchant, invoice.id)).toMatchObject({ status: 'completed', paidAmount: '112.345678', paymentStatus: 'paid', transactionIds: [pending!.id] });
    expect(await creditsOf(merchant, pending!.id)).toEqual([{ type: 'deposit', amount: '112.345678', currency: 'TRX' }]);
  });

  it('completes a USDT invoice only once its partial TRC-20 payments add up, with a transaction and callback each', async () => {
    const invoice = await createInvoice(merchant, { baseCurrency: 'USDT', amount: 25 });
    const address = addressOn(invoice, 'tron');
    const part = trc20(USDT, address, units('10.000001'));
    confirm(node.mine(part));
    await watcher.catchUp();
    expect(await getInvoice(merchant, invoice.id)).toMatchObject({ status: 'created', paidAmount: '10.000001', paymentStatus: 'partial' });

    const rest = trc20(USDT, address, units('14.999999'));
    confirm(node.mine(rest));
    await watcher.catchUp();
    const deposits = await depositsOf(invoice.id);
    expect(deposits.map((d) => [d.transactionHash, d.chain?.logIndex, d.status, d.amount, d.currency, d.network])).toEqual([
      [part.txID, 0, 'confirmed', '10.000001', 'USDT', 'tron'],
      [rest.txID, 0, 'confirmed', '14.999999', 'USDT', 'tron'],
    ]);
    for (const deposit of deposits) {
      expect(await callbackFor(merchant, deposit.id, 'confirmed')).toMatchObject({ id: deposit.id, status: 'confirmed', amount: deposit.amount, currency: 'USDT' });
      expect(await creditsOf(merchant, deposit.id)).toEqual([{ type: 'deposit', amount: deposit.amount, currency: 'USDT' }]);
    }
    expect(await getInvoice(merchant, invoice.id)).toMatchObject({ status: 'completed', paidAmount: '25.000000', paymentStatus: 'paid', transactionIds: deposits.map((d) => d.id) });
  });

  it('marks a USDT invoice paid past its amount overpaid', async () => {
    const invoice = await createInvoice(merchant, { baseCurrency: 'USDT', amount: 10 });
    const paid = trc20(USDT, addressOn(invoice, 'tron'), units('12.5'));
    confirm(node.mine(paid));
    await watcher.catchUp();
    const [deposit, ...others] = await depositsOf(invoice.id);
    expect(others).toEqual([]);
    expect(deposit).toMatchObject({ status: 'confirmed', amount: '12.500000', transactionHash: paid.txID });
    expect(await getInvoice(merchant, invoice.id)).toMatchObject({ status: 'completed', paidAmount: '12.500000', paymentStatus: 'overpaid' });
  });

  it('completes an expired invoice paid late with paidLate, with its callback', async () => {
    const invoice = await createInvoice(merchant, { baseCurrency: 'TRX', amount: 40 });
    await expireInvoice(invoice.id);
    expect(await getInvoice(merchant, invoice.id)).toMatchObject({ status: 'canceled' });

    const late = trx(addressOn(invoice, 'tron'), units('40'));
    confirm(node.mine(late));
    await watcher.catchUp();
    expect(await getInvoice(merchant, invoice.id)).toMatchObject({ status: 'completed', paidLate: true, paymentStatus: 'paid', paidAmount: '40.000000' });
    const [deposit] = await depositsOf(invoice.id);
    expect(await callbackFor(merchant, deposit!.id, 'confirmed')).toMatchObject({ status: 'confirmed', transactionHash: late.txID });
  });

  it('ignores failed transactions, transfers of a TRC-20 contract it is not configured with, and transfers to strangers', async () => {
    const invoice = await createInvoice(merchant, { baseCurrency: 'USDT', amount: 30 });
    const address = addressOn(invoice, 'tron');
    const counted = trc20(USDT, address, units('2'));
    const height = node.mine(
      trc20(USDT, address, units('30'), 'REVERT'),
      trx(address, units('100'), 'OUT_OF_ENERGY'),
      trc20(UNCONFIGURED_TOKEN, address, units('30')),
      trx(STRANGER, units('5')),
      trc20(USDT, STRANGER, units('5')),
      counted,
    );
    confirm(height);
    const runs = await watcher.catchUp();
    expect(total(runs, 'recorded')).toBe(1);
    expect(total(runs, 'held')).toBe(0);
    expect((await depositsOf(invoice.id)).map((d) => [d.transactionHash, d.status, d.amount])).toEqual([[counted.txID, 'confirmed', '2.000000']]);
    expect(await getInvoice(merchant, invoice.id)).toMatchObject({ status: 'created', paidAmount: '2.000000', paymentStatus: 'partial' });
  });
});

describe('reorganisations before the confirmations', () => {
  it('fails a deposit whose block left the chain, without a callback, and records it anew where it is mined again, credited once', async () => {
    const invoice = await createInvoice(merchant, { baseCurrency: 'USDT', amount: 8 });
    const sent = trc20(USDT, addressOn(invoice, 'tron'), units('8'));
    const height = node.mine(sent);
    const oldHash = node.hashAt(height);
    await watcher.catchUp();
    const [pending] = await depositsOf(invoice.id);
    expect(pending).toMatchObject({ status: 'processing', chain: { blockNumber: height, blockHash: oldHash } });

    // The new branch holds the same transaction one block later.
    node.reorg(height, [[], [sent]]);
    const runs = await watcher.catchUp();
    expect(runs[0]!.reorg).toEqual({ from: height, to: height - 1 });
    expect(total(runs, 'failed')).toBe(1);
    expect(await getTransaction(merchant, pending!.id)).toMatchObject({ status: 'failed' });
    expect(await callbackFor(merchant, pending!.id, 'failed')).toBeUndefined();
    expect(await creditsOf(merchant, pending!.id)).toEqual([]);

    confirm(height + 1);
    await watcher.catchUp();
    const deposits = await depositsOf(invoice.id);
    expect(deposits.map((d) => [d.transactionHash, d.status, d.chain?.blockNumber, d.chain?.blockHash])).toEqual([
      [sent.txID, 'failed', height, oldHash],
      [sent.txID, 'confirmed', height + 1, node.hashAt(height + 1)],
    ]);
    expect(await creditsOf(merchant, deposits[1]!.id)).toEqual([{ type: 'deposit', amount: '8.000000', currency: 'USDT' }]);
    expect(await callbackFor(merchant, deposits[1]!.id, 'confirmed')).toMatchObject({ status: 'confirmed', transactionHash: sent.txID });
    expect(await getInvoice(merchant, invoice.id)).toMatchObject({ status: 'completed', paidAmount: '8.000000', paymentStatus: 'paid', transactionIds: deposits.map((d) => d.id) });
  });

  it('fails a deposit whose transaction the new branch dropped, and credits nothing', async () => {
    const invoice = await createInvoice(merchant, { baseCurrency: 'TRX', amount: 30 });
    const height = node.mine(trx(addressOn(invoice, 'tron'), units('30')));
    await watcher.catchUp();
    node.reorg(height);
    confirm(node.head);
    const runs = await watcher.catchUp();
    expect(total(runs, 'failed')).toBe(1);
    expect(total(runs, 'recorded')).toBe(0);
    const [deposit, ...others] = await depositsOf(invoice.id);
    expect(others).toEqual([]);
    expect(deposit).toMatchObject({ status: 'failed' });
    expect(await callbackFor(merchant, deposit!.id, 'failed')).toBeUndefined();
    expect(await creditsOf(merchant, deposit!.id)).toEqual([]);
    expect(await getInvoice(merchant, invoice.id)).toMatchObject({ status: 'created', paidAmount: '0.000000', paymentStatus: 'unpaid' });
  });
});

describe('restarts and the solidified depth', () => {
  it('carries on after a restart part way through more blocks than one run reads, recording each transfer once', async () => {
    const invoice = await createInvoice(merchant, { baseCurrency: 'USDT', amount: 6 });
    const address = addressOn(invoice, 'tron');
    const start = node.head;
    const sent = [trc20(USDT, address, units('2')), trc20(USDT, address, units('2')), trc20(USDT, address, units('2'))];
    // Two transfers within the first run's 200 blocks, the third past them.
    node.mine(sent[0]!);
    node.mineEmpty(148);
    node.mine(sent[1]!);
    node.mineEmpty(109);
    confirm(node.mine(sent[2]!));

    const first = await watcher.once();
    expect(first).toMatchObject({ scanned: 200, cursor: start + 200, recorded: 2 });
    const partWay = await testChainStore().cursor('tron');

    // A new container over the same tables carries on from the cursor.
    const restarted = await watcher.coldStart();
    expect(await restarted.run()).toMatchObject({ cursor: node.head, recorded: 1 });
    // A run that wrote and died before moving its cursor: the next scans the same blocks again.
    expect(await testChainStore().moveCursor('tron', partWay!, (await testChainStore().cursor('tron'))!, new Date())).toBe(true);
    expect(await restarted.run()).toMatchObject({ scanned: node.head - partWay!.number, cursor: node.head });

    const deposits = await depositsOf(invoice.id);
    expect(deposits.map((d) => [d.transactionHash, d.status])).toEqual(sent.map((tx) => [tx.txID, 'confirmed']));
    expect(await getInvoice(merchant, invoice.id)).toMatchObject({ status: 'completed', paidAmount: '6.000000', transactionIds: deposits.map((d) => d.id) });
  });

  it('confirms at 19 blocks, its own included, when the confirmations are not configured', async () => {
    const solidifying = await watcher.coldStart({ GATEWAY_CONFIRMATIONS_TRON: undefined });
    const invoice = await createInvoice(merchant, { baseCurrency: 'TRX', amount: 25 });
    const height = node.mine(trx(addressOn(invoice, 'tron'), units('25')));
    expect(await solidifying.run()).toMatchObject({ recorded: 1, confirmed: 0 });
    node.mineEmpty(17);
    expect(await solidifying.run()).toMatchObject({ head: height + 17, confirmed: 0 });
    expect(await depositsOf(invoice.id)).toMatchObject([{ status: 'processing' }]);
    node.mineEmpty(1);
    expect(await solidifying.run()).toMatchObject({ head: height + 18, confirmed: 1 });
    expect(await getInvoice(merchant, invoice.id)).toMatchObject({ status: 'completed', paymentStatus: 'paid' });
  });
});

describe('merchants that do not take on-chain deposits', () => {
  it('holds their transfers, lists them in the admin CLI, and credits them once turned on', async () => {
    const offline = await seedMerchant({ onchainDeposits: false });
    const invoice = await createInvoice(offline, { baseCurrency: 'USDT', amount: 12 });
    const sent = trc20(USDT, addressOn(invoice, 'tron'), units('7'));
    const before = await testChainStore().cursor('tron');
    confirm(node.mine(sent));
    expect(total(await watcher.catchUp(), 'held')).toBe(1);
    expect(await depositsOf(invoice.id)).toEqual([]);
    expect(await getInvoice(offline, invoice.id)).toMatchObject({ status: 'created', paymentStatus: 'unpaid' });

    const heldDeposits = async () => JSON.parse((await testCli.run(['held-deposits', '--merchant', offline.merchant.id, '--json'])).out);
    expect(await heldDeposits()).toEqual([
      expect.objectContaining({ network: 'tron', transactionHash: sent.txID, logIndex: 0, asset: 'USDT', amount: '7.000000', customerId: invoice.customerId, reason: 'onchain-deposits-off' }),
    ]);
    // Scanning the same blocks again holds it once.
    expect(await testChainStore().moveCursor('tron', before!, (await testChainStore().cursor('tron'))!, new Date())).toBe(true);
    expect(total(await watcher.catchUp(), 'held')).toBe(0);
    expect(await heldDeposits()).toHaveLength(1);

    expect((await testCli.run(['onchain-deposits', '--merchant', offline.merchant.id, '--on'])).code).toBe(0);
    expect(total(await watcher.catchUp(), 'credited')).toBe(1);
    const [deposit, ...others] = await depositsOf(invoice.id);
    expect(others).toEqual([]);
    expect(deposit).toMatchObject({ status: 'confirmed', amount: '7.000000', transactionHash: sent.txID });
    expect(await callbackFor(offline, deposit!.id, 'confirmed')).toMatchObject({ status: 'confirmed', transactionHash: sent.txID });
    expect(await getInvoice(offline, invoice.id)).toMatchObject({ paidAmount: '7.000000', paymentStatus: 'partial' });
    expect(await heldDeposits()).toEqual([]);
  });
});

describe('a node that fails', () => {
  let loggedErrors: MockInstance<typeof logger.error>;
  beforeAll(() => {
    // Failures caused on purpose: the log is checked, not printed.
    loggedErrors = vi.spyOn(logger, 'error').mockImplementation(() => undefined);
  });
  afterAll(() => loggedErrors.mockRestore());

  it.each<[TronNodeFault, RegExp]>([
    ['refused', /fetch failed, caused by .*ECONNREFUSED/],
    ['silent', /timeout/i],
    ['error-answer', /StoreException : database is being repaired/],
    ['not-json', /no JSON/],
    ['not-a-block', /ZodError: blockID: /],
    ['parent-mismatch', /block \d+ names e{64} as its parent, not block \d+ [0-9a-f]{64}/],
  ])('leaves the cursor and credits nothing when the node is %s, logging one error a run that says why, then carries on', async (fault, reason) => {
    const invoice = await createInvoice(merchant, { baseCurrency: 'USDT', amount: 9 });
    confirm(node.mine(trc20(USDT, addressOn(invoice, 'tron'), units('9'))));
    const cursor = await testChainStore().cursor('tron');
    loggedErrors.mockClear();
    // A silent node costs the reader's whole timeout: once is enough.
    const failedRuns = fault === 'silent' ? 1 : 2;
    await node.failWith(fault);
    try {
      for (let run = 0; run < failedRuns; run++) expect(await watcher.once()).toEqual({ network: 'tron', runFailed: true });
    } finally {
      await node.heal();
    }
    expect(loggedErrors).toHaveBeenCalledTimes(failedRuns);
    for (const [message, details] of loggedErrors.mock.calls) {
      expect(message).toMatch(/^Chain watcher run failed/);
      expect(details).toEqual({ network: 'tron', reason: expect.stringMatching(reason) });
    }
    expect(await testChainStore().cursor('tron')).toEqual(cursor);
    expect(await depositsOf(invoice.id)).toEqual([]);

    await watcher.catchUp();
    const [deposit, ...others] = await depositsOf(invoice.id);
    expect(others).toEqual([]);
    expect(deposit).toMatchObject({ status: 'confirmed', amount: '9.000000' });
    expect(await creditsOf(merchant, deposit!.id)).toEqual([{ type: 'deposit', amount: '9.000000', currency: 'USDT' }]);
    expect(await getInvoice(merchant, invoice.id)).toMatchObject({ status: 'completed', paidAmount: '9.000000' });
    expect(loggedErrors).toHaveBeenCalledTimes(failedRuns);
  });

  it('stops before a block whose parent is not the block before it, fails each run that reaches it, and credits the rest once the node mends it', async () => {
    const invoice = await createInvoice(merchant, { baseCurrency: 'USDT', amount: 10 });
    const address = addressOn(invoice, 'tron');
    const start = node.head;
    const before = trc20(USDT, address, units('4'));
    const after = trc20(USDT, address, units('6'));
    node.mine(before);
    const broken = node.mine(after);
    confirm(broken);
    const mend = node.breakParentOf(broken);
    loggedErrors.mockClear();
    try {
      expect(await watcher.once()).toMatchObject({ scanned: 1, cursor: start + 1, recorded: 1 });
      expect(await watcher.once()).toEqual({ network: 'tron', runFailed: true });
    } finally {
      mend();
    }
    expect(loggedErrors).toHaveBeenCalledTimes(1);
    expect(loggedErrors.mock.calls[0]![1]).toEqual({ network: 'tron', reason: expect.stringMatching(new RegExp(`block ${broken} names d{64} as its parent, not block ${start + 1} `)) });
    expect(await testChainStore().cursor('tron')).toMatchObject({ number: start + 1, hash: node.hashAt(start + 1) });
    expect((await depositsOf(invoice.id)).map((d) => d.transactionHash)).toEqual([before.txID]);

    await watcher.catchUp();
    const deposits = await depositsOf(invoice.id);
    expect(deposits.map((d) => [d.transactionHash, d.status, d.amount])).toEqual([
      [before.txID, 'confirmed', '4.000000'],
      [after.txID, 'confirmed', '6.000000'],
    ]);
    expect(await getInvoice(merchant, invoice.id)).toMatchObject({ status: 'completed', paidAmount: '10.000000', paymentStatus: 'paid' });
    expect(loggedErrors).toHaveBeenCalledTimes(1);
  });
});
