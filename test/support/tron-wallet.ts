/**
 * The transaction side of the fixture Tron node (tron-node.ts): TRX and TRC-20 balances, the
 * transactions it builds (`createtransaction`, `triggersmartcontract`, as protobuf bytes the way
 * java-tron writes `Transaction.raw`, with a JSON `raw_data` beside them), what it prices
 * (`getchainparameters`, `triggerconstantcontract`), and what it takes (`broadcasttransaction`:
 * the transaction rebuilt from its JSON `raw_data` as java-tron rebuilds it, so JSON that differs
 * from what the node built is another transaction; the signature must recover to the owner, an
 * expired or known transaction is refused as java-tron refuses it), holds pending, and executes when a block is mined: a token transfer of more than
 * the owner holds reverts and still burns its fee. The node can also be told to build other
 * bytes than asked for, or to answer a txID that is not theirs.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, concatBytes, hexToBytes } from '@noble/hashes/utils.js';
import { createBase58check } from '@scure/base';
import { tronAddress } from '../../shared/domain/chains/index.js';
import { TRANSFER_TOPIC } from '../fixtures/tron.js';

const base58check = createBase58check(sha256);

/** A transaction the wallet executed, as the node puts it in a block (tron-node.ts's TronTransaction). */
interface ExecutedTransaction {
  txID: string;
  transaction: unknown;
  info: (blockNumber: number) => unknown;
}

/** Nile's prices: 1,000 sun a byte of bandwidth, 210 sun a unit of energy, 1.1 TRX to activate an account. */
export const CHAIN_PARAMETERS = { getTransactionFee: 1000n, getEnergyFee: 210n, getCreateNewAccountFeeInSystemContract: 1_000_000n, getCreateAccountFee: 100_000n };
/** How long a built transaction may be mined, as java-tron's default. */
export const EXPIRATION_MS = 60_000;
/** Energy a TRC-20 transfer uses here. */
export const TRANSFER_ENERGY = 64_285n;

/** What the node charges a transaction it mines, in sun: its bytes, and a token call's energy. */
export const feeOf = (kind: 'trx' | 'token', bytes: number): bigint => BigInt(bytes + 64) * CHAIN_PARAMETERS.getTransactionFee + (kind === 'token' ? TRANSFER_ENERGY * CHAIN_PARAMETERS.getEnergyFee : 0n);

export const hex21 = (address: string): string => bytesToHex(base58check.decode(address));

// A protobuf writer for the few fields java-tron's raw transaction has.
function varint(value: bigint): Uint8Array {
  const bytes: number[] = [];
  let rest = value;
  do {
    bytes.push(Number(rest & 0x7fn) | (rest > 0x7fn ? 0x80 : 0));
    rest >>= 7n;
  } while (rest > 0n);
  return Uint8Array.from(bytes);
}
const varintField = (number: number, value: bigint): Uint8Array => (value === 0n ? new Uint8Array() : concatBytes(varint(BigInt(number << 3)), varint(value)));
const bytesField = (number: number, bytes: Uint8Array): Uint8Array => concatBytes(varint(BigInt((number << 3) | 2)), varint(BigInt(bytes.length)), bytes);

type Contract = { type: 'TransferContract'; owner: string; to: string; amount: bigint } | { type: 'TriggerSmartContract'; owner: string; contract: string; data: string };

function contractBytes(contract: Contract): Uint8Array {
  const value =
    contract.type === 'TransferContract'
      ? concatBytes(bytesField(1, hexToBytes(contract.owner)), bytesField(2, hexToBytes(contract.to)), varintField(3, contract.amount))
      : concatBytes(bytesField(1, hexToBytes(contract.owner)), bytesField(2, hexToBytes(contract.contract)), bytesField(4, hexToBytes(contract.data)));
  const any = concatBytes(bytesField(1, new TextEncoder().encode(`type.googleapis.com/protocol.${contract.type}`)), bytesField(2, value));
  return concatBytes(varintField(1, contract.type === 'TransferContract' ? 1n : 31n), bytesField(2, any));
}

interface Built {
  txID: string;
  rawHex: string;
  /** The JSON `raw_data` the node answered beside the bytes. */
  rawData: unknown;
  contract: Contract;
  expiration: number;
  feeLimit: bigint;
}

interface Mined {
  blockNumber: number;
  fee: bigint;
  result: 'SUCCESS' | 'REVERT' | null;
  /** A token transfer's `Transfer` log, as gettransactioninfobyid.md shows it. */
  log?: Array<{ address: string; topics: string[]; data: string }>;
}

export type BuildFault = 'other-destination' | 'other-txid' | undefined;

