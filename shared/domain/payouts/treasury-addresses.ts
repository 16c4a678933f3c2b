/**
 * The treasury's addresses: each family's, from the public key of that family's treasury key,
 * written as deposit addresses are (wallets.ts): EIP-55 for EVM (one address on every EVM
 * network), base58check `T…` for Tron, native segwit P2WPKH with the stage's Bitcoin prefix.
 */
import type { Stage } from '../../stage.js';
import { BITCOIN_ADDRESS_PREFIX, bitcoinAddress, evmAddress, tronAddress } from '../chains/index.js';
import { assertCompressedPublicKey, TREASURY_FAMILIES, type TreasuryFamily, type TreasurySigner } from './signer.js';

export type TreasuryAddresses = Record<TreasuryFamily, string>;

/** The address of a family's treasury whose key has the compressed public key `publicKey`. */
export function treasuryAddress(family: TreasuryFamily, publicKey: Uint8Array, stage: Stage): string {
  assertCompressedPublicKey(publicKey);
  switch (family) {
    case 'evm':
      return evmAddress(publicKey);
    case 'tron':
      return tronAddress(publicKey);
    case 'bitcoin':
      return bitcoinAddress(publicKey, BITCOIN_ADDRESS_PREFIX[stage]);
  }
}

/** Every family's treasury address, from the signer's public keys. */
export async function treasuryAddresses(signer: Pick<TreasurySigner, 'publicKey'>, stage: Stage): Promise<TreasuryAddresses> {
  const entries = await Promise.all(TREASURY_FAMILIES.map(async (family) => [family, treasuryAddress(family, await signer.publicKey(family), stage)] as const));
  return Object.fromEntries(entries) as TreasuryAddresses;
}
