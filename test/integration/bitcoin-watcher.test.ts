/**
 * The chain watcher on Bitcoin (docs/merchant-guide.md#on-chain-deposits): the watch-chain
 * function, configured as a deployment is (GATEWAY_RPC_BITCOIN with its credentials,
 * GATEWAY_CONFIRMATIONS_BITCOIN), over the test run's tables, reading a real regtest node
 * (infra/chain/bitcoin-node.ts) through a proxy that can be made to fail. Outputs paying an
 * invoice's address are credited to the satoshi, one deposit per (txid, output index); outputs to
 * strangers are not; reorganisations before the confirmations, restarts, held deposits and a node
 * that fails.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { bech32 } from '@scure/base';
import { afterAll, beforeAll, describe, expect, it, vi, type MockInstance } from 'vitest';
import { BitcoinNode, nodeAddressFor } from '../../infra/chain/bitcoin-node.js';
import { localStageConfiguration } from '../support/stage-configuration.js';
import { transactionHash } from '../../shared/domain/transactions/transactions.js';
import { logger } from '../../shared/observability/logger.js';
import { addressOn, callbackFor, createInvoice, creditsOf, depositsOf, getInvoice, getTransaction, setEnvironment, total, watcherOf } from '../support/chain-watch.js';
import { expireInvoice } from '../support/invoke.js';
import { testMerchantCli, type TestCli } from '../support/merchant-cli.js';
import { seedMerchant, testChainStore, type SeededMerchant } from '../support/merchants.js';

/** Not the default (2), so that only GATEWAY_CONFIRMATIONS_BITCOIN says it. */
const CONFIRMATIONS = 3;
/** Addresses no customer owns: a P2WPKH (BIP 173's example) and a P2WSH one. */
const STRANGER = 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx';
const OTHER_STRANGER = 'tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7';

type NodeFault = 'refused' | 'silent' | 'error-answer' | 'not-json' | 'not-a-block' | 'parent-mismatch';

let node: BitcoinNode;
let proxy: Server;
let fault: NodeFault | undefined;
let merchant: SeededMerchant;
let testCli: TestCli;
const watcher = watcherOf('bitcoin');

