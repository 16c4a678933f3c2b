/**
 * Crypto payouts end to end on a real EVM node (Hardhat on loopback), through the functions as
 * the runtime runs them: `POST /api/v2/payouts` reserving in DynamoDB Local and queueing on the
 * local SQS FIFO queue, `send-payout` signing with the treasury's key file, `watch-chain` settling
 * after the confirmations. ETH and the test USDT arrive to the wei; racing payouts never overspend;
 * a stuck transaction is replaced; a reverted token transfer is released less its fee; two payouts
 * that together exceed the treasury are never both sent; a payout
 * whose block is reorganised away is settled once; a sender stopped between signing and
 * broadcast sends the same transaction when it resumes.
 */
import { createPublicClient, createTestClient, encodeAbiParameters, erc20Abi, http, keccak256, parseEther, toHex, type Address, type Hex, type PublicClient } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalChain } from '../../infra/chain/local-chain.js';
import { config } from '../../shared/config.js';
import { Decimal } from '../../shared/domain/kernel/index.js';
import { treasuryAddress } from '../../shared/domain/payouts/index.js';
import { KeyFileTreasurySigner } from '../../shared/signers/key-file-signer.js';
import { setEnvironment, watcherOf } from '../support/chain-watch.js';
import { invoke } from '../support/invoke.js';
import { seedKey, seedMerchant, type SeededMerchant } from '../support/merchants.js';
import { payoutAddresses } from '../support/payout-addresses.js';
import {
  balanceOf as merchantBalanceOf,
  callbacksOf,
  createPayoutStores,
  entryTypesOf,
  fund,
  ownPayoutStores,
  payoutLedger as ledger,
  requestPayout,
  sendQueued,
  storedPayout as stored,
} from '../support/payout-flow.js';
import { RpcProxy } from '../support/rpc-proxy.js';
import { startChainWithTestToken, withoutAutomine } from '../support/test-chain.js';

const stores = ownPayoutStores();

const CONFIRMATIONS = 3;
const STUCK_SECONDS = 2;
const RECIPIENT: Address = '0x00000000000000000000000000000000BEef0101';

let chain: LocalChain;
let client: PublicClient;
let usdt: Address;
let proxy: RpcProxy;
/** Refuses the next broadcasts, as a sender stopped before it could send would leave them unsent. */
let refuseBroadcasts = 0;
let treasury: Address;
let merchant: SeededMerchant;

beforeAll(async () => {
  chain = await startChainWithTestToken();
  client = createPublicClient({ transport: http(chain.rpcUrl) });
  usdt = await chain.deployToken({ symbol: 'USDT', decimals: 6, supply: '1000000' });
  proxy = await RpcProxy.start(chain.rpcUrl);
  proxy.fault = (calls) => {
    if (refuseBroadcasts === 0 || !calls.some((call) => call.method === 'eth_sendRawTransaction')) return undefined;
    refuseBroadcasts -= 1;
    return 'refuse';
  };
  setEnvironment({
    GATEWAY_RPC_ETHEREUM: proxy.url,
    GATEWAY_TOKENS_ETHEREUM: JSON.stringify({ USDT: usdt }),
    GATEWAY_CONFIRMATIONS_ETHEREUM: String(CONFIRMATIONS),
    GATEWAY_PAYOUT_STUCK_S: String(STUCK_SECONDS),
  });
  await createPayoutStores(stores);

  const signer = config().treasurySigner;
  if (signer.kind !== 'local') throw new Error('The tests sign with key files');
  treasury = treasuryAddress('evm', await new KeyFileTreasurySigner(signer.directory).publicKey('evm'), 'demo') as Address;
  await chain.sendNative({ to: treasury, amount: '100' });
  await chain.sendToken({ to: treasury, amount: '100000', token: usdt });

  merchant = await seedMerchant();
  await payoutAddresses().add(merchant.merchant.id, { network: 'ethereum', address: RECIPIENT }, 'operator');
  await fund(merchant, 'USDT', '100000');
  await fund(merchant, 'ETH', '50');
}, 120_000);

afterAll(async () => {
  await proxy?.stop();
  await chain?.stop();
});

const pay = (fields: Record<string, unknown>, options: { apiKey?: string; key?: string | null } = {}) =>
  requestPayout(merchant, { amount: '25', currency: 'USDT', network: 'ethereum', address: RECIPIENT, ...fields }, options);

const watch = watcherOf('ethereum').once;
const tokenBalance = (owner: Address) => client.readContract({ address: usdt, abi: erc20Abi, functionName: 'balanceOf', args: [owner] });
/** Writes a holder's balance into the test token's storage (its `balanceOf` mapping is slot 3, infra/chain/test-token.sol). */
const setTokenBalance = (owner: Address, units: bigint) =>
  createTestClient({ mode: 'hardhat', transport: http(chain.rpcUrl) }).setStorageAt({
    address: usdt,
    index: keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [owner, 3n])),
    value: toHex(units, { size: 32 }),
  });
