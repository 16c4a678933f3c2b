/**
 * Transaction receipts (docs/merchant-guide.md#receipts) over in-memory ports: what a receipt
 * states for a deposit seen on chain, decided by a provider, simulated, or recorded before
 * evidence was; signed by a real P-256 key (a key file, or KMS faked over its own P-256 keys) and
 * checked with `jose` as a merchant checks it; a rotation that keeps older receipts verifiable.
 * Receipts from the running gateway, against DynamoDB Local and a chain, are tested in
 * test/integration/transaction-receipts.test.ts.
 */
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetPublicKeyCommand, SignCommand } from '@aws-sdk/client-kms';
import { compactVerify, createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Invoice } from '../../shared/domain/invoicing/invoice.js';
import { NotFound } from '../../shared/domain/kernel/errors.js';
import { Decimal } from '../../shared/domain/kernel/money.js';
import { jwkThumbprint, receiptCallback, receiptEvidence, type ReceiptSigner, TransactionReceipts } from '../../shared/domain/payments/transaction-receipts.js';
import { SignerFault } from '../../shared/domain/payouts/signer.js';
import type { ChainEvidence } from '../../shared/domain/transactions/evidence.js';
import { transactionView, type Transaction } from '../../shared/domain/transactions/transactions.js';
import { KeyFileReceiptSigner, receiptKeyDirectory } from '../../shared/signers/key-file-receipt-signer.js';
import { KmsReceiptSigner } from '../../shared/signers/kms-receipt-signer.js';
import { memoryGateway, PUBLIC_BASE_URL, type MemoryGateway, refusal } from '../support/memory/gateway.js';
import { FakeReceiptKms } from '../support/receipt-kms.js';

const CALLBACK_SECRET = 'whsec-receipts';
const USDT_CONTRACT = '0xdac17f958d2ee523a2206206994597c13d831ec7';

let gateway: MemoryGateway;
let merchantId: string;
let dataDir: string;
let signer: KeyFileReceiptSigner;

beforeEach(async () => {
  gateway = memoryGateway();
  merchantId = gateway.merchants.add({ processingFeePercent: '2' }).id;
  dataDir = await mkdtemp(join(tmpdir(), 'receipt-keys-'));
  signer = new KeyFileReceiptSigner(receiptKeyDirectory(dataDir));
});
afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

function receiptsOver(receiptSigner: ReceiptSigner = signer): TransactionReceipts {
  return new TransactionReceipts({
    transactions: gateway.transactionService,
    // The view as TransactionViews presents it once the merchant's callback secret is opened.
    views: { present: async (transaction) => transactionView(transaction, CALLBACK_SECRET) },
    entries: gateway.balances,
    callbacks: gateway.ledger,
    signer: receiptSigner,
    issuer: PUBLIC_BASE_URL,
    clock: gateway.clock,
  });
}

/** The receipt checked as a merchant checks it: the signature against the key set, then its claims. */
async function verified(receipt: string, receiptSigner: ReceiptSigner = signer) {
  const { payload, protectedHeader } = await jwtVerify(receipt, createLocalJWKSet({ keys: await receiptSigner.publicKeys() }), { issuer: PUBLIC_BASE_URL, algorithms: ['ES256'] });
  return { payload: payload as Record<string, any>, protectedHeader };
}

const usdtInvoice = () => gateway.createInvoice(merchantId, { baseCurrency: 'USDT', amount: 25 });

const chainEvidence = (fields: Partial<ChainEvidence> = {}): ChainEvidence => ({
  source: 'chain',
  network: 'ethereum',
  transactionHash: `0x${'ab'.repeat(32)}`,
  blockNumber: 120,
  blockHash: `0x${'cd'.repeat(32)}`,
  logIndex: 3,
  to: '0x1111111111111111111111111111111111111111',
  contract: USDT_CONTRACT,
  confirmations: 12,
  ...fields,
});

