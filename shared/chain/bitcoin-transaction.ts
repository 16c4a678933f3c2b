/**
 * Bitcoin transactions as the treasury writes them: segwit serialization (BIP-144), the txid, the
 * BIP-143 digest a P2WPKH input's signature covers, the witness of such an input, the output
 * script of any address a payout may go to, and the virtual size a fee is counted on. Pure.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, concatBytes, hexToBytes } from '@noble/hashes/utils.js';
import { bech32, bech32m, createBase58check } from '@scure/base';
import type { RecoverableSignature } from '../domain/payouts/index.js';

export interface TransactionInput {
  /** The spent output's transaction, as nodes write txids (byte-reversed). */
  txid: string;
  index: number;
  sequence: number;
}

export interface TransactionOutput {
  script: Uint8Array;
  satoshis: bigint;
}

export interface BitcoinTransaction {
  version: number;
  inputs: readonly TransactionInput[];
  outputs: readonly TransactionOutput[];
  locktime: number;
}

const SIGHASH_ALL = 1;
const SEGWIT_MARKER_AND_FLAG = Uint8Array.of(0x00, 0x01);
/**
 * The most a P2WPKH input's witness weighs: its item count, a low-S DER signature of at most 71
 * bytes with its sighash byte, and a compressed key, each with its length.
 */
const P2WPKH_WITNESS_MAX_BYTES = 1 + (1 + 72) + (1 + 33);

const base58check = createBase58check(sha256);
const BASE58_P2PKH_VERSIONS = [0x00, 0x6f];
const BASE58_P2SH_VERSIONS = [0x05, 0xc4];

const sha256d = (bytes: Uint8Array): Uint8Array => sha256(sha256(bytes));
export const hash160 = (bytes: Uint8Array): Uint8Array => ripemd160(sha256(bytes));

function uint32(value: number): Uint8Array {
  const bytes = new Uint8Array(4);
  new DataView(bytes.buffer).setUint32(0, value, true);
  return bytes;
}

function uint64(value: bigint): Uint8Array {
  const bytes = new Uint8Array(8);
  new DataView(bytes.buffer).setBigUint64(0, value, true);
  return bytes;
}

/** Bitcoin's CompactSize length prefix. */
function compactSize(value: number): Uint8Array {
  if (value < 0xfd) return Uint8Array.of(value);
  if (value <= 0xffff) return Uint8Array.of(0xfd, value & 0xff, value >> 8);
  return concatBytes(Uint8Array.of(0xfe), uint32(value));
}

const withLength = (bytes: Uint8Array): Uint8Array => concatBytes(compactSize(bytes.length), bytes);

/** The outpoint as serialized: the txid back in its internal byte order, then the index. */
const outpoint = (input: TransactionInput): Uint8Array => concatBytes(hexToBytes(input.txid).reverse(), uint32(input.index));

const serializeOutput = (output: TransactionOutput): Uint8Array => concatBytes(uint64(output.satoshis), withLength(output.script));

/** The transaction without witnesses: what the txid hashes, and a segwit input's empty scriptSig. */
export function serializeWithoutWitness(transaction: BitcoinTransaction): Uint8Array {
  return concatBytes(
    uint32(transaction.version),
    compactSize(transaction.inputs.length),
    ...transaction.inputs.map((input) => concatBytes(outpoint(input), compactSize(0), uint32(input.sequence))),
    compactSize(transaction.outputs.length),
    ...transaction.outputs.map(serializeOutput),
    uint32(transaction.locktime),
  );
}

/** The transaction with a witness (a stack of items) for each input, as BIP-144 serializes it; hex, as nodes take it. */
export function serializeWithWitnesses(transaction: BitcoinTransaction, witnesses: readonly (readonly Uint8Array[])[]): string {
  if (witnesses.length !== transaction.inputs.length) throw new RangeError(`${transaction.inputs.length} inputs, ${witnesses.length} witnesses`);
  const plain = serializeWithoutWitness(transaction);
  // The plain form's version, then the marker and flag, its inputs and outputs, the witnesses, and its locktime last.
  const body = plain.subarray(4, plain.length - 4);
  const stacks = witnesses.map((items) => concatBytes(compactSize(items.length), ...items.map(withLength)));
  return bytesToHex(concatBytes(plain.subarray(0, 4), SEGWIT_MARKER_AND_FLAG, body, ...stacks, plain.subarray(plain.length - 4)));
}

