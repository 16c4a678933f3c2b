/**
 * The reader of each network family, over its node: one connector per family, so that a network
 * of a known family is configuration and a new family is one entry here
 * (docs/operations.md#watching-chains). A network with several endpoints is read through them in
 * order, failing over (failover-reader.ts).
 */
import { EvmNetworkReader, isEvmNetwork, NETWORK_ADDRESS_FAMILY, type NetworkChain, type NetworkReader, TronNetworkReader, UtxoNetworkReader } from '../domain/chains/index.js';
import type { CryptoNetwork } from '../domain/kernel/index.js';
import { rpcUrlsOf } from '../config.js';
import { BitcoinRpcReader } from './bitcoin-reader.js';
import { EvmRpcReader } from './evm-reader.js';
import { FailoverNetworkReader, type RpcEndpoint, type RpcRunReport } from './failover-reader.js';
import { TronHttpReader } from './tron-reader.js';

/** An endpoint that failed, was slow or lagged is asked again after this: about once a minute, at every schedule. */
export const ENDPOINT_COOL_DOWN_MS = 60_000;
/**
 * A backstop for a call that never settles: the readers' own timeout (10 s a request) ends a slow
 * endpoint's call first, and the next endpoint is asked.
 */
export const ENDPOINT_CALL_TIMEOUT_MS = 15_000;

/** A client of each endpoint of `rpcUrl` (one, or several comma-separated), named for logs by its place and host alone. */
export const rpcEndpointsOf = <Client>(rpcUrl: string, clientOf: (url: string) => Client): RpcEndpoint<Client>[] =>
  rpcUrlsOf(rpcUrl).map((url, index) => ({ label: `#${index + 1} ${new URL(url).host}`, reader: clientOf(url) }));

/** `chain.chainId`: an EVM network's chain id, which its node must be on. */
function endpointReaderOf(network: CryptoNetwork, chain: NetworkChain & { chainId?: number }, rpcUrl: string): NetworkReader {
  if (isEvmNetwork(network)) return new EvmNetworkReader(new EvmRpcReader(rpcUrl, chain.chainId), network, chain.tokens);
  switch (NETWORK_ADDRESS_FAMILY[network]) {
    case 'btc':
      return new UtxoNetworkReader(new BitcoinRpcReader(rpcUrl));
    case 'tron':
      return new TronNetworkReader(new TronHttpReader(rpcUrl, chain.apiKey), chain.tokens);
    default:
      throw new Error(`No reader for the ${network} network`);
  }
}

/**
 * The network read through each endpoint of `rpcUrl` (one, or several comma-separated). An endpoint
 * is lagging when its head trails the best by more than the network's confirmations: a deposit it
 * shows as unconfirmed may then be confirmed already, while a trail of fewer blocks is the ordinary
 * spread of nodes hearing of a new block at slightly different times. `observe` hears, once per run
 * (FailoverNetworkReader.observeRun), what each endpoint did.
 */
export function networkReaderOf(network: CryptoNetwork, chain: NetworkChain & { rpcUrl: string; chainId?: number }, observe?: (report: RpcRunReport) => void): FailoverNetworkReader {
  return new FailoverNetworkReader(
    network,
    rpcEndpointsOf(chain.rpcUrl, (url) => endpointReaderOf(network, chain, url)),
    { maxLagBlocks: chain.confirmations, coolDownMs: ENDPOINT_COOL_DOWN_MS, callTimeoutMs: ENDPOINT_CALL_TIMEOUT_MS },
    observe,
  );
}
