/**
 * The reader of each network family, over its node: one connector per family, so that a network
 * of a known family is configuration and a new family is one entry here
 * (docs/operations.md#watching-chains).
 */
import type { NetworkReader } from '../domain/chain.js';
import type { CryptoNetwork } from '../domain/currencies.js';
import { EvmNetworkReader } from '../domain/evm-transfers.js';
import { isEvmNetwork, type NetworkChain } from '../domain/networks.js';
import { TronNetworkReader } from '../domain/tron-transfers.js';
import { UtxoNetworkReader } from '../domain/utxo-transfers.js';
import { NETWORK_ADDRESS_FAMILY } from '../domain/wallets.js';
import { BitcoinRpcReader } from './bitcoin-reader.js';
import { EvmRpcReader } from './evm-reader.js';
import { TronHttpReader } from './tron-reader.js';

/** `chain.chainId`: an EVM network's chain id, which its node must be on. */
export function networkReaderOf(network: CryptoNetwork, chain: NetworkChain & { rpcUrl: string; chainId?: number }): NetworkReader {
  if (isEvmNetwork(network)) return new EvmNetworkReader(new EvmRpcReader(chain.rpcUrl, chain.chainId), network, chain.tokens);
  switch (NETWORK_ADDRESS_FAMILY[network]) {
    case 'btc':
      return new UtxoNetworkReader(new BitcoinRpcReader(chain.rpcUrl));
    case 'tron':
      return new TronNetworkReader(new TronHttpReader(chain.rpcUrl, chain.apiKey), chain.tokens);
    default:
      throw new Error(`No reader for the ${network} network`);
  }
}