/** The node as the watcher sees it, made to fail on demand; it forwards the watcher's credentials. */
async function startProxy(upstream: URL): Promise<Server> {
  const server = createServer(async (request, response) => {
    // No connection is kept for the next call, so that a proxy that stops listening refuses the very next one.
    response.setHeader('connection', 'close');
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    // Never answers: the reader's own timeout ends the call.
    if (fault === 'silent') return;
    if (fault === 'not-json') return void response.writeHead(502, { 'content-type': 'text/html' }).end('<html><body><h1>502 Bad Gateway</h1></body></html>');
    if (fault === 'error-answer') {
      return void response.writeHead(500, { 'content-type': 'application/json' }).end('{"result":null,"error":{"code":-28,"message":"Loading block index..."},"id":1}');
    }
    const answer = await fetch(`http://${upstream.host}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: request.headers.authorization ?? '' },
      body: Buffer.concat(chunks),
    });
    let text = await answer.text();
    // Well-formed JSON-RPC whose hashes are not hashes.
    if (fault === 'not-a-block') text = text.replace(/"[0-9a-f]{64}"/g, '"0x1234"');
    if (fault === 'parent-mismatch') text = text.replace(/"previousblockhash":"[0-9a-f]{64}"/, `"previousblockhash":"${'ee'.repeat(32)}"`);
    response.writeHead(answer.status, { 'content-type': 'application/json' }).end(text);
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolveListen) => server.once('listening', resolveListen));
  return server;
}

async function failWith(next: NodeFault): Promise<void> {
  fault = next;
  if (next === 'refused') {
    proxy.closeAllConnections();
    await new Promise<void>((resolveClose) => proxy.close(() => resolveClose()));
  }
}

async function heal(port: number): Promise<void> {
  const was = fault;
  fault = undefined;
  if (was === 'refused') {
    proxy.listen(port, '127.0.0.1');
    await new Promise((resolveListen) => proxy.once('listening', resolveListen));
  }
}

beforeAll(async () => {
  node = await BitcoinNode.start();
  await node.fund();
  const nodeUrl = new URL(node.rpcUrl);
  proxy = await startProxy(nodeUrl);
  const rpcUrl = `http://${nodeUrl.username}:${nodeUrl.password}@127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  setEnvironment({ GATEWAY_RPC_BITCOIN: rpcUrl, GATEWAY_CONFIRMATIONS_BITCOIN: String(CONFIRMATIONS) });
  expect(localStageConfiguration().chains.bitcoin).toMatchObject({ rpcUrl, confirmations: CONFIRMATIONS });
  [merchant, testCli] = await Promise.all([seedMerchant(), testMerchantCli()]);
  await watcher.catchUp();
}, 60_000);

afterAll(async () => {
  proxy?.closeAllConnections();
  proxy?.close();
  await Promise.all([node?.stop(), testCli?.remove()]);
});

const headNumber = async (): Promise<number> => Number(String(await node.rpc('getblockcount')));
const hashAt = async (height: number): Promise<string> => node.rpc('getblockhash', [height]);

/** Mines one block; answers its height. */
async function mineOne(): Promise<number> {
  await node.mine(1);
  return headNumber();
}

/** Mines until a payment in block `height` has its confirmations. */
async function confirm(height: number): Promise<void> {
  const missing = height + CONFIRMATIONS - 1 - (await headNumber());
  if (missing > 0) await node.mine(missing);
}

/** The output script of a segwit address, hex: its witness version and program. */
function scriptOf(address: string): string {
  const { words } = bech32.decode(address as `${string}1${string}`);
  const program = Buffer.from(bech32.fromWords(words.slice(1)));
  return `${words[0] === 0 ? '00' : (0x50 + words[0]!).toString(16)}${program.length.toString(16).padStart(2, '0')}${program.toString('hex')}`;
}

/**
 * One transaction with two outputs paying `address`, which the node's wallet calls refuse to make
 * (an address twice): a payment to `address` and to a stranger of the same script length, the
 * stranger's script then swapped for the customer's, funded, signed and sent. Answers the txid and
 * the indexes of the two outputs (the change goes in at a random place).
 */
async function payTwice(address: string, amounts: [string, string]): Promise<{ txid: string; indexes: number[] }> {
  const raw: string = await node.rpc('createrawtransaction', [[], [{ [nodeAddressFor(address)]: amounts[0] }, { [nodeAddressFor(STRANGER)]: amounts[1] }]]);
  const twice = raw.replace(scriptOf(STRANGER), scriptOf(address));
  const funded = await node.rpc('fundrawtransaction', [twice]);
  const signed = await node.rpc('signrawtransactionwithwallet', [funded.hex]);
  const decoded = await node.rpc('decoderawtransaction', [signed.hex]);
  const indexes = (decoded.vout as Array<{ n: unknown; scriptPubKey: { hex: string } }>).filter((output) => output.scriptPubKey.hex === scriptOf(address)).map((output) => Number(String(output.n)));
  return { txid: await node.rpc('sendrawtransaction', [signed.hex]), indexes };
}

const satoshis = (amount: string): bigint => {
  const [whole, fraction = ''] = amount.split('.');
  return BigInt(whole!) * 100_000_000n + BigInt(fraction.padEnd(8, '0'));
};
const coins = (sats: bigint): string => `${sats / 100_000_000n}.${(sats % 100_000_000n).toString().padStart(8, '0')}`;

/**
 * Takes block `height` out of the chain and mines in its place a block whose one transaction
 * spends the inputs of `txid` to the node itself: the payment can never be mined again.
 */
async function replaceWithDoubleSpend(height: number, txid: string): Promise<void> {
  await node.rpc('invalidateblock', [await hashAt(height)]);
  const payment = await node.rpc('getrawtransaction', [txid, true]);
  const inputs = (payment.vin as Array<{ txid: string; vout: unknown }>).map((input) => ({ txid: input.txid, vout: Number(String(input.vout)) }));
  let value = 0n;
  for (const input of inputs) value += satoshis(String((await node.rpc('gettxout', [input.txid, input.vout, false])).value));
  const own = await node.rpc('getnewaddress', ['', 'bech32']);
  const raw = await node.rpc('createrawtransaction', [inputs, [{ [own]: coins(value - 100_000n) }]]);
  const signed = await node.rpc('signrawtransactionwithwallet', [raw]);
  await node.rpc('generateblock', [own, [signed.hex]]);
}

describe('Bitcoin deposits', () => {
  it('credits a payment to the satoshi: processing below the confirmations, confirmed with a callback at them', async () => {
    const invoice = await createInvoice(merchant, { baseCurrency: 'BTC', amount: 0.00123457 });
    expect(invoice.paymentAmount).toBe('0.00123457');
    const address = addressOn(invoice, 'bitcoin');
    const txid = await node.send(address, '0.00123457');
    const height = await mineOne();

    expect(total(await watcher.catchUp(), 'recorded')).toBe(1);
    const [pending, ...others] = await depositsOf(invoice.id);
    expect(others).toEqual([]);
    expect(pending).toMatchObject({
      status: 'processing',
      amount: '0.00123457',
      currency: 'BTC',
      network: 'bitcoin',
      transactionHash: txid,
      chain: { blockNumber: height, blockHash: await hashAt(height), logIndex: expect.any(Number) },
    });
    expect(await callbackFor(merchant, pending!.id, 'processing')).toBeUndefined();
    expect(await getInvoice(merchant, invoice.id)).toMatchObject({ status: 'created', paidAmount: '0.00000000', paymentStatus: 'unpaid' });
    expect(await creditsOf(merchant, pending!.id)).toEqual([]);

    // One block short of the confirmations: still processing.
    await node.mine(CONFIRMATIONS - 2);
    expect(total(await watcher.catchUp(), 'confirmed')).toBe(0);
    await node.mine(1);
    expect(total(await watcher.catchUp(), 'confirmed')).toBe(1);
    const confirmed = await getTransaction(merchant, pending!.id);
    expect(confirmed).toMatchObject({ status: 'confirmed', amount: '0.00123457', currency: 'BTC', transactionHash: txid });
    expect(confirmed.hash).toBe(transactionHash(confirmed, merchant.callbackSecret));
    expect(await callbackFor(merchant, pending!.id, 'confirmed')).toMatchObject({
      id: pending!.id,
      status: 'confirmed',
      amount: '0.00123457',
      currency: 'BTC',
      network: 'bitcoin',
      transactionHash: txid,
      hash: confirmed.hash,
    });
    expect(await getInvoice(merchant, invoice.id)).toMatchObject({ status: 'completed', paidAmount: '0.00123457', paymentStatus: 'paid', transactionIds: [pending!.id] });
    expect(await creditsOf(merchant, pending!.id)).toEqual([{ type: 'deposit', amount: '0.00123457', currency: 'BTC' }]);
  });

  it('completes an invoice only once its partial payments add up, with a transaction and callback each', async () => {
    const invoice = await createInvoice(merchant, { baseCurrency: 'BTC', amount: 0.01 });
    const address = addressOn(invoice, 'bitcoin');
    const part = await node.send(address, '0.00012345');
    await confirm(await mineOne());
    await watcher.catchUp();
    expect(await getInvoice(merchant, invoice.id)).toMatchObject({ status: 'created', paidAmount: '0.00012345', paymentStatus: 'partial' });

    const rest = await node.send(address, '0.00987655');
    await confirm(await mineOne());
    await watcher.catchUp();
    const deposits = await depositsOf(invoice.id);
    expect(deposits.map((d) => [d.transactionHash, d.status, d.amount])).toEqual([
      [part, 'confirmed', '0.00012345'],
      [rest, 'confirmed', '0.00987655'],
    ]);
    for (const deposit of deposits) {
      expect(await callbackFor(merchant, deposit.id, 'confirmed')).toMatchObject({ id: deposit.id, status: 'confirmed', amount: deposit.amount, network: 'bitcoin' });
      expect(await creditsOf(merchant, deposit.id)).toEqual([{ type: 'deposit', amount: deposit.amount, currency: 'BTC' }]);
    }
    expect(await getInvoice(merchant, invoice.id)).toMatchObject({ status: 'completed', paidAmount: '0.01000000', paymentStatus: 'paid', transactionIds: deposits.map((d) => d.id) });
  });

  it('records each of two outputs of one transaction to the same address as a deposit of its own, by output index', async () => {
    const invoice = await createInvoice(merchant, { baseCurrency: 'BTC', amount: 0.003 });
    const { txid, indexes } = await payTwice(addressOn(invoice, 'bitcoin'), ['0.001', '0.002']);
    expect(indexes).toHaveLength(2);
    await confirm(await mineOne());
    expect(total(await watcher.catchUp(), 'recorded')).toBe(2);
    const deposits = await depositsOf(invoice.id);
    expect(deposits.map((d) => [d.transactionHash, d.chain?.logIndex, d.status, d.amount]).sort((a, b) => Number(a[1]) - Number(b[1]))).toEqual([
      [txid, indexes[0], 'confirmed', '0.00100000'],
      [txid, indexes[1], 'confirmed', '0.00200000'],
    ]);
    for (const deposit of deposits) expect(await callbackFor(merchant, deposit.id, 'confirmed')).toMatchObject({ id: deposit.id, status: 'confirmed', transactionHash: txid });
    expect(await getInvoice(merchant, invoice.id)).toMatchObject({ status: 'completed', paidAmount: '0.00300000', paymentStatus: 'paid' });
  });

  it('marks an invoice paid past its amount overpaid', async () => {
    const invoice = await createInvoice(merchant, { baseCurrency: 'BTC', amount: 0.0005 });
    const txid = await node.send(addressOn(invoice, 'bitcoin'), '0.00050001');
    await confirm(await mineOne());
    await watcher.catchUp();
    expect((await depositsOf(invoice.id)).map((d) => [d.transactionHash, d.amount])).toEqual([[txid, '0.00050001']]);
    expect(await getInvoice(merchant, invoice.id)).toMatchObject({ status: 'completed', paidAmount: '0.00050001', paymentStatus: 'overpaid' });
  });

  it('completes an expired invoice paid late with paidLate, with its callback', async () => {
    const invoice = await createInvoice(merchant, { baseCurrency: 'BTC', amount: 0.0002 });
    await expireInvoice(invoice.id);
    expect(await getInvoice(merchant, invoice.id)).toMatchObject({ status: 'canceled' });

    const txid = await node.send(addressOn(invoice, 'bitcoin'), '0.0002');
    await confirm(await mineOne());
    await watcher.catchUp();
    expect(await getInvoice(merchant, invoice.id)).toMatchObject({ status: 'completed', paidLate: true, paymentStatus: 'paid', paidAmount: '0.00020000' });
    const [deposit] = await depositsOf(invoice.id);
    expect(await callbackFor(merchant, deposit!.id, 'confirmed')).toMatchObject({ status: 'confirmed', transactionHash: txid });
  });

  it('records nothing for outputs to strangers, the change back to the payer included', async () => {
    const invoice = await createInvoice(merchant, { baseCurrency: 'BTC', amount: 0.001 });
    const paid = await node.send(addressOn(invoice, 'bitcoin'), '0.0004');
    await node.send(STRANGER, '0.0004');
    await node.send(OTHER_STRANGER, '0.0004');
    await confirm(await mineOne());
    const runs = await watcher.catchUp();
    expect(total(runs, 'recorded')).toBe(1);
    expect(total(runs, 'held')).toBe(0);
    expect((await depositsOf(invoice.id)).map((d) => [d.transactionHash, d.amount])).toEqual([[paid, '0.00040000']]);
  });
});

describe('reorganisations before the confirmations', () => {
  it('fails a deposit whose block left the chain, without a callback, and records it anew where it is mined again, credited once', async () => {
    const invoice = await createInvoice(merchant, { baseCurrency: 'BTC', amount: 0.0007 });
    const txid = await node.send(addressOn(invoice, 'bitcoin'), '0.0007');
    const height = await mineOne();
    const oldHash = await hashAt(height);
    await watcher.catchUp();
    const [pending] = await depositsOf(invoice.id);
    expect(pending).toMatchObject({ status: 'processing', chain: { blockNumber: height, blockHash: oldHash } });

    // The node's other branch mines the payment again, in another block at the same height.
    await node.reorg(height);
    const newHash = await hashAt(height);
    expect(newHash).not.toBe(oldHash);
    const runs = await watcher.catchUp();
    expect(runs[0]!.reorg).toEqual({ from: height, to: height - 1 });
    expect(total(runs, 'failed')).toBe(1);
    expect(await getTransaction(merchant, pending!.id)).toMatchObject({ status: 'failed' });
    expect(await callbackFor(merchant, pending!.id, 'failed')).toBeUndefined();
    expect(await creditsOf(merchant, pending!.id)).toEqual([]);

    await confirm(height);
    await watcher.catchUp();
    const deposits = await depositsOf(invoice.id);
    expect(deposits.map((d) => [d.transactionHash, d.status, d.chain?.blockHash])).toEqual([
      [txid, 'failed', oldHash],
      [txid, 'confirmed', newHash],
    ]);
    expect(await creditsOf(merchant, deposits[1]!.id)).toEqual([{ type: 'deposit', amount: '0.00070000', currency: 'BTC' }]);
    expect(await callbackFor(merchant, deposits[1]!.id, 'confirmed')).toMatchObject({ status: 'confirmed', transactionHash: txid });
    expect(await getInvoice(merchant, invoice.id)).toMatchObject({ status: 'completed', paidAmount: '0.00070000', paymentStatus: 'paid', transactionIds: deposits.map((d) => d.id) });
  });

  it('fails a deposit whose payment the new branch spent elsewhere, and credits nothing', async () => {
    const invoice = await createInvoice(merchant, { baseCurrency: 'BTC', amount: 0.0009 });
    const txid = await node.send(addressOn(invoice, 'bitcoin'), '0.0009');
    const height = await mineOne();
    await watcher.catchUp();

    await replaceWithDoubleSpend(height, txid);
    await confirm(height);
    const runs = await watcher.catchUp();
    expect(total(runs, 'failed')).toBe(1);
    expect(total(runs, 'recorded')).toBe(0);
    const [deposit, ...others] = await depositsOf(invoice.id);
    expect(others).toEqual([]);
    expect(deposit).toMatchObject({ status: 'failed', transactionHash: txid });
    expect(await callbackFor(merchant, deposit!.id, 'failed')).toBeUndefined();
    expect(await creditsOf(merchant, deposit!.id)).toEqual([]);
    expect(await getInvoice(merchant, invoice.id)).toMatchObject({ status: 'created', paidAmount: '0.00000000', paymentStatus: 'unpaid' });
  });
});

describe('restarts', () => {
  it('carries on after a restart part way through more blocks than one run reads, recording each output once', async () => {
    const invoice = await createInvoice(merchant, { baseCurrency: 'BTC', amount: 0.0003 });
    const address = addressOn(invoice, 'bitcoin');
    const start = await headNumber();
    // Two payments within the first run's 200 blocks, the third past them.
    const sent = [await node.send(address, '0.0001')];
    await node.mine(150);
    sent.push(await node.send(address, '0.0001'));
    await node.mine(100);
    sent.push(await node.send(address, '0.0001'));
    await confirm(await mineOne());

    expect(await watcher.once()).toMatchObject({ scanned: 200, cursor: start + 200, recorded: 2 });
    const partWay = await testChainStore().cursor('bitcoin');

    // A new container over the same tables carries on from the cursor.
    const restarted = await watcher.coldStart();
    const head = await headNumber();
    expect(await restarted.run()).toMatchObject({ cursor: head, recorded: 1 });
    // A run that wrote and died before moving its cursor: the next scans the same blocks again.
    expect(await testChainStore().moveCursor('bitcoin', partWay!, (await testChainStore().cursor('bitcoin'))!, new Date())).toBe(true);
    expect(await restarted.run()).toMatchObject({ scanned: head - partWay!.number, cursor: head });

    const deposits = await depositsOf(invoice.id);
    expect(deposits.map((d) => [d.transactionHash, d.status])).toEqual(sent.map((txid) => [txid, 'confirmed']));
    expect(await getInvoice(merchant, invoice.id)).toMatchObject({ status: 'completed', paidAmount: '0.00030000', transactionIds: deposits.map((d) => d.id) });
  });
});

describe('merchants that do not take on-chain deposits', () => {
  it('holds their payments, lists them in the admin CLI, and credits them once turned on', async () => {
    const offline = await seedMerchant({ onchainDeposits: false });
    const invoice = await createInvoice(offline, { baseCurrency: 'BTC', amount: 0.002 });
    const before = await testChainStore().cursor('bitcoin');
    const txid = await node.send(addressOn(invoice, 'bitcoin'), '0.0015');
    await confirm(await mineOne());
    expect(total(await watcher.catchUp(), 'held')).toBe(1);
    expect(await depositsOf(invoice.id)).toEqual([]);
    expect(await getInvoice(offline, invoice.id)).toMatchObject({ status: 'created', paymentStatus: 'unpaid' });

    const heldDeposits = async () => JSON.parse((await testCli.run(['held-deposits', '--merchant', offline.merchant.id, '--json'])).out);
    expect(await heldDeposits()).toEqual([
      expect.objectContaining({ network: 'bitcoin', transactionHash: txid, asset: 'BTC', amount: '0.00150000', customerId: invoice.customerId, reason: 'onchain-deposits-off' }),
    ]);
    // Scanning the same blocks again holds it once.
    expect(await testChainStore().moveCursor('bitcoin', before!, (await testChainStore().cursor('bitcoin'))!, new Date())).toBe(true);
    expect(total(await watcher.catchUp(), 'held')).toBe(0);
    expect(await heldDeposits()).toHaveLength(1);

    expect((await testCli.run(['onchain-deposits', '--merchant', offline.merchant.id, '--on'])).code).toBe(0);
    expect(total(await watcher.catchUp(), 'credited')).toBe(1);
    const [deposit, ...others] = await depositsOf(invoice.id);
    expect(others).toEqual([]);
    expect(deposit).toMatchObject({ status: 'confirmed', amount: '0.00150000', transactionHash: txid });
    expect(await callbackFor(offline, deposit!.id, 'confirmed')).toMatchObject({ status: 'confirmed', transactionHash: txid });
    expect(await getInvoice(offline, invoice.id)).toMatchObject({ paidAmount: '0.00150000', paymentStatus: 'partial' });
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

  it.each<[NodeFault, RegExp]>([
    ['refused', /fetch failed, caused by .*ECONNREFUSED/],
    ['silent', /timeout/i],
    ['error-answer', /Loading block index\.\.\. \(code -28\)/],
    ['not-json', /answered 502 with no JSON/],
    ['not-a-block', /ZodError: the answer: /],
    ['parent-mismatch', /block \d+ names e{64} as its parent, not block \d+ [0-9a-f]{64}/],
  ])('leaves the cursor and credits nothing when the node is %s, logging one error a run that says why, then carries on', async (next, reason) => {
    const invoice = await createInvoice(merchant, { baseCurrency: 'BTC', amount: 0.0001 });
    await node.send(addressOn(invoice, 'bitcoin'), '0.0001');
    await confirm(await mineOne());
    const cursor = await testChainStore().cursor('bitcoin');
    loggedErrors.mockClear();
    // A silent node costs the reader's whole timeout: once is enough.
    const failedRuns = next === 'silent' ? 1 : 2;
    const port = (proxy.address() as AddressInfo).port;
    await failWith(next);
    try {
      for (let run = 0; run < failedRuns; run++) expect(await watcher.once()).toEqual({ network: 'bitcoin', runFailed: true });
    } finally {
      await heal(port);
    }
    expect(loggedErrors).toHaveBeenCalledTimes(failedRuns);
    for (const [message, details] of loggedErrors.mock.calls) {
      expect(message).toMatch(/^Chain watcher run failed/);
      expect(details).toEqual({ network: 'bitcoin', reason: expect.stringMatching(reason) });
    }
    expect(await testChainStore().cursor('bitcoin')).toEqual(cursor);
    expect(await depositsOf(invoice.id)).toEqual([]);

    await watcher.catchUp();
    const [deposit, ...others] = await depositsOf(invoice.id);
    expect(others).toEqual([]);
    expect(deposit).toMatchObject({ status: 'confirmed', amount: '0.00010000' });
    expect(await creditsOf(merchant, deposit!.id)).toEqual([{ type: 'deposit', amount: '0.00010000', currency: 'BTC' }]);
    expect(await getInvoice(merchant, invoice.id)).toMatchObject({ status: 'completed', paidAmount: '0.00010000' });
    expect(loggedErrors).toHaveBeenCalledTimes(failedRuns);
  });
});
