/**
 * Refunds end to end over DynamoDB Local, the local SQS FIFO queue and a real EVM node (Hardhat on
 * loopback), through the functions as the runtime runs them: a customer overpays an invoice on
 * chain, the watcher credits the deposit, `POST /api/v2/refunds` reserves the overpaid part with its
 * network fee, `send-payout` sends it from the treasury and `watch-chain` settles it once deep
 * enough: the tokens arrive to the unit, the `refund` callback is owed, the invoice counts what was
 * refunded. Racing refunds of one deposit never refund more than it brought, and bad requests
 * change nothing.
 */
import { randomUUID } from 'node:crypto';
import { createPublicClient, erc20Abi, getAddress, http, type Address, type PublicClient } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalChain } from '../../infra/chain/local-chain.js';
import { config } from '../../shared/config.js';
import { treasuryAddress } from '../../shared/domain/payouts/index.js';
import { KeyFileTreasurySigner } from '../../shared/signers/key-file-signer.js';
import { addressOn, callbackFor, createInvoice, depositsOf, getInvoice, getTransaction, setEnvironment, watcherOf } from '../support/chain-watch.js';
import { invoke } from '../support/invoke.js';
import { seedKey, seedMerchant, type SeededMerchant } from '../support/merchants.js';
import { balanceOf, createPayoutStores, entryTypesOf, fund, ownPayoutStores, payoutLedger, sendQueued } from '../support/payout-flow.js';
import { startChainWithTestToken } from '../support/test-chain.js';

const stores = ownPayoutStores();

const CONFIRMATIONS = 2;
const CUSTOMER: Address = getAddress('0x00000000000000000000000000000000c0ffee01');

let chain: LocalChain;
let client: PublicClient;
let usdt: Address;
let merchant: SeededMerchant;

beforeAll(async () => {
  chain = await startChainWithTestToken();
  client = createPublicClient({ transport: http(chain.rpcUrl) });
  usdt = await chain.deployToken({ symbol: 'USDT', decimals: 6, supply: '1000000' });
  setEnvironment({
    GATEWAY_RPC_ETHEREUM: chain.rpcUrl,
    GATEWAY_TOKENS_ETHEREUM: JSON.stringify({ USDT: usdt }),
    GATEWAY_CONFIRMATIONS_ETHEREUM: String(CONFIRMATIONS),
  });
  await createPayoutStores(stores);
  const signer = config().treasurySigner;
  if (signer.kind !== 'local') throw new Error('The tests sign with key files');
  const treasury = treasuryAddress('evm', await new KeyFileTreasurySigner(signer.directory).publicKey('evm'), 'demo') as Address;
  await chain.sendNative({ to: treasury, amount: '10' });
  await chain.sendToken({ to: treasury, amount: '1000', token: usdt });
  merchant = await seedMerchant();
}, 120_000);

afterAll(async () => {
  await chain?.stop();
});

const watch = watcherOf('ethereum');
const tokenBalance = (owner: Address) => client.readContract({ address: usdt, abi: erc20Abi, functionName: 'balanceOf', args: [owner] });
const refund = (body: Record<string, unknown>, options: { apiKey?: string; key?: string | null } = {}) =>
  invoke('create-refund', { apiKey: options.apiKey ?? merchant.apiKey, headers: options.key === null ? {} : { 'idempotency-key': options.key ?? randomUUID() }, body });

/** An invoice of 25 USDT paid `amount` USDT on chain, the deposit confirmed by the watcher. */
async function paidOnChain(amount: string) {
  const invoice = await createInvoice(merchant, { baseCurrency: 'USDT', invoiceStrategy: 'fixed', amount: 25 });
  await chain.sendToken({ to: addressOn(invoice, 'ethereum') as Address, amount, token: usdt });
  await chain.mine(CONFIRMATIONS);
  await watch.catchUp();
  const [deposit] = await depositsOf(invoice.id);
  expect(deposit).toMatchObject({ status: 'confirmed', amount: `${amount}.000000` });
  return { invoice, deposit: deposit! };
}

