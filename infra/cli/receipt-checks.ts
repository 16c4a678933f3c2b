/**
 * What the receipt verifier decides, apart from reading files, keys and nodes: the receipt's text
 * and payload, the claim its chain evidence makes, the comparison of that claim with what an EVM
 * or a Bitcoin node answered, and the report. Pure, so that each verdict is tested on its own.
 */
import { bytesToHex } from '@noble/hashes/utils.js';
import * as z from 'zod';
import { outputScript } from '../../shared/chain/bitcoin-transaction.js';
import { depthOf, smallestUnits } from '../../shared/domain/chains/index.js';

/** `ok` and `FAILED` are verdicts; the rest say why no verdict was given. */
export type Outcome = 'ok' | 'FAILED' | 'not checked' | 'not applicable' | 'not established';

export interface Check {
  outcome: Outcome;
  what: string;
  detail: string;
}

export const check = (outcome: Outcome, what: string, detail: string): Check => ({ outcome, what, detail });

/** Verified: the signature held and no check that ran failed (one that could not run fails nothing). */
export const isVerified = (checks: readonly Check[]): boolean => checks.some((each) => each.what === 'signature' && each.outcome === 'ok') && !checks.some((each) => each.outcome === 'FAILED');

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The compact JWS in a receipt file: the JWS itself, or the receipt route's JSON answer holding it
 * (`{ "receipt": … }`, bare or inside the API's `data` envelope).
 */
export function receiptJwsOf(text: string): string {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    let answer: unknown;
    try {
      answer = JSON.parse(trimmed);
    } catch {
      throw new Error('the file starts as JSON but is not JSON');
    }
    const holder = isObject(answer) && isObject(answer.data) ? answer.data : answer;
    if (!isObject(holder) || typeof holder.receipt !== 'string') throw new Error('the JSON holds no "receipt" string');
    return holder.receipt.trim();
  }
  if (!/^[\w-]+\.[\w-]+\.[\w-]+$/.test(trimmed)) throw new Error('the file holds neither a compact JWS (three base64url parts joined by dots) nor the JSON answer of the receipt route');
  return trimmed;
}

const position = z.number().int().nonnegative();

/** Chain evidence: every field may be absent, when the receipt names it in `missing`. */
const chainEvidence = z.object({
  source: z.literal('chain'),
  network: z.string().optional(),
  transactionHash: z.string().optional(),
  blockNumber: position.optional(),
  blockHash: z.string().optional(),
  logIndex: position.nullable().optional(),
  outputIndex: position.optional(),
  to: z.string().optional(),
  contract: z.string().nullable().optional(),
  confirmations: z.number().int().optional(),
});

const providerEvidence = z.object({
  source: z.literal('provider'),
  providerId: z.string().optional(),
  providerReference: z.string().optional(),
  utr: z.string().nullable().optional(),
  webhookId: z.string().nullable().optional(),
  webhookTimestamp: z.union([z.string(), z.number()]).nullable().optional(),
});

export const receiptPayloadSchema = z.object({
  iss: z.string(),
  sub: z.string(),
  iat: z.number(),
  transaction: z.looseObject({
    id: z.string(),
    type: z.string(),
    status: z.string(),
    amount: z.string().regex(/^\d+(\.\d+)?$/, 'must be a decimal amount'),
    currency: z.string(),
    network: z.string().nullable(),
    transactionHash: z.string().nullable(),
  }),
  evidence: z.discriminatedUnion('source', [chainEvidence, providerEvidence, z.object({ source: z.literal('simulation') })]),
  missing: z.array(z.string()).default([]),
  entries: z.array(z.unknown()).default([]),
  callbacks: z.array(z.unknown()).default([]),
});

export type ReceiptPayload = z.infer<typeof receiptPayloadSchema>;
type ChainEvidence = z.infer<typeof chainEvidence>;

/** What chain evidence states, with the transaction's amount: what a node can confirm or refute. */
export interface ChainClaim {
  network: string;
  transactionHash: string;
  blockNumber?: number;
  blockHash?: string;
  logIndex?: number | null;
  outputIndex?: number;
  to?: string;
  contract?: string | null;
  /** The confirmations the gateway counted when it credited the transfer. */
  confirmations?: number;
  amount: string;
  currency: string;
}

/**
 * The claim of a receipt's chain evidence, and the checks that the evidence and the transaction name
 * the same network and hash (the transaction's fill in what the evidence could not establish).
 */
