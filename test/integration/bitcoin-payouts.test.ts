/**
 * Bitcoin payouts against a real node (Debian's litecoind in regtest, infra/chain/bitcoin-node.ts,
 * whose scripts and signatures are Bitcoin's) from a treasury whose key is a key file: a spend of
 * the treasury's largest output to a testnet address with the change back to the treasury, the
 * fee at the rate asked; the same bytes broadcast again, in the mempool and mined; a payout
 * replaced by fee, the replacement mined and the first gone; a payout that the treasury's own
 * unmined transactions hold back waits, one beyond what it holds is short.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BitcoinNode } from '../../infra/chain/bitcoin-node.js';
import { BitcoinPayoutChain } from '../../shared/chain/bitcoin-payouts.js';
import { treasuryAddress, TreasuryBusy, TreasuryShortfall, type PayoutOrder, type TreasuryOutput } from '../../shared/domain/payouts/index.js';
import { KeyFileTreasurySigner } from '../../shared/signers/key-file-signer.js';

const RECIPIENT = 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx';
const RECIPIENT_SCRIPT = '0014751e76e8199196d454941c45d1b3a323f1433bd6';
/** The rate a node without an estimate is paid at here, satoshis per 1,000 virtual bytes. */
const FALLBACK_RATE = 5_000n;

let node: BitcoinNode;
let keyDirectory: string;
let payouts: BitcoinPayoutChain;
let treasuryScript: string;

interface NodeTransaction {
  txid: string;
  vsize: string;
  vin: Array<{ txid: string; vout: string; sequence: string }>;
  vout: Array<{ value: string; scriptPubKey: { hex: string } }>;
  confirmations?: string;
}

const decoded = async (txid: string): Promise<NodeTransaction> => node.rpc('getrawtransaction', [txid, true]);
const ascending = (values: bigint[]): bigint[] => values.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
const satoshis = (coins: string): bigint => BigInt(coins.replace('.', ''));
const order = (amount: bigint): PayoutOrder => ({ network: 'bitcoin', token: null, to: RECIPIENT, amount });

async function treasuryOutputs(): Promise<TreasuryOutput[]> {
  const state = await payouts.readTreasury();
  if (state.family !== 'bitcoin') throw new Error('not a Bitcoin treasury');
  return [...state.outputs];
}

beforeAll(async () => {
  node = await BitcoinNode.start();
  await node.fund();
  keyDirectory = await mkdtemp(join(tmpdir(), 'gateway-treasury-'));
  const signer = new KeyFileTreasurySigner(keyDirectory);
  payouts = new BitcoinPayoutChain({ rpcUrl: node.rpcUrl, signer, fallbackFeeRate: FALLBACK_RATE });
  treasuryScript = await payouts.treasuryScript();
  const address = treasuryAddress('bitcoin', await signer.publicKey('bitcoin'), 'demo');
  await node.send(address, '1.5');
  await node.send(address, '0.3');
  await node.mine(1);
}, 60_000);

afterAll(async () => {
  await node?.stop();
  if (keyDirectory) await rm(keyDirectory, { recursive: true, force: true });
});

