/**
 * What identifies each crypto network on chain, per stage: production runs on the main networks,
 * demo (and local) on their test networks. Pure data, shared by whatever needs to name a chain.
 */
import type { Stage } from '../../stage.js';
import { CRYPTO_NETWORKS, type CryptoAssetCode, type CryptoNetwork } from '../kernel/index.js';

/** The coin each network pays its fees in (docs/merchant-guide.md#on-chain-deposits); every other asset on it is a token. */
export const NATIVE_ASSETS = {
  bitcoin: 'BTC',
  ethereum: 'ETH',
  bsc: 'BNB',
  polygon: 'POL',
  tron: 'TRX',
  bahamut: 'FTN',
} as const satisfies Record<CryptoNetwork, CryptoAssetCode>;

/** EIP-155 chain ids of the EVM networks. */
export const EVM_CHAIN_IDS = {
  prod: { ethereum: 1, bsc: 56, polygon: 137, bahamut: 5165 },
  // Sepolia, BSC testnet, Polygon Amoy, Bahamut Horizon.
  demo: { ethereum: 11155111, bsc: 97, polygon: 80002, bahamut: 2552 },
} as const satisfies Record<Stage, Record<string, number>>;

export type EvmNetwork = keyof (typeof EVM_CHAIN_IDS)['prod'];

/** BIP-173 human-readable parts of native segwit addresses: mainnet's, and testnet's and signet's. */
export const BITCOIN_ADDRESS_PREFIX = { prod: 'bc', demo: 'tb' } as const satisfies Record<Stage, string>;

export const isEvmNetwork = (network: CryptoNetwork): network is EvmNetwork => Object.hasOwn(EVM_CHAIN_IDS.prod, network);

export interface TokenContract {
  address: string;
  /** The contract's own decimals, which need not be the asset's (BSC's USDT has 18). */
  decimals: number;
}

/** The token contracts customers pay USDT and USDC with, per stage and network. */
export const TOKEN_CONTRACTS: Record<Stage, Partial<Record<EvmNetwork, Partial<Record<CryptoAssetCode, TokenContract>>>>> = {
  prod: {
    ethereum: {
      USDT: { address: '0xdAC17F958D2ee523a2206206994597C13D831ec7', decimals: 6 },
      USDC: { address: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', decimals: 6 },
    },
    bsc: { USDT: { address: '0x55d398326f99059fF775485246999027B3197955', decimals: 18 } },
    polygon: { USDC: { address: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359', decimals: 6 } },
  },
  demo: {
    ethereum: {
      // Tether has no Sepolia deployment: Aave's test USDT is the one test faucets hand out.
      USDT: { address: '0xaA8E23Fb1079EA71e0a56F48a2aA51851D8433D0', decimals: 6 },
      USDC: { address: '0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238', decimals: 6 },
    },
    bsc: { USDT: { address: '0x337610d27c682E347C9cD60BD4b3b107C9d34dDd', decimals: 18 } },
    polygon: { USDC: { address: '0x41E94Eb019C0762f9Bfcf9Fb1E58725BfB0e7582', decimals: 6 } },
  },
};

/** Tron's TRC-20 contracts (base58check `T…`): Tether's and Circle's on mainnet; on Nile, the test USDT its faucet hands out. */
export const TRON_TOKEN_CONTRACTS: Record<Stage, Partial<Record<CryptoAssetCode, TokenContract>>> = {
  prod: {
    USDT: { address: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', decimals: 6 },
    USDC: { address: 'TEkxiTehnzSmSe2XqrBj4w32RUN966rdz8', decimals: 6 },
  },
  demo: { USDT: { address: 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf', decimals: 6 } },
};

/**
 * Confirmations a transfer needs before it counts (docs/merchant-guide.md#on-chain-deposits), unless configured
 * otherwise: Bitcoin's 2 blocks, Tron's 19 (a block is solidified once 19 of its 27 producers built on it).
 */
export const DEFAULT_CONFIRMATIONS: Record<CryptoNetwork, number> = { bitcoin: 2, ethereum: 12, bsc: 15, polygon: 64, tron: 19, bahamut: 12 };

/** What the gateway knows of a network it may watch. */
export interface NetworkChain {
  /** The token contracts customers pay USDT and USDC with; another token sent to a customer is not seen. */
  tokens: Partial<Record<CryptoAssetCode, TokenContract>>;
  confirmations: number;
  /** Whether the deployment watches the network: only then are its addresses handed out outside the demo stage. */
  watched: boolean;
  /** The node's endpoint (JSON-RPC, or Tron's HTTP API), or several, comma-separated, in order of preference: given to the watcher of a watched network. */
  rpcUrl?: string;
  /** A key the node's service asks for in a header (TronGrid's `TRON-PRO-API-KEY`). */
  apiKey?: string;
}

/** What the gateway knows of an EVM network it takes payments on. */
export interface EvmChain extends NetworkChain {
  chainId: number;
}

/** Every network's settings, EVM networks with their chain ids. */
export type Chains = Record<EvmNetwork, EvmChain> & Record<Exclude<CryptoNetwork, EvmNetwork>, NetworkChain>;

/** The stage's networks as built in, before a deployment's settings. */
export const defaultChains = (stage: Stage): Chains =>
  Object.fromEntries(
    CRYPTO_NETWORKS.map((network) => [
      network,
      isEvmNetwork(network)
        ? { chainId: EVM_CHAIN_IDS[stage][network], tokens: TOKEN_CONTRACTS[stage][network] ?? {}, confirmations: DEFAULT_CONFIRMATIONS[network], watched: false }
        : { tokens: network === 'tron' ? TRON_TOKEN_CONTRACTS[stage] : {}, confirmations: DEFAULT_CONFIRMATIONS[network], watched: false },
    ]),
  ) as Chains;

/** The networks a deployment watches. */
export const watchedNetworks = (chains: Chains): CryptoNetwork[] => CRYPTO_NETWORKS.filter((network) => chains[network].watched);

/**
 * The networks a crypto invoice is offered on: the `watched` ones, and in the demo stage every
 * network, since the simulation API pays on any of them.
 */
export const offeredNetworks = (stage: Stage, watched: readonly CryptoNetwork[]): CryptoNetwork[] => (stage === 'demo' ? [...CRYPTO_NETWORKS] : [...watched]);
