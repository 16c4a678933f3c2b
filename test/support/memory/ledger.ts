/**
 * Transactions in memory, to the contract of DynamoTransactionStore: a write that moves money is
 * all or nothing with the invoice change it causes, the balance entries it brings, what it counts
 * towards the day totals, the callback it owes and the claims it takes or gives up, and is refused as `stale` when any of its conditions fails (a transaction that
 * exists already or is no longer in the state it moves from, an invoice that moved on, a claim
 * taken, a callback owed already). Conditions are checked and the write made without yielding
 * in between, as one DynamoDB transaction does; what it answers is a copy.
 */
import type { BalancePosting } from '../../../shared/domain/ledger/balances.js';
import type { CheckedTransaction, RecordPosition } from '../../../shared/domain/ledger/books-check.js';
import type { CallbackEntry, CallbackRecord } from '../../../shared/domain/callbacks/callbacks.js';
import { countsOfLedgerWrite } from '../../../shared/domain/ledger/daily-totals.js';
import type { InvoiceUpdate } from '../../../shared/domain/invoicing/payments.js';
import type { Ledger, PersonsDecision, RefundHold, UniqueClaim } from '../../../shared/domain/payments/transaction-service.js';
import type { AuditEntry } from '../../../shared/domain/dashboard/index.js';
import type { CommitResult } from '../../../shared/domain/kernel/retry.js';
import type { Transaction, TransactionProvider, TransactionStatus } from '../../../shared/domain/transactions/transactions.js';
import { type CryptoPayoutTransaction, followedOnChain } from '../../../shared/domain/transactions/crypto-payouts.js';
import type { TreasuryNonce } from '../../../shared/domain/payments/payout-sending.js';
import type { MemoryBalanceStore } from './balances.js';
import { MemoryDailyTotals } from './daily-totals.js';
import type { MemoryInvoiceStore } from './invoice-store.js';
import { pagesOf } from './pages.js';

const oldestFirst = (a: Transaction, b: Transaction) => a.createdAt.localeCompare(b.createdAt);

export class MemoryLedger implements Ledger {
  private readonly transactions = new Map<string, Transaction>();
  private readonly claims = new Map<string, UniqueClaim>();
  /** The outbox: every callback owed, by its `webhook-id`. */
  private readonly outbox = new Map<string, CallbackEntry>();

  /** The invoices, balances and day totals a write's changes go to, as the transactions table shares a transaction with their tables. */
  constructor(
    private readonly invoices: MemoryInvoiceStore,
    private readonly balances: MemoryBalanceStore,
    private readonly totals: MemoryDailyTotals = new MemoryDailyTotals(),
  ) {}

  async get(id: string): Promise<Transaction | undefined> {
    const transaction = this.transactions.get(id);
    return transaction && structuredClone(transaction);
  }

  async getClaim(id: string): Promise<UniqueClaim | undefined> {
    const claim = this.claims.get(id);
    return claim && structuredClone(claim);
  }

  async insert(
    transaction: Transaction,
    options: { invoice?: InvoiceUpdate; posting?: BalancePosting; callbacks?: CallbackEntry[]; claims?: UniqueClaim[]; decision?: PersonsDecision; refundHold?: RefundHold } = {},
  ): Promise<CommitResult> {
    const { invoice, posting, callbacks = [], claims = [], decision, refundHold } = options;
    if (this.transactions.has(transaction.id) || !this.writable(invoice, posting, callbacks, refundHold) || claims.some((claim) => this.claims.has(claim.id))) return 'stale';
    if (decision && !this.takeCode(decision)) return 'stale';
    this.transactions.set(transaction.id, structuredClone(transaction));
    this.holdRefunds(refundHold);
    for (const claim of claims) this.claims.set(claim.id, structuredClone(claim));
    this.commit(transaction, invoice, posting, callbacks);
    return 'committed';
  }

  async transition(
    next: Transaction,
    from: TransactionStatus,
    options: { invoice?: InvoiceUpdate; posting?: BalancePosting; callbacks?: CallbackEntry[]; releaseClaims?: string[]; decision?: PersonsDecision; refundHold?: RefundHold } = {},
  ): Promise<CommitResult> {
    const { invoice, posting, callbacks = [], releaseClaims = [], decision, refundHold } = options;
    if (this.transactions.get(next.id)?.status !== from || !this.writable(invoice, posting, callbacks, refundHold)) return 'stale';
    if (decision && !this.takeCode(decision)) return 'stale';
    this.transactions.set(next.id, structuredClone(next));
    this.holdRefunds(refundHold);
    for (const id of releaseClaims) this.claims.delete(id);
    this.commit(next, invoice, posting, callbacks);
    return 'committed';
  }

  /** What the provider took of a processing transaction's request; a settled one, or one of another provider, is left as it was. */
  async recordProviderRequest(transactionId: string, provider: TransactionProvider): Promise<void> {
    const transaction = this.transactions.get(transactionId);
    if (transaction?.status === 'processing' && transaction.provider?.id === provider.id) transaction.provider = structuredClone(provider);
  }

  /** On-chain deposits on `network` still short of their confirmations, and crypto payouts being sent, oldest first. */
  async pendingOnChain(network: string): Promise<Transaction[]> {
    return this.matching((transaction) => followedOnChain(transaction) && transaction.network === network);
  }

