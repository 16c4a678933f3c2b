/**
 * One run of the watcher of a network (docs/merchant-guide.md#on-chain-deposits), over small ports, whatever the network's
 * family (its reader, `NetworkReader`, yields each block's transfers of watched assets): follow the
 * deposits still short of their confirmations, credit held transfers of merchants that now take
 * them, then scan a bounded range of new blocks for transfers to customers' addresses and record
 * each once. The cursor moves only after the range's writes succeeded, so a run that fails
 * part way is simply done again: every write is idempotent on the transfer's identity.
 */
import type { Stage } from '../../stage.js';
import {
  type AddressFamily,
  advance,
  type BlockRef,
  type ChainCursor,
  type ChainReader,
  depthOf,
  type EvmChain,
  type EvmNetwork,
  EvmNetworkReader,
  forkPoint,
  type NetworkReader,
  type ObservedTransfer,
  ownerKey,
  type ScannedBlock,
  type TokenContract,
  transferClaimId,
} from '../chains/index.js';
import { type CryptoAssetCode, type CryptoNetwork, Decimal, decimalsOf, DomainError, formatAmount } from '../kernel/index.js';
import type { Invoice } from '../invoicing/index.js';
import { takesOnchainDeposits, type Merchant } from '../merchants/index.js';
import type { TransactionService } from './transaction-service.js';
import type { ChainEvidence, Transaction } from '../transactions/index.js';

/** Blocks one chain-watcher run reads at most; a network further behind catches up over several runs. */
export const CHAIN_BLOCKS_PER_RUN = 200;

/** Whose deposit address a transfer paid. */
export interface AddressOwner {
  merchantId: string;
  customerId: string;
}

/** A transfer to a customer that is not credited yet: its merchant does not take on-chain deposits, or it has no invoice to go to. */
export interface HeldTransfer {
  /** The transfer's identity (`transferClaimId`). */
  id: string;
  network: CryptoNetwork;
  transactionHash: string;
  logIndex: number | null;
  blockNumber: number;
  blockHash: string;
  to: string;
  asset: CryptoAssetCode;
  amount: string;
  merchantId: string;
  customerId: string;
  reason: 'onchain-deposits-off' | 'no-invoice';
  seenAt: string;
}

export interface ChainState {
  cursor(network: string): Promise<ChainCursor | undefined>;
  moveCursor(network: string, to: ChainCursor, from: ChainCursor | undefined, now: Date): Promise<boolean>;
  hold(transfer: HeldTransfer): Promise<boolean>;
  held(network: string): Promise<HeldTransfer[]>;
  release(id: string): Promise<void>;
}

/** What every network's watcher runs over. */
export interface NetworkWatcherDeps {
  network: CryptoNetwork;
  /** The family of the network's addresses: how the wallet store keys their owners. */
  family: AddressFamily;
  /** Blocks, its own included, a transfer's block needs before the transfer counts. */
  confirmations: number;
  reader: NetworkReader;
  /** The network's watched token contracts, named in a deposit's evidence. */
  tokens: Partial<Record<CryptoAssetCode, TokenContract>>;
  state: ChainState;
  owners: { ownersOf(family: AddressFamily, keys: readonly string[]): Promise<Map<string, AddressOwner>> };
  invoices: { customerInvoices(merchantId: string, customerId: string, options?: { since?: string; paymentCurrency?: string }): AsyncIterable<Invoice> };
  merchants: { getMerchant(id: string): Promise<Merchant | undefined> };
  transactions: Pick<TransactionService, 'recordDeposit' | 'settle'>;
  pending: { pendingOnChain(network: string): Promise<Transaction[]> };
  stage: Stage;
  /** Open invoices are younger than this (plus the sweep's lag): how far back the oldest open one is looked for. */
  invoiceLifetimeSeconds: number;
  maxBlocksPerRun: number;
  clock: () => Date;
  log: { info(message: string, details?: Record<string, unknown>): void; warn(message: string, details?: Record<string, unknown>): void };
}

/** An EVM network's watcher: its node's port and its tokens. */
export interface ChainWatcherDeps extends Omit<NetworkWatcherDeps, 'network' | 'family' | 'confirmations' | 'reader' | 'tokens'> {
  network: EvmNetwork;
  chain: Pick<EvmChain, 'confirmations' | 'tokens'>;
  reader: ChainReader;
}