describe('Bitcoin payouts', () => {
  it('spends the largest output to the destination, the change back to the treasury, replace-by-fee signalled, the fee at the rate', async () => {
    const outputs = await treasuryOutputs();
    expect(ascending(outputs.map((output) => output.satoshis))).toEqual([30_000_000n, 150_000_000n]);
    const largest = outputs.find((output) => output.satoshis === 150_000_000n)!;

    const payout = await payouts.prepare(order(40_000_000n), { family: 'bitcoin', outputs });
    await payouts.broadcast(payout.rawTransaction);
    await payouts.broadcast(payout.rawTransaction);
    expect(await payouts.status(payout)).toEqual({ state: 'pending' });

    const sent = await decoded(payout.transactionHash);
    expect(sent.vin).toEqual([expect.objectContaining({ txid: largest.txid, vout: String(largest.index), sequence: String(0xfffffffd) })]);
    const change = 150_000_000n - 40_000_000n - payout.maxFee;
    expect(sent.vout.map((output) => [output.scriptPubKey.hex, satoshis(output.value)])).toEqual([
      [RECIPIENT_SCRIPT, 40_000_000n],
      [treasuryScript, change],
    ]);
    expect(payout.spend).toEqual({ family: 'bitcoin', inputs: [largest], change, feeRate: FALLBACK_RATE });
    // At the rate for the size the node counts, give or take the signature's byte.
    const vsize = BigInt(sent.vsize);
    expect(payout.maxFee).toBeGreaterThanOrEqual((vsize * FALLBACK_RATE) / 1000n);
    expect(payout.maxFee).toBeLessThanOrEqual(((vsize + 1n) * FALLBACK_RATE) / 1000n + 1n);
    expect(await payouts.estimateFee(order(40_000_000n))).toBe(payout.maxFee);

    const [block] = await node.mine(1);
    const height = await node.height();
    // The destination's output is the first: the treasury writes it so, and the node's copy shows it.
    expect(await payouts.status(payout)).toEqual({ state: 'mined', blockNumber: height, blockHash: block, transfer: { outputIndex: 0 }, confirmations: 1, succeeded: true, feePaid: payout.maxFee });
    expect((await node.rpc('getblock', [block, 1])).tx).toContain(payout.transactionHash);
    await payouts.broadcast(payout.rawTransaction);

    await node.mine(2);
    expect(await payouts.status(payout)).toMatchObject({ state: 'mined', blockNumber: height, confirmations: 3 });
    expect(ascending((await treasuryOutputs()).map((output) => output.satoshis))).toEqual(ascending([change, 30_000_000n]));
  });

  it('replaces a payout by fee: the same inputs, a higher fee from the change; the replacement mined, the first dropped', async () => {
    const stuck = await payouts.prepare(order(10_000_000n), await payouts.readTreasury());
    await payouts.broadcast(stuck.rawTransaction);
    // What the mempool spends already is no longer the treasury's to spend.
    const spent = (stuck.spend as { inputs: readonly TreasuryOutput[] }).inputs;
    expect((await treasuryOutputs()).filter((output) => spent.some((input) => input.txid === output.txid && input.index === output.index))).toEqual([]);

    const replacement = await payouts.replace(stuck);
    expect(replacement.transactionHash).not.toBe(stuck.transactionHash);
    expect(replacement.spend).toMatchObject({ family: 'bitcoin', inputs: spent });
    expect(replacement.maxFee).toBeGreaterThan(stuck.maxFee);
    const replacementSpend = replacement.spend as { change: bigint; feeRate: bigint };
    expect(replacementSpend.change).toBe((stuck.spend as { change: bigint }).change - (replacement.maxFee - stuck.maxFee));
    expect(replacementSpend.feeRate).toBeGreaterThan(FALLBACK_RATE);

    await payouts.broadcast(replacement.rawTransaction);
    expect(await payouts.status(stuck)).toEqual({ state: 'dropped' });
    expect(await payouts.status(replacement)).toEqual({ state: 'pending' });
    await node.mine(1);
    expect(await payouts.status(replacement)).toMatchObject({ state: 'mined', confirmations: 1, feePaid: replacement.maxFee });
    expect(await payouts.status(stuck)).toEqual({ state: 'dropped' });
    await expect(payouts.broadcast(stuck.rawTransaction)).rejects.toThrow();

    const paid = (await decoded(replacement.transactionHash)).vout.filter((output) => output.scriptPubKey.hex === RECIPIENT_SCRIPT);
    expect(paid.map((output) => satoshis(output.value))).toEqual([10_000_000n]);
  });

  it('waits, and is not short, for what its own transactions in the mempool spend; short beyond that', async () => {
    const first = await payouts.prepare(order(1_000_000n), await payouts.readTreasury());
    await payouts.broadcast(first.rawTransaction);
    const state = await payouts.readTreasury();
    const inFlight = (first.spend as { inputs: readonly TreasuryOutput[] }).inputs.reduce((sum, input) => sum + input.satoshis, 0n);
    expect(state).toMatchObject({ family: 'bitcoin', inFlight });
    const confirmed = (state as { outputs: readonly TreasuryOutput[] }).outputs.reduce((sum, output) => sum + output.satoshis, 0n);
    // More than the confirmed outputs hold, less than they and the first's inputs do: it waits for the first's change.
    await expect(payouts.prepare(order(confirmed + 1_000_000n), state)).rejects.toBeInstanceOf(TreasuryBusy);
    await expect(payouts.prepare(order(confirmed + inFlight), state)).rejects.toBeInstanceOf(TreasuryShortfall);
    await node.mine(1);
    expect(await payouts.readTreasury()).toMatchObject({ inFlight: 0n });
  });

  it('refuses an order the treasury cannot pay, naming what it holds', async () => {
    const outputs = await treasuryOutputs();
    const held = outputs.reduce((sum, output) => sum + output.satoshis, 0n);
    const error = await payouts.prepare(order(held), { family: 'bitcoin', outputs }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TreasuryShortfall);
    expect(error).toMatchObject({ network: 'bitcoin', token: null, available: held });
    expect((error as TreasuryShortfall).needed).toBeGreaterThan(held);
  });
});
