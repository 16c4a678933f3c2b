/**
 * The one chain watcher on a Bitcoin network: a real regtest node (infra/chain/bitcoin-node.ts)
 * read through Bitcoin Core's JSON-RPC, the customers' addresses matched on their output scripts,
 * and the services over the in-memory ports. A payment to an invoice's address is recorded
 * processing, confirmed at depth, exact to the satoshi; an output to a stranger is not recorded.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { BitcoinNode } from '../../infra/chain/bitcoin-node.js';
import { BitcoinRpcReader } from '../../shared/chain/bitcoin-reader.js';
import { NetworkWatcher } from '../../shared/domain/chain-watcher.js';
import { UtxoNetworkReader } from '../../shared/domain/utxo-transfers.js';
import { MemoryChainState } from '../support/memory/chain-state.js';
import { INVOICE_LIFETIME_SECONDS, memoryGateway } from '../support/memory/gateway.js';

const CONFIRMATIONS = 2;

let node: BitcoinNode;

beforeAll(async () => {
  node = await BitcoinNode.start();
  await node.fund();
}, 60_000);

afterAll(async () => {
  await node?.stop();
});

describe('the chain watcher on Bitcoin', () => {
  it('records a payment to an invoice address by its script, processing and then confirmed at depth, to the satoshi', async () => {
    const gateway = memoryGateway();
    const merchant = gateway.merchants.add();
    const state = new MemoryChainState();
    const watcher = new NetworkWatcher({
      network: 'bitcoin',
      family: 'btc',
      confirmations: CONFIRMATIONS,
      reader: new UtxoNetworkReader(new BitcoinRpcReader(node.rpcUrl)),
      state,
      owners: gateway.wallets,
      invoices: gateway.invoices,
      merchants: gateway.merchants,
      transactions: gateway.transactionService,
      pending: gateway.ledger,
      stage: 'demo',
      invoiceLifetimeSeconds: INVOICE_LIFETIME_SECONDS,
      maxBlocksPerRun: 200,
      clock: gateway.clock,
      log: { info: vi.fn(), warn: vi.fn() },
    });
    // The first run sets the cursor at the head; the payment comes after it.
    await watcher.run();
    const invoice = await gateway.createInvoice(merchant.id, { baseCurrency: 'BTC', amount: 0.00123457, customerId: 'satoshi' });
    const txid = await node.send(invoice.wallet!.address, '0.00123457');
    await node.send('tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx', '0.5');
    await node.mine(1);
    expect(await watcher.run()).toMatchObject({ network: 'bitcoin', recorded: 1 });
    const [deposit, ...others] = await gateway.ledger.listByInvoice(invoice.id);
    expect(others).toEqual([]);
    expect(deposit).toMatchObject({ status: 'processing', amount: '0.00123457', currency: 'BTC', network: 'bitcoin', transactionHash: txid });
    await node.mine(CONFIRMATIONS - 1);
    expect(await watcher.run()).toMatchObject({ confirmed: 1, recorded: 0 });
    expect((await gateway.ledger.get(deposit!.id))!.status).toBe('confirmed');
    expect(await gateway.invoices.get(invoice.id)).toMatchObject({ status: 'completed', paidAmount: '0.00123457' });
  });
});
