/**
 * A Tron transaction as the node builds it, read back from its protobuf bytes (`raw_data_hex`,
 * java-tron's `Transaction.raw`) before the treasury signs it: the one contract it carries (a TRX
 * `TransferContract` or a `TriggerSmartContract`), its expiry and its fee limit. What the node
 * writes beside the bytes (`raw_data` as JSON, `txID`) is not what gets signed, so it is never
 * trusted: the txID signed is the SHA-256 of the bytes, and the bytes must say what was asked.
 * Pure.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';

/** `Transaction.Contract.ContractType` values (java-tron's Tron.proto). */
const TRANSFER_CONTRACT = 1;
const TRIGGER_SMART_CONTRACT = 31;

const WIRE_VARINT = 0;
const WIRE_FIXED64 = 1;
const WIRE_LENGTH_DELIMITED = 2;
const WIRE_FIXED32 = 5;

export type TronContract =
  /** Addresses as 21 bytes in hex (`41…`). */
  { type: 'TransferContract'; owner: string; to: string; amount: bigint } | { type: 'TriggerSmartContract'; owner: string; contract: string; callValue: bigint; data: string };

export interface TronRawTransaction {
  contract: TronContract;
  /** Milliseconds since the epoch. */
  expiration: number;
  /** Sun; 0 when absent (a TRX transfer). */
  feeLimit: bigint;
}

export class MalformedTronTransaction extends Error {}

/** One protobuf field: its number, and its value (a varint, or the bytes of a length-delimited field). */
type Field = { number: number; varint: bigint } | { number: number; bytes: Uint8Array };

function readVarint(bytes: Uint8Array, offset: number): [bigint, number] {
  let value = 0n;
  for (let shift = 0n, at = offset; at < bytes.length && shift < 70n; shift += 7n, at++) {
    const byte = bytes[at]!;
    value |= BigInt(byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) return [value, at + 1];
  }
  throw new MalformedTronTransaction('A varint runs past its message');
}

/** Every field of a message, in order; fixed-width fields are skipped, as none of the read messages has one. */
function fields(bytes: Uint8Array): Field[] {
  const found: Field[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    const [key, afterKey] = readVarint(bytes, offset);
    const number = Number(key >> 3n);
    const wire = Number(key & 7n);
    if (wire === WIRE_VARINT) {
      const [varint, next] = readVarint(bytes, afterKey);
      found.push({ number, varint });
      offset = next;
    } else if (wire === WIRE_LENGTH_DELIMITED) {
      const [length, start] = readVarint(bytes, afterKey);
      const end = start + Number(length);
      if (end > bytes.length) throw new MalformedTronTransaction(`Field ${number} runs past its message`);
      found.push({ number, bytes: bytes.subarray(start, end) });
      offset = end;
    } else if (wire === WIRE_FIXED64 || wire === WIRE_FIXED32) {
      offset = afterKey + (wire === WIRE_FIXED64 ? 8 : 4);
    } else {
      throw new MalformedTronTransaction(`Field ${number} has wire type ${wire}`);
    }
  }
  if (offset !== bytes.length) throw new MalformedTronTransaction('A field runs past its message');
  return found;
}

/** A field that occurs at most once, of the kind expected. */
function single(message: Field[], number: number, kind: 'varint'): bigint | undefined;
function single(message: Field[], number: number, kind: 'bytes'): Uint8Array | undefined;
function single(message: Field[], number: number, kind: 'varint' | 'bytes'): bigint | Uint8Array | undefined {
  const matching = message.filter((field) => field.number === number);
  if (matching.length > 1) throw new MalformedTronTransaction(`Field ${number} occurs ${matching.length} times`);
  const [field] = matching;
  if (!field) return undefined;
  if (!(kind in field)) throw new MalformedTronTransaction(`Field ${number} is not a ${kind}`);
  return kind === 'varint' ? (field as { varint: bigint }).varint : (field as { bytes: Uint8Array }).bytes;
}

const address = (bytes: Uint8Array | undefined, name: string): string => {
  if (bytes?.length !== 21 || bytes[0] !== 0x41) throw new MalformedTronTransaction(`${name} is not a Tron address`);
  return bytesToHex(bytes);
};

function contractOf(contract: Field[]): TronContract {
  const type = Number(single(contract, 1, 'varint') ?? 0n);
  const parameter = single(contract, 2, 'bytes');
  if (!parameter) throw new MalformedTronTransaction('The contract has no parameter');
  // google.protobuf.Any: its type URL (1), then the contract's own message (2).
  const value = fields(single(fields(parameter), 2, 'bytes') ?? new Uint8Array());
  if (type === TRANSFER_CONTRACT) {
    return { type: 'TransferContract', owner: address(single(value, 1, 'bytes'), 'owner_address'), to: address(single(value, 2, 'bytes'), 'to_address'), amount: single(value, 3, 'varint') ?? 0n };
  }
  if (type === TRIGGER_SMART_CONTRACT) {
    if (single(value, 5, 'varint') || single(value, 6, 'varint')) throw new MalformedTronTransaction('The call sends a TRC-10 token along');
    return {
      type: 'TriggerSmartContract',
      owner: address(single(value, 1, 'bytes'), 'owner_address'),
      contract: address(single(value, 2, 'bytes'), 'contract_address'),
      callValue: single(value, 3, 'varint') ?? 0n,
      data: bytesToHex(single(value, 4, 'bytes') ?? new Uint8Array()),
    };
  }
  throw new MalformedTronTransaction(`A contract of type ${type}, neither a TRX transfer nor a contract call`);
}

/** `raw_data_hex` read: exactly one contract, its expiry and fee limit. */
export function readRawTransaction(rawDataHex: string): TronRawTransaction {
  if (!/^([0-9a-f]{2})+$/.test(rawDataHex)) throw new MalformedTronTransaction('raw_data_hex is not hex');
  const raw = fields(hexToBytes(rawDataHex));
  const contracts = raw.filter((field) => field.number === 11);
  const [contract] = contracts;
  if (contracts.length !== 1 || !contract || !('bytes' in contract)) throw new MalformedTronTransaction(`The transaction carries ${contracts.length} contracts, not one`);
  const expiration = single(raw, 8, 'varint');
  if (expiration === undefined) throw new MalformedTronTransaction('The transaction has no expiration');
  return { contract: contractOf(fields(contract.bytes)), expiration: Number(expiration), feeLimit: single(raw, 18, 'varint') ?? 0n };
}

/** The txID of a transaction: the SHA-256 of its raw bytes, what its signature signs. */
export const tronTransactionId = (rawDataHex: string): Uint8Array => sha256(hexToBytes(rawDataHex));
