/**
 * What transaction receipts (docs/merchant-guide.md#receipts) cost, built over in-memory ports in
 * this process (the transaction, its entries and callbacks held in memory, as a warm function has
 * read them), so that the figures are the receipt's own work:
 * - receipts a second signed with the local key file signer (node:crypto's P-256), one after another;
 * - KMS calls a receipt makes through the KMS signer, counted on a fake KMS client that signs with
 *   its own P-256 keys: `Sign` per receipt, `GetPublicKey` per container;
 * - the size of the receipt of a deposit with 10 callbacks, each attempted twice.
 * Nothing is asserted: the figures are printed beside their goals.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { GetPublicKeyCommand, SignCommand } from '@aws-sdk/client-kms';
import type { CallbackRecord } from '../shared/domain/callbacks/callbacks.js';
import type { BalanceEntry } from '../shared/domain/ledger/balances.js';
import { type ReceiptSigner, TransactionReceipts } from '../shared/domain/payments/transaction-receipts.js';
import { transactionView, type Transaction } from '../shared/domain/transactions/transactions.js';
import { KeyFileReceiptSigner, receiptKeyDirectory } from '../shared/signers/key-file-receipt-signer.js';
import { KmsReceiptSigner } from '../shared/signers/kms-receipt-signer.js';
import { FakeReceiptKms } from '../test/support/receipt-kms.js';
import { positiveOption } from './options.js';

export const DESCRIPTION = 'receipts/s with the local key file, KMS calls per receipt, the size of a receipt with 10 callbacks';

/** What a function instance should sign at least: its route's throttle share (10 instances, 500 requests/s) is 50 a second an instance. */
const GOAL_RECEIPTS_PER_SECOND = 50;
const GOAL_SIGN_CALLS_PER_RECEIPT = 1;
/** A receipt in a response and in a file: well inside what a merchant keeps beside an order. */
const GOAL_RECEIPT_BYTES = 8 * 1024;

const MERCHANT_ID = '5a6b7c8d-9e0f-4a1b-8c2d-3e4f5a6b7c8d';
const TRANSACTION_ID = '8b2d4e6f-1a3c-4d5e-8f70-9a1b2c3d4e5f';

/** A confirmed USDT deposit seen on chain, as the chain watcher records it. */
const deposit: Transaction = {
  id: TRANSACTION_ID,
  merchantId: MERCHANT_ID,
  invoiceId: '3f1c9a52-7d4e-4b8a-9c61-2e5f0a7b8d13',
  type: 'deposit',
  status: 'confirmed',
  amount: '25.000000',
  currency: 'USDT',
  network: 'ethereum',
  transactionHash: `0x${'5c'.repeat(32)}`,
  customerId: 'cust-42',
  orderId: '1001',
  applicationId: null,
  createdAt: '2026-06-01T10:04:12.000Z',
  updatedAt: '2026-06-01T10:06:40.000Z',
  info: { exchangeRate: '1', referenceAmount: '25.000000', referenceCurrency: 'USDT', referenceExchangeRate: '1', transactionAmount: '25.000000', transactionCurrency: 'USDT' },
  fees: { processing: '0.500000', technical: null },
  eur: '23.15',
  usd: '25.00',
  senderDetails: { senderIban: '', senderAccountNumber: '', senderSortCode: '' },
  chain: { blockNumber: 22611093, blockHash: `0x${'9e'.repeat(32)}`, logIndex: 41 },
  evidence: {
    source: 'chain',
    network: 'ethereum',
    transactionHash: `0x${'5c'.repeat(32)}`,
    blockNumber: 22611093,
    blockHash: `0x${'9e'.repeat(32)}`,
    logIndex: 41,
    to: '0x6f1d3c8a2b5e4f7091a2b3c4d5e6f708192a3b4c',
    contract: '0xdAC17F958D2ee523a2206206994597C13D831ec7',
    confirmations: 12,
  },
  booked: true,
};

const entry = (id: string, type: BalanceEntry['type'], change: string): BalanceEntry => ({
  id,
  merchantId: MERCHANT_ID,
  transactionId: TRANSACTION_ID,
  type,
  currency: 'USDT',
  availableChange: change,
  reservedChange: '0.000000',
  availableAfter: '24.500000',
  reservedAfter: '0.000000',
  sequence: type === 'deposit' ? 1 : 2,
  createdAt: deposit.updatedAt,
});

