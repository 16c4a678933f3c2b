/**
 * `npm run verify-receipt` against real chains: transfers made on a Hardhat node (a test ERC-20 and
 * ETH) and on a Bitcoin regtest node (litecoind), receipts of them signed with P-256 keys made here,
 * their JWKS written to a file or served at the issuer's /.well-known/jwks.json. Valid receipts
 * verify; a validly signed receipt stating another amount, address or contract fails its chain
 * check; a transfer reorganised away fails as such; the command run as a process answers by its
 * exit code.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Address } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BitcoinNode } from '../../infra/chain/bitcoin-node.js';
import type { LocalChain, SentTokenTransfer, SentTransaction } from '../../infra/chain/local-chain.js';
import { runVerifyReceipt, type Verification, verifyReceipt } from '../../infra/cli/receipt-verifier.js';
import { BitcoinRpcReader } from '../../shared/chain/bitcoin-reader.js';
import { jwksOf, type ReceiptKey, receiptKey, receiptPayload, signReceipt, withPayload } from '../support/receipt-signing.js';
import { startChainWithTestToken } from '../support/test-chain.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CUSTOMER: Address = '0x00000000000000000000000000000000c0ffee01';
const OTHER: Address = '0x00000000000000000000000000000000c0ffee02';
const BITCOIN_CUSTOMER = 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx';

let chain: LocalChain;
let usdt: Address;
let usdc: Address;
let node: BitcoinNode;
let current: ReceiptKey;
let retired: ReceiptKey;
let directory: string;
let jwksFile: string;
/** Serves the JWKS at /.well-known/jwks.json under the stage's path, as the gateway behind API Gateway does. */
let issuerServer: Server;
let issuer: string;

beforeAll(async () => {
  [chain, node, current, retired] = await Promise.all([startChainWithTestToken(), BitcoinNode.start(), receiptKey(), receiptKey()]);
  await node.fund();
  usdt = await chain.deployToken({ symbol: 'USDT', decimals: 6, supply: '1000000' });
  usdc = await chain.deployToken({ symbol: 'USDC', decimals: 6, supply: '1000000' });
  directory = await mkdtemp(join(tmpdir(), 'verify-receipt-'));
  jwksFile = join(directory, 'jwks.json');
  await writeFile(jwksFile, JSON.stringify(jwksOf(current, retired)));
  issuerServer = createServer((request, response) => {
    if (request.url !== '/prod/.well-known/jwks.json') return void response.writeHead(404).end();
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(jwksOf(current, retired)));
  });
  await new Promise<void>((resolveListen) => issuerServer.listen(0, '127.0.0.1', resolveListen));
  issuer = `http://127.0.0.1:${(issuerServer.address() as { port: number }).port}/prod`;
}, 120_000);

afterAll(async () => {
  await new Promise((resolveClose) => issuerServer?.close(resolveClose));
  await Promise.all([chain?.stop(), node?.stop()]);
  if (directory) await rm(directory, { recursive: true, force: true });
});

const tokenPayload = (sent: SentTokenTransfer, change: { amount?: string; to?: string; contract?: string } = {}) =>
  receiptPayload({
    transaction: { amount: change.amount ?? '25.000000', currency: 'USDT', network: 'ethereum', transactionHash: sent.hash, address: CUSTOMER },
    evidence: {
      source: 'chain',
      network: 'ethereum',
      transactionHash: sent.hash,
      blockNumber: Number(sent.blockNumber),
      blockHash: sent.blockHash,
      logIndex: sent.logIndex,
      to: change.to ?? CUSTOMER,
      contract: change.contract ?? usdt,
      confirmations: 1,
    },
  });

const nativePayload = (sent: SentTransaction, amount: string) =>
  receiptPayload({
    transaction: { amount, currency: 'ETH', network: 'ethereum', transactionHash: sent.hash },
    evidence: {
      source: 'chain',
      network: 'ethereum',
      transactionHash: sent.hash,
      blockNumber: Number(sent.blockNumber),
      blockHash: sent.blockHash,
      logIndex: null,
      to: CUSTOMER,
      contract: null,
      confirmations: 12,
    },
  });

