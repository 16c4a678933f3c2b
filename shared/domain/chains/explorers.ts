/**
 * Where a person looks a network's transaction up, per stage: the main networks' block explorers
 * in production, their test networks' in demo (and locally); a deployment may name others
 * (`GATEWAY_EXPLORER_{NETWORK}` on one machine, the `explorers` context in AWS: docs/operations.md). Pure.
 */
import type { Stage } from '../../stage.js';
import type { CryptoNetwork } from '../kernel/index.js';

/** Each network's explorer page of a transaction, `{hash}` standing for the transaction's hash as the network writes it. */
export const NETWORK_EXPLORERS = {
  prod: {
    ethereum: 'https://etherscan.io/tx/{hash}',
    bsc: 'https://bscscan.com/tx/{hash}',
    polygon: 'https://polygonscan.com/tx/{hash}',
    bitcoin: 'https://mempool.space/tx/{hash}',
    tron: 'https://tronscan.org/#/transaction/{hash}',
    bahamut: 'https://ftnscan.com/tx/{hash}',
  },
  // Sepolia, BSC testnet, Polygon Amoy, Bitcoin testnet4, Tron Nile, Bahamut Horizon.
  demo: {
    ethereum: 'https://sepolia.etherscan.io/tx/{hash}',
    bsc: 'https://testnet.bscscan.com/tx/{hash}',
    polygon: 'https://amoy.polygonscan.com/tx/{hash}',
    bitcoin: 'https://mempool.space/testnet4/tx/{hash}',
    tron: 'https://nile.tronscan.org/#/transaction/{hash}',
    bahamut: 'https://horizon.ftnscan.com/tx/{hash}',
  },
} as const satisfies Record<Stage, Record<CryptoNetwork, string>>;

/** Each network's explorer page of a transaction, `{hash}` standing for the hash. */
export type NetworkExplorers = Readonly<Record<CryptoNetwork, string>>;

/** The explorer's page of a transaction on `network`, or undefined for a network that is none of the crypto networks. */
export function explorerTransactionUrl(explorers: NetworkExplorers, network: string, hash: string): string | undefined {
  const pages: Readonly<Record<string, string>> = explorers;
  return Object.hasOwn(pages, network) ? pages[network]!.replace('{hash}', encodeURIComponent(hash)) : undefined;
}
