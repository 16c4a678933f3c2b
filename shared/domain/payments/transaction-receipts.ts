/**
 * Transaction receipts (decisions on receipts): a compact JWS (ES256) over a transaction as the
 * merchant retrieves it, what shows its money moved, its balance entries and its callbacks, which
 * anyone holding the stage's public keys can check without asking the gateway. The key is behind
 * `ReceiptSigner` (AWS KMS, or a key file on one machine: `shared/signers/`).
 */
import { createHash } from 'node:crypto';
import { callbackDelivery, type CallbackRecord } from '../callbacks/index.js';
import { type BalanceEntry, balanceEntryView } from '../ledger/index.js';
import { NETWORK_ADDRESS_FAMILY } from '../chains/index.js';
import type { CryptoNetwork, Listing, Page } from '../kernel/index.js';
import { isSimulatedCryptoDeposit, type Transaction, type TransactionEvidence, type TransactionView } from '../transactions/index.js';
import type { BalanceEntryFilters } from '../ledger/index.js';

/** A receipt key's public half as `GET /.well-known/jwks.json` lists it (RFC 7517), `kid` its RFC 7638 thumbprint. */
export interface ReceiptPublicKey {
  kty: 'EC';
  crv: 'P-256';
  x: string;
  y: string;
  kid: string;
  alg: 'ES256';
  use: 'sig';
}

/** The stage's receipt keys: the current one signs, retired ones are still listed for receipts signed before a rotation. */
export interface ReceiptSigner {
  /** The `kid` of the key that signs now. */
  currentKeyId(): Promise<string>;
  /** ES256 over the JWS signing input with the key `kid` (ECDSA P-256 over its SHA-256): the 64 bytes r || s of RFC 7518 3.4. */
  sign(kid: string, signingInput: Uint8Array): Promise<Uint8Array>;
  /** The current key first, then every retired key kept for verification. */
  publicKeys(): Promise<ReceiptPublicKey[]>;
}

const base64url = (bytes: Uint8Array | string): string => Buffer.from(bytes).toString('base64url');

/** RFC 7638: base64url(SHA-256) of the key's required members, in lexicographic order, with no whitespace. */
export const jwkThumbprint = ({ crv, kty, x, y }: Pick<ReceiptPublicKey, 'crv' | 'kty' | 'x' | 'y'>): string => base64url(createHash('sha256').update(JSON.stringify({ crv, kty, x, y })).digest());

/** A P-256 public key from its coordinates (32 bytes each, big-endian), named by its thumbprint. */
export function receiptPublicKey(x: Uint8Array, y: Uint8Array): ReceiptPublicKey {
  const coordinates = { kty: 'EC', crv: 'P-256', x: base64url(x), y: base64url(y) } as const;
  return { ...coordinates, kid: jwkThumbprint(coordinates), alg: 'ES256', use: 'sig' };
}

/** A receipt's evidence: every field of its kind, null where unknown, and the names of those unknown in `missing`. */
export interface ReceiptEvidence {
  evidence: Record<string, unknown>;
  missing: string[];
}

const CHAIN_FIELDS = ['network', 'transactionHash', 'blockNumber', 'blockHash', 'to', 'contract', 'confirmations'] as const;
const PROVIDER_FIELDS = ['providerId', 'providerReference', 'utr', 'webhookId', 'webhookTimestamp'] as const;

/** Every field of `fields` from `known`, null where it is not known, listed in `missing` then. */
function complete(source: TransactionEvidence['source'], fields: readonly string[], known: Record<string, unknown>): ReceiptEvidence {
  const missing = fields.filter((field) => known[field] === undefined);
  return { evidence: { source, ...Object.fromEntries(fields.map((field) => [field, known[field] ?? null])) }, missing };
}

const isBitcoin = (network: string | null): boolean => network !== null && NETWORK_ADDRESS_FAMILY[network as CryptoNetwork] === 'btc';

/** The chain fields in the format's order: a Bitcoin output's place is `outputIndex`, any other transfer's `logIndex`. */
const chainFields = (network: string | null): string[] => [...CHAIN_FIELDS.slice(0, 4), isBitcoin(network) ? 'outputIndex' : 'logIndex', ...CHAIN_FIELDS.slice(4)];

/**
 * The evidence a receipt states: as recorded with the transaction's state, or, for a record written
 * before evidence was, what the record itself still tells (never a value it does not hold).
 */
