/**
 * Transaction receipts (docs/merchant-guide.md#receipts) through the API Gateway emulation, over
 * the test run's tables: a USDT transfer on a Hardhat node credited by the chain watcher, its
 * receipt verified with `jose` against the key set the gateway serves and its evidence against the
 * node; a UTR deposit decided by the demo provider's signed event; the dashboard's download of it;
 * and the refusals, which read nothing of another merchant's.
 */
import { randomUUID } from 'node:crypto';
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import { createPublicClient, http, type Address, type Hash, type PublicClient } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WatchResult } from '../../functions/watch-chain.js';
import type { LocalChain } from '../../infra/chain/local-chain.js';
import { invoker } from '../../infra/local/functions.js';
import { config } from '../../shared/config.js';
import { SESSION_COOKIE } from '../../shared/domain/dashboard/dashboard-sessions.js';
import { totpCode, totpStep } from '../../shared/domain/dashboard/totp.js';
import { FUNCTIONS } from '../../shared/routes.js';
import { dynamoDashboardAccess } from '../../shared/store/dashboard-access.js';
import { KeyFileDataKeySource } from '../../shared/vault/key-sources.js';
import { KeyFileReceiptSigner, receiptKeyDirectory } from '../../shared/signers/key-file-receipt-signer.js';
import { documentClient } from '../../shared/store/dynamo.js';
import { DynamoInvoiceStore } from '../../shared/store/invoices.js';
import { DynamoTransactionStore } from '../../shared/store/transactions.js';
import { invoke, loadFunction, request } from '../support/invoke.js';
import { seedKey, seedMerchant, type SeededMerchant } from '../support/merchants.js';
import { testMerchantCli } from '../support/merchant-cli.js';
import { sendProviderEvent } from '../support/providers.js';
import { withPayload } from '../support/receipt-signing.js';
import { ownChainTable, startChainWithTestToken } from '../support/test-chain.js';
import { verifyReceipt } from '../../infra/cli/receipt-verifier.js';

const CONFIRMATIONS = 2;

let chain: LocalChain;
let client: PublicClient;
let usdt: Address;
let merchant: SeededMerchant;
let other: SeededMerchant;

beforeAll(async () => {
  await ownChainTable();
  chain = await startChainWithTestToken();
  client = createPublicClient({ transport: http(chain.rpcUrl) });
  usdt = await chain.deployToken({ symbol: 'USDT', decimals: 6, supply: '1000000' });
  process.env.GATEWAY_RPC_ETHEREUM = chain.rpcUrl;
  process.env.GATEWAY_TOKENS_ETHEREUM = JSON.stringify({ USDT: usdt });
  process.env.GATEWAY_CONFIRMATIONS_ETHEREUM = String(CONFIRMATIONS);
  [merchant, other] = await Promise.all([seedMerchant(), seedMerchant()]);
});

afterAll(async () => {
  await chain?.stop();
});

const ledger = () => new DynamoTransactionStore(documentClient, config().tables);
const invoices = () => new DynamoInvoiceStore(documentClient, config().tables);

const runWatcher = invoker(loadFunction);
const watchChain = FUNCTIONS.find((fn) => fn.name === 'watch-chain')!;

/** Watcher runs until it has read to the head. */
async function catchUp(): Promise<void> {
  for (let run = 0; run < 20; run++) {
    const result = (await runWatcher(watchChain, { network: 'ethereum' })) as WatchResult;
    if ('runFailed' in result) throw new Error('A watcher run failed against a healthy node');
    if (result.cursor === result.head) return;
  }
  throw new Error('The watcher did not reach the head in 20 runs');
}

async function createInvoice(fields: Record<string, unknown>) {
  const response = await invoke('create-invoice', { apiKey: merchant.apiKey, body: { orderId: randomUUID(), customerId: `c-${randomUUID()}`, ...fields } });
  expect(response.status).toBe(200);
  return response.body.data;
}

const receiptOf = (transactionId: string, apiKey = merchant.apiKey) => invoke('get-transaction-receipt', { apiKey, pathParameters: { transactionId } });

/** The receipt checked as a merchant checks it: against the key set the gateway serves, with no key. */
async function verified(receipt: string) {
  const jwks = await request('GET', '/.well-known/jwks.json');
  expect(jwks.status).toBe(200);
  expect(jwks.headers['content-type']).toMatch(/^application\/jwk-set\+json/);
  expect(jwks.headers['cache-control']).toMatch(/public/);
  const { payload } = await jwtVerify(receipt, createLocalJWKSet(jwks.body), { issuer: config().publicBaseUrl, algorithms: ['ES256'] });
  return payload as Record<string, any>;
}

