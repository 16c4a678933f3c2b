/**
 * What identifies each crypto network on chain, per stage: production runs on the main networks,
 * demo (and local) on their test networks. Pure data, shared by whatever needs to name a chain.
 */
import type { Stage } from '../stage.js';
import type { CryptoAssetCode, CryptoNetwork } from './currencies.js';

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

/** Confirmations a transfer needs before it counts (docs/merchant-guide.md#on-chain-deposits), unless configured otherwise. */
export const DEFAULT_CONFIRMATIONS: Record<EvmNetwork, number> = { ethereum: 12, bsc: 15, polygon: 64, bahamut: 12 };

/** What the gateway knows of an EVM network it takes payments on. */
export interface EvmChain {
  chainId: number;
  /** The USDT and USDC contracts customers pay with; another token sent to a customer is not seen. */
  tokens: Partial<Record<CryptoAssetCode, TokenContract>>;
  confirmations: number;
  /** JSON-RPC endpoint; without one the network is not watched. */
  rpcUrl?: string;
}

export const EVM_NETWORKS = Object.keys(EVM_CHAIN_IDS.prod) as EvmNetwork[];

/** The stage's networks as built in, before a deployment's settings. */
export const defaultEvmChains = (stage: Stage): Record<EvmNetwork, EvmChain> =>
  Object.fromEntries(
    EVM_NETWORKS.map((network) => [network, { chainId: EVM_CHAIN_IDS[stage][network], tokens: TOKEN_CONTRACTS[stage][network] ?? {}, confirmations: DEFAULT_CONFIRMATIONS[network] }]),
  ) as Record<EvmNetwork, EvmChain>;