export interface RunSummary {
  network: CryptoNetwork;
  head: number;
  /** Blocks scanned this run, and the cursor after it. */
  scanned: number;
  cursor: number;
  recorded: number;
  held: number;
  confirmed: number;
  failed: number;
  credited: number;
  reorg?: { from: number; to: number };
}

/** With no cursor yet, a network is scanned from this many blocks below its head. */
export const INITIAL_LOOKBACK_BLOCKS = 1_000;
/** An invoice left open by a late expiry sweep is still found within this margin. */
const OPEN_INVOICE_MARGIN_MS = 60 * 60 * 1000;
const isOpen = (invoice: Invoice) => invoice.status === 'created' || invoice.status === 'active';

export class NetworkWatcher {
  constructor(private readonly deps: NetworkWatcherDeps) {}

  /** How many blocks of hashes the cursor remembers: enough to trace back any reorg a pending deposit can see. */
  private get memory(): number {
    return this.deps.confirmations * 2 + 16;
  }

  async run(): Promise<RunSummary> {
    const { network, reader, state, clock } = this.deps;
    const head = await reader.headNumber();
    const stored = await state.cursor(network);
    // A node behind the blocks already read (resyncing, or a backend of a balancer that lags) says
    // nothing of them: taken for a reorganisation it would fail the deposits above its head.
    if (stored && head < stored.number) {
      throw new Error(`The ${network} node's head ${head} is below block ${stored.number}, already read: it is behind, and this run reads nothing`);
    }
    const summary: RunSummary = { network, head, scanned: 0, cursor: 0, recorded: 0, held: 0, confirmed: 0, failed: 0, credited: 0 };

    let cursor = stored ?? (await this.initialCursor(head));
    const canonical = (number: number) => (number > head ? Promise.resolve(undefined) : reader.blockHash(number));
    if ((await canonical(cursor.number)) !== cursor.hash) {
      const rewound = await this.rewind(cursor, head);
      summary.reorg = { from: cursor.number, to: rewound.number };
      this.deps.log.warn('The chain reorganised below the cursor; scanning again from the fork', { network, ...summary.reorg });
      cursor = rewound;
    }

    await this.followPending(head, summary);
    await this.creditHeld(head, summary);

    const last = Math.min(head, cursor.number + this.deps.maxBlocksPerRun);
    const blocks = await this.canonicalBlocks(cursor, last);
    for (const { transfer, owner } of await this.customerTransfersIn(blocks)) {
      const held = await this.credit(transfer, owner, head);
      if (!held) summary.recorded++;
      else if (await state.hold({ ...held, seenAt: clock().toISOString() })) summary.held++;
    }

    const next = advance(cursor, blocks, this.memory);
    if (next !== stored && !(await state.moveCursor(network, next, stored, clock()))) {
      throw new Error(`The ${network} cursor was moved by another run; this run's writes stand and the next run carries on`);
    }
    summary.scanned = blocks.length;
    summary.cursor = next.number;
    return summary;
  }

  private async initialCursor(head: number): Promise<ChainCursor> {
    const number = Math.max(0, head - INITIAL_LOOKBACK_BLOCKS);
    const block = { number, hash: await this.deps.reader.blockHash(number) };
    return { ...block, recent: [block] };
  }

  /** The cursor at the fork point; below everything remembered when the reorg went deeper than that. */
  private async rewind(cursor: ChainCursor, head: number): Promise<ChainCursor> {
    const { reader } = this.deps;
    const fork = await forkPoint(cursor, async (number) => (number > head ? '' : reader.blockHash(number)));
    if (fork) return { ...fork, recent: cursor.recent.filter((block) => block.number <= fork.number) };
    const number = Math.max(0, Math.min(cursor.recent[0]?.number ?? cursor.number, head + 1) - 1);
    const block = { number, hash: await reader.blockHash(number) };
    return { ...block, recent: [block] };
  }

  /**
   * Blocks after the cursor up to `last`, each the child of the one before; a break (a reorg while
   * reading) ends the range there. A first block that is not the child of the cursor's, while the
   * cursor's is still the node's block at its height, is no reorg: the node answers a chain that
   * does not hold together, and the run fails rather than stand still without a word.
   */
  private async canonicalBlocks(cursor: BlockRef, last: number): Promise<ScannedBlock[]> {
    const blocks = last > cursor.number ? await this.deps.reader.blocks(cursor.number + 1, last) : [];
    const chained: ScannedBlock[] = [];
    let parent = cursor.hash;
    for (const block of blocks) {
      if (block.parentHash !== parent) break;
      chained.push(block);
      parent = block.hash;
    }
    const [first] = blocks;
    if (first && chained.length === 0 && (await this.deps.reader.blockHash(cursor.number)) === cursor.hash) {
      throw new Error(`The ${this.deps.network} node's block ${first.number} names ${first.parentHash} as its parent, not block ${cursor.number} ${cursor.hash}: its chain does not hold together`);
    }
    return chained;
  }

