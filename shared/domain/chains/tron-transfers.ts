/**
 * A Tron network as every chain watcher reads a network (`NetworkReader`): each block's TRX
 * transfers and the configured TRC-20 tokens' transfers of successful transactions, to base58check
 * addresses as the gateway derives them, valued exactly by the token's decimals (TRX 6).
 */
import { assetAmount, NodeNetworkReader, type NodeHead, type ScannedBlock } from './chain.js';
import { type CryptoAssetCode, heights, mapLimited } from '../kernel/index.js';

/** What the watcher needs of a Tron full node (shared/chain/tron-reader.ts over its HTTP API). */
export interface TronNode extends NodeHead {
  block(
    number: number,
    tokens: readonly string[],
  ): Promise<{ number: number; hash: string; parentHash: string; transfers: ReadonlyArray<{ transactionHash: string; logIndex: number | null; to: string; token: string | null; value: bigint }> }>;
}

/** The configured TRC-20 contracts (`T…`) of the watched assets, with their decimals. */
export type TronTokens = Partial<Record<CryptoAssetCode, { address: string; decimals: number }>>;

const TRX_DECIMALS = 6;
/** Blocks fetched at once: two calls each. */
const FETCH_CONCURRENCY = 4;

export class TronNetworkReader extends NodeNetworkReader<TronNode> {
  private readonly tokenByAddress: Map<string, { asset: CryptoAssetCode; decimals: number }>;

  constructor(node: TronNode, tokens: TronTokens) {
    super(node);
    this.tokenByAddress = new Map(Object.entries(tokens).map(([asset, token]) => [token!.address, { asset: asset as CryptoAssetCode, decimals: token!.decimals }]));
  }

  async blocks(first: number, last: number): Promise<ScannedBlock[]> {
    const tokens = [...this.tokenByAddress.keys()];
    return mapLimited(heights(first, last), FETCH_CONCURRENCY, async (number) => {
      const block = await this.node.block(number, tokens);
      return {
        number: block.number,
        hash: block.hash,
        parentHash: block.parentHash,
        transfers: block.transfers.flatMap((transfer) => {
          const token = transfer.token === null ? { asset: 'TRX' as const, decimals: TRX_DECIMALS } : this.tokenByAddress.get(transfer.token);
          if (!token || transfer.value === 0n) return [];
          return [{ transactionHash: transfer.transactionHash, logIndex: transfer.logIndex, to: transfer.to, asset: token.asset, amount: assetAmount(transfer.value, token.decimals, token.asset) }];
        }),
      };
    });
  }
}