const chainDeposit = (invoice: Invoice, evidence = chainEvidence()) =>
  gateway.transactionService.recordDeposit(merchantId, invoice.id, {
    source: 'chain',
    amount: new Decimal('25'),
    currency: 'USDT',
    network: 'ethereum',
    status: 'confirmed',
    transactionHash: evidence.transactionHash,
    chain: { blockNumber: evidence.blockNumber, blockHash: evidence.blockHash!, logIndex: evidence.logIndex ?? null },
    evidence,
  });

describe('a receipt of a deposit seen on chain', () => {
  it('signs the transaction as retrieved (less senderDetails), its evidence, its entries and its callback, and verifies with jose against the key set', async () => {
    const invoice = await usdtInvoice();
    const deposit = await chainDeposit(invoice);
    gateway.advance(60);
    const receipt = await receiptsOver().receipt(merchantId, deposit.id);

    const { payload, protectedHeader } = await verified(receipt);
    const [key] = await signer.publicKeys();
    expect(protectedHeader).toEqual({ alg: 'ES256', kid: key!.kid, typ: 'JWT' });
    const { senderDetails: _retrievalOnly, ...shown } = transactionView((await gateway.ledger.get(deposit.id))!, CALLBACK_SECRET);
    expect(payload).toEqual({
      iss: PUBLIC_BASE_URL,
      sub: deposit.id,
      iat: Math.floor(gateway.clock().getTime() / 1000),
      transaction: shown,
      evidence: chainEvidence(),
      missing: [],
      entries: [
        { id: expect.any(String), type: 'deposit', amount: '25.000000' },
        { id: expect.any(String), type: 'fee', amount: '-0.500000' },
      ],
      callbacks: [{ webhookId: `${deposit.id}:confirmed`, state: 'pending', attempts: 0, lastStatusCode: null }],
    });
    expect(Object.keys(payload.evidence)).toEqual(['source', 'network', 'transactionHash', 'blockNumber', 'blockHash', 'logIndex', 'to', 'contract', 'confirmations']);
  });

  it("names a Bitcoin output's place outputIndex, and a native coin's contract null", async () => {
    const invoice = await gateway.createInvoice(merchantId, { baseCurrency: 'BTC', amount: 0.01 });
    const evidence = chainEvidence({ network: 'bitcoin', logIndex: undefined, outputIndex: 1, contract: null, to: 'bcrt1qexample', confirmations: 2 });
    const deposit = await gateway.transactionService.recordDeposit(merchantId, invoice.id, {
      source: 'chain',
      amount: new Decimal('0.01'),
      currency: 'BTC',
      network: 'bitcoin',
      status: 'confirmed',
      transactionHash: evidence.transactionHash,
      chain: { blockNumber: 120, blockHash: evidence.blockHash!, logIndex: 1 },
      evidence,
    });
    const { payload } = await verified(await receiptsOver().receipt(merchantId, deposit.id));
    expect(payload.evidence).toEqual({
      source: 'chain',
      network: 'bitcoin',
      transactionHash: evidence.transactionHash,
      blockNumber: 120,
      blockHash: evidence.blockHash,
      outputIndex: 1,
      to: 'bcrt1qexample',
      contract: null,
      confirmations: 2,
    });
    expect(payload.missing).toEqual([]);
  });

  it('lists what a payout settled on chain before its block hash and log were recorded could not state as missing, with null in its place', () => {
    const evidence = { ...chainEvidence({ logIndex: undefined }), blockHash: undefined };
    expect(receiptEvidence({ network: 'ethereum', evidence } as Transaction)).toEqual({
      evidence: { ...chainEvidence(), blockHash: null, logIndex: null },
      missing: ['blockHash', 'logIndex'],
    });
  });

  it("is another merchant's as unknown as a missing transaction, and a bad id's too", async () => {
    const deposit = await chainDeposit(await usdtInvoice());
    const other = gateway.merchants.add().id;
    expect(await refusal(receiptsOver().receipt(other, deposit.id))).toBeInstanceOf(NotFound);
    expect(await refusal(receiptsOver().receipt(merchantId, 'not-a-uuid'))).toBeInstanceOf(NotFound);
    expect(await refusal(receiptsOver().receipt(merchantId, crypto.randomUUID()))).toBeInstanceOf(NotFound);
  });
});

