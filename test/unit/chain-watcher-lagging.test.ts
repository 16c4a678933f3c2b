/**
 * A node whose head goes backwards (resyncing, or a lagging backend behind a balancer) over the
 * in-memory ports: the watcher reads nothing from it and changes nothing, rather than take the
 * blocks above its head for a reorganisation and fail the deposits in them.
 */
import { expect, it, vi } from 'vitest';
import { ChainWatcher } from '../../shared/domain/chain-watcher.js';
import type { ChainReader } from '../../shared/domain/chain.js';
import { MemoryChain } from '../support/memory/chain.js';
import { MemoryChainState } from '../support/memory/chain-state.js';
import { INVOICE_LIFETIME_SECONDS, memoryGateway } from '../support/memory/gateway.js';

const CONFIRMATIONS = 3;

it('fails the run of a node behind the cursor, leaving the cursor and a processing deposit as they were, and confirms it once the node is back', async () => {
  const gateway = memoryGateway();
  const merchant = gateway.merchants.add({});
  const chain = new MemoryChain();
  const state = new MemoryChainState();
  const watcherOver = (reader: ChainReader) =>
    new ChainWatcher({
      network: 'ethereum',
      chain: { confirmations: CONFIRMATIONS, tokens: {} },
      reader,
      state,
      owners: gateway.wallets,
      invoices: gateway.invoices,
      merchants: gateway.merchants,
      transactions: gateway.transactionService,
      pending: gateway.ledger,
      stage: 'demo',
      invoiceLifetimeSeconds: INVOICE_LIFETIME_SECONDS,
      maxBlocksPerRun: 100,
      clock: gateway.clock,
      log: { info: vi.fn(), warn: vi.fn() },
    });
  const invoice = await gateway.createInvoice(merchant.id, { customerId: 'alice', baseCurrency: 'ETH', amount: 0.5 });
  chain.mineEmpty(2);
  chain.mine({ to: invoice.wallet!.address, value: 10n ** 18n / 2n });
  expect(await watcherOver(chain).run()).toMatchObject({ head: 3, cursor: 3, recorded: 1 });

  // The same chain, as a node two blocks behind tells it.
  const behind: ChainReader = Object.assign(Object.create(chain) as ChainReader, { headNumber: async () => 1 });
  await expect(watcherOver(behind).run()).rejects.toThrow("The ethereum node's head 1 is below block 3, already read: it is behind, and this run reads nothing");
  expect((await state.cursor('ethereum'))?.number).toBe(3);
  const [deposit] = await gateway.ledger.listByInvoice(invoice.id);
  expect(deposit).toMatchObject({ status: 'processing' });

  chain.mineEmpty(CONFIRMATIONS - 1);
  expect(await watcherOver(chain).run()).toMatchObject({ confirmed: 1, failed: 0 });
  expect(await gateway.ledger.listByInvoice(invoice.id)).toEqual([expect.objectContaining({ id: deposit!.id, status: 'confirmed' })]);
});
