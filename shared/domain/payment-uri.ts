/**
 * Payment URIs a wallet opens with the recipient, the amount and the chain filled in (decisions
 * 17): BIP-21 for bitcoin, EIP-681 for EVM networks (native coins by `value`, tokens by an ERC-20
 * `transfer`). Amounts are converted to the chain's smallest unit with decimal arithmetic. Pure.
 */
import { decimalsOf, type CryptoAssetCode, type CryptoNetwork } from './currencies.js';
import { Decimal } from './money.js';
import { isEvmNetwork, NATIVE_ASSETS, type EvmChain, type EvmNetwork } from './networks.js';

export interface PaymentRequest {
  network: CryptoNetwork;
  asset: CryptoAssetCode;
  /** The recipient on that network. */
  address: string;
  /** In units of the asset, a decimal string. */
  amount: string;
}

/** `amount` in the smallest unit of something with `decimals` places; the amount must not be finer. */
function smallestUnits(amount: string, decimals: number): string {
  const units = new Decimal(amount).mul(new Decimal(10).pow(decimals));
  if (!units.isInteger()) throw new Error(`${amount} has more than ${decimals} decimal places`);
  return units.toFixed(0);
}

/**
 * The URI of a payment, or undefined where no standard one exists: TRON has none, and a token
 * whose contract on the network is unknown cannot be named.
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