  /** Transfers of watched assets in the blocks that pay customers' addresses, with their owners. */
  private async customerTransfersIn(blocks: readonly ScannedBlock[]): Promise<Array<{ transfer: ObservedTransfer; owner: AddressOwner }>> {
    const { network, family } = this.deps;
    const transfers: ObservedTransfer[] = blocks.flatMap((block) => block.transfers.map((seen) => ({ ...seen, network, block: { number: block.number, hash: block.hash } })));
    if (transfers.length === 0) return [];
    const owners = await this.deps.owners.ownersOf(
      family,
      transfers.map((t) => t.to),
    );
    return transfers.flatMap((transfer) => {
      const owner = owners.get(transfer.to);
      return owner ? [{ transfer, owner }] : [];
    });
  }

  /**
   * Credits the transfer to the invoice docs/merchant-guide.md#on-chain-deposits picks, processing below its confirmations and
   * confirmed at them; answers what to hold instead when it cannot be credited.
   */
  private async credit(transfer: ObservedTransfer, owner: AddressOwner, head: number): Promise<Omit<HeldTransfer, 'seenAt'> | undefined> {
    const { confirmations } = this.deps;
    const depth = depthOf(transfer.block.number, head);
    const heldAs = (reason: HeldTransfer['reason']): Omit<HeldTransfer, 'seenAt'> => ({
      id: transferClaimId(transfer),
      network: transfer.network,
      transactionHash: transfer.transactionHash,
      logIndex: transfer.logIndex,
      blockNumber: transfer.block.number,
      blockHash: transfer.block.hash,
      to: transfer.to,
      asset: transfer.asset,
      amount: formatAmount(transfer.amount, decimalsOf(transfer.asset)),
      merchantId: owner.merchantId,
      customerId: owner.customerId,
      reason,
    });
    // Dust finer than the asset's precision rounds to nothing: nothing to credit.
    if (transfer.amount.isZero()) return undefined;
    const merchant = await this.deps.merchants.getMerchant(owner.merchantId);
    if (!merchant || !takesOnchainDeposits(merchant, this.deps.stage)) return heldAs('onchain-deposits-off');
    const invoice = await this.invoiceFor(owner, transfer.asset);
    if (!invoice) return heldAs('no-invoice');
    await this.deps.transactions.recordDeposit(
      merchant.id,
      invoice.id,
      {
        source: 'chain',
        amount: transfer.amount,
        currency: transfer.asset,
        network: transfer.network,
        status: depth >= confirmations ? 'confirmed' : 'processing',
        transactionHash: transfer.transactionHash,
        chain: { blockNumber: transfer.block.number, blockHash: transfer.block.hash, logIndex: transfer.logIndex },
        evidence: this.evidenceOf(transfer, invoice, depth),
        uniqueId: transferClaimId(transfer),
      },
      invoice,
    );
    return undefined;
  }

  /**
   * The transfer as a receipt states it: the address paid as the customer was given it (the
   * watcher reads it as its owner key: lower case, a Bitcoin output script), a Bitcoin output's
   * place as its output index.
   */
  private evidenceOf(transfer: ObservedTransfer, invoice: Invoice, confirmations: number): ChainEvidence {
    const { network, transactionHash, block, logIndex, asset } = transfer;
    const { family } = this.deps;
    const to = invoice.wallet?.addresses.find(({ address }) => ownerKey(family, address) === transfer.to)?.address ?? transfer.to;
    const place = family === 'btc' ? { outputIndex: logIndex! } : { logIndex };
    const contract = this.deps.tokens[asset]?.address ?? null;
    return { source: 'chain', network, transactionHash, blockNumber: block.number, blockHash: block.hash, ...place, to, contract, confirmations };
  }

