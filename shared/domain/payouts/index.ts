/**
 * Crypto payouts: the treasury's signer (the port its adapters in `shared/signers/` implement and
 * the rules on what it answers), the treasury's addresses, and the merchants' payout addresses.
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
export {
  newPayoutAddressRequestSchema,
  payoutAddressListSchema,
  PayoutAddresses,
  type NewPayoutAddressRequest,
  type PayoutAddress,
  type PayoutAddressAuthority,
  type PayoutAddressList,
  type PayoutAddressStore,
  type PayoutAddressView,
} from './payout-addresses.js';