/** Pays the Bitcoin customer `amount`, mined; the receipt's payload of it. */
async function bitcoinPayment(amount: string, iss?: string) {
  const txid = await node.send(BITCOIN_CUSTOMER, amount);
  // Two blocks: the one holding it, and the second confirmation the gateway counts.
  const [blockHash] = await node.mine(2);
  const blockNumber = (await node.height()) - 1;
  const block = await new BitcoinRpcReader(node.rpcUrl).block(blockNumber);
  const output = block.outputs.find((each) => each.txid === txid && each.script === '0014751e76e8199196d454941c45d1b3a323f1433bd6')!;
  return receiptPayload({
    iss,
    transaction: { amount, currency: 'BTC', network: 'bitcoin', transactionHash: txid },
    evidence: { source: 'chain', network: 'bitcoin', transactionHash: txid, blockNumber, blockHash, outputIndex: output.index, to: BITCOIN_CUSTOMER, contract: null, confirmations: 2 },
  });
}

const verify = async (payload: Record<string, unknown>, key = current): Promise<Verification> =>
  verifyReceipt({ receipt: await signReceipt(payload, key), jwks: jwksOf(current, retired), rpc: { ethereum: chain.rpcUrl, bitcoin: node.rpcUrl } });

const outcomes = (verification: Verification) => verification.checks.map((each) => `${each.outcome} ${each.what}`);
const failure = (verification: Verification) => verification.checks.find((each) => each.outcome === 'FAILED');

describe('on the EVM chain', () => {
  it('verifies a token transfer of exactly the amount to the address, and fails the same receipt stating another amount, address or contract', async () => {
    const sent = await chain.sendToken({ to: CUSTOMER, amount: '25', token: usdt });
    await chain.mine(3);
    const valid = await verify(tokenPayload(sent));
    expect(outcomes(valid)).toEqual(['ok signature', 'ok block still on the chain', 'ok confirmations', 'ok transaction mined', 'ok transaction in that block', 'ok token transfer']);
    expect(valid.verified).toBe(true);

    const wrongAmount = await verify(tokenPayload(sent, { amount: '26.000000' }));
    expect(wrongAmount.verified).toBe(false);
    expect(failure(wrongAmount)).toMatchObject({ what: 'token transfer', detail: `log ${sent.logIndex} transfers 25000000 units, not 26000000 (26.000000 USDT at 6 decimals)` });

    const wrongTo = await verify(tokenPayload(sent, { to: OTHER }));
    expect(failure(wrongTo)!.detail).toMatch(new RegExp(`pays ${CUSTOMER}, not ${OTHER}`, 'i'));

    const wrongContract = await verify(tokenPayload(sent, { contract: usdc }));
    expect(failure(wrongContract)!.detail).toMatch(new RegExp(`emitted by ${usdt}, not the contract ${usdc}`, 'i'));
  });

  it('verifies a native transfer in wei at the depth stated, and fails another amount and a greater depth', async () => {
    const sent = await chain.sendNative({ to: CUSTOMER, amount: '0.25' });
    // The 12 confirmations the receipt says were counted.
    await chain.mine(11);
    const valid = await verify(nativePayload(sent, '0.25'));
    expect(valid.verified).toBe(true);
    expect(valid.checks.at(-1)).toEqual({ outcome: 'ok', what: 'native transfer', detail: `0.25 ETH (250000000000000000 wei) to ${CUSTOMER}` });
    const wrongAmount = await verify(nativePayload(sent, '0.2500001'));
    expect(failure(wrongAmount)).toMatchObject({ what: 'native transfer', detail: 'the transaction sends 250000000000000000 wei, not 250000100000000000 (0.2500001 ETH)' });
    const deeper = nativePayload(sent, '0.25');
    const tooDeep = await verify({ ...deeper, evidence: { ...(deeper.evidence as object), confirmations: 13 } });
    expect(failure(tooDeep)).toMatchObject({ what: 'confirmations', detail: 'the block is 12 deep now, fewer than the 13 the receipt says were counted (or the node is behind)' });
  });

  it('fails a transfer reorganised away', async () => {
    const snapshot = await chain.snapshot();
    const sent = await chain.sendToken({ to: CUSTOMER, amount: '25', token: usdt });
    await chain.mine(2);
    const payload = tokenPayload(sent);
    expect((await verify(payload)).verified).toBe(true);
    await chain.reorg({ snapshot });
    const reorganised = await verify(payload);
    expect(reorganised.verified).toBe(false);
    expect(outcomes(reorganised)).toEqual(['ok signature', 'FAILED block still on the chain', 'FAILED transaction mined']);
    expect(reorganised.checks[1]!.detail).toMatch(new RegExp(`^block ${sent.blockNumber} is now 0x[0-9a-f]{64}, not ${sent.blockHash}: reorganised away$`));
  });

  it('verifies a receipt signed by a retired key the JWKS still lists', async () => {
    const sent = await chain.sendToken({ to: CUSTOMER, amount: '25', token: usdt });
    const verification = await verify(tokenPayload(sent), retired);
    expect(verification.verified).toBe(true);
    expect(verification.checks[0]!.detail).toContain(retired.kid);
  });
});