export class TronWallet {
  readonly balances = new Map<string, bigint>();
  /** Per token contract (hex), each holder's units. */
  readonly tokens = new Map<string, Map<string, bigint>>();
  private readonly built = new Map<string, Built>();
  private readonly pending = new Map<string, Built>();
  private readonly mined = new Map<string, Mined>();
  /** How the next transaction is built wrong, once. */
  buildFault: BuildFault;
  /** Transactions built so far: each one's creation time is a millisecond later, as a real node's clock would make it differ. */
  private builds = 0;

  constructor(private readonly head: () => { number: number; timestamp: number; blockID: string }) {}

  fund(address: string, sun: bigint): void {
    const owner = hex21(address);
    this.balances.set(owner, (this.balances.get(owner) ?? 0n) + sun);
  }

  fundToken(token: string, address: string, units: bigint): void {
    const holders = this.tokens.get(hex21(token)) ?? new Map<string, bigint>();
    holders.set(hex21(address), (holders.get(hex21(address)) ?? 0n) + units);
    this.tokens.set(hex21(token), holders);
  }

  tokenBalance(token: string, address: string): bigint {
    return this.tokens.get(hex21(token))?.get(hex21(address)) ?? 0n;
  }

  trxBalance(address: string): bigint {
    return this.balances.get(hex21(address)) ?? 0n;
  }

  /** The answer to a wallet endpoint; undefined for one this side does not serve. */
  answer(endpoint: string, body: Record<string, unknown>): unknown {
    switch (endpoint) {
      case 'getchainparameters':
        return { chainParameter: Object.entries(CHAIN_PARAMETERS).map(([key, value]) => ({ key, value: Number(value) })) };
      case 'getaccount': {
        const balance = this.balances.get(String(body.address));
        return balance === undefined ? {} : { address: body.address, balance: Number(balance) };
      }
      case 'createtransaction':
        return this.build({ type: 'TransferContract', owner: String(body.owner_address), to: String(body.to_address), amount: BigInt(Number(body.amount)) }, 0n);
      case 'triggersmartcontract': {
        const data = `${selectorOf(String(body.function_selector))}${String(body.parameter)}`;
        return {
          result: { result: true },
          transaction: this.build({ type: 'TriggerSmartContract', owner: String(body.owner_address), contract: String(body.contract_address), data }, BigInt(Number(body.fee_limit))),
        };
      }
      case 'triggerconstantcontract':
        return this.constant(body);
      case 'broadcasttransaction':
        return this.broadcast(body);
      case 'gettransactionfrompending': {
        const built = this.pending.get(String(body.value));
        return built ? { txID: built.txID, raw_data_hex: built.rawHex } : {};
      }
      case 'gettransactioninfobyid': {
        const mined = this.mined.get(String(body.value));
        if (!mined) return {};
        return {
          id: body.value,
          fee: Number(mined.fee),
          blockNumber: mined.blockNumber,
          blockTimeStamp: this.head().timestamp,
          receipt: mined.result === null ? { net_fee: Number(mined.fee) } : { energy_fee: Number(TRANSFER_ENERGY * CHAIN_PARAMETERS.getEnergyFee), result: mined.result },
          ...(mined.result === 'REVERT' ? { result: 'FAILED', resMessage: '5452433230' } : {}),
          ...(mined.log ? { log: mined.log } : {}),
        };
      }
      default:
        return undefined;
    }
  }

  /** The pending transactions that have not expired by `timestamp`, executed into a block `number`; the expired ones are dropped. */
  takePending(number: number, timestamp: number): ExecutedTransaction[] {
    const included: ExecutedTransaction[] = [];
    for (const built of this.pending.values()) {
      this.pending.delete(built.txID);
      if (built.expiration <= timestamp) continue;
      const mined = this.execute(built);
      this.mined.set(built.txID, { ...mined, blockNumber: number });
      included.push({
        txID: built.txID,
        transaction: { txID: built.txID, ret: [{ contractRet: mined.result ?? 'SUCCESS' }], raw_data: { contract: [] }, raw_data_hex: built.rawHex },
        info: () => ({ id: built.txID }),
      });
    }
    return included;
  }

  private build(asked: Contract, feeLimit: bigint) {
    const fault = this.buildFault;
    this.buildFault = undefined;
    const contract = fault === 'other-destination' && asked.type === 'TransferContract' ? { ...asked, to: `41${'ee'.repeat(20)}` } : asked;
    const head = this.head();
    const expiration = head.timestamp + EXPIRATION_MS;
    const rawHex = bytesToHex(
      concatBytes(
        bytesField(1, hexToBytes(head.blockID.slice(12, 16))),
        bytesField(4, hexToBytes(head.blockID.slice(16, 32))),
        varintField(8, BigInt(expiration)),
        bytesField(11, contractBytes(contract)),
        varintField(14, BigInt(head.timestamp + ++this.builds)),
        varintField(18, feeLimit),
      ),
    );
    const txID = fault === 'other-txid' ? 'ab'.repeat(32) : bytesToHex(sha256(hexToBytes(rawHex)));
    const rawData = { contract: [{ type: contract.type }], expiration, timestamp: head.timestamp, ...(feeLimit ? { fee_limit: Number(feeLimit) } : {}) };
    this.built.set(bytesToHex(sha256(hexToBytes(rawHex))), { txID: bytesToHex(sha256(hexToBytes(rawHex))), rawHex, rawData, contract, expiration, feeLimit });
    return { visible: false, txID, raw_data: rawData, raw_data_hex: rawHex };
  }