/** The txid as nodes write it: the double SHA-256 of the witness-free form, byte-reversed. */
export const transactionId = (transaction: BitcoinTransaction): string => bytesToHex(sha256d(serializeWithoutWitness(transaction)).reverse());

/** The script a P2WPKH output of this key hash pays: OP_0, a push of the 20 bytes. */
export const p2wpkhScript = (publicKeyHash: Uint8Array): Uint8Array => concatBytes(Uint8Array.of(0x00, 0x14), publicKeyHash);

/**
 * BIP-143's digest for input `inputIndex`, a P2WPKH output of `publicKeyHash` worth `satoshis`,
 * signed with SIGHASH_ALL: it commits to every input's outpoint and sequence, to the amount spent,
 * and to every output.
 */
export function p2wpkhSignatureDigest(transaction: BitcoinTransaction, inputIndex: number, publicKeyHash: Uint8Array, satoshis: bigint): Uint8Array {
  const input = transaction.inputs[inputIndex];
  if (!input) throw new RangeError(`No input ${inputIndex}`);
  // The script code of a P2WPKH spend is the P2PKH script of its key hash (BIP-143).
  const scriptCode = concatBytes(Uint8Array.of(0x19, 0x76, 0xa9, 0x14), publicKeyHash, Uint8Array.of(0x88, 0xac));
  return sha256d(
    concatBytes(
      uint32(transaction.version),
      sha256d(concatBytes(...transaction.inputs.map(outpoint))),
      sha256d(concatBytes(...transaction.inputs.map((each) => uint32(each.sequence)))),
      outpoint(input),
      scriptCode,
      uint64(satoshis),
      uint32(input.sequence),
      sha256d(concatBytes(...transaction.outputs.map(serializeOutput))),
      uint32(transaction.locktime),
      uint32(SIGHASH_ALL),
    ),
  );
}

/** A P2WPKH input's witness: the DER signature with its SIGHASH_ALL byte, and the compressed public key. */
export function p2wpkhWitness(signature: RecoverableSignature, publicKey: Uint8Array): Uint8Array[] {
  const der = new secp256k1.Signature(signature.r, signature.s).toBytes('der');
  return [concatBytes(der, Uint8Array.of(SIGHASH_ALL)), publicKey];
}

/** The virtual size (BIP-141) the transaction will have once each of its inputs, all P2WPKH, carries its witness: at most this, as a signature may be a byte shorter. */
export function p2wpkhSpendVirtualSize(transaction: BitcoinTransaction): number {
  const weight = 4 * serializeWithoutWitness(transaction).length + SEGWIT_MARKER_AND_FLAG.length + transaction.inputs.length * P2WPKH_WITNESS_MAX_BYTES;
  return Math.ceil(weight / 4);
}

/**
 * The output script an address pays, whatever its network's prefix: a segwit program of any
 * version (bech32 for v0, bech32m after), or base58check P2PKH and P2SH of mainnet or the test
 * networks. The address was checked for the stage's network before (destination-addresses.ts).
 */
export function outputScript(address: string): Uint8Array {
  const lower = address.toLowerCase() as `${string}1${string}`;
  const segwit = bech32.decodeUnsafe(lower, 90) ?? bech32m.decodeUnsafe(lower, 90);
  if (segwit) {
    const [version, ...data] = segwit.words;
    const program = bech32.fromWords(data);
    return concatBytes(Uint8Array.of(version === 0 ? 0x00 : 0x50 + version!, program.length), program);
  }
  const payload = base58check.decode(address);
  const [version] = payload;
  const hash = payload.subarray(1);
  if (payload.length === 21 && BASE58_P2PKH_VERSIONS.includes(version!)) return concatBytes(Uint8Array.of(0x76, 0xa9, 0x14), hash, Uint8Array.of(0x88, 0xac));
  if (payload.length === 21 && BASE58_P2SH_VERSIONS.includes(version!)) return concatBytes(Uint8Array.of(0xa9, 0x14), hash, Uint8Array.of(0x87));
  throw new RangeError(`${address} is no Bitcoin address a payout can go to`);
}