const balanceOf = (currency: string) => merchantBalanceOf(merchant, currency);

describe('a crypto payout on the EVM node', () => {
  it('pays USDT to the unit and ETH to the wei, settled with the withdraw callback once deep enough', async () => {
    const tokensBefore = await tokenBalance(RECIPIENT);
    const ethBefore = await client.getBalance({ address: RECIPIENT });
    const token = await pay({ amount: '25.000001' });
    expect(token.status, JSON.stringify(token.body)).toBe(200);
    expect(token.body.data).toMatchObject({ type: 'withdraw', status: 'processing', network: 'ethereum', address: RECIPIENT, transactionHash: null, amount: '25.000001' });
    const ether = await pay({ amount: '1.234567890123456789', currency: 'ETH' });
    expect(ether.status, JSON.stringify(ether.body)).toBe(200);

    expect(await sendQueued()).toBe(2);
    const [sentToken, sentEther] = [await stored(token.body.data.id), await stored(ether.body.data.id)];
    expect(sentToken.payout.attempts).toHaveLength(1);
    // Each mined in a block of its own as it was broadcast: the token's is 2 deep, the ether's 1.
    await watch();
    expect((await stored(token.body.data.id)).status).toBe('processing');
    await chain.mine(1);
    await watch();
    expect((await stored(token.body.data.id)).status).toBe('confirmed');
    expect((await stored(ether.body.data.id)).status).toBe('processing');
    await chain.mine(1);
    await watch();

    expect(await stored(token.body.data.id)).toMatchObject({ status: 'confirmed', transactionHash: sentToken.transactionHash });
    expect(await stored(ether.body.data.id)).toMatchObject({ status: 'confirmed', transactionHash: sentEther.transactionHash });
    expect((await tokenBalance(RECIPIENT)) - tokensBefore).toBe(25_000_001n);
    expect((await client.getBalance({ address: RECIPIENT })) - ethBefore).toBe(parseEther('1.234567890123456789'));
    expect(await callbacksOf(merchant, token.body.data.id)).toEqual([`${token.body.data.id}:confirmed`]);
    const view = (await invoke('get-transaction', { apiKey: merchant.apiKey, pathParameters: { transactionId: token.body.data.id } })).body.data;
    expect(view).toMatchObject({ type: 'withdraw', status: 'confirmed', network: 'ethereum', transactionHash: sentToken.transactionHash, address: RECIPIENT });
  });

  it('refuses a request without Idempotency-Key (400) or from a key without the payouts scope (403), reserving nothing', async () => {
    const before = await balanceOf('USDT');
    const unkeyed = await pay({}, { key: null });
    expect(unkeyed.status).toBe(400);
    expect(unkeyed.body.errors[0].code).toBe('bad_request');
    const readOnly = await seedKey(merchant.merchant.id, { scopes: ['read', 'payments'] });
    const forbidden = await pay({}, { apiKey: readOnly });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.errors[0].message).toBe('This API key lacks the scope payouts');
    const elsewhere = await pay({ address: '0x00000000000000000000000000000000BeEf0202' });
    expect(elsewhere.status).toBe(422);
    expect(await balanceOf('USDT')).toEqual(before);
    expect(await sendQueued()).toBe(0);
  });

  it('sends 20 racing payouts each once, in nonce order, never paying more than was reserved', async () => {
    const nonceBefore = await client.getTransactionCount({ address: treasury });
    const tokensBefore = await tokenBalance(RECIPIENT);
    const answers = await Promise.all(Array.from({ length: 20 }, () => pay({ amount: '10' })));
    expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(200));
    expect(await sendQueued()).toBe(20);
    await chain.mine(CONFIRMATIONS);
    await watch();
    const settled = await Promise.all(answers.map((answer) => stored(answer.body.data.id)));
    expect(settled.every((payout) => payout.status === 'confirmed' && payout.payout.attempts.length === 1)).toBe(true);
    expect(await client.getTransactionCount({ address: treasury })).toBe(nonceBefore + 20);
    expect((await tokenBalance(RECIPIENT)) - tokensBefore).toBe(200_000_000n);
  });

  it('broadcasts, when the sender resumes, the transaction it signed before it stopped: one on chain', async () => {
    const nonceBefore = await client.getTransactionCount({ address: treasury });
    const payout = (await pay({ amount: '7' })).body.data;
    // Waiting to be sent, it is what the treasury still owes (the admin CLI's `treasury`).
    expect(await ledger().queued()).toEqual([{ network: 'ethereum', currency: 'USDT', amount: '7.000000' }]);
    refuseBroadcasts = 1;
    expect(await sendQueued()).toBe(1);
    const signed = await stored(payout.id);
    expect(signed.payout.attempts).toHaveLength(1);
    expect(await ledger().queued()).toEqual([]);
    expect(await client.getTransactionCount({ address: treasury })).toBe(nonceBefore);
    expect(await sendQueued()).toBe(1);
    await chain.mine(CONFIRMATIONS);
    await watch();
    expect(await stored(payout.id)).toMatchObject({ status: 'confirmed', transactionHash: signed.transactionHash });
    expect(await client.getTransactionCount({ address: treasury })).toBe(nonceBefore + 1);
  });

  it('replaces a transaction left unmined past GATEWAY_PAYOUT_STUCK_S with the same nonce and higher fees', async () => {
    const tokensBefore = await tokenBalance(RECIPIENT);
    const payout = (await pay({ amount: '9' })).body.data;
    const first = await withoutAutomine(chain, async () => {
      await sendQueued();
      const sent = await stored(payout.id);
      await new Promise((resolve) => setTimeout(resolve, STUCK_SECONDS * 1000 + 100));
      await watch();
      expect(await sendQueued()).toBe(1);
      return sent;
    });
    const replaced = await stored(payout.id);
    expect(replaced.payout.attempts).toHaveLength(2);
    expect(replaced.transactionHash).not.toBe(first.transactionHash);
    await chain.mine(CONFIRMATIONS);
    await watch();
    expect(await stored(payout.id)).toMatchObject({ status: 'confirmed', transactionHash: replaced.transactionHash });
    expect((await tokenBalance(RECIPIENT)) - tokensBefore).toBe(9_000_000n);
  });

  it('fails a token transfer that reverted, releasing its reserve less the network fee it burnt', async () => {
    const held = await tokenBalance(treasury);
    const before = await balanceOf('USDT');
    const reverted = (await pay({ amount: '12' })).body.data;
    // The treasury's tokens gone between signing and mining (moved by its operator, say): the transfer reverts.
    await withoutAutomine(chain, async () => {
      expect(await sendQueued()).toBe(1);
      await setTokenBalance(treasury, 0n);
      await chain.mine(1);
    });
    await setTokenBalance(treasury, held);
    await chain.mine(CONFIRMATIONS);
    await watch();
    const failed = await stored(reverted.id);
    expect(failed).toMatchObject({ status: 'failed' });
    const spent = new Decimal(failed.fees.networkSpent!);
    expect(spent.greaterThan(0)).toBe(true);
    expect(spent.lessThanOrEqualTo(failed.fees.technical!)).toBe(true);
    const after = await balanceOf('USDT');
    expect(new Decimal(before.available).minus(after.available).toString()).toBe(spent.toString());
    expect(after.reserved).toBe(before.reserved);
  });

  it('sends no two payouts that each fit the treasury but not together: the second waits, not short, until the first is paid', async () => {
    const held = await tokenBalance(treasury);
    await fund(merchant, 'USDT', '150000');
    const part = new Decimal(held.toString()).div(1e6).mul(0.6).toDecimalPlaces(0).toString();
    const [first, second] = [(await pay({ amount: part })).body.data, (await pay({ amount: part })).body.data];
    await withoutAutomine(chain, async () => {
      // The first is sent; the second's message fails and stays queued.
      expect(await sendQueued()).toBe(2);
      expect((await stored(second.id)).payout.attempts).toEqual([]);
      await chain.mine(1);
    });
    await chain.mine(CONFIRMATIONS);
    await watch();
    expect((await stored(first.id)).status).toBe('confirmed');
    // Now the treasury is short of it: funded, it leaves.
    await chain.sendToken({ to: treasury, amount: '100000', token: usdt });
    expect(await sendQueued()).toBe(1);
    await chain.mine(CONFIRMATIONS);
    await watch();
    expect((await stored(second.id)).status).toBe('confirmed');
  });

  it('settles a payout whose block was reorganised away only once, after it is mined again', async () => {
    const tokensBefore = await tokenBalance(RECIPIENT);
    const payout = (await pay({ amount: '11' })).body.data;
    const snapshot = await chain.snapshot();
    await sendQueued();
    await watch();
    expect((await stored(payout.id)).status).toBe('processing');
    await chain.reorg({ snapshot, length: 2 });
    expect(await client.getTransactionReceipt({ hash: (await stored(payout.id)).transactionHash as Hex }).catch(() => null)).toBeNull();
    await watch();
    await chain.mine(CONFIRMATIONS);
    await watch();
    await watch();
    expect((await stored(payout.id)).status).toBe('confirmed');
    expect((await tokenBalance(RECIPIENT)) - tokensBefore).toBe(11_000_000n);
    expect(await entryTypesOf(merchant, payout.id)).toEqual(['fee', 'payout', 'payout_reserve']);
  });
});