describe('the receipt of a deposit on chain', () => {
  let depositId: string;
  let sent: { hash: Hash; blockNumber: bigint; blockHash: Hash; logIndex: number };
  let address: string;

  beforeAll(async () => {
    const invoice = await createInvoice({ baseCurrency: 'USD', paymentCurrency: 'USDT', amount: 25 });
    address = invoice.wallet.address;
    sent = await chain.sendToken({ to: address as Address, amount: '25', token: usdt });
    await chain.mine(CONFIRMATIONS);
    await catchUp();
    const [deposit] = await ledger().listByInvoice(invoice.id);
    expect(deposit).toMatchObject({ status: 'confirmed', transactionHash: sent.hash });
    depositId = deposit!.id;
  });

  it('is the transaction as retrieved, less senderDetails, its entries and callback, signed by a key the JWKS serves', async () => {
    const response = await receiptOf(depositId);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(Object.keys(response.body)).toEqual(['success', 'data']);
    const { receipt } = response.body.data;
    expect(decodeProtectedHeader(receipt)).toMatchObject({ alg: 'ES256', typ: 'JWT', kid: expect.any(String) });

    const payload = await verified(receipt);
    const retrieved = (await invoke('get-transaction', { apiKey: merchant.apiKey, pathParameters: { transactionId: depositId } })).body.data;
    const { senderDetails: _retrievalOnly, ...shown } = retrieved;
    expect(payload.transaction).toEqual(shown);
    expect(payload).toMatchObject({ sub: depositId, missing: [] });
    const entries = (await invoke('list-balance-entries', { apiKey: merchant.apiKey, query: { transactionId: depositId } })).body.data.items;
    expect(payload.entries).toEqual(entries.map(({ id, type, amount }: Record<string, string>) => ({ id, type, amount })).reverse());
    const callbacks = (await invoke('list-transaction-callbacks', { apiKey: merchant.apiKey, pathParameters: { transactionId: depositId } })).body.data;
    expect(payload.callbacks).toEqual(
      callbacks.map(({ webhookId, state, attempts }: { webhookId: string; state: string; attempts: unknown[] }) => ({ webhookId, state, attempts: attempts.length, lastStatusCode: null })),
    );
  });

  it('states the transfer as the node has it: its block, hash, log, the address paid, the token and its depth when credited', async () => {
    const payload = await verified((await receiptOf(depositId)).body.data.receipt);
    const onChain = await client.getTransactionReceipt({ hash: sent.hash });
    const log = onChain.logs.find((entry) => entry.logIndex === payload.evidence.logIndex)!;
    expect(payload.evidence).toEqual({
      source: 'chain',
      network: 'ethereum',
      transactionHash: sent.hash,
      blockNumber: Number(onChain.blockNumber),
      blockHash: onChain.blockHash,
      logIndex: sent.logIndex,
      to: address,
      contract: usdt,
      confirmations: CONFIRMATIONS + 1,
    });
    expect(log.address.toLowerCase()).toBe(usdt.toLowerCase());
    // Transfer(from, to, value): the log pays the address the receipt names.
    expect(`0x${log.topics[2]!.slice(26)}`).toBe(address.toLowerCase());
  });

  it("passes the merchant's verifier: the signature against the served keys, and the transfer on the node itself", async () => {
    const jwks = (await request('GET', '/.well-known/jwks.json')).body;
    const receipt = (await receiptOf(depositId)).body.data.receipt;

    const verification = await verifyReceipt({ receipt, jwks, rpc: { ethereum: chain.rpcUrl } });

    expect(verification.checks.filter((check) => check.outcome !== 'ok')).toEqual([]);
    expect(verification.verified).toBe(true);
    const payload = decodeJwt(receipt) as Record<string, any>;
    const altered = withPayload(receipt, { ...payload, transaction: { ...payload.transaction, amount: '250.000000' } });
    expect((await verifyReceipt({ receipt: altered, jwks, rpc: { ethereum: chain.rpcUrl } })).verified).toBe(false);
  });
});

describe('the receipt of a UTR deposit', () => {
  it("states the provider's reference, the UTR, and the signed event that confirmed it", async () => {
    const invoice = await createInvoice({ baseCurrency: 'INR', amount: 1000 });
    const utr = `U${randomUUID().replace(/-/g, '').slice(0, 11)}`.toUpperCase();
    expect((await invoke('confirm-deposit', { apiKey: merchant.apiKey, body: { invoiceId: invoice.id, utr } })).status).toBe(200);
    const { providerReference } = (await invoices().get(invoice.id))!.providerPayment!;
    const webhookId = `evt_${randomUUID()}`;
    const at = new Date(Math.floor(Date.now() / 1000) * 1000);
    const event = { type: 'payment.confirmed', reference: invoice.id, providerReference, amount: '1000.00', currency: 'INR', utr };
    expect((await sendProviderEvent(event, { webhookId, at })).status).toBe(200);
    const [deposit] = await ledger().listByInvoice(invoice.id);
    expect(deposit).toMatchObject({ status: 'confirmed' });

    const payload = await verified((await receiptOf(deposit!.id)).body.data.receipt);
    expect(payload.evidence).toEqual({ source: 'provider', providerId: 'demo', providerReference, utr, webhookId, webhookTimestamp: at.toISOString() });
    expect(payload.missing).toEqual([]);
    expect(payload.transaction).toMatchObject({ id: deposit!.id, status: 'confirmed', network: null, transactionHash: null });
  });
});

