/**
 * What a customer's wallet is handed for a payment (docs/merchant-guide.md#the-hosted-checkout): a QR code and a link that open
 * the wallet with the recipient, the amount and the chain filled in, wherever a format for it
 * exists. BIP-21 for bitcoin, EIP-681 for EVM networks (native coins by `value`, tokens by an
 * ERC-20 `transfer`). Tron has no standard payment URI, so its QR code is the bare base58 address,
 * as wallets' own receiving QR codes are (TokenPocket's QR protocol says so for Tron), and its link
 * is Trust Wallet's documented send link (developer.trustwallet.com, "Deep Linking"; assets as
 * Universal Asset IDs: `c195` for TRX, `c195_t<contract>` for a TRC-20). Amounts are converted
 * with decimal arithmetic. Pure.
 */
import type { Stage } from '../../stage.js';
import { type CryptoAssetCode, type CryptoNetwork, Decimal, decimalsOf } from '../kernel/index.js';
import { smallestUnits } from './chain.js';
import { isEvmNetwork, NATIVE_ASSETS, type EvmChain, type EvmNetwork, type NetworkChain } from './networks.js';

export interface PaymentRequest {
  network: CryptoNetwork;
  asset: CryptoAssetCode;
  /** The recipient on that network. */
  address: string;
  /** In units of the asset, a decimal string. */
  amount: string;
}

/** What naming a payment takes of the configured networks (`Chains` satisfies it). */
export type PaymentChains = Readonly<Record<EvmNetwork, Pick<EvmChain, 'chainId' | 'tokens'>>> & { readonly tron: Pick<NetworkChain, 'tokens'> };

/**
 * The standard URI of a payment, or undefined where none exists: Tron has none, and a token whose
 * contract on the network is unknown cannot be named.
 */
export function paymentUri(request: PaymentRequest, chains: Readonly<Record<EvmNetwork, Pick<EvmChain, 'chainId' | 'tokens'>>>): string | undefined {
  const { network, asset, address, amount } = request;
  if (network === 'bitcoin') return `bitcoin:${address}?amount=${new Decimal(amount).toFixed()}`;
  if (!isEvmNetwork(network)) return undefined;
  const { chainId, tokens } = chains[network];
  if (NATIVE_ASSETS[network] === asset) return `ethereum:${address}@${chainId}?value=${smallestUnits(amount, decimalsOf(asset))}`;
  const token = tokens[asset];
  if (!token) return undefined;
  return `ethereum:${token.address}@${chainId}/transfer?address=${address}&uint256=${smallestUnits(amount, token.decimals)}`;
}

/** SLIP-44's coin type of Tron, which Trust Wallet's asset ids start with. */
const TRON_COIN_TYPE = 195;

/**
 * Trust Wallet's link that opens its send screen for a Tron payment, the amount in units of the
 * asset; undefined for a TRC-20 whose contract is unknown. Its asset ids name Tron's main network.
 */
export function trustWalletTronLink(request: PaymentRequest, tron: Pick<NetworkChain, 'tokens'>): string | undefined {
  const { asset, address, amount } = request;
  const native = asset === NATIVE_ASSETS.tron;
  const token = native ? undefined : tron.tokens[asset];
  if (!native && !token) return undefined;
  // Checked as the chain would take it, though the link carries the amount in units.
  smallestUnits(amount, token?.decimals ?? decimalsOf(asset));
  const assetId = token ? `c${TRON_COIN_TYPE}_t${token.address}` : `c${TRON_COIN_TYPE}`;
  return `https://link.trustwallet.com/send?${new URLSearchParams({ asset: assetId, address, amount: new Decimal(amount).toFixed() })}`;
}

export interface WalletHandoff {
  /** The QR code's text: the payment URI where the network has one, else the bare address. */
  qrCode: string;
  /** Whether the QR code names the amount; if not, the customer enters it in the wallet. */
  qrCodeHasAmount: boolean;
  /** A link that opens a wallet with the payment filled in; `app` names the one wallet that reads it, where only one does. */
  walletLink?: { href: string; app?: string };
}

/**
 * The QR code and the wallet link of a payment on a stage. Trust Wallet's Tron link is left out
 * where the stage's Tron is a test network (demo pays on Nile): the link would ask for a payment on
 * the main network, to an address that only holds test coins.
 */
export function walletHandoff(request: PaymentRequest, { stage, chains }: { stage: Stage; chains: PaymentChains }): WalletHandoff {
  if (request.network === 'tron') {
    const href = stage === 'prod' ? trustWalletTronLink(request, chains.tron) : undefined;
    return { qrCode: request.address, qrCodeHasAmount: false, ...(href === undefined ? {} : { walletLink: { href, app: 'Trust Wallet' } }) };
  }
  const uri = paymentUri(request, chains);
  return uri === undefined ? { qrCode: request.address, qrCodeHasAmount: false } : { qrCode: uri, qrCodeHasAmount: true, walletLink: { href: uri } };
}