  private constant(body: Record<string, unknown>) {
    const selector = String(body.function_selector);
    if (selector === 'balanceOf(address)') {
      const units = this.tokens.get(String(body.contract_address))?.get(`41${String(body.parameter).slice(24)}`) ?? 0n;
      return { result: { result: true }, energy_used: 0, constant_result: [units.toString(16).padStart(64, '0')] };
    }
    return { result: { result: true }, energy_used: Number(TRANSFER_ENERGY), constant_result: [''.padStart(64, '0')] };
  }

  private broadcast(body: Record<string, unknown>) {
    const rawHex = String(body.raw_data_hex);
    const txID = bytesToHex(sha256(hexToBytes(rawHex)));
    const built = this.built.get(txID);
    const signatures = Array.isArray(body.signature) ? body.signature.map(String) : [];
    if (!built) return { result: false, code: 'OTHER_ERROR', txid: txID, message: hexOf('not a transaction this node built') };
    // java-tron signs nothing itself and rebuilds the transaction from raw_data: other JSON is another transaction, whose signature cannot recover to the owner.
    if (JSON.stringify(body.raw_data) !== JSON.stringify(built.rawData) || signatures.length !== 1 || !/^[0-9a-f]{130}$/.test(signatures[0]!))
      return { result: false, code: 'SIGERROR', txid: txID, message: hexOf('validate signature error') };
    const signature = hexToBytes(signatures[0]!);
    const raw = hexToBytes(rawHex);
    const recovered = new secp256k1.Signature(BigInt(`0x${bytesToHex(signature.subarray(0, 32))}`), BigInt(`0x${bytesToHex(signature.subarray(32, 64))}`), signature[64]! - 27)
      .recoverPublicKey(sha256(raw))
      .toBytes(true);
    if (hex21(tronAddress(recovered)) !== built.contract.owner) return { result: false, code: 'SIGERROR', txid: txID, message: hexOf('validate signature error') };
    if (built.expiration <= this.head().timestamp) {
      this.pending.delete(txID);
      return { result: false, code: 'TRANSACTION_EXPIRATION_ERROR', txid: txID, message: hexOf('transaction expired') };
    }
    if (this.pending.has(txID) || this.mined.has(txID)) return { result: false, code: 'DUP_TRANSACTION_ERROR', txid: txID, message: hexOf('dup transaction') };
    this.pending.set(txID, built);
    return { result: true, txid: txID };
  }

  private execute(built: Built): Omit<Mined, 'blockNumber'> {
    const { contract } = built;
    const bytes = built.rawHex.length / 2 + 65;
    const move = (holders: Map<string, bigint>, from: string, to: string, amount: bigint) => {
      holders.set(from, (holders.get(from) ?? 0n) - amount);
      holders.set(to, (holders.get(to) ?? 0n) + amount);
    };
    if (contract.type === 'TransferContract') {
      const fee = feeOf('trx', bytes);
      this.balances.set(contract.owner, (this.balances.get(contract.owner) ?? 0n) - fee);
      move(this.balances, contract.owner, contract.to, contract.amount);
      return { fee, result: null };
    }
    const fee = feeOf('token', bytes);
    this.balances.set(contract.owner, (this.balances.get(contract.owner) ?? 0n) - fee);
    const holders = this.tokens.get(contract.contract) ?? new Map<string, bigint>();
    const to = `41${contract.data.slice(8 + 24, 8 + 64)}`;
    const amount = BigInt(`0x${contract.data.slice(8 + 64)}`);
    if ((holders.get(contract.owner) ?? 0n) < amount) return { fee, result: 'REVERT' };
    move(holders, contract.owner, to, amount);
    this.tokens.set(contract.contract, holders);
    const word = (hex: string) => hex.padStart(64, '0');
    const log = { address: contract.contract.slice(2), topics: [TRANSFER_TOPIC, word(contract.owner.slice(2)), word(to.slice(2))], data: word(amount.toString(16)) };
    return { fee, result: 'SUCCESS', log: [log] };
  }
}

const selectorOf = (signature: string): string => (signature === 'transfer(address,uint256)' ? 'a9059cbb' : '00000000');
const hexOf = (text: string): string => Buffer.from(text).toString('hex');