describe('receipts refused', () => {
  it("404 for another merchant's transaction, an unknown id and one that is not a UUID; 401 without a key; 403 for a key without read", async () => {
    const invoice = await createInvoice({ baseCurrency: 'USDT', amount: 10 });
    const simulated = await invoke('simulate-deposit', { apiKey: merchant.apiKey, body: { invoiceId: invoice.id }, headers: { 'idempotency-key': randomUUID() } });
    expect(simulated.status).toBe(200);
    const transactionId = simulated.body.data.id;
    expect((await verified((await receiptOf(transactionId)).body.data.receipt)).evidence).toEqual({ source: 'simulation' });

    for (const [id, apiKey] of [
      [transactionId, other.apiKey],
      [randomUUID(), merchant.apiKey],
      ['not-a-uuid', merchant.apiKey],
    ] as const) {
      const refused = await receiptOf(id, apiKey);
      expect(refused.status).toBe(404);
      expect(refused.body).toEqual({ success: false, errors: [{ code: 'not_found', message: expect.stringMatching(/Transaction/) }] });
    }
    const anonymous = await invoke('get-transaction-receipt', { pathParameters: { transactionId } });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.errors[0].code).toBe('unauthorized');
    const paymentsOnly = await seedKey(merchant.merchant.id, { scopes: ['payments'] });
    const forbidden = await receiptOf(transactionId, paymentsOnly);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body).toEqual({ success: false, errors: [{ code: 'forbidden', message: 'This API key lacks the scope read' }] });
  });
});

describe("the dashboard's download of a receipt", () => {
  const PASSWORD = 'plum-orbit-canvas-41';

  /** A session of an owner of `owner`'s merchant, joined as the dashboard joins people. */
  async function sessionOf(owner: SeededMerchant): Promise<string> {
    const { vaultKeys, tables } = config();
    if (vaultKeys?.kind !== 'local') throw new Error('The test environment has no local vault key file');
    const access = dynamoDashboardAccess(documentClient, tables, new KeyFileDataKeySource(vaultKeys.keyFile));
    const { token } = await access.invite(owner.merchant.id, { email: `owner-${randomUUID().slice(0, 8)}@shop.example`, role: 'owner' }, 'operator');
    const secret = access.newTotpSecret();
    const joined = await access.join(token, { password: PASSWORD, passwordAgain: PASSWORD, totpSecret: secret, code: totpCode(secret, totpStep(new Date())) });
    if ('problems' in joined) throw new Error(joined.problems.join());
    return `${SESSION_COOKIE}=${joined.sessionToken}`;
  }

  it("answers the signed-in user's receipt as receipt-{id}.jws, another merchant's as not found, and nothing without a session", async () => {
    const invoice = await createInvoice({ baseCurrency: 'USDT', amount: 10 });
    const simulated = await invoke('simulate-deposit', { apiKey: merchant.apiKey, body: { invoiceId: invoice.id }, headers: { 'idempotency-key': randomUUID() } });
    const transactionId = simulated.body.data.id;
    const cookie = await sessionOf(merchant);

    const page = await request('GET', `/dashboard/transactions/${transactionId}`, { headers: { cookie } });
    expect(page.status).toBe(200);
    expect(page.body).toContain(`href="${config().publicBaseUrl}/dashboard/receipts/${transactionId}" download="receipt-${transactionId}.jws"`);
    const file = await request('GET', `/dashboard/receipts/${transactionId}`, { headers: { cookie } });
    expect(file.status).toBe(200);
    expect(file.headers['content-type']).toMatch(/^application\/jose/);
    expect(file.headers['content-disposition']).toBe(`attachment; filename="receipt-${transactionId}.jws"`);
    const payload = await verified(file.body);
    expect(payload).toMatchObject({ sub: transactionId, evidence: { source: 'simulation' } });

    const othersCookie = await sessionOf(other);
    expect((await request('GET', `/dashboard/receipts/${transactionId}`, { headers: { cookie: othersCookie } })).status).toBe(404);
    const anonymous = await request('GET', `/dashboard/receipts/${transactionId}`);
    expect(anonymous.status).toBe(303);
    expect(anonymous.headers.location).toMatch(/\/dashboard\/sign-in/);
  });
});

describe('rotate-receipt-key', () => {
  it('makes a new current key through the admin CLI and keeps the old ones listed', async () => {
    const testCli = await testMerchantCli();
    try {
      const signer = new KeyFileReceiptSigner(receiptKeyDirectory(testCli.dataDir));
      const before = await signer.currentKeyId();
      const rotated = await testCli.run(['rotate-receipt-key', '--json']);
      expect(rotated.code, rotated.err).toBe(0);
      const { current, retired } = JSON.parse(rotated.out);
      expect(current).not.toBe(before);
      expect(retired).toEqual([before]);
      expect((await signer.publicKeys()).map(({ kid }) => kid)).toEqual([current, before]);
      const readable = await testCli.run(['rotate-receipt-key']);
      expect(readable.out).toMatch(/signed with key \S+ from now on; the JWKS keeps 2 retired keys/);
    } finally {
      await testCli.remove();
    }
  });
});
