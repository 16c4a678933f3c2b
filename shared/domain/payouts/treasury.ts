/**
 * What the treasury holds and what queued payouts need of it: the ports its holdings are read
 * through (one reader per network, over the network's node; `shared/chain/treasury-balances.ts`),
 * the amounts written in each asset's units, and the report the admin CLI prints. Amounts are
 * decimal strings with the asset's decimals (the kernel's), never more than the chain holds.
 */
import type { Stage } from '../../stage.js';
import { assetAmount, isEvmNetwork } from '../chains/index.js';
import { CRYPTO_NETWORKS, type CryptoAssetCode, type CryptoNetwork, Decimal, decimalsOf } from '../kernel/index.js';
import { TREASURY_FAMILIES, type TreasuryFamily, type TreasurySigner } from './signer.js';
import { treasuryAddress } from './treasury-addresses.js';

/** An amount of an asset on a network: held by the treasury, or needed of it. */
export interface TreasuryAmount {
  network: CryptoNetwork;
  asset: CryptoAssetCode;
  /** In units of the asset, with its decimals: `1.500000` USDT. */
  amount: string;
}

/** An unspent output the treasury holds on a UTXO chain: what a Bitcoin payout spends. */
export interface HeldOutput {
  txid: string;
  vout: number;
  /** In BTC, with its 8 decimals. */
  amount: string;
  /** The output script, hex: the treasury's P2WPKH script. */
  scriptPubKey: string;
  /** The block it was mined in. */
  height: number;
}

/** What the treasury holds on one network, read from the network's node. */
export interface TreasuryBalanceReader {
  /** What `address` holds of the network's native coin and of each token the stage configures there, each once, none left out when zero. */
  balances(address: string): Promise<TreasuryAmount[]>;
}

/** A UTXO network's reader, which also lists the outputs the holdings are made of. */
export interface TreasuryOutputReader extends TreasuryBalanceReader {
  /** The confirmed outputs paying `address` that nothing has spent. */
  unspentOutputs(address: string): Promise<HeldOutput[]>;
}

/** A payout waiting to be sent from the treasury: the amount it takes of its currency on its network. */
export interface QueuedPayout {
  network: CryptoNetwork;
  currency: CryptoAssetCode;
  /** In units of the currency, a decimal string. */
  amount: string;
}

/** Where the payouts waiting to be sent are read from. */
export interface QueuedPayouts {
  queued(): Promise<QueuedPayout[]>;
}

/** The treasury account a network's payouts are paid from. */
export const treasuryFamilyOf = (network: CryptoNetwork): TreasuryFamily => (isEvmNetwork(network) ? 'evm' : network);

/**
 * `units` of a chain's smallest unit (`unitDecimals` places: a token contract's own decimals,
 * which need not be the asset's) in the asset's units with its decimals, rounded down: the
 * treasury is never shown more than it can send.
 */
export function treasuryAmount(units: bigint, unitDecimals: number, asset: CryptoAssetCode): string {
  return assetAmount(units, unitDecimals, asset).toFixed(decimalsOf(asset));
}

const byNetworkThenAsset = (a: TreasuryAmount, b: TreasuryAmount): number => CRYPTO_NETWORKS.indexOf(a.network) - CRYPTO_NETWORKS.indexOf(b.network) || a.asset.localeCompare(b.asset);

/**
 * What the queued payouts take of the treasury, per network and asset: the sum of their amounts,
 * in the order of the networks. The network fees they will pay in each network's coin are not
 * counted: they are known only once each payout is built.
 */
export function neededByQueuedPayouts(payouts: readonly QueuedPayout[]): TreasuryAmount[] {
  const sums = new Map<string, { network: CryptoNetwork; asset: CryptoAssetCode; sum: Decimal }>();
  for (const { network, currency, amount } of payouts) {
    const key = `${network}/${currency}`;
    const entry = sums.get(key) ?? { network, asset: currency, sum: new Decimal(0) };
    entry.sum = entry.sum.plus(amount);
    sums.set(key, entry);
  }
  return [...sums.values()].map(({ network, asset, sum }) => ({ network, asset, amount: sum.toFixed(decimalsOf(asset)) })).sort(byNetworkThenAsset);
}

/** One treasury account as the admin CLI's `treasury` prints it. */
export interface TreasuryFamilyReport {
  family: TreasuryFamily;
  address: string;
  balances: TreasuryAmount[];
  needed: TreasuryAmount[];
}

/** Where a stage's treasury is read: its signer (for the addresses), a reader per network it has a node of, and its queued payouts. */
export interface TreasurySources {
  stage: Stage;
  signer: Pick<TreasurySigner, 'publicKey'>;
  readers: Partial<Record<CryptoNetwork, TreasuryBalanceReader>>;
  payouts: QueuedPayouts;
}

/** Each family's address, what it holds on each network read (in the order of the networks), and what queued payouts need of it. */
export async function treasuryReport({ stage, signer, readers, payouts }: TreasurySources): Promise<{ families: TreasuryFamilyReport[] }> {
  const needed = neededByQueuedPayouts(await payouts.queued());
  return {
    families: await Promise.all(
      TREASURY_FAMILIES.map(async (family) => {
        const address = treasuryAddress(family, await signer.publicKey(family), stage);
        const networks = CRYPTO_NETWORKS.filter((network) => treasuryFamilyOf(network) === family);
        const held = await Promise.all(networks.map((network) => readers[network]?.balances(address) ?? []));
        return { family, address, balances: held.flat(), needed: needed.filter(({ network }) => treasuryFamilyOf(network) === family) };
      }),
    ),
  };
}
