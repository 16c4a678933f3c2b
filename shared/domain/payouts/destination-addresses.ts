/**
 * Whether an address can be paid on a network: an EVM
 * address (EIP-55's checksum held when it is written in mixed case), a Tron base58check `T…`
 * address, or a Bitcoin address of the stage's network (bech32 for segwit v0, bech32m for v1 and
 * later, or base58check P2PKH and P2SH). Each is kept in one canonical form, so that an address
 * given twice in two cases is one address. Pure.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bech32, bech32m, createBase58check } from '@scure/base';
import type { Stage } from '../../stage.js';
import type { CryptoNetwork } from '../kernel/index.js';
import { isEvmNetwork, toChecksumAddress } from '../chains/index.js';

const base58check = createBase58check(sha256);

/** Bitcoin's address forms per stage: mainnet in production; testnet's and regtest's where the demo and `npm start` run. */
const BITCOIN_FORMS: Record<Stage, { segwitPrefixes: readonly string[]; base58Versions: readonly number[] }> = {
  prod: { segwitPrefixes: ['bc'], base58Versions: [0x00, 0x05] },
  demo: { segwitPrefixes: ['tb', 'bcrt'], base58Versions: [0x6f, 0xc4] },
};

const TRON_VERSION = 0x41;

/** An address in its canonical form, or why it is no address of `network` on `stage`. */
export type DestinationCheck = { address: string } | { problem: string };

function evmDestination(address: string): DestinationCheck {
  if (!/^0x[0-9a-fA-F]{40}$/.test(address)) return { problem: 'must be 0x and 40 hexadecimal digits' };
  const checksummed = toChecksumAddress(address);
  const hex = address.slice(2);
  // A checksum is carried only by an address written in mixed case (EIP-55).
  if (hex !== hex.toLowerCase() && hex !== hex.toUpperCase() && address !== checksummed) return { problem: 'fails its EIP-55 checksum' };
  return { address: checksummed };
}

function tronDestination(address: string): DestinationCheck {
  try {
    const payload = base58check.decode(address);
    if (payload.length === 21 && payload[0] === TRON_VERSION) return { address };
  } catch {
    // Not base58check, or its checksum fails: refused below.
  }
  return { problem: 'must be a Tron base58check address (T…)' };
}

function segwitDestination(address: string, prefixes: readonly string[]): DestinationCheck | undefined {
  const lower = address.toLowerCase();
  // BIP-173: all lower case or all upper case, never both.
  if (address !== lower && address !== address.toUpperCase()) return undefined;
  for (const [coder, versions] of [
    [bech32, (version: number) => version === 0],
    [bech32m, (version: number) => version >= 1 && version <= 16],
  ] as const) {
    const decoded = coder.decodeUnsafe(lower, 90);
    if (!decoded || !prefixes.includes(decoded.prefix)) continue;
    const [version, ...data] = decoded.words;
    if (version === undefined || !versions(version)) continue;
    const program = coder.fromWordsUnsafe(data);
    if (!program || program.length < 2 || program.length > 40) continue;
    if (version === 0 && program.length !== 20 && program.length !== 32) continue;
    if (version === 1 && program.length !== 32) continue;
    return { address: lower };
  }
  return undefined;
}

function bitcoinDestination(address: string, stage: Stage): DestinationCheck {
  const { segwitPrefixes, base58Versions } = BITCOIN_FORMS[stage];
  const segwit = segwitDestination(address, segwitPrefixes);
  if (segwit) return segwit;
  try {
    const payload = base58check.decode(address);
    if (payload.length === 21 && base58Versions.includes(payload[0]!)) return { address };
  } catch {
    // Not base58check either: refused below.
  }
  return { problem: `must be a Bitcoin address of this environment's network (${segwitPrefixes.map((prefix) => `${prefix}1…`).join(', ')} or base58)` };
}

/** Checks `address` for `network` on `stage`, trimmed, and gives it canonically: EVM checksummed, segwit lower case. */
export function destinationAddress(network: CryptoNetwork, address: string, stage: Stage): DestinationCheck {
  const trimmed = address.trim();
  if (trimmed === '' || trimmed.length > 128) return { problem: 'must be an address' };
  if (isEvmNetwork(network)) return evmDestination(trimmed);
  if (network === 'tron') return tronDestination(trimmed);
  return bitcoinDestination(trimmed, stage);
}
