/**
 * Customer deposit addresses derived from account-level extended public keys (BIP-32). The
 * service only ever holds public keys, so it can derive addresses but never spend from them.
 * No I/O.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, concatBytes } from '@noble/hashes/utils.js';
import { HARDENED_OFFSET, HDKey, type Versions } from '@scure/bip32';
import { bech32, createBase58check } from '@scure/base';
import type { Stage } from '../../stage.js';
import type { CryptoNetwork } from '../kernel/index.js';
import { BITCOIN_ADDRESS_PREFIX } from './networks.js';

export const ADDRESS_FAMILIES = ['evm', 'btc', 'tron'] as const;
export type AddressFamily = (typeof ADDRESS_FAMILIES)[number];

/** Extended public keys as configured: `m/44'/60'/0'`, `m/84'/0'/0'` and `m/44'/195'/0'`. */
export type WalletXpubs = Record<AddressFamily, string>;

/** The receiving chain (`<account>/0`) of each family, ready for per-customer derivation. */
export type WalletKeys = Readonly<Record<AddressFamily, HDKey>>;

export type CustomerAddresses = Record<AddressFamily, string>;

/** The address family each crypto network takes its deposit address from. */
export const NETWORK_ADDRESS_FAMILY = {
  ethereum: 'evm',
  bsc: 'evm',
  polygon: 'evm',
  bahamut: 'evm',
  bitcoin: 'btc',
  tron: 'tron',
} as const satisfies Record<CryptoNetwork, AddressFamily>;

const XPUB_VERSIONS: Versions = { public: 0x0488b21e, private: 0x0488ade4 };
/** BIP-84 `zpub`/`zprv`: some wallets export native segwit accounts only in this form. */
const ZPUB_VERSIONS: Versions = { public: 0x04b24746, private: 0x04b2430c };

const ACCEPTED_VERSIONS: Record<AddressFamily, readonly Versions[]> = {
  evm: [XPUB_VERSIONS],
  btc: [XPUB_VERSIONS, ZPUB_VERSIONS],
  tron: [XPUB_VERSIONS],
};

/** m / purpose' / coin' / account' */
const ACCOUNT_DEPTH = 3;
const RECEIVING_CHAIN = 0;
const EXTENDED_KEY_LENGTH = 78;
/** Offset of the key data; a private key is stored there behind a 0x00 byte. */
const KEY_DATA_OFFSET = 45;

const base58check = createBase58check(sha256);
const TRON_ADDRESS_PREFIX = 0x41;
const SEGWIT_V0 = 0;

/**
 * Validates the configured keys and prepares them for derivation. Throws on anything that is not
 * an account-level extended public key, so a bad configuration fails at start-up.
 */
export function parseWalletXpubs(xpubs: WalletXpubs): WalletKeys {
  return {
    evm: parseAccountXpub('evm', xpubs.evm),
    btc: parseAccountXpub('btc', xpubs.btc),
    tron: parseAccountXpub('tron', xpubs.tron),
  };
}

function parseAccountXpub(family: AddressFamily, text: string): HDKey {
  const invalid = (reason: string) => new Error(`Wallet ${family} key: ${reason}`);
  const encoded = text.trim();
  let payload: Uint8Array;
  try {
    payload = base58check.decode(encoded);
  } catch {
    throw invalid('not a base58check extended key');
  }
  if (payload.length !== EXTENDED_KEY_LENGTH) throw invalid('not a base58check extended key');
  if (payload[KEY_DATA_OFFSET] === 0) {
    throw invalid('is an extended PRIVATE key; configure the account-level extended public key instead');
  }
  const version = new DataView(payload.buffer, payload.byteOffset, 4).getUint32(0);
  const versions = ACCEPTED_VERSIONS[family].find((v) => v.public === version);
  if (!versions) throw invalid(`unsupported version 0x${version.toString(16).padStart(8, '0')}`);
  const account = HDKey.fromExtendedKey(encoded, versions);
  if (account.depth !== ACCOUNT_DEPTH || account.index < HARDENED_OFFSET) {
    throw invalid(`expected an account-level key (depth ${ACCOUNT_DEPTH}, hardened), got depth ${account.depth}`);
  }
  return account.deriveChild(RECEIVING_CHAIN);
}