export function receiptEvidence(transaction: Transaction): ReceiptEvidence {
  const recorded = transaction.evidence;
  if (recorded?.source === 'simulation') return { evidence: { source: 'simulation' }, missing: [] };
  if (recorded?.source === 'provider') return complete('provider', PROVIDER_FIELDS, { ...recorded });
  if (recorded?.source === 'chain') return complete('chain', chainFields(recorded.network), { ...recorded });
  if (transaction.type === 'deposit' && isSimulatedCryptoDeposit(transaction)) return { evidence: { source: 'simulation' }, missing: [] };
  if (transaction.network !== null) {
    const position = transaction.chain;
    return complete('chain', chainFields(transaction.network), {
      network: transaction.network,
      transactionHash: transaction.transactionHash ?? undefined,
      blockNumber: position?.blockNumber,
      blockHash: position?.blockHash,
      [isBitcoin(transaction.network) ? 'outputIndex' : 'logIndex']: position?.logIndex,
      to: transaction.address,
    });
  }
  const { provider, utr } = transaction;
  return complete('provider', PROVIDER_FIELDS, { providerId: provider?.id, providerReference: provider?.reference, utr });
}

/** A callback as a receipt states it: its `webhook-id`, how its delivery stands (`state`, as its delivery log names it), its attempts and the last HTTP status answered. */
export function receiptCallback(record: CallbackRecord): { webhookId: string; state: string; attempts: number; lastStatusCode: number | null } {
  const { webhookId, state, attempts } = callbackDelivery(record, null);
  return { webhookId, state, attempts: attempts.length, lastStatusCode: attempts.at(-1)?.status ?? null };
}

/** What a receipt signs (docs/merchant-guide.md#receipts). */
export interface ReceiptPayload {
  iss: string;
  sub: string;
  iat: number;
  transaction: Omit<TransactionView, 'senderDetails'>;
  evidence: Record<string, unknown>;
  missing: string[];
  entries: Array<{ id: string; type: string; amount: string }>;
  callbacks: Array<ReturnType<typeof receiptCallback>>;
}

/** The compact JWS of `payload`, signed with the signer's current key. */
export async function signReceipt(signer: ReceiptSigner, payload: ReceiptPayload): Promise<string> {
  const kid = await signer.currentKeyId();
  const signingInput = `${base64url(JSON.stringify({ alg: 'ES256', kid, typ: 'JWT' }))}.${base64url(JSON.stringify(payload))}`;
  const signature = await signer.sign(kid, Buffer.from(signingInput, 'ascii'));
  return `${signingInput}.${base64url(signature)}`;
}

export interface TransactionReceiptsDeps {
  transactions: { owned(merchantId: string, transactionId: string): Promise<Transaction> };
  views: { present(transaction: Transaction): Promise<TransactionView> };
  /** The merchant's balance entries, newest first, a page at a time (the transaction's, filtered). */
  entries: { list(merchantId: string, listing: Listing<BalanceEntryFilters>): Promise<Page<BalanceEntry>> };
  /** The transaction's callbacks, oldest first. */
  callbacks: { forTransaction(transactionId: string): Promise<CallbackRecord[]> };
  signer: ReceiptSigner;
  /** The stage's public base URL: the receipt's `iss`. */
  issuer: string;
  clock: () => Date;
}

/** A transaction has a handful of entries: one page holds them. */
const ENTRIES_PAGE = 100;

export class TransactionReceipts {
  constructor(private readonly deps: TransactionReceiptsDeps) {}

  /** The merchant's own transaction's receipt, a compact JWS; anything else is as unknown as a missing transaction (404). */
  async receipt(merchantId: string, transactionId: string): Promise<string> {
    return signReceipt(this.deps.signer, await this.payload(merchantId, transactionId));
  }

  async payload(merchantId: string, transactionId: string): Promise<ReceiptPayload> {
    const { transactions, views, callbacks, issuer, clock } = this.deps;
    const transaction = await transactions.owned(merchantId, transactionId);
    const [view, entries, records] = await Promise.all([views.present(transaction), this.entriesOf(transaction), callbacks.forTransaction(transaction.id)]);
    const { senderDetails: _retrievalOnly, ...shown } = view;
    return {
      iss: issuer,
      sub: transaction.id,
      iat: Math.floor(clock().getTime() / 1000),
      transaction: shown,
      ...receiptEvidence(transaction),
      entries: entries.map((entry) => {
        const { id, type, amount } = balanceEntryView(entry);
        return { id, type, amount };
      }),
      callbacks: records.map(receiptCallback),
    };
  }

  /** The transaction's entries in the order they were posted. */
  private async entriesOf(transaction: Transaction): Promise<BalanceEntry[]> {
    const entries: BalanceEntry[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.deps.entries.list(transaction.merchantId, { filters: { transactionId: transaction.id }, limit: ENTRIES_PAGE, cursor });
      entries.push(...page.items);
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    return entries.sort((a, b) => a.sequence - b.sequence || a.createdAt.localeCompare(b.createdAt));
  }
}
