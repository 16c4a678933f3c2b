/**
 * Crypto payouts: the treasury's signer (the port its adapters in `shared/signers/` implement and
 * the rules on what it answers) and the treasury's addresses.
 */
export {
  assertCompressedPublicKey,
  assertDigest,
  findRecoveryId,
  isLowS,
  isTreasuryFamily,
  normalizeLowS,
  SignerFault,
  toRecoverableSignature,
  TREASURY_ADDRESS_FAMILY,
  TREASURY_FAMILIES,
  type EcdsaSignature,
  type RecoverableSignature,
  type TreasuryFamily,
  type TreasurySigner,
} from './signer.js';
export { parseDerSignature, parseSecp256k1Spki } from './der.js';
export { treasuryAddress, treasuryAddresses, type TreasuryAddresses } from './treasury-addresses.js';