/** The customer's address in every family, at receiving-chain index `index`, written for the stage's networks (Bitcoin's `bc1…` or `tb1…`). */
export function deriveCustomerAddresses(keys: WalletKeys, index: number, stage: Stage): CustomerAddresses {
  if (!Number.isSafeInteger(index) || index < 0 || index >= HARDENED_OFFSET) {
    throw new RangeError(`Derivation index must be an integer in [0, 2^31), got ${index}`);
  }
  return {
    evm: evmAddress(childPublicKey(keys.evm, index)),
    btc: bitcoinAddress(childPublicKey(keys.btc, index), BITCOIN_ADDRESS_PREFIX[stage]),
    tron: tronAddress(childPublicKey(keys.tron, index)),
  };
}

/**
 * What a chain watcher knows a customer's address by, in its family: an EVM address in lower case
 * (checksum case carries no identity); a Bitcoin address by the output script it pays (a node
 * writes addresses with its own network's prefix, a script is the same on every network); a Tron
 * address as it is written (base58check).
 */
export function ownerKey(family: AddressFamily, address: string): string {
  switch (family) {
    case 'evm':
      return address.toLowerCase();
    case 'btc':
      return segwitScript(address);
    case 'tron':
      return address;
  }
}

/** The output script (hex) a segwit address of any network pays: OP_0 (or OP_n), then a push of its witness program. */
export function segwitScript(address: string): string {
  const { words } = bech32.decode(address as `${string}1${string}`);
  const [version, ...data] = words;
  const program = bech32.fromWords(data);
  const opcode = version === 0 ? 0 : 0x50 + version!;
  return `${opcode.toString(16).padStart(2, '0')}${program.length.toString(16).padStart(2, '0')}${bytesToHex(program)}`;
}

export function addressForNetwork(addresses: CustomerAddresses, network: CryptoNetwork): string {
  return addresses[NETWORK_ADDRESS_FAMILY[network]];
}

function childPublicKey(chain: HDKey, index: number): Uint8Array {
  const publicKey = chain.deriveChild(index).publicKey;
  if (!publicKey) throw new Error('Derived key has no public key');
  return publicKey;
}

/** Last 20 bytes of keccak-256 over the uncompressed point without its 0x04 prefix. */
function keccakAccountId(compressedPublicKey: Uint8Array): Uint8Array {
  const uncompressed = secp256k1.Point.fromBytes(compressedPublicKey).toBytes(false);
  return keccak_256(uncompressed.subarray(1)).subarray(-20);
}

/** The EIP-55 checksummed EVM address of a compressed secp256k1 public key. */
export function evmAddress(publicKey: Uint8Array): string {
  return toChecksumAddress(bytesToHex(keccakAccountId(publicKey)));
}

/** EIP-55: upper-case each hex letter whose nibble in keccak-256(lower-case address) is >= 8. */
export function toChecksumAddress(address: string): string {
  const lower = address.toLowerCase().replace(/^0x/, '');
  if (!/^[0-9a-f]{40}$/.test(lower)) throw new Error(`Not an EVM address: ${address}`);
  const hash = bytesToHex(keccak_256(new TextEncoder().encode(lower)));
  let checksummed = '0x';
  for (let i = 0; i < lower.length; i++) {
    checksummed += parseInt(hash[i]!, 16) >= 8 ? lower[i]!.toUpperCase() : lower[i];
  }
  return checksummed;
}

/** BIP-84 native segwit v0 P2WPKH: bech32 `bc1q...` (or `tb1q...`) of hash160(compressed public key). */
export function bitcoinAddress(publicKey: Uint8Array, prefix: string): string {
  const hash160 = ripemd160(sha256(publicKey));
  return bech32.encode(prefix, [SEGWIT_V0, ...bech32.toWords(hash160)]);
}

/** The base58check `T…` Tron address of a compressed secp256k1 public key: 0x41 then the account id. */
export function tronAddress(publicKey: Uint8Array): string {
  return base58check.encode(concatBytes(Uint8Array.of(TRON_ADDRESS_PREFIX), keccakAccountId(publicKey)));
}
