/**
 * Each network's payout adapter (`PayoutChain`, shared/domain/payouts/payout-chain.ts) over its
 * node, signing with the treasury's signer. A payout talks to the first endpoint of the network's
 * list: its transactions are built from one node's view of the treasury (its nonce, its outputs),
 * and a broadcast to it reaches the others through the network.
 */
import { isEvmNetwork, type NetworkChain } from '../domain/chains/index.js';
import type { CryptoNetwork } from '../domain/kernel/index.js';
import type { PayoutChain, TreasurySigner } from '../domain/payouts/index.js';
import { rpcUrlsOf } from '../config.js';
import { BitcoinPayoutChain } from './bitcoin-payouts.js';
import { EvmPayoutChain } from './evm-payouts.js';
import { TronPayoutChain } from './tron-payouts.js';

export function payoutChainOf(network: CryptoNetwork, chain: NetworkChain & { rpcUrl: string; chainId?: number }, signer: TreasurySigner): PayoutChain {
  const [url] = rpcUrlsOf(chain.rpcUrl);
  if (!url) throw new Error(`${network} has no node endpoint`);
  if (isEvmNetwork(network)) {
    if (chain.chainId === undefined) throw new Error(`${network} has no chain id`);
    return new EvmPayoutChain({ rpcUrl: url, chainId: chain.chainId, network, signer });
  }
  return network === 'bitcoin' ? new BitcoinPayoutChain({ rpcUrl: url, signer }) : new TronPayoutChain({ url, apiKey: chain.apiKey, signer });
}