describe('a receipt of a provider-decided or simulated transaction', () => {
  it("states a UTR deposit's provider, reference, UTR and the event that confirmed it", async () => {
    const invoice = await gateway.createInvoice(merchantId, {
      baseCurrency: 'INR',
      amount: 1500,
      paymentMethod: 'p2p',
      customerFirstName: 'Asha',
      customerLastName: 'Rao',
      customerEmail: 'asha@example.com',
    });
    await gateway.fiatService.confirmDeposit(merchantId, { invoiceId: invoice.id, utr: 'ABCDEF123456' });
    const { providerPayment } = (await gateway.invoices.get(invoice.id))!;
    const event = { webhookId: 'evt_1', at: '2026-06-01T12:00:05.000Z' };
    await gateway.settlement.apply('demo', { kind: 'payment', reference: invoice.id, providerReference: providerPayment!.providerReference, status: 'confirmed', event });
    const [deposit] = await gateway.ledger.listByInvoice(invoice.id);

    const { payload } = await verified(await receiptsOver().receipt(merchantId, deposit!.id));
    expect(payload.evidence).toEqual({
      source: 'provider',
      providerId: 'demo',
      providerReference: providerPayment!.providerReference,
      utr: 'ABCDEF123456',
      webhookId: 'evt_1',
      webhookTimestamp: '2026-06-01T12:00:05.000Z',
    });
    expect(payload.missing).toEqual([]);
    expect(payload.transaction).toMatchObject({ id: deposit!.id, status: 'confirmed', currency: 'INR', network: null });
  });

  it('states null for the event of a payment the reconciliation settled by reading its status: known, not missing', async () => {
    const invoice = await gateway.createInvoice(merchantId, { baseCurrency: 'TRY', paymentMethod: 'wallet', amount: 1000 });
    const payment = await gateway.requests.paymentFor(invoice);
    await gateway.settlement.apply(payment.providerId, { kind: 'payment', reference: invoice.id, providerReference: payment.providerReference, status: 'confirmed' });
    const [deposit] = await gateway.ledger.listByInvoice(invoice.id);
    const { payload } = await verified(await receiptsOver().receipt(merchantId, deposit!.id));
    expect(payload.evidence).toEqual({ source: 'provider', providerId: payment.providerId, providerReference: payment.providerReference, utr: null, webhookId: null, webhookTimestamp: null });
    expect(payload.missing).toEqual([]);
  });

  it('states a simulated deposit as a simulation', async () => {
    const invoice = await usdtInvoice();
    const deposit = await gateway.transactionService.recordDeposit(merchantId, invoice.id, { source: 'simulated', status: 'confirmed', evidence: { source: 'simulation' } });
    const { payload } = await verified(await receiptsOver().receipt(merchantId, deposit.id));
    expect(payload.evidence).toEqual({ source: 'simulation' });
    expect(payload.missing).toEqual([]);
  });
});