const entries = [entry('a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d', 'deposit', '25.000000'), entry('b1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d', 'fee', '-0.500000')];

/** `count` callbacks of the transaction, each delivered at its second attempt. */
const callbacksOf = (count: number): CallbackRecord[] =>
  Array.from({ length: count }, (_, index) => ({
    id: `${TRANSACTION_ID}:${index === 0 ? 'confirmed' : `resent-${index}`}`,
    merchantId: MERCHANT_ID,
    transactionId: TRANSACTION_ID,
    payload: '{}',
    createdAt: deposit.updatedAt,
    attempts: [
      { at: deposit.updatedAt, status: 503, latencyMs: 120 },
      { at: deposit.updatedAt, status: 200, latencyMs: 80 },
    ],
    deliveredAt: deposit.updatedAt,
  }));

const receiptsWith = (signer: ReceiptSigner, callbacks: CallbackRecord[]): TransactionReceipts =>
  new TransactionReceipts({
    transactions: { owned: async () => deposit },
    views: { present: async (transaction) => transactionView(transaction, 'whsec-bench') },
    entries: { list: async () => ({ items: entries, nextCursor: null }) },
    callbacks: { forTransaction: async () => callbacks },
    signer,
    issuer: 'https://pay.example.com',
    clock: () => new Date(),
  });

export async function receiptsBenchmark(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, strict: true, options: { receipts: { type: 'string', default: '2000' } } });
  const count = positiveOption('receipts', values.receipts, true);
  const dataDir = await mkdtemp(join(tmpdir(), 'bench-receipts-'));
  try {
    const keyFile = receiptsWith(new KeyFileReceiptSigner(receiptKeyDirectory(dataDir)), callbacksOf(1));
    // The first receipt makes the key file: not counted.
    await keyFile.receipt(MERCHANT_ID, TRANSACTION_ID);
    const started = performance.now();
    for (let i = 0; i < count; i++) await keyFile.receipt(MERCHANT_ID, TRANSACTION_ID);
    const perSecond = Math.round(count / ((performance.now() - started) / 1000));

    const kms = new FakeReceiptKms();
    kms.addKey('alias/receipts');
    const viaKms = receiptsWith(new KmsReceiptSigner(kms.client(), { current: 'alias/receipts', retired: () => [] }), callbacksOf(1));
    for (let i = 0; i < count; i++) await viaKms.receipt(MERCHANT_ID, TRANSACTION_ID);

    const tenCallbacks = await receiptsWith(new KeyFileReceiptSigner(receiptKeyDirectory(dataDir)), callbacksOf(10)).receipt(MERCHANT_ID, TRANSACTION_ID);
    const bytes = Buffer.byteLength(tenCallbacks);

    console.log(`${'figure'.padEnd(52)}${'measured'.padStart(12)}${'goal'.padStart(12)}`);
    console.log(`${'receipts/s, local key file, one after another'.padEnd(52)}${String(perSecond).padStart(12)}${`>= ${GOAL_RECEIPTS_PER_SECOND}`.padStart(12)}`);
    console.log(`${`KMS Sign calls per receipt (${count} receipts)`.padEnd(52)}${(kms.count(SignCommand) / count).toFixed(2).padStart(12)}${`${GOAL_SIGN_CALLS_PER_RECEIPT}`.padStart(12)}`);
    console.log(`${'KMS GetPublicKey calls per container'.padEnd(52)}${String(kms.count(GetPublicKeyCommand)).padStart(12)}${'1'.padStart(12)}`);
    console.log(`${'bytes of a receipt with 10 callbacks'.padEnd(52)}${String(bytes).padStart(12)}${`<= ${GOAL_RECEIPT_BYTES}`.padStart(12)}`);
    console.log('  The key file signer reads its directory at each receipt, so a rotation by the admin CLI takes effect at once;');
    console.log('  KMS signs the SHA-256 digest of the signing input (MessageType DIGEST), so any receipt is one Sign call.');
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}