  /** Takes the decision's code and writes its audit entry, unless a code of its step or a later one was taken: then nothing. */
  private takeCode({ code, entry }: PersonsDecision): boolean {
    if ((this.codeSteps.get(code.email) ?? -1) >= code.step) return false;
    this.codeSteps.set(code.email, code.step);
    this.auditEntries.push(structuredClone(entry));
    return true;
  }

  private readonly nonces = new Map<string, number>();
  /** The last TOTP step each dashboard user took, and the audit entries of decisions, as the users' and audit tables keep them. */
  readonly codeSteps = new Map<string, number>();
  readonly auditEntries: AuditEntry[] = [];

  async recordAttempt(next: CryptoPayoutTransaction, attempts: number, nonce?: TreasuryNonce): Promise<boolean> {
    const current = this.transactions.get(next.id) as CryptoPayoutTransaction | undefined;
    if (current?.status !== 'processing' || current.payout.attempts.length !== attempts) return false;
    if (nonce && this.nonces.get(nonce.network) !== nonce.expected) return false;
    if (nonce) this.nonces.set(nonce.network, nonce.used + 1);
    this.transactions.set(next.id, structuredClone(next));
    return true;
  }

  async treasuryNonce(network: string): Promise<number | undefined> {
    return this.nonces.get(network);
  }

  /** Transactions still processing at `providerId`, oldest first. */
  async awaitingProvider(providerId: string): Promise<Transaction[]> {
    return this.matching((transaction) => transaction.status === 'processing' && transaction.provider?.id === providerId);
  }

  /** Every transaction of the merchant, oldest first. */
  async *allOf(merchantId: string): AsyncIterable<Transaction> {
    yield* this.matching((transaction) => transaction.merchantId === merchantId);
  }

  /** Items in a page of the books check's reads, as a query's 1 MB page holds a thousand or so. */
  pageSize = 1000;

  /** The merchant's transactions after `after`, oldest first, a page at a time. */
  async *ofMerchant(merchantId: string, after: RecordPosition | null): AsyncIterable<Transaction[]> {
    const theirs = this.matching((transaction) => transaction.merchantId === merchantId);
    yield* pagesOf(theirs.slice(after ? theirs.findIndex(({ id }) => id === after.id) + 1 : 0), this.pageSize);
  }

  /** The transactions changed from `from` to `to`, as the `changes` index holds them. */
  async *changedBetween(from: string, to: string): AsyncIterable<CheckedTransaction[]> {
    const changed = [...this.transactions.values()].filter(({ updatedAt }) => updatedAt >= from && updatedAt <= to);
    yield* pagesOf(
      changed.map(({ id, merchantId, type, status, amount, fees }) => ({ id, merchantId, type, status, amount, fees })),
      this.pageSize,
    );
  }

  async listByInvoice(invoiceId: string): Promise<Transaction[]> {
    return this.matching((transaction) => transaction.invoiceId === invoiceId);
  }

  /** The callback owed under this `webhook-id`, if any. */
  callback(id: string): CallbackEntry | undefined {
    return this.outbox.get(id);
  }

  /** A transaction's callbacks, oldest first, as the outbox keeps them before any delivery. */
  async forTransaction(transactionId: string): Promise<CallbackRecord[]> {
    const entries = [...this.outbox.values()].filter((entry) => entry.transactionId === transactionId).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    return entries.map((entry) => ({ ...structuredClone(entry), attempts: [] }));
  }

  private writable(invoice: InvoiceUpdate | undefined, posting: BalancePosting | undefined, callbacks: readonly CallbackEntry[], refundHold: RefundHold | undefined): boolean {
    return (
      (invoice === undefined || this.invoices.holds(invoice)) &&
      (posting === undefined || this.balances.holds(posting)) &&
      callbacks.every((callback) => !this.outbox.has(callback.id)) &&
      (refundHold === undefined || this.holdsRefunds(refundHold))
    );
  }

  /** Whether the refund's deposit is confirmed and holds what the refund was decided on. */
  private holdsRefunds({ depositId, expected }: RefundHold): boolean {
    const deposit = this.transactions.get(depositId);
    return deposit?.type === 'deposit' && deposit.status === 'confirmed' && deposit.refundsHeld === expected;
  }

  private holdRefunds(refundHold: RefundHold | undefined): void {
    const deposit = refundHold && this.transactions.get(refundHold.depositId);
    if (deposit) deposit.refundsHeld = refundHold.next;
  }

  private commit(transaction: Transaction, invoice: InvoiceUpdate | undefined, posting: BalancePosting | undefined, callbacks: readonly CallbackEntry[]): void {
    if (invoice) this.invoices.apply(invoice, transaction.updatedAt);
    if (posting) this.balances.apply(posting);
    this.totals.add(countsOfLedgerWrite(transaction, posting, invoice));
    for (const callback of callbacks) this.outbox.set(callback.id, structuredClone(callback));
  }

  private matching(predicate: (transaction: Transaction) => boolean): Transaction[] {
    return [...this.transactions.values()]
      .filter(predicate)
      .sort(oldestFirst)
      .map((transaction) => structuredClone(transaction));
  }
}