  /**
   * Which invoice a transfer pays (docs/merchant-guide.md#on-chain-deposits): the customer's oldest open invoice in the asset;
   * else their most recent one in the asset; else their most recent crypto invoice of any asset.
   */
  private async invoiceFor(owner: AddressOwner, asset: CryptoAssetCode): Promise<Invoice | undefined> {
    const { invoices, clock, invoiceLifetimeSeconds } = this.deps;
    const since = new Date(clock().getTime() - invoiceLifetimeSeconds * 1000 - OPEN_INVOICE_MARGIN_MS).toISOString();
    let oldestOpen: Invoice | undefined;
    let latestInAsset: Invoice | undefined;
    for await (const invoice of invoices.customerInvoices(owner.merchantId, owner.customerId, { since, paymentCurrency: asset })) {
      latestInAsset ??= invoice;
      if (isOpen(invoice)) oldestOpen = invoice;
    }
    if (oldestOpen) return oldestOpen;
    if (latestInAsset) return latestInAsset;
    for await (const invoice of invoices.customerInvoices(owner.merchantId, owner.customerId, { paymentCurrency: asset })) return invoice;
    for await (const invoice of invoices.customerInvoices(owner.merchantId, owner.customerId)) if (invoice.family === 'crypto') return invoice;
    return undefined;
  }

  /**
   * Deposits short of their confirmations: confirmed at depth; failed when their block left the
   * chain first (no callback: they were never called back), their claim given up so that the
   * transfer, should it be mined again, is recorded anew.
   */
  private async followPending(head: number, summary: RunSummary): Promise<void> {
    const { network, reader, transactions, confirmations } = this.deps;
    const deposits = (await this.deps.pending.pendingOnChain(network)).filter((transaction) => transaction.type === 'deposit');
    for (const deposit of deposits) {
      const position = deposit.chain!;
      const canonical = position.blockNumber > head ? undefined : await reader.blockHash(position.blockNumber);
      if (canonical !== position.blockHash) {
        const id = transferClaimId({ network, transactionHash: deposit.transactionHash!, logIndex: position.logIndex });
        await transactions.settle(deposit.merchantId, deposit.id, 'failed', { callback: false, releaseClaim: id, source: 'chain' });
        this.deps.log.warn('An on-chain deposit left the chain before its confirmations', { network, transactionId: deposit.id, transactionHash: deposit.transactionHash });
        summary.failed++;
      } else if (depthOf(position.blockNumber, head) >= confirmations) {
        // The evidence it was recorded with, at the depth it is confirmed at; a deposit recorded before evidence keeps none.
        const evidence = deposit.evidence?.source === 'chain' ? { ...deposit.evidence, confirmations: depthOf(position.blockNumber, head) } : undefined;
        await transactions.settle(deposit.merchantId, deposit.id, 'confirmed', { source: 'chain', details: { evidence } });
        summary.confirmed++;
      }
    }
  }

  /** Held transfers of merchants that take on-chain deposits now: credited if still on the chain, dropped if not. */
  private async creditHeld(head: number, summary: RunSummary): Promise<void> {
    const { network, reader, state } = this.deps;
    for (const held of await state.held(network)) {
      const canonical = held.blockNumber > head ? undefined : await reader.blockHash(held.blockNumber);
      let block: BlockRef | undefined = canonical === held.blockHash ? { number: held.blockNumber, hash: held.blockHash } : undefined;
      // A native transfer keeps its identity in any block; a token transfer mined again is seen again by the scan.
      if (!block && held.logIndex === null) block = await reader.minedAt?.(held.transactionHash);
      if (!block) {
        await state.release(held.id);
        this.deps.log.warn('A held transfer left the chain', { network, id: held.id });
        continue;
      }
      const transfer: ObservedTransfer = { ...held, block, amount: new Decimal(held.amount) };
      try {
        if (await this.credit(transfer, held, head)) continue;
      } catch (error) {
        // One held transfer that cannot be credited (a vanished invoice) does not stop the others.
        if (!(error instanceof DomainError)) throw error;
        this.deps.log.warn('A held transfer could not be credited', { network, id: held.id, reason: error.message });
        continue;
      }
      await state.release(held.id);
      summary.credited++;
    }
  }
}

/** The watcher of an EVM network: its node read through `EvmNetworkReader`, its customers' EVM addresses looked up. */
export class ChainWatcher extends NetworkWatcher {
  constructor({ network, chain, reader, ...rest }: ChainWatcherDeps) {
    super({
      ...rest,
      network,
      family: 'evm',
      confirmations: chain.confirmations,
      tokens: chain.tokens,
      reader: new EvmNetworkReader(reader, network, chain.tokens),
    });
  }
}
