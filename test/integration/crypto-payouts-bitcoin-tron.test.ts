/**
 * Crypto payouts on Bitcoin (a real regtest node: Debian's litecoind, infra/chain/bitcoin-node.ts)
 * and Tron (the fixture node the watcher's tests read: no Tron node runs here), end to end through
 * the functions as the runtime runs them: `POST /api/v2/payouts` reserving and queueing,
 * `send-payout` signing with the treasury's key files, `watch-chain` settling after each network's
 * confirmations with the `withdraw` callback. BTC arrives to the satoshi with the change back to
 * the treasury and is replaced by fee when stuck; TRX and USDT on Tron arrive to the unit, and a
 * transaction left unmined is rebuilt once it expired.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BitcoinNode } from '../../infra/chain/bitcoin-node.js';
import { config } from '../../shared/config.js';
import { Decimal } from '../../shared/domain/kernel/index.js';
import { treasuryAddress } from '../../shared/domain/payouts/index.js';
import { tronAddress } from '../../shared/chain/tron-reader.js';
import { KeyFileTreasurySigner } from '../../shared/signers/key-file-signer.js';
import { setEnvironment, watcherOf } from '../support/chain-watch.js';
import { seedMerchant, type SeededMerchant } from '../support/merchants.js';
import { payoutAddresses } from '../support/payout-addresses.js';
import { balanceOf, callbacksOf, createPayoutStores, entryTypesOf, fund, ownPayoutStores, requestPayout, sendQueued, storedPayout } from '../support/payout-flow.js';
import { TronNode } from '../support/tron-node.js';
import { EXPIRATION_MS } from '../support/tron-wallet.js';

const stores = ownPayoutStores();

const BITCOIN_CONFIRMATIONS = 2;
const TRON_CONFIRMATIONS = 3;
const STUCK_SECONDS = 2;
const BTC_RECIPIENT = 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx';
const BTC_RECIPIENT_SCRIPT = '0014751e76e8199196d454941c45d1b3a323f1433bd6';
const TRX_RECIPIENT = 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8';
/** The deployment's USDT contract on Tron, as GATEWAY_TOKENS_TRON names it. */
const TRON_USDT = tronAddress(`41${'a1'.repeat(20)}`);

let bitcoin: BitcoinNode;
let tron: TronNode;
let merchant: SeededMerchant;
let bitcoinTreasury: string;
let tronTreasury: string;

interface NodeTransaction {
  vin: Array<{ txid: string; vout: string }>;
  vout: Array<{ value: string; scriptPubKey: { hex: string; address?: string } }>;
}

const satoshis = (coins: string): bigint => BigInt(new Decimal(coins).mul(1e8).toFixed(0));
const decoded = (txid: string): Promise<NodeTransaction> => bitcoin.rpc('getrawtransaction', [txid, true]);
const pay = (fields: Record<string, unknown>) => requestPayout(merchant, fields);

beforeAll(async () => {
  [bitcoin, tron] = await Promise.all([BitcoinNode.start(), TronNode.start()]);
  setEnvironment({
    GATEWAY_RPC_BITCOIN: bitcoin.rpcUrl,
    GATEWAY_CONFIRMATIONS_BITCOIN: String(BITCOIN_CONFIRMATIONS),
    GATEWAY_RPC_TRON: tron.url,
    GATEWAY_TOKENS_TRON: JSON.stringify({ USDT: TRON_USDT }),
    GATEWAY_CONFIRMATIONS_TRON: String(TRON_CONFIRMATIONS),
    GATEWAY_PAYOUT_STUCK_S: String(STUCK_SECONDS),
  });
  await createPayoutStores(stores);

  const signer = config().treasurySigner;
  if (signer.kind !== 'local') throw new Error('The tests sign with key files');
  const keys = new KeyFileTreasurySigner(signer.directory);
  bitcoinTreasury = treasuryAddress('bitcoin', await keys.publicKey('bitcoin'), 'demo');
  tronTreasury = treasuryAddress('tron', await keys.publicKey('tron'), 'demo');
  await bitcoin.fund();
  // Two outputs: a payout spends one and leaves the other for the next while its change confirms.
  await bitcoin.send(bitcoinTreasury, '1.5');
  await bitcoin.send(bitcoinTreasury, '0.7');
  await bitcoin.mine(1);
  tron.mineEmpty(5);
  tron.wallet.fund(tronTreasury, 1_000_000_000n);
  tron.wallet.fundToken(TRON_USDT, tronTreasury, 500_000_000n);

  merchant = await seedMerchant();
  await payoutAddresses().add(merchant.merchant.id, { network: 'bitcoin', address: BTC_RECIPIENT }, 'operator');
  await payoutAddresses().add(merchant.merchant.id, { network: 'tron', address: TRX_RECIPIENT }, 'operator');
  await Promise.all([fund(merchant, 'BTC', '2'), fund(merchant, 'TRX', '500'), fund(merchant, 'USDT', '1000')]);
}, 120_000);

