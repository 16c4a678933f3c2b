/**
 * EVM payouts against a real node (Hardhat on loopback, infra/chain/local-chain.ts) from a
 * treasury whose key is a key file: ETH and the test USDT paid to the wei, the treasury's balance
 * short by exactly the amount and the fee paid; the same bytes broadcast again; a transaction left
 * in the pool replaced with the same nonce and higher fees, mined once; a token transfer that
 * reverts seen as failed with the fee it burnt; a treasury too short refused before anything is signed.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestClient, encodeFunctionData, erc20Abi, http, parseEther, parseTransaction, publicActions, recoverTransactionAddress, type Address, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalChain } from '../../infra/chain/local-chain.js';
import { EvmPayoutChain } from '../../shared/chain/evm-payouts.js';
import { TreasuryShortfall, type PayoutOrder, type SignedPayout } from '../../shared/domain/payouts/index.js';
import { KeyFileTreasurySigner } from '../../shared/signers/key-file-signer.js';
import { startChainWithTestToken, withoutAutomine } from '../support/test-chain.js';

const RECIPIENT: Address = '0x00000000000000000000000000000000beef0001';
const TOKEN_RECIPIENT: Address = '0x00000000000000000000000000000000beef0002';

let node: LocalChain;
let keyDirectory: string;
let payouts: EvmPayoutChain;
let treasury: Address;
let usdt: Address;
let client: ReturnType<typeof testClient>;

const testClient = (rpcUrl: string) => createTestClient({ mode: 'hardhat', transport: http(rpcUrl, { retryCount: 0 }) }).extend(publicActions);

beforeAll(async () => {
  node = await startChainWithTestToken();
  client = testClient(node.rpcUrl);
  usdt = await node.deployToken({ symbol: 'USDT', decimals: 6, supply: '1000000' });
  keyDirectory = await mkdtemp(join(tmpdir(), 'gateway-treasury-'));
  payouts = new EvmPayoutChain({ rpcUrl: node.rpcUrl, chainId: node.chainId, network: 'ethereum', signer: new KeyFileTreasurySigner(keyDirectory) });
  treasury = await payouts.treasury();
  await node.sendNative({ to: treasury, amount: '10' });
  await node.sendToken({ to: treasury, amount: '1000', token: usdt });
}, 120_000);

afterAll(async () => {
  await node?.stop();
  if (keyDirectory) await rm(keyDirectory, { recursive: true, force: true });
});

const tokenBalance = (owner: Address) => client.readContract({ address: usdt, abi: erc20Abi, functionName: 'balanceOf', args: [owner] });

/** Prepares an order from the treasury's next nonce, as the node counts it. */
async function prepare(order: Omit<PayoutOrder, 'network'>): Promise<SignedPayout> {
  return payouts.prepare({ network: 'ethereum', ...order }, await payouts.readTreasury());
}

