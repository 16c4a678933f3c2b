/**
 * Crypto payouts: the treasury's signer (the port its adapters in `shared/signers/` implement and
 * the rules on what it answers) and the treasury's addresses.
 */
export {
  assertDigest,
  findRecoveryId,
  isLowS,
  normalizeLowS,
  SignerFault,
  toRecoverableSignature,
  TREASURY_FAMILIES,
  type RecoverableSignature,
  type TreasuryFamily,
  type TreasurySigner,
} from './signer.js';
export { parseDerSignature, parseSecp256k1Spki } from './der.js';
export { treasuryAddress, treasuryAddresses } from './treasury-addresses.js';
export { neededByQueuedPayouts, treasuryAmount, treasuryFamilyOf, treasuryReport } from './treasury.js';
export type { QueuedPayout, QueuedPayouts, TreasuryAmount, TreasuryBalanceReader, TreasuryOutput, TreasuryOutputReader, TreasurySources } from './treasury.js';