afterAll(async () => {
  tron?.close();
  await bitcoin?.stop();
});

describe('a Bitcoin payout through the sender and the watcher', () => {
  const watch = watcherOf('bitcoin').once;

  it('pays BTC to the satoshi with the change back to the treasury, settled at the confirmation depth with the withdraw callback', async () => {
    const before = await balanceOf(merchant, 'BTC');
    const answer = await pay({ amount: '0.40000001', currency: 'BTC', network: 'bitcoin', address: BTC_RECIPIENT });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const payout = answer.body.data;
    expect(payout).toMatchObject({ type: 'withdraw', status: 'processing', network: 'bitcoin', address: BTC_RECIPIENT, transactionHash: null, amount: '0.40000001' });
    const reserved = new Decimal(payout.amount).plus(payout.fees.processing).plus(payout.fees.technical);
    expect((await balanceOf(merchant, 'BTC')).reserved).toBe(new Decimal(before.reserved).plus(reserved).toFixed(8));

    expect(await sendQueued()).toBe(1);
    const sent = await storedPayout(payout.id);
    expect(sent.payout.attempts).toHaveLength(1);
    const transaction = await decoded(sent.transactionHash!);
    const spent = await Promise.all(transaction.vin.map(async (input) => (await decoded(input.txid)).vout[Number(input.vout)]!));
    const treasuryScript = spent[0]!.scriptPubKey.hex;
    expect(spent.every((output) => output.scriptPubKey.hex === treasuryScript)).toBe(true);
    const outputs = transaction.vout.map((output) => [output.scriptPubKey.hex, satoshis(output.value)] as const);
    expect(outputs[0]).toEqual([BTC_RECIPIENT_SCRIPT, 40_000_001n]);
    expect(outputs[1]![0]).toBe(treasuryScript);
    const fee = spent.reduce((sum, output) => sum + satoshis(output.value), 0n) - outputs.reduce((sum, [, value]) => sum + value, 0n);
    expect(fee).toBeGreaterThan(0n);
    expect(fee).toBeLessThanOrEqual(satoshis(payout.fees.technical));

    await bitcoin.mine(1);
    await watch();
    expect((await storedPayout(payout.id)).status).toBe('processing');
    await bitcoin.mine(BITCOIN_CONFIRMATIONS - 1);
    await watch();
    expect(await storedPayout(payout.id)).toMatchObject({ status: 'confirmed', transactionHash: sent.transactionHash });
    expect(await callbacksOf(merchant, payout.id)).toEqual([`${payout.id}:confirmed`]);
    const after = await balanceOf(merchant, 'BTC');
    expect(after.reserved).toBe(before.reserved);
    expect(new Decimal(before.available).minus(after.available).toFixed(8)).toBe(reserved.toFixed(8));
    expect(await entryTypesOf(merchant, payout.id)).toContain('payout');
  });

  it('replaces a payout left unmined past GATEWAY_PAYOUT_STUCK_S by fee: the replacement mined, the first gone, paid once', async () => {
    const payout = (await pay({ amount: '0.1', currency: 'BTC', network: 'bitcoin', address: BTC_RECIPIENT })).body.data;
    expect(await sendQueued()).toBe(1);
    const first = await storedPayout(payout.id);
    const coinsOf = (transaction: NodeTransaction) => transaction.vin.map((input) => `${input.txid}:${input.vout}`);
    const original = coinsOf(await decoded(first.transactionHash!));
    await new Promise((resolve) => setTimeout(resolve, STUCK_SECONDS * 1000 + 100));
    await watch();
    expect(await sendQueued()).toBe(1);
    const replaced = await storedPayout(payout.id);
    expect(replaced.payout.attempts).toHaveLength(2);
    expect(replaced.transactionHash).not.toBe(first.transactionHash);
    const replacement = coinsOf(await decoded(replaced.transactionHash!));
    // The same coins spent again, paying more: the node took the replacement and let the first go.
    expect(replacement).toEqual(expect.arrayContaining(original));
    await expect(decoded(first.transactionHash!)).rejects.toThrow();

    await bitcoin.mine(BITCOIN_CONFIRMATIONS);
    await watch();
    expect(await storedPayout(payout.id)).toMatchObject({ status: 'confirmed', transactionHash: replaced.transactionHash });
    const paid = (await decoded(replaced.transactionHash!)).vout.filter((output) => output.scriptPubKey.hex === BTC_RECIPIENT_SCRIPT);
    expect(paid.map((output) => satoshis(output.value))).toEqual([10_000_000n]);
  });
});