describe('a receipt of a record written before evidence was', () => {
  it("derives an on-chain deposit's position from its record and lists what the record never held", () => {
    const legacy = { type: 'deposit', network: 'ethereum', transactionHash: '0xfeed', chain: { blockNumber: 7, blockHash: '0xbeef', logIndex: null } } as unknown as Transaction;
    expect(receiptEvidence(legacy)).toEqual({
      evidence: { source: 'chain', network: 'ethereum', transactionHash: '0xfeed', blockNumber: 7, blockHash: '0xbeef', logIndex: null, to: null, contract: null, confirmations: null },
      missing: ['to', 'contract', 'confirmations'],
    });
  });

  it("derives a crypto payout's destination, and a Bitcoin deposit's output index", () => {
    const payout = { type: 'withdraw', network: 'tron', transactionHash: null, address: 'TXYZ' } as unknown as Transaction;
    expect(receiptEvidence(payout)).toEqual({
      evidence: { source: 'chain', network: 'tron', transactionHash: null, blockNumber: null, blockHash: null, logIndex: null, to: 'TXYZ', contract: null, confirmations: null },
      missing: ['transactionHash', 'blockNumber', 'blockHash', 'logIndex', 'contract', 'confirmations'],
    });
    const bitcoin = { type: 'deposit', network: 'bitcoin', transactionHash: 'ff', chain: { blockNumber: 3, blockHash: '00ab', logIndex: 2 } } as unknown as Transaction;
    expect(receiptEvidence(bitcoin).evidence).toMatchObject({ outputIndex: 2 });
    expect(receiptEvidence(bitcoin).evidence).not.toHaveProperty('logIndex');
  });

  it("derives a UTR deposit's provider and reference, a simulated crypto deposit's simulation, and invents nothing", () => {
    const utrDeposit = { type: 'deposit', network: null, utr: 'ABCDEF123456', provider: { id: 'psp', reference: 'pay-1' } } as unknown as Transaction;
    expect(receiptEvidence(utrDeposit)).toEqual({
      evidence: { source: 'provider', providerId: 'psp', providerReference: 'pay-1', utr: 'ABCDEF123456', webhookId: null, webhookTimestamp: null },
      missing: ['webhookId', 'webhookTimestamp'],
    });
    expect(receiptEvidence({ type: 'deposit', network: 'ethereum', transactionHash: '0x01' } as Transaction)).toEqual({ evidence: { source: 'simulation' }, missing: [] });
    expect(receiptEvidence({ type: 'deposit', network: null } as Transaction).missing).toEqual(['providerId', 'providerReference', 'utr', 'webhookId', 'webhookTimestamp']);
  });
});

describe("a receipt's callbacks", () => {
  it('states each callback as its log shows it: delivered, parked or pending, its attempts and the last status answered', () => {
    const base = { id: 't-1:confirmed', merchantId: 'm', transactionId: 't-1', payload: '{}', createdAt: '2026-06-01T12:00:00.000Z' };
    const attempt = (status: number | null) => ({ at: '2026-06-01T12:00:01.000Z', status, latencyMs: 12 });
    expect(receiptCallback({ ...base, attempts: [attempt(500), attempt(200)], deliveredAt: '2026-06-01T12:00:01.000Z' })).toEqual({
      webhookId: 't-1:confirmed',
      state: 'delivered',
      attempts: 2,
      lastStatusCode: 200,
    });
    expect(receiptCallback({ ...base, attempts: [attempt(null)], parkedAt: '2026-06-04T12:00:00.000Z' })).toEqual({ webhookId: 't-1:confirmed', state: 'parked', attempts: 1, lastStatusCode: null });
  });
});

