/**
 * The chain watchers' state in memory, to the contract of DynamoChainStore: a cursor moved only
 * from the position it was read at (or set only if there is none), and a transfer held once.
 */
import type { ChainCursor } from '../../../shared/domain/chains/chain.js';
import type { ChainState, HeldTransfer } from '../../../shared/domain/payments/chain-watcher.js';

export class MemoryChainState implements ChainState {
  private readonly cursors = new Map<string, ChainCursor>();
  private readonly holds = new Map<string, HeldTransfer>();

  async cursor(network: string): Promise<ChainCursor | undefined> {
    const cursor = this.cursors.get(network);
    return cursor && structuredClone(cursor);
  }

  async moveCursor(network: string, to: ChainCursor, from: ChainCursor | undefined, _now: Date): Promise<boolean> {
    const current = this.cursors.get(network);
    const unmoved = from ? current?.hash === from.hash && current.number === from.number : current === undefined;
    if (!unmoved) return false;
    this.cursors.set(network, structuredClone(to));
    return true;
  }

  async hold(transfer: HeldTransfer): Promise<boolean> {
    if (this.holds.has(transfer.id)) return false;
    this.holds.set(transfer.id, structuredClone(transfer));
    return true;
  }

  async held(network: string): Promise<HeldTransfer[]> {
    return [...this.holds.values()]
      .filter((transfer) => transfer.network === network)
      .sort((a, b) => a.seenAt.localeCompare(b.seenAt))
      .map((transfer) => structuredClone(transfer));
  }

  async release(id: string): Promise<void> {
    this.holds.delete(id);
  }
}
