/**
 * An EVM network as every chain watcher reads a network (`NetworkReader`): a range of blocks
 * fetched at once over the node's port (`ChainReader`), each with its native transfers and the
 * `Transfer` logs of the configured tokens, valued exactly (docs/merchant-guide.md#on-chain-deposits).
 */
import { assetAmount, NodeNetworkReader, type BlockRef, type ChainReader, type ScannedBlock, type SeenTransfer } from './chain.js';
import type { CryptoAssetCode } from '../kernel/index.js';
import { NATIVE_ASSETS, type EvmChain, type EvmNetwork } from './networks.js';

export class EvmNetworkReader extends NodeNetworkReader<ChainReader> {
  private readonly tokenByAddress: Map<string, { asset: CryptoAssetCode; decimals: number }>;
  private readonly nativeAsset: CryptoAssetCode;

  constructor(node: ChainReader, network: EvmNetwork, tokens: EvmChain['tokens']) {
    super(node);
    this.nativeAsset = NATIVE_ASSETS[network];
    this.tokenByAddress = new Map(Object.entries(tokens).map(([asset, token]) => [token!.address.toLowerCase(), { asset: asset as CryptoAssetCode, decimals: token!.decimals }]));
  }

  minedAt(transactionHash: string): Promise<BlockRef | undefined> {
    return this.node.minedAt(transactionHash);
  }

  async blocks(first: number, last: number): Promise<ScannedBlock[]> {
    const blocks = await this.node.blocks(first, last);
    const scanned = blocks.map(
      (block): ScannedBlock => ({
        number: block.number,
        hash: block.hash,
        parentHash: block.parentHash,
        transfers: block.transactions
          .filter((tx) => tx.to !== null && tx.value > 0n)
          .map((tx): SeenTransfer => ({ transactionHash: tx.hash, logIndex: null, to: tx.to!.toLowerCase(), asset: this.nativeAsset, amount: assetAmount(tx.value, 18, this.nativeAsset) })),
      }),
    );
    if (this.tokenByAddress.size > 0 && scanned.length > 0) {
      const byNumber = new Map(scanned.map((block) => [block.number, block]));
      for (const log of await this.node.tokenTransfers(first, scanned.at(-1)!.number, [...this.tokenByAddress.keys()])) {
        const token = this.tokenByAddress.get(log.token.toLowerCase());
        const block = byNumber.get(log.blockNumber);
        // Logs of a block that is no longer the one read belong to a later read.
        if (!token || log.value === 0n || block?.hash !== log.blockHash) continue;
        block.transfers.push({ transactionHash: log.transactionHash, logIndex: log.logIndex, to: log.to.toLowerCase(), asset: token.asset, amount: assetAmount(log.value, token.decimals, token.asset) });
      }
    }
    return scanned;
  }
}