describe('on the Bitcoin chain', () => {
  it('verifies an output paying the address exactly the amount, and fails another amount', async () => {
    const payload = await bitcoinPayment('0.00123457');
    const valid = await verify(payload);
    expect(outcomes(valid)).toEqual(['ok signature', 'ok block still on the chain', 'ok confirmations', 'ok transaction in that block', 'ok output paid']);
    expect(valid.verified).toBe(true);

    const wrong = await verify({ ...payload, transaction: { ...(payload.transaction as object), amount: '0.00123458' } });
    expect(failure(wrong)).toMatchObject({ what: 'output paid', detail: expect.stringMatching(/pays 123457 satoshis, not 123458 \(0\.00123458 BTC\)$/) });
  });

  it('fails a transfer reorganised away', async () => {
    const payload = await bitcoinPayment('0.0002');
    expect((await verify(payload)).verified).toBe(true);
    const { blockNumber } = payload.evidence as { blockNumber: number };
    await node.reorg(blockNumber);
    const reorganised = await verify(payload);
    expect(outcomes(reorganised)).toEqual(['ok signature', 'FAILED block still on the chain', 'not checked transaction in that block']);
    expect(reorganised.checks[1]!.detail).toMatch(/reorganised away$/);
  });
});

describe('the command', () => {
  it('prints its checks and answers 0 for a valid receipt, 1 for a tampered one, 2 for no receipt', async () => {
    const sent = await chain.sendToken({ to: CUSTOMER, amount: '25', token: usdt });
    const payload = tokenPayload(sent);
    const valid = join(directory, 'valid.json');
    const tampered = join(directory, 'tampered.jws');
    const receipt = await signReceipt(payload, current);
    await writeFile(valid, JSON.stringify({ success: true, data: { receipt } }));
    await writeFile(tampered, withPayload(receipt, { ...payload, evidence: { ...(payload.evidence as object), to: OTHER } }));
    const run = async (args: string[]) => {
      let out = '';
      let err = '';
      const code = await runVerifyReceipt(args, { out: (text) => (out += text), err: (text) => (err += text) });
      return { code, out, err };
    };

    const ok = await run([valid, '--jwks', jwksFile, '--rpc', `ethereum=${chain.rpcUrl}`]);
    expect(ok.code).toBe(0);
    expect(ok.out).toContain(`ok               token transfer: 25.000000 USDT (25000000 units of ${usdt}) to ${CUSTOMER}`);
    expect(ok.out).toMatch(/Verified: the signature holds and every check that ran passed\.\n$/);

    const bad = await run([tampered, '--jwks', jwksFile, '--rpc', `ethereum=${chain.rpcUrl}`, '--json']);
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.out)).toMatchObject({ verified: false, checks: [{ outcome: 'FAILED', what: 'signature' }, { outcome: 'not checked' }] });

    expect(await run([join(directory, 'absent.jws'), '--jwks', jwksFile])).toMatchObject({ code: 2, err: expect.stringMatching(/^Could not verify .*absent\.jws: ENOENT/) });
    expect(await run([valid, '--rpc', 'dogecoin=http://127.0.0.1:1'])).toMatchObject({ code: 2, err: expect.stringMatching(/^--rpc takes NETWORK=URL/) });
  });

  it("runs as npm run verify-receipt, the keys fetched under the issuer's URL and its stage path, a Bitcoin receipt checked on its node", async () => {
    const file = join(directory, 'bitcoin.jws');
    await writeFile(file, await signReceipt(await bitcoinPayment('0.0005', issuer), current));
    const { stdout } = await promisify(execFile)('npm', ['run', '-s', 'verify-receipt', '--', file, '--rpc', `bitcoin=${node.rpcUrl}`], { cwd: ROOT });
    expect(stdout).toContain(`ok               signature: ES256 by key ${current.kid} of ${issuer}/.well-known/jwks.json`);
    expect(stdout).toContain('ok               output paid: output');
    expect(stdout).toMatch(/0\.0005 BTC \(50000 satoshis\)/);

    await writeFile(file, await signReceipt(await bitcoinPayment('0.0005', issuer), await receiptKey()));
    const refused = await promisify(execFile)('npm', ['run', '-s', 'verify-receipt', '--', file], { cwd: ROOT }).catch((error: { code: number; stdout: string }) => error);
    expect(refused).toMatchObject({ code: 1, stdout: expect.stringContaining("FAILED           signature: no key of the JWKS has the receipt's kid") });
  });
});