describe('a Tron payout through the sender and the watcher', () => {
  const watch = watcherOf('tron').once;

  it('pays TRX and USDT to the unit, settled at the confirmation depth with the withdraw callback', async () => {
    const [trxBefore, tokensBefore] = [tron.wallet.trxBalance(TRX_RECIPIENT), tron.wallet.tokenBalance(TRON_USDT, TRX_RECIPIENT)];
    const trx = await pay({ amount: '32.345678', currency: 'TRX', network: 'tron', address: TRX_RECIPIENT });
    expect(trx.status, JSON.stringify(trx.body)).toBe(200);
    const usdt = await pay({ amount: '25.000001', currency: 'USDT', network: 'tron', address: TRX_RECIPIENT });
    expect(usdt.status, JSON.stringify(usdt.body)).toBe(200);
    expect(await sendQueued()).toBe(2);
    tron.minePending();
    await watch();
    expect((await storedPayout(trx.body.data.id)).status).toBe('processing');
    tron.mineEmpty(TRON_CONFIRMATIONS - 1);
    await watch();

    for (const answer of [trx, usdt]) {
      const settled = await storedPayout(answer.body.data.id);
      expect(settled).toMatchObject({ status: 'confirmed', network: 'tron', address: TRX_RECIPIENT });
      expect(settled.transactionHash).toMatch(/^[0-9a-f]{64}$/);
      expect(await callbacksOf(merchant, answer.body.data.id)).toEqual([`${answer.body.data.id}:confirmed`]);
    }
    expect(tron.wallet.trxBalance(TRX_RECIPIENT) - trxBefore).toBe(32_345_678n);
    expect(tron.wallet.tokenBalance(TRON_USDT, TRX_RECIPIENT) - tokensBefore).toBe(25_000_001n);
  });

  it('rebuilds a transaction the node let expire unmined, and pays once', async () => {
    const before = tron.wallet.trxBalance(TRX_RECIPIENT);
    const payout = (await pay({ amount: '30', currency: 'TRX', network: 'tron', address: TRX_RECIPIENT })).body.data;
    expect(await sendQueued()).toBe(1);
    const first = await storedPayout(payout.id);
    // The node loses it, and the chain's time passes its expiry.
    tron.mineEmpty(EXPIRATION_MS / 3_000);
    await new Promise((resolve) => setTimeout(resolve, STUCK_SECONDS * 1000 + 100));
    await watch();
    expect(await sendQueued()).toBe(1);
    const rebuilt = await storedPayout(payout.id);
    expect(rebuilt.payout.attempts).toHaveLength(2);
    expect(rebuilt.transactionHash).not.toBe(first.transactionHash);

    tron.minePending();
    tron.mineEmpty(TRON_CONFIRMATIONS - 1);
    await watch();
    expect(await storedPayout(payout.id)).toMatchObject({ status: 'confirmed', transactionHash: rebuilt.transactionHash });
    expect(tron.wallet.trxBalance(TRX_RECIPIENT) - before).toBe(30_000_000n);
  });
});
