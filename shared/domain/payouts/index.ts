/**
 * Crypto payouts: the treasury's signer (the port its adapters in `shared/signers/` implement and
 * the rules on what it answers), the treasury's addresses, the merchants' payout addresses, a
 * payout request's rules, and the port that sends payouts on chain (payout-chain.ts, its adapters
 * in `shared/chain/`).
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
export { P256_ORDER, parseDerSignature, parseP256Spki, parseSecp256k1Spki } from './der.js';
export { treasuryAddress, treasuryAddresses, type TreasuryAddresses } from './treasury-addresses.js';
export { assertTreasuryCovers, type Committed, committedBy, decodeSignedPayout, encodeSignedPayout, NOTHING_COMMITTED, NotYetExpired, TreasuryBusy, TreasuryShortfall } from './payout-chain.js';
export type { PayoutChain, PayoutOrder, PayoutStatus, PayoutTransferPosition, SignedPayout, TreasuryOutput, TreasuryState } from './payout-chain.js';
export { DEFAULT_PAYOUT_FEES, cryptoPayoutFees, networkFeeIn, cryptoPayoutHeld, cryptoPayoutProblem, cryptoPayoutRequestSchema, needsApproval } from './crypto-payouts.js';
export type { CryptoPayoutFees, CryptoPayoutRequest } from './crypto-payouts.js';
export {
  checkedPayoutAddress,
  newPayoutAddressRequestSchema,
  payoutAddressStatus,
  payoutAddressListSchema,
  PayoutAddresses,
  type NewPayoutAddressRequest,
  type PayoutAddress,
  type PayoutAddressAuthority,
  type PayoutAddressList,
  type PayoutAddressStore,
  type PayoutAddressView,
} from './payout-addresses.js';
export { neededByQueuedPayouts, treasuryAmount, treasuryFamilyOf, treasuryReport } from './treasury.js';
export type { QueuedPayout, QueuedPayouts, TreasuryAmount, TreasuryBalanceReader, HeldOutput, TreasuryOutputReader, TreasurySources } from './treasury.js';