describe('a crypto refund on the EVM node', () => {
  it('gives an overpaying customer the overpaid part back from the treasury, settled with the refund callback and counted on the invoice', async () => {
    const { invoice, deposit } = await paidOnChain('75');
    expect((await getInvoice(merchant, invoice.id)).paymentStatus).toBe('overpaid');
    const before = await tokenBalance(CUSTOMER);
    const answer = await refund({ transactionId: deposit.id, amount: '50', address: CUSTOMER, reason: 'Overpaid' });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const created = answer.body.data;
    expect(created).toMatchObject({
      type: 'refund',
      status: 'processing',
      refundOf: deposit.id,
      invoiceId: invoice.id,
      amount: '50.000000',
      network: 'ethereum',
      address: CUSTOMER,
      transactionHash: null,
    });
    const technical = created.fees.technical as string;
    expect(Number(technical)).toBeGreaterThan(0);
    expect(await balanceOf(merchant, 'USDT')).toMatchObject({ reserved: (50 + Number(technical)).toFixed(6) });

    expect(await sendQueued()).toBe(1);
    await chain.mine(CONFIRMATIONS);
    await watch.catchUp();
    expect((await tokenBalance(CUSTOMER)) - before).toBe(50_000_000n);
    const settled = await getTransaction(merchant, created.id);
    expect(settled).toMatchObject({ type: 'refund', status: 'confirmed', refundOf: deposit.id, transactionHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    expect(await callbackFor(merchant, created.id, 'confirmed')).toMatchObject({ type: 'refund', status: 'confirmed', refundOf: deposit.id, amount: '50.000000' });
    expect(await entryTypesOf(merchant, created.id)).toEqual(['fee', 'refund', 'refund_reserve']);
    expect(await balanceOf(merchant, 'USDT')).toMatchObject({ available: (25 - Number(technical)).toFixed(6), reserved: '0.000000' });
    expect(await getInvoice(merchant, invoice.id)).toMatchObject({ refundedAmount: '50.000000', paidAmount: '75.000000', status: 'completed' });
    const listed = (await invoke('list-transactions', { apiKey: merchant.apiKey, query: { type: 'refund' } })).body.data.items;
    expect(listed.map((item: { id: string }) => item.id)).toContain(created.id);
    expect(listed.every((item: { type: string }) => item.type === 'refund')).toBe(true);
  });

  it('never refunds more than a deposit brought when 10 refunds race on it', async () => {
    const { deposit } = await paidOnChain('40');
    // Enough besides the deposit for every refund's network fee.
    await fund(merchant, 'USDT', '100');
    const answers = await Promise.all(Array.from({ length: 10 }, () => refund({ transactionId: deposit.id, amount: '7', address: CUSTOMER })));
    const accepted = answers.filter((answer) => answer.status === 200);
    expect(accepted).toHaveLength(5);
    for (const refused of answers.filter((answer) => answer.status !== 200)) {
      expect(refused.status, JSON.stringify(refused.body)).toBe(422);
      expect(refused.body.errors[0]).toMatchObject({ code: 'unprocessable_content', field: 'amount' });
    }
    expect((await payoutLedger().get(deposit.id))?.refundsHeld).toBe('35.000000');
    const left = await refund({ transactionId: deposit.id, address: CUSTOMER });
    expect(left.body.data.amount).toBe('5.000000');
    expect(await sendQueued()).toBe(6);
  });

  it('refuses what is no confirmed deposit of the merchant, a key without payouts, a request without Idempotency-Key and a bad address, reserving and sending nothing', async () => {
    const { deposit } = await paidOnChain('30');
    const before = await balanceOf(merchant, 'USDT');
    const other = await seedMerchant();
    const elsewhere = await invoke('create-refund', { apiKey: other.apiKey, headers: { 'idempotency-key': randomUUID() }, body: { transactionId: deposit.id, address: CUSTOMER } });
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.body.errors[0].code).toBe('not_found');
    const readOnly = await seedKey(merchant.merchant.id, { scopes: ['read', 'payments'] });
    const forbidden = await refund({ transactionId: deposit.id, address: CUSTOMER }, { apiKey: readOnly });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.errors[0].message).toBe('This API key lacks the scope payouts');
    expect((await refund({ transactionId: deposit.id, address: CUSTOMER }, { key: null })).status).toBe(400);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ transactionId: deposit.id }, 'address'],
      [{ transactionId: deposit.id, address: '0x1234' }, 'address'],
      [{ transactionId: deposit.id, address: CUSTOMER, amount: '0' }, 'amount'],
      [{ transactionId: deposit.id, address: CUSTOMER, amount: '-1' }, 'amount'],
      [{ transactionId: deposit.id, address: CUSTOMER, amount: '1.0000001' }, 'amount'],
      [{ transactionId: deposit.id, address: CUSTOMER, amount: '30.000001' }, 'amount'],
      [{ address: CUSTOMER }, 'transactionId'],
    ];
    for (const [body, field] of cases) {
      const answer = await refund(body);
      expect(answer.status, JSON.stringify(body)).toBe(422);
      expect(
        answer.body.errors.map((error: { field: string }) => error.field),
        JSON.stringify(body),
      ).toContain(field);
    }
    const payout = await refund({ transactionId: (await refund({ transactionId: deposit.id, address: CUSTOMER, amount: '1' })).body.data.id, address: CUSTOMER });
    expect(payout.status).toBe(422);
    expect(payout.body.errors[0]).toMatchObject({ field: 'transactionId', message: expect.stringMatching(/is a refund/) });
    expect((await balanceOf(merchant, 'USDT')).available).toBe(
      (Number(before.available) - 1 - Number((await payoutLedger().listByInvoice(deposit.invoiceId!)).find((t) => t.type === 'refund')!.fees.technical)).toFixed(6),
    );
    expect(await sendQueued()).toBe(1);
  });
});