describe('EVM payouts', () => {
  it('pays ETH to the wei, signed by the treasury for the chain, and the same bytes broadcast again are sent', async () => {
    const amount = parseEther('1.234567890123456789');
    const ethBefore = await client.getBalance({ address: treasury });
    const estimate = await payouts.estimateFee({ network: 'ethereum', token: null, to: RECIPIENT, amount });
    const { nonce } = (await payouts.readTreasury()) as { nonce: number };

    const payout = await prepare({ token: null, to: RECIPIENT, amount });
    const parsed = parseTransaction(payout.rawTransaction as Hex);
    expect(parsed).toMatchObject({ type: 'eip1559', chainId: node.chainId, nonce, to: RECIPIENT.toLowerCase(), value: amount });
    // A plain transfer's gas, as the node estimates it (Hardhat's estimate is a unit above).
    expect(parsed.gas).toBeGreaterThanOrEqual(21_000n);
    expect(parsed.gas).toBeLessThan(21_100n);
    expect(await recoverTransactionAddress({ serializedTransaction: payout.rawTransaction as never })).toBe(treasury);
    expect(payout.maxFee).toBe(parsed.gas! * parsed.maxFeePerGas!);

    await payouts.broadcast(payout.rawTransaction);
    await payouts.broadcast(payout.rawTransaction);

    const status = await payouts.status(payout);
    expect(status).toMatchObject({ state: 'mined', confirmations: 1, succeeded: true });
    // A plain transfer has no log.
    expect(status).not.toHaveProperty('transfer');
    const feePaid = (status as { feePaid: bigint }).feePaid;
    const receipt = await client.getTransactionReceipt({ hash: payout.transactionHash as Hex });
    expect(feePaid).toBe(receipt.gasUsed * receipt.effectiveGasPrice);
    expect(feePaid).toBeLessThanOrEqual(payout.maxFee);
    expect(estimate).toBeGreaterThanOrEqual(feePaid);
    expect(await client.getBalance({ address: RECIPIENT })).toBe(amount);
    expect(await client.getBalance({ address: treasury })).toBe(ethBefore - amount - feePaid);
    expect(await payouts.readTreasury()).toEqual({ family: 'evm', nonce: nonce + 1 });

    await node.mine(2);
    expect(await payouts.status(payout)).toMatchObject({ state: 'mined', blockNumber: Number(receipt.blockNumber), confirmations: 3 });
  });

  it('pays USDT with an ERC-20 transfer, to the token unit, the fee in ETH', async () => {
    const [tokensBefore, ethBefore] = await Promise.all([tokenBalance(treasury), client.getBalance({ address: treasury })]);
    const payout = await prepare({ token: usdt, to: TOKEN_RECIPIENT, amount: 123_456_789n });
    const parsed = parseTransaction(payout.rawTransaction as Hex);
    expect(parsed.to).toBe(usdt.toLowerCase());
    expect(parsed.value ?? 0n).toBe(0n);
    expect(parsed.data).toBe(encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [TOKEN_RECIPIENT, 123_456_789n] }));
    await payouts.broadcast(payout.rawTransaction);

    const status = await payouts.status(payout);
    // Its block by hash, and the token's own Transfer log among the receipt's.
    const receipt = await client.getTransactionReceipt({ hash: payout.transactionHash as Hex });
    const [log] = receipt.logs.filter((each) => each.address === usdt.toLowerCase());
    expect(status).toMatchObject({ state: 'mined', blockHash: receipt.blockHash, transfer: { logIndex: log!.logIndex }, succeeded: true });
    expect(await tokenBalance(TOKEN_RECIPIENT)).toBe(123_456_789n);
    expect(await tokenBalance(treasury)).toBe(tokensBefore - 123_456_789n);
    expect(await client.getBalance({ address: treasury })).toBe(ethBefore - (status as { feePaid: bigint }).feePaid);
  });

  it('replaces a transaction stuck in the pool: the same nonce, both fees 10% higher at least, mined once, the first dropped', async () => {
    const amount = parseEther('0.5');
    const before = await client.getBalance({ address: RECIPIENT });
    const { stuck, replacement } = await withoutAutomine(node, async () => {
      const stuck = await prepare({ token: null, to: RECIPIENT, amount });
      await payouts.broadcast(stuck.rawTransaction);
      expect(await payouts.status(stuck)).toEqual({ state: 'pending' });

      const replacement = await payouts.replace(stuck);
      await payouts.broadcast(replacement.rawTransaction);
      await client.mine({ blocks: 1 });
      return { stuck, replacement };
    });

    const [first, second] = [stuck.spend, replacement.spend] as Array<Extract<SignedPayout['spend'], { family: 'evm' }>>;
    expect(second!.nonce).toBe(first!.nonce);
    expect(replacement.transactionHash).not.toBe(stuck.transactionHash);
    expect(second!.maxPriorityFeePerGas).toBeGreaterThanOrEqual(first!.maxPriorityFeePerGas + first!.maxPriorityFeePerGas / 10n + 1n);
    expect(second!.maxFeePerGas).toBeGreaterThanOrEqual(first!.maxFeePerGas + first!.maxFeePerGas / 10n + 1n);
    expect(await payouts.status(replacement)).toMatchObject({ state: 'mined', succeeded: true });
    expect(await payouts.status(stuck)).toEqual({ state: 'dropped' });
    expect(await client.getBalance({ address: RECIPIENT })).toBe(before + amount);
  });

  it('sees a token transfer that reverted as mined and failed, with the fee it burnt', async () => {
    const held = await tokenBalance(treasury);
    const half = held / 2n + 1n;
    // Each fits what the treasury holds when it is prepared; once the first is mined, the second no longer does.
    const [paid, reverted] = await withoutAutomine(node, async () => {
      const paid = await prepare({ token: usdt, to: TOKEN_RECIPIENT, amount: half });
      await payouts.broadcast(paid.rawTransaction);
      const reverted = await payouts.prepare({ network: 'ethereum', token: usdt, to: TOKEN_RECIPIENT, amount: half }, { family: 'evm', nonce: (paid.spend as { nonce: number }).nonce + 1 });
      await payouts.broadcast(reverted.rawTransaction);
      await client.mine({ blocks: 1 });
      return [paid, reverted];
    });
    const ethBefore = await client.getBalance({ address: treasury, blockNumber: (await client.getBlockNumber()) - 1n });

    expect(await payouts.status(paid)).toMatchObject({ state: 'mined', succeeded: true });
    const status = await payouts.status(reverted);
    expect(status).toMatchObject({ state: 'mined', succeeded: false });
    const receipt = await client.getTransactionReceipt({ hash: reverted.transactionHash as Hex });
    expect(receipt.status).toBe('reverted');
    expect((status as { feePaid: bigint }).feePaid).toBe(receipt.gasUsed * receipt.effectiveGasPrice);
    const paidFee = ((await payouts.status(paid)) as { feePaid: bigint }).feePaid;
    expect(await client.getBalance({ address: treasury })).toBe(ethBefore - paidFee - (status as { feePaid: bigint }).feePaid);
    expect(await tokenBalance(treasury)).toBe(held - half);
  });

  it('refuses an order the treasury cannot pay, the asset and what is missing named, before anything is signed', async () => {
    const held = await tokenBalance(treasury);
    const error = await prepare({ token: usdt, to: TOKEN_RECIPIENT, amount: held + 1n }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TreasuryShortfall);
    expect(error).toMatchObject({ network: 'ethereum', token: usdt, needed: held + 1n, available: held });

    const eth = await client.getBalance({ address: treasury });
    const native = await prepare({ token: null, to: RECIPIENT, amount: eth }).catch((caught: unknown) => caught);
    expect(native).toBeInstanceOf(TreasuryShortfall);
    expect(native).toMatchObject({ token: null, available: eth });
    expect((native as TreasuryShortfall).needed).toBeGreaterThan(eth);
  });
});