describe('the key file signer', () => {
  it('makes its first key on first use, owner-only, named by its RFC 7638 thumbprint', async () => {
    const [key] = await signer.publicKeys();
    expect(await readdir(receiptKeyDirectory(dataDir))).toEqual(['1.pem']);
    expect((await stat(join(receiptKeyDirectory(dataDir), '1.pem'))).mode & 0o777).toBe(0o600);
    expect(key).toEqual({ kty: 'EC', crv: 'P-256', x: expect.any(String), y: expect.any(String), kid: jwkThumbprint(key!), alg: 'ES256', use: 'sig' });
    // RFC 7638 3.1's own example, an RSA key, shows the method; this is the same over an EC key's members.
    expect(jwkThumbprint({ kty: 'EC', crv: 'P-256', x: 'EQ-omAh2sxT2sM0T4SXq2bFPq05aslzBC71DJrVSMcg', y: 'jpmLnXot1heBFUsNawfzR0vFBgdM5kc_kMmMH-lAIKU' })).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('rotates: the new key signs from then on, the old one stays in the key set, and a receipt signed before still verifies', async () => {
    const deposit = await chainDeposit(await usdtInvoice());
    const before = await receiptsOver().receipt(merchantId, deposit.id);
    const oldKid = await signer.currentKeyId();

    // The admin CLI rotates through a signer of its own, over the same directory.
    const newKid = await new KeyFileReceiptSigner(receiptKeyDirectory(dataDir)).rotate();
    expect(newKid).not.toBe(oldKid);
    expect(await signer.currentKeyId()).toBe(newKid);
    expect((await signer.publicKeys()).map((key) => key.kid)).toEqual([newKid, oldKid]);

    const after = await receiptsOver().receipt(merchantId, deposit.id);
    expect(decodeProtectedHeader(after).kid).toBe(newKid);
    const keySet = createLocalJWKSet({ keys: await signer.publicKeys() });
    await expect(compactVerify(before, keySet)).resolves.toMatchObject({ protectedHeader: { kid: oldKid } });
    await expect(compactVerify(after, keySet)).resolves.toMatchObject({ protectedHeader: { kid: newKid } });
    // Without the old key in the set, the receipt from before it no longer verifies: the set is what keeps it valid.
    await expect(compactVerify(before, createLocalJWKSet({ keys: (await signer.publicKeys()).slice(0, 1) }))).rejects.toThrow();
  });

  it('refuses to sign with a key it does not hold', async () => {
    await expect(signer.sign('no-such-kid', new Uint8Array([1]))).rejects.toThrow(/No receipt key no-such-kid/);
  });
});

describe('the KMS signer', () => {
  let kms: FakeReceiptKms;
  beforeEach(() => {
    kms = new FakeReceiptKms();
    kms.addKey('alias/receipts');
    kms.addKey('arn:aws:kms:eu-west-1:111122223333:key/retired');
  });

  it("turns KMS's DER signatures, high S or low, into JOSE's r || s, one Sign call a receipt and one GetPublicKey a key a container", async () => {
    const kmsSigner = new KmsReceiptSigner(kms.client(), { current: 'alias/receipts', retired: () => [] });
    const deposit = await chainDeposit(await usdtInvoice());
    const receipts = receiptsOver(kmsSigner);
    for (let i = 0; i < 4; i++) {
      const receipt = await receipts.receipt(merchantId, deposit.id);
      expect(receipt.split('.')[2]).toHaveLength(86);
      await expect(verified(receipt, kmsSigner)).resolves.toMatchObject({ payload: { sub: deposit.id } });
    }
    expect(kms.count(SignCommand)).toBe(4);
    expect(kms.count(GetPublicKeyCommand)).toBe(1);
    const sign = kms.requests.find((request) => request instanceof SignCommand)!;
    expect(sign.input).toMatchObject({ KeyId: 'alias/receipts', MessageType: 'DIGEST', SigningAlgorithm: 'ECDSA_SHA_256' });
  });

  it("lists the current key first, then the retired ones the stage's configuration names", async () => {
    let retired: string[] = [];
    const kmsSigner = new KmsReceiptSigner(kms.client(), { current: 'alias/receipts', retired: () => retired });
    const [current] = await kmsSigner.publicKeys();
    retired = ['arn:aws:kms:eu-west-1:111122223333:key/retired'];
    const keys = await kmsSigner.publicKeys();
    expect(keys).toHaveLength(2);
    expect(keys[0]).toEqual(current);
    expect(keys[1]!.kid).not.toBe(current!.kid);
  });

  it('refuses a key that is not P-256, and a kid that is not the current key', async () => {
    const kmsSigner = new KmsReceiptSigner(kms.client(), { current: 'alias/receipts', retired: () => [] });
    await expect(kmsSigner.sign('another-kid', new Uint8Array([1]))).rejects.toBeInstanceOf(SignerFault);
    kms.keySpec = 'ECC_SECG_P256K1';
    await expect(new KmsReceiptSigner(kms.client(), { current: 'alias/receipts', retired: () => [] }).currentKeyId()).rejects.toThrow(/not ECC_NIST_P256/);
  });
});
