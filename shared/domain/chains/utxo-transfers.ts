/**
 * A Bitcoin network as every chain watcher reads a network (`NetworkReader`): each output of each
 * transaction in a block is a transfer (one per txid and output index), paid to the output's
 * script, which is how the wallet store knows a customer's Bitcoin address (`ownerKey`), so the
 * node's own address format does not matter. Amounts in BTC, exact to the satoshi.
 */
import { assetAmount, NodeNetworkReader, type NodeHead, type ScannedBlock } from './chain.js';

/** What the watcher needs of a Bitcoin node (shared/chain/bitcoin-reader.ts over Bitcoin Core's JSON-RPC). */
export interface UtxoNode extends NodeHead {
  /** The canonical blocks `first` to `last`, in order, with every output of their transactions; the node batches its requests. */
  blocks(first: number, last: number): Promise<Array<{ number: number; hash: string; parentHash: string; outputs: ReadonlyArray<{ txid: string; index: number; script: string; satoshis: bigint }> }>>;
}

export class UtxoNetworkReader extends NodeNetworkReader<UtxoNode> {
  async blocks(first: number, last: number): Promise<ScannedBlock[]> {
    return (await this.node.blocks(first, last)).map((block) => ({
      number: block.number,
      hash: block.hash,
      parentHash: block.parentHash,
      transfers: block.outputs
        .filter((output) => output.satoshis > 0n)
        .map((output) => ({ transactionHash: output.txid, logIndex: output.index, to: output.script, asset: 'BTC' as const, amount: assetAmount(output.satoshis, 8, 'BTC') })),
    }));
  }
}
