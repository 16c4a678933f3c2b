/**
 * A Bitcoin network as every chain watcher reads a network (`NetworkReader`): each output of each
 * transaction in a block is a transfer (one per txid and output index), paid to the output's
 * script, which is how the wallet store knows a customer's Bitcoin address (`ownerKey`), so the
 * node's own address format does not matter. Amounts in BTC, exact to the satoshi.
 */
import { assetAmount, NodeNetworkReader, type NodeHead, type ScannedBlock } from './chain.js';
import { heights, mapLimited } from './concurrency.js';

/** What the watcher needs of a Bitcoin node (shared/chain/bitcoin-reader.ts over Bitcoin Core's JSON-RPC). */
export interface UtxoNode extends NodeHead {
  block(number: number): Promise<{ number: number; hash: string; parentHash: string; outputs: ReadonlyArray<{ txid: string; index: number; script: string; satoshis: bigint }> }>;
}

/** Blocks fetched at once: each can hold thousands of transactions. */
const FETCH_CONCURRENCY = 4;

export class UtxoNetworkReader extends NodeNetworkReader<UtxoNode> {
  async blocks(first: number, last: number): Promise<ScannedBlock[]> {
    return mapLimited(heights(first, last), FETCH_CONCURRENCY, async (number) => {
      const block = await this.node.block(number);
      return {
        number: block.number,
        hash: block.hash,
        parentHash: block.parentHash,
        transfers: block.outputs
          .filter((output) => output.satoshis > 0n)
          .map((output) => ({ transactionHash: output.txid, logIndex: output.index, to: output.script, asset: 'BTC' as const, amount: assetAmount(output.satoshis, 8, 'BTC') })),
      };
    });
  }
}
