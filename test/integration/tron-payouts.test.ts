/**
 * Tron payouts against the fixture node (test/support/tron-node.ts and tron-wallet.ts: no Tron
 * node runs here), from a treasury whose key is a key file: TRX and a TRC-20 token paid exactly,
 * the node checking the signature recovers to the treasury; the same transaction broadcast again,
 * and refused when its JSON says otherwise than the bytes signed; a token transfer that reverts seen as failed with its fee; a transaction rebuilt only once the
 * first expired; a node that builds other bytes than asked, or names another txID, gets nothing
 * signed; a treasury too short refused.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TronPayoutChain } from '../../shared/chain/tron-payouts.js';
import { NotYetExpired, type PayoutOrder, TreasuryShortfall } from '../../shared/domain/payouts/index.js';
import { KeyFileTreasurySigner } from '../../shared/signers/key-file-signer.js';
import { TronNode } from '../support/tron-node.js';
import { CHAIN_PARAMETERS, EXPIRATION_MS, TRANSFER_ENERGY } from '../support/tron-wallet.js';

// Nile's USDT contract and two customers' addresses.
const USDT = 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf';
const RECIPIENT = 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8';
const TOKEN_RECIPIENT = 'TVj7RNVHy6thbM7BWdSe9G6gXwKhjhdNZS';
const FEE_LIMIT = 30_000_000n;

let node: TronNode;
let keyDirectory: string;
let payouts: TronPayoutChain;
let treasury: string;

const trx = (amount: bigint): PayoutOrder => ({ network: 'tron', token: null, to: RECIPIENT, amount });
const usdt = (amount: bigint): PayoutOrder => ({ network: 'tron', token: USDT, to: TOKEN_RECIPIENT, amount });
const prepare = (order: PayoutOrder) => payouts.prepare(order, { family: 'tron' });
const feePaid = (status: unknown): bigint => (status as { feePaid: bigint }).feePaid;

beforeAll(async () => {
  node = await TronNode.start();
  node.mineEmpty(10);
  keyDirectory = await mkdtemp(join(tmpdir(), 'gateway-treasury-'));
  payouts = new TronPayoutChain({ url: node.url, signer: new KeyFileTreasurySigner(keyDirectory), feeLimit: FEE_LIMIT });
  treasury = await payouts.treasury();
  node.wallet.fund(treasury, 1_000_000_000n);
  node.wallet.fundToken(USDT, treasury, 500_000_000n);
});

afterAll(async () => {
  node?.close();
  if (keyDirectory) await rm(keyDirectory, { recursive: true, force: true });
});

describe('Tron payouts', () => {
  it('pays TRX to a new account exactly, signed for the treasury; the same bytes broadcast again are sent', async () => {
    const before = node.wallet.trxBalance(treasury);
    const activation = CHAIN_PARAMETERS.getCreateNewAccountFeeInSystemContract + CHAIN_PARAMETERS.getCreateAccountFee;
    expect(await payouts.estimateFee(trx(12_345_678n))).toBe(300n * CHAIN_PARAMETERS.getTransactionFee + activation);

    const payout = await prepare(trx(12_345_678n));
    expect(payout.maxFee).toBe(300n * CHAIN_PARAMETERS.getTransactionFee + activation);
    expect(payout.spend).toEqual({ family: 'tron', expiresAt: node.timeOf(node.head) + EXPIRATION_MS, feeLimit: 0n });
    await payouts.broadcast(payout.rawTransaction);
    await payouts.broadcast(payout.rawTransaction);
    expect(await payouts.status(payout)).toEqual({ state: 'pending' });

    const block = node.minePending();
    const status = await payouts.status(payout);
    // A TRX transfer has no log: its place in the transaction is the transaction.
    expect(status).toMatchObject({ state: 'mined', blockNumber: block, blockHash: node.hashAt(block), confirmations: 1, succeeded: true });
    expect(status).not.toHaveProperty('transfer');
    expect(feePaid(status)).toBeGreaterThan(0n);
    expect(feePaid(status)).toBeLessThanOrEqual(payout.maxFee);
    expect(node.wallet.trxBalance(RECIPIENT)).toBe(12_345_678n);
    expect(node.wallet.trxBalance(treasury)).toBe(before - 12_345_678n - feePaid(status));
    await payouts.broadcast(payout.rawTransaction);

    node.mineEmpty(18);
    expect(await payouts.status(payout)).toMatchObject({ state: 'mined', blockNumber: block, confirmations: 19 });
  });

  it('pays a TRC-20 token with a transfer call under the fee limit, to the unit', async () => {
    expect(await payouts.estimateFee(usdt(1n))).toBe(400n * CHAIN_PARAMETERS.getTransactionFee + TRANSFER_ENERGY * CHAIN_PARAMETERS.getEnergyFee);
    const tokensBefore = node.wallet.tokenBalance(USDT, treasury);
    const payout = await prepare(usdt(123_456_789n));
    expect(payout.maxFee).toBe(FEE_LIMIT + 400n * CHAIN_PARAMETERS.getTransactionFee);
    expect(payout.spend).toMatchObject({ feeLimit: FEE_LIMIT });
    await payouts.broadcast(payout.rawTransaction);
    const block = node.minePending();
    // Its block by hash, and its own Transfer log, as the node's transaction info lists them.
    expect(await payouts.status(payout)).toMatchObject({ state: 'mined', blockHash: node.hashAt(block), transfer: { logIndex: 0 }, succeeded: true });
    expect(node.wallet.tokenBalance(USDT, TOKEN_RECIPIENT)).toBe(123_456_789n);
    expect(node.wallet.tokenBalance(USDT, treasury)).toBe(tokensBefore - 123_456_789n);
  });

  it('sees a token transfer that reverted as mined and failed, with the fee it burnt', async () => {
    const held = node.wallet.tokenBalance(USDT, treasury);
    const half = held / 2n + 1n;
    // Each fits what the treasury holds when it is built; in the block, the second no longer does.
    const paid = await prepare(usdt(half));
    const reverted = await prepare(usdt(half));
    await payouts.broadcast(paid.rawTransaction);
    await payouts.broadcast(reverted.rawTransaction);
    const trxBefore = node.wallet.trxBalance(treasury);
    node.minePending();

    const [first, second] = [await payouts.status(paid), await payouts.status(reverted)];
    expect(first).toMatchObject({ state: 'mined', succeeded: true });
    expect(second).toMatchObject({ state: 'mined', succeeded: false });
    expect(feePaid(second)).toBeGreaterThan(0n);
    expect(node.wallet.trxBalance(treasury)).toBe(trxBefore - feePaid(first) - feePaid(second));
    expect(node.wallet.tokenBalance(USDT, treasury)).toBe(held - half);
  });

  it('rebuilds a transaction only once the first expired: the new one mined, the first dropped', async () => {
    const before = node.wallet.trxBalance(RECIPIENT);
    const stuck = await prepare(trx(1_000_000n));
    await payouts.broadcast(stuck.rawTransaction);
    await expect(payouts.replace(stuck)).rejects.toBeInstanceOf(NotYetExpired);

    // The node loses it, and the chain's time passes its expiry.
    node.mineEmpty(EXPIRATION_MS / 3_000);
    expect(await payouts.status(stuck)).toEqual({ state: 'dropped' });
    await expect(payouts.broadcast(stuck.rawTransaction)).rejects.toThrow(/TRANSACTION_EXPIRATION_ERROR/);

    const rebuilt = await payouts.replace(stuck);
    expect(rebuilt.transactionHash).not.toBe(stuck.transactionHash);
    expect((rebuilt.spend as { expiresAt: number }).expiresAt).toBeGreaterThan((stuck.spend as { expiresAt: number }).expiresAt);
    await payouts.broadcast(rebuilt.rawTransaction);
    node.minePending();
    expect(await payouts.status(rebuilt)).toMatchObject({ state: 'mined', succeeded: true });
    expect(await payouts.status(stuck)).toEqual({ state: 'dropped' });
    expect(node.wallet.trxBalance(RECIPIENT)).toBe(before + 1_000_000n);
    await expect(payouts.replace(rebuilt)).rejects.toThrow(/was mined/);
  });

  it('signs nothing the node built otherwise than asked, nor under a txID that is not its hash', async () => {
    node.wallet.buildFault = 'other-destination';
    await expect(prepare(trx(2_000_000n))).rejects.toThrow(/another transaction than the one asked: to differs/);
    node.wallet.buildFault = 'other-txid';
    await expect(prepare(trx(2_000_000n))).rejects.toThrow(/answered txID (ab){32} for a transaction whose hash is/);
  });

  it("broadcasts the node's JSON with the signature; JSON that says otherwise than the bytes signed is refused, nothing sent", async () => {
    const payout = await prepare(trx(3_000_000n));
    const signed = JSON.parse(payout.rawTransaction) as { txID: string; raw_data: { expiration: number }; raw_data_hex: string; signature: string[]; visible: boolean };
    expect(signed).toMatchObject({ visible: false, txID: payout.transactionHash, raw_data: { expiration: payout.spend.family === 'tron' && payout.spend.expiresAt } });
    expect(signed.signature).toEqual([expect.stringMatching(/^[0-9a-f]{128}(1b|1c)$/)]);
    const otherwise = JSON.stringify({ ...signed, raw_data: { ...signed.raw_data, expiration: signed.raw_data.expiration + 1 } });
    await expect(payouts.broadcast(otherwise)).rejects.toThrow(/broadcasttransaction: SIGERROR: validate signature error/);
    expect(await payouts.status(payout)).toEqual({ state: 'unknown' });
    await payouts.broadcast(payout.rawTransaction);
    expect(await payouts.status(payout)).toEqual({ state: 'pending' });
    node.minePending();
  });

  it('refuses an order the treasury cannot pay, naming what it holds', async () => {
    const tokens = node.wallet.tokenBalance(USDT, treasury);
    await expect(prepare(usdt(tokens + 1n))).rejects.toMatchObject({ network: 'tron', token: USDT, needed: tokens + 1n, available: tokens });
    const sun = node.wallet.trxBalance(treasury);
    const error = await prepare(trx(sun)).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TreasuryShortfall);
    expect(error).toMatchObject({ token: null, available: sun });
  });
});