export function chainClaimOf(payload: ReceiptPayload, evidence: ChainEvidence): { claim?: ChainClaim; checks: Check[] } {
  const { transaction } = payload;
  const checks: Check[] = [];
  for (const field of ['network', 'transactionHash'] as const) {
    const stated = evidence[field];
    const transactionSays = transaction[field];
    if (stated !== undefined && transactionSays !== null && stated.toLowerCase() !== transactionSays.toLowerCase()) {
      checks.push(check('FAILED', `evidence ${field}`, `the evidence says ${stated}, the transaction ${transactionSays}`));
    }
  }
  const network = evidence.network ?? transaction.network;
  const transactionHash = evidence.transactionHash ?? transaction.transactionHash;
  if (!network || !transactionHash) {
    checks.push(check('not checked', 'chain', 'the receipt establishes no network and transaction hash to look for'));
    return { checks };
  }
  const { blockNumber, blockHash, logIndex, outputIndex, to, contract, confirmations } = evidence;
  return { claim: { network, transactionHash, blockNumber, blockHash, logIndex, outputIndex, to, contract, confirmations, amount: transaction.amount, currency: transaction.currency }, checks };
}

/** `amount` in units of `decimals` places, or the reason it cannot be. */
function unitsOf(amount: string, decimals: number): bigint | string {
  try {
    return smallestUnits(amount, decimals);
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

const same = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();

/** Whether the block the receipt names is still the chain's block at its height. */
function canonicalCheck(claim: ChainClaim, canonicalHash: string | null | undefined): Check {
  const what = 'block still on the chain';
  if (claim.blockNumber === undefined || claim.blockHash === undefined) return check('not checked', what, 'the receipt does not establish both the block number and hash');
  if (!canonicalHash) return check('FAILED', what, `the node has no block ${claim.blockNumber}: reorganised away, or the node is behind`);
  if (!same(canonicalHash, claim.blockHash)) return check('FAILED', what, `block ${claim.blockNumber} is now ${canonicalHash}, not ${claim.blockHash}: reorganised away`);
  return check('ok', what, `block ${claim.blockNumber} is ${claim.blockHash}`);
}

/** Whether the block, still on the chain, stands at least as deep now as when the gateway counted its confirmations. */
function depthCheck(claim: ChainClaim, head: number | undefined): Check {
  const what = 'confirmations';
  if (claim.confirmations === undefined || claim.blockNumber === undefined || head === undefined) return check('not checked', what, 'the receipt does not establish the confirmations counted');
  const depth = depthOf(claim.blockNumber, head);
  if (depth < claim.confirmations) return check('FAILED', what, `the block is ${depth} deep now, fewer than the ${claim.confirmations} the receipt says were counted (or the node is behind)`);
  return check('ok', what, `the block is ${depth} deep now (${claim.confirmations} counted when credited)`);
}

export interface EvmLog {
  address: string;
  logIndex: number;
  /** The log decoded as an ERC-20 `Transfer`; undefined when it is none. */
  transfer?: { to: string; value: bigint };
}

/** What an EVM node answered about a claim; undefined where it was not asked. */
export interface EvmFacts {
  /** The hash of the block at the claim's height; null when the node has no block there. */
  canonicalHash?: string | null;
  /** The node's newest block. */
  head?: number;
  /** `eth_getTransactionReceipt`; null when the node knows no such transaction. */
  receipt: { succeeded: boolean; blockNumber: number; blockHash: string; logs: EvmLog[] } | null;
  /** `eth_getTransactionByHash`, for a native transfer. */
  transaction?: { to: string | null; value: bigint } | null;
  /** The token contract's `decimals()`, or why it answered none. */
  decimals?: number | string;
}

const NATIVE_DECIMALS = 18;

/** The claim against an EVM node's answers: the block, the transaction and its transfer. */
export function evmChecks(claim: ChainClaim, facts: EvmFacts): Check[] {
  const canonical = canonicalCheck(claim, facts.canonicalHash);
  const checks = canonical.outcome === 'ok' ? [canonical, depthCheck(claim, facts.head)] : [canonical];
  const { receipt } = facts;
  if (!receipt) {
    checks.push(check('FAILED', 'transaction mined', `the node knows no transaction ${claim.transactionHash}: reorganised away, or never mined`));
    return checks;
  }
  checks.push(receipt.succeeded ? check('ok', 'transaction mined', `${claim.transactionHash} succeeded`) : check('FAILED', 'transaction mined', `${claim.transactionHash} reverted`));
  checks.push(blockOfTransactionCheck(claim, receipt));
  checks.push(claim.contract ? tokenTransferCheck(claim, claim.contract, receipt.logs, facts.decimals) : nativeTransferCheck(claim, facts.transaction));
  return checks;
}

function blockOfTransactionCheck(claim: ChainClaim, mined: { blockNumber: number; blockHash: string }): Check {
  const what = 'transaction in that block';
  if (claim.blockNumber === undefined && claim.blockHash === undefined) return check('not checked', what, 'the receipt does not establish the block');
  const numberDiffers = claim.blockNumber !== undefined && claim.blockNumber !== mined.blockNumber;
  const hashDiffers = claim.blockHash !== undefined && !same(claim.blockHash, mined.blockHash);
  if (numberDiffers || hashDiffers) return check('FAILED', what, `it was mined in block ${mined.blockNumber} ${mined.blockHash}, not ${claim.blockNumber ?? '?'} ${claim.blockHash ?? '?'}`);
  return check('ok', what, `mined in block ${mined.blockNumber}`);
}

function tokenTransferCheck(claim: ChainClaim, contract: string, logs: readonly EvmLog[], decimals: number | string | undefined): Check {
  const what = 'token transfer';
  if (claim.logIndex === undefined || claim.logIndex === null) return check('not checked', what, 'the receipt does not establish the log index');
  if (claim.to === undefined) return check('not checked', what, 'the receipt does not establish the address paid');
  const log = logs.find((each) => each.logIndex === claim.logIndex);
  if (!log) return check('FAILED', what, `the transaction has no log ${claim.logIndex}`);
  if (!same(log.address, contract)) return check('FAILED', what, `log ${claim.logIndex} was emitted by ${log.address}, not the contract ${contract}`);
  if (!log.transfer) return check('FAILED', what, `log ${claim.logIndex} is no ERC-20 Transfer`);
  if (typeof decimals !== 'number') return check('FAILED', what, `the contract ${contract} answered no decimals(): ${decimals ?? 'not asked'}`);
  const units = unitsOf(claim.amount, decimals);
  if (typeof units === 'string') return check('FAILED', what, `${claim.amount} ${claim.currency} is no amount of the contract, whose decimals are ${decimals}: ${units}`);
  if (!same(log.transfer.to, claim.to)) return check('FAILED', what, `log ${claim.logIndex} pays ${log.transfer.to}, not ${claim.to}`);
  if (log.transfer.value !== units) return check('FAILED', what, `log ${claim.logIndex} transfers ${log.transfer.value} units, not ${units} (${claim.amount} ${claim.currency} at ${decimals} decimals)`);
  return check('ok', what, `${claim.amount} ${claim.currency} (${units} units of ${contract}) to ${claim.to}`);
}

function nativeTransferCheck(claim: ChainClaim, transaction: EvmFacts['transaction']): Check {
  const what = 'native transfer';
  if (claim.to === undefined) return check('not checked', what, 'the receipt does not establish the address paid');
  if (!transaction) return check('FAILED', what, `the node answered no transaction ${claim.transactionHash}`);
  const wei = unitsOf(claim.amount, NATIVE_DECIMALS);
  if (typeof wei === 'string') return check('FAILED', what, `${claim.amount} is no amount in wei: ${wei}`);
  if (transaction.to === null || !same(transaction.to, claim.to)) return check('FAILED', what, `the transaction pays ${transaction.to ?? 'no address (it creates a contract)'}, not ${claim.to}`);
  if (transaction.value !== wei) return check('FAILED', what, `the transaction sends ${transaction.value} wei, not ${wei} (${claim.amount} ${claim.currency})`);
  return check('ok', what, `${claim.amount} ${claim.currency} (${wei} wei) to ${claim.to}`);
}

/** What a Bitcoin node answered about a claim. */
export interface BitcoinFacts {
  /** The block at the claim's height with its outputs; null when the node has no block there. */
  block: { hash: string; outputs: ReadonlyArray<{ txid: string; index: number; script: string; satoshis: bigint }> } | null;
  /** The node's newest block. */
  head: number;
}

type BitcoinOutputs = NonNullable<BitcoinFacts['block']>['outputs'];

const SATOSHI_DECIMALS = 8;

/** The claim against a Bitcoin node's block at the claim's height. */
export function bitcoinChecks(claim: ChainClaim, facts: BitcoinFacts): Check[] {
  const canonical = canonicalCheck(claim, facts.block?.hash ?? null);
  if (canonical.outcome !== 'ok' || !facts.block) {
    return [canonical, check('not checked', 'transaction in that block', canonical.outcome === 'FAILED' ? 'the block the receipt names is not on the chain' : 'the receipt does not establish the block')];
  }
  const depth = depthCheck(claim, facts.head);
  const outputs = facts.block.outputs.filter((output) => output.txid === claim.transactionHash.toLowerCase());
  if (outputs.length === 0) return [canonical, depth, check('FAILED', 'transaction in that block', `block ${claim.blockNumber} holds no transaction ${claim.transactionHash}`)];
  return [canonical, depth, check('ok', 'transaction in that block', `block ${claim.blockNumber} holds ${claim.transactionHash}`), outputCheck(claim, outputs)];
}

/** The output script an address pays, hex, or why it is no Bitcoin address. */
function scriptOf(address: string): { hex: string } | { problem: string } {
  try {
    return { hex: bytesToHex(outputScript(address)) };
  } catch (error) {
    return { problem: error instanceof Error ? error.message : String(error) };
  }
}

function outputCheck(claim: ChainClaim, outputs: BitcoinOutputs): Check {
  const what = 'output paid';
  if (claim.outputIndex === undefined) return check('not checked', what, 'the receipt does not establish the output index');
  if (claim.to === undefined) return check('not checked', what, 'the receipt does not establish the address paid');
  const script = scriptOf(claim.to);
  if ('problem' in script) return check('FAILED', what, `${claim.to} is no Bitcoin address: ${script.problem}`);
  const output = outputs.find((each) => each.index === claim.outputIndex);
  if (!output) return check('FAILED', what, `the transaction has no output ${claim.outputIndex}`);
  const satoshis = unitsOf(claim.amount, SATOSHI_DECIMALS);
  if (typeof satoshis === 'string') return check('FAILED', what, `${claim.amount} is no amount in satoshis: ${satoshis}`);
  if (output.script !== script.hex) return check('FAILED', what, `output ${claim.outputIndex} pays the script ${output.script}, not ${claim.to}'s ${script.hex}`);
  if (output.satoshis !== satoshis) return check('FAILED', what, `output ${claim.outputIndex} pays ${output.satoshis} satoshis, not ${satoshis} (${claim.amount} ${claim.currency})`);
  return check('ok', what, `output ${claim.outputIndex} pays ${claim.amount} ${claim.currency} (${satoshis} satoshis) to ${claim.to}`);
}

/** The lines of `missing`: what the gateway could not establish when it made the receipt. */
export const missingChecks = (missing: readonly string[]): Check[] => missing.map((field) => check('not established', field, 'the gateway could not establish it when it made the receipt'));

/** What provider or simulated evidence proves, and that there is no chain to check. */
export function offChainChecks(evidence: ReceiptPayload['evidence']): Check[] {
  if (evidence.source === 'provider') {
    const said = [
      `provider ${evidence.providerId ?? '(not established)'}`,
      `reference ${evidence.providerReference ?? '(not established)'}`,
      ...(evidence.utr ? [`UTR ${evidence.utr}`] : []),
      ...(evidence.webhookId ? [`event ${evidence.webhookId}${evidence.webhookTimestamp ? ` of ${evidence.webhookTimestamp}` : ''}`] : []),
    ].join(', ');
    return [
      check('not applicable', 'chain', `provider evidence: the signature proves the gateway states the payment was reported by ${said}; there is no chain to check, only the provider can confirm it`),
    ];
  }
  if (evidence.source === 'simulation')
    return [check('not applicable', 'chain', 'simulated: the signature proves the gateway states it simulated this transaction; no money moved and there is no chain to check')];
  throw new Error('chain evidence is checked on its chain');
}

const OUTCOME_WIDTH = 'not established'.length + 2;

/** The report a person reads: the receipt in a line, a line a check, and the verdict. */
export function renderReport(checks: readonly Check[], payload: ReceiptPayload | undefined): string {
  const lines: string[] = [];
  if (payload) {
    const { transaction } = payload;
    lines.push(
      `Receipt of transaction ${transaction.id}: ${transaction.type}, ${transaction.status}, ${transaction.amount} ${transaction.currency}${transaction.network ? ` on ${transaction.network}` : ''}`,
      `Issued by ${payload.iss} at ${new Date(payload.iat * 1000).toISOString()}`,
      '',
    );
  }
  for (const each of checks) lines.push(`${each.outcome.padEnd(OUTCOME_WIDTH)}${each.what}: ${each.detail}`);
  const failed = checks.filter((each) => each.outcome === 'FAILED').length;
  lines.push('', isVerified(checks) ? 'Verified: the signature holds and every check that ran passed.' : `NOT verified: ${failed} check${failed === 1 ? '' : 's'} failed.`);
  return `${lines.join('\n')}\n`;
}
