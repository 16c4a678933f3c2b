/**
 * The receipt verifier's verdicts without a node: the receipt read from a file's text, the
 * signature against a JWKS held in memory (a tampered payload, an unknown key, another algorithm,
 * a retired key still published), provider and simulated evidence, fields not established, and the
 * chain evidence compared with an EVM node's and a Bitcoin node's answers.
 */
import { SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { bitcoinChecks, type ChainClaim, type EvmFacts, evmChecks, receiptJwsOf, renderReport } from '../../infra/cli/receipt-checks.js';
import { verifyReceipt } from '../../infra/cli/receipt-verifier.js';
import { jwksOf, type ReceiptKey, receiptKey, receiptPayload, signReceipt, withPayload } from '../support/receipt-signing.js';

let current: ReceiptKey;
let retired: ReceiptKey;
let stranger: ReceiptKey;

beforeAll(async () => {
  [current, retired, stranger] = await Promise.all([receiptKey(), receiptKey(), receiptKey()]);
});

const providerReceipt = () =>
  receiptPayload({
    transaction: { amount: '1500.00', currency: 'INR', network: null, transactionHash: null },
    evidence: { source: 'provider', providerId: 'demo', providerReference: 'pay_123', utr: '123456789012', webhookId: 'evt_1', webhookTimestamp: 1764460800 },
  });

const outcomes = (checks: Array<{ outcome: string; what: string }>) => checks.map((each) => `${each.outcome} ${each.what}`);

describe('the signature', () => {
  it('verifies a receipt by the current key, and provider evidence has no chain to check', async () => {
    const receipt = await signReceipt(providerReceipt(), current);
    const result = await verifyReceipt({ receipt, jwks: jwksOf(current, retired) });
    expect(result.verified).toBe(true);
    expect(outcomes(result.checks)).toEqual(['ok signature', 'not applicable chain']);
    expect(result.checks[0]!.detail).toContain(current.kid);
    expect(result.checks[1]!.detail).toContain('reference pay_123, UTR 123456789012');
  });

  it('verifies a receipt signed by a retired key the JWKS still lists', async () => {
    const receipt = await signReceipt(providerReceipt(), retired);
    const result = await verifyReceipt({ receipt, jwks: jwksOf(current, retired) });
    expect(result.verified).toBe(true);
    expect(result.checks[0]!.detail).toContain(retired.kid);
  });

  it('fails a tampered payload and checks nothing it states', async () => {
    const payload = providerReceipt();
    const receipt = await signReceipt(payload, current);
    const tampered = withPayload(receipt, { ...payload, transaction: { ...(payload.transaction as object), amount: '15000.00' } });
    const result = await verifyReceipt({ receipt: tampered, jwks: jwksOf(current) });
    expect(result.verified).toBe(false);
    expect(outcomes(result.checks)).toEqual(['FAILED signature', 'not checked evidence']);
    expect(result.checks[0]!.detail).toMatch(/altered/);
    expect(result.payload).toBeUndefined();
  });

  it('fails a receipt signed by a key the JWKS does not list, and one signed under the listed kid by another key', async () => {
    const unknown = await verifyReceipt({ receipt: await signReceipt(providerReceipt(), stranger), jwks: jwksOf(current, retired) });
    expect(unknown.verified).toBe(false);
    expect(unknown.checks[0]).toMatchObject({ outcome: 'FAILED', detail: expect.stringMatching(/unknown key/) });

    const impostor = await signReceipt(providerReceipt(), { ...stranger, kid: current.kid });
    const wrongKey = await verifyReceipt({ receipt: impostor, jwks: jwksOf(current) });
    expect(wrongKey.verified).toBe(false);
    expect(wrongKey.checks[0]).toMatchObject({ outcome: 'FAILED', detail: expect.stringMatching(/signed by another key/) });
  });

  it('takes no algorithm but ES256', async () => {
    const secret = new TextEncoder().encode('a shared secret of thirty-two bytes!');
    const receipt = await new SignJWT(providerReceipt()).setProtectedHeader({ alg: 'HS256', kid: current.kid }).sign(secret);
    const result = await verifyReceipt({ receipt, jwks: jwksOf(current) });
    expect(result.verified).toBe(false);
    expect(result.checks[0]).toMatchObject({ outcome: 'FAILED', detail: 'the receipt is not signed with ES256' });
  });

  it('fails a validly signed payload that is no transaction receipt', async () => {
    const receipt = await signReceipt({ iss: 'http://gateway.test', sub: 'x', iat: 1, transaction: { id: 'x' } }, current);
    const result = await verifyReceipt({ receipt, jwks: jwksOf(current) });
    expect(result.verified).toBe(false);
    expect(outcomes(result.checks)).toEqual(['ok signature', 'FAILED payload']);
  });
});

describe('the evidence', () => {
  it('says a simulated transaction has no chain, lists what was not established, and leaves a chain without a node unchecked', async () => {
    const simulated = receiptPayload({ transaction: { amount: '25.000000', currency: 'USDT', network: 'ethereum', transactionHash: `0x${'ab'.repeat(32)}` }, evidence: { source: 'simulation' } });
    const result = await verifyReceipt({ receipt: await signReceipt(simulated, current), jwks: jwksOf(current) });
    expect(outcomes(result.checks)).toEqual(['ok signature', 'not applicable chain']);

    const legacy = receiptPayload({
      transaction: { amount: '0.5', currency: 'TRX', network: 'tron', transactionHash: 'cd'.repeat(32) },
      evidence: { source: 'chain', network: 'tron', transactionHash: 'cd'.repeat(32), blockNumber: 7, to: 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf', contract: null, logIndex: null },
      missing: ['blockHash', 'confirmations'],
    });
    const tron = await verifyReceipt({ receipt: await signReceipt(legacy, current), jwks: jwksOf(current), rpc: { tron: 'http://127.0.0.1:1' } });
    expect(tron.verified).toBe(true);
    expect(outcomes(tron.checks)).toEqual(['ok signature', 'not checked chain', 'not established blockHash', 'not established confirmations']);
    expect(tron.checks[1]!.detail).toMatch(/reads no Tron node/);

    const unread = await verifyReceipt({ receipt: await signReceipt({ ...legacy, evidence: { ...(legacy.evidence as object), network: 'ethereum' } }, current), jwks: jwksOf(current) });
    expect(outcomes(unread.checks)).toEqual(['ok signature', 'FAILED evidence network', 'not checked chain', 'not established blockHash', 'not established confirmations']);
    expect(unread.checks[2]!.detail).toBe('no --rpc ethereum=URL given, so nothing was read from the chain');
  });

  it('reads the JWS from the route JSON answer, bare or in the envelope, and refuses anything else', () => {
    expect(receiptJwsOf(' aa.bb.cc\n')).toBe('aa.bb.cc');
    expect(receiptJwsOf('{"receipt":"aa.bb.cc"}')).toBe('aa.bb.cc');
    expect(receiptJwsOf('{"success":true,"data":{"receipt":"aa.bb.cc"}}')).toBe('aa.bb.cc');
    expect(() => receiptJwsOf('{"data":{}}')).toThrow(/no "receipt"/);
    expect(() => receiptJwsOf('hello')).toThrow(/neither a compact JWS/);
  });
});

const TOKEN = '0x00000000000000000000000000000000000000a1';
const TO = '0x00000000000000000000000000000000c0ffee01';
const BLOCK_HASH = `0x${'11'.repeat(32)}`;

const tokenClaim: ChainClaim = {
  network: 'ethereum',
  transactionHash: `0x${'22'.repeat(32)}`,
  blockNumber: 12,
  blockHash: BLOCK_HASH,
  logIndex: 1,
  to: TO,
  contract: TOKEN,
  confirmations: 3,
  amount: '25.000000',
  currency: 'USDT',
};

const tokenFacts = (change: Partial<EvmFacts> = {}): EvmFacts => ({
  canonicalHash: BLOCK_HASH,
  head: 20,
  receipt: {
    succeeded: true,
    blockNumber: 12,
    blockHash: BLOCK_HASH,
    logs: [
      { address: TOKEN, logIndex: 0, transfer: { to: '0x0000000000000000000000000000000000000bad', value: 1n } },
      { address: TOKEN.toUpperCase().replace('0X', '0x'), logIndex: 1, transfer: { to: TO, value: 25_000_000n } },
    ],
  },
  decimals: 6,
  ...change,
});

describe('EVM evidence against the node', () => {
  it('passes a token transfer of exactly the amount from the contract to the address, in the block still on the chain', () => {
    expect(evmChecks(tokenClaim, tokenFacts())).toEqual([
      { outcome: 'ok', what: 'block still on the chain', detail: `block 12 is ${BLOCK_HASH}` },
      { outcome: 'ok', what: 'confirmations', detail: 'the block is 9 deep now (3 counted when credited)' },
      { outcome: 'ok', what: 'transaction mined', detail: `${tokenClaim.transactionHash} succeeded` },
      { outcome: 'ok', what: 'transaction in that block', detail: 'mined in block 12' },
      { outcome: 'ok', what: 'token transfer', detail: `25.000000 USDT (25000000 units of ${TOKEN}) to ${TO}` },
    ]);
  });

  it.each([
    ['another amount', { amount: '25.000001' }, /transfers 25000000 units, not 25000001/],
    ['an amount finer than the contract', { amount: '25.0000001' }, /no amount of the contract/],
    ['another address', { to: '0x00000000000000000000000000000000c0ffee02' }, /pays 0x0+c0ffee01, not/],
    ['another contract', { contract: '0x00000000000000000000000000000000000000a2' }, /emitted by 0x0+A1, not the contract/i],
    ['another log', { logIndex: 7 }, /has no log 7/],
  ])('fails a token transfer to %s', (_, change, reason) => {
    const transfer = evmChecks({ ...tokenClaim, ...change }, tokenFacts()).at(-1)!;
    expect(transfer).toMatchObject({ outcome: 'FAILED', what: 'token transfer', detail: expect.stringMatching(reason) });
  });

  it('fails a block reorganised away, a transaction the node does not know, one that reverted, and one in another block', () => {
    const reorganised = evmChecks(tokenClaim, tokenFacts({ canonicalHash: `0x${'33'.repeat(32)}`, receipt: null }));
    expect(reorganised).toEqual([
      { outcome: 'FAILED', what: 'block still on the chain', detail: `block 12 is now 0x${'33'.repeat(32)}, not ${BLOCK_HASH}: reorganised away` },
      { outcome: 'FAILED', what: 'transaction mined', detail: `the node knows no transaction ${tokenClaim.transactionHash}: reorganised away, or never mined` },
    ]);
    expect(evmChecks(tokenClaim, tokenFacts({ canonicalHash: null }))[0]!.detail).toMatch(/has no block 12: reorganised away, or the node is behind/);
    const facts = tokenFacts();
    expect(evmChecks(tokenClaim, { ...facts, receipt: { ...facts.receipt!, succeeded: false } })[2]).toMatchObject({ outcome: 'FAILED', detail: expect.stringMatching(/reverted/) });
    expect(evmChecks(tokenClaim, { ...facts, receipt: { ...facts.receipt!, blockNumber: 13 } })[3]).toMatchObject({ outcome: 'FAILED', what: 'transaction in that block' });
  });

  it('fails a block shallower now than the confirmations the receipt says were counted', () => {
    expect(evmChecks({ ...tokenClaim, confirmations: 12 }, tokenFacts())[1]).toEqual({
      outcome: 'FAILED',
      what: 'confirmations',
      detail: 'the block is 9 deep now, fewer than the 12 the receipt says were counted (or the node is behind)',
    });
    expect(evmChecks({ ...tokenClaim, confirmations: 9 }, tokenFacts())[1]).toMatchObject({ outcome: 'ok' });
  });

  it('checks a native transfer in wei, and leaves what the receipt does not establish unchecked', () => {
    const native: ChainClaim = { ...tokenClaim, contract: null, logIndex: null, amount: '0.25', currency: 'ETH' };
    const facts = tokenFacts({ transaction: { to: TO, value: 250_000_000_000_000_000n } });
    expect(evmChecks(native, facts).at(-1)).toEqual({ outcome: 'ok', what: 'native transfer', detail: `0.25 ETH (250000000000000000 wei) to ${TO}` });
    expect(evmChecks({ ...native, amount: '0.26' }, facts).at(-1)).toMatchObject({ outcome: 'FAILED', detail: expect.stringMatching(/sends 250000000000000000 wei, not 260000000000000000/) });
    expect(evmChecks(native, tokenFacts({ transaction: { to: null, value: 0n } })).at(-1)).toMatchObject({ outcome: 'FAILED', detail: expect.stringMatching(/creates a contract/) });

    const unknownBlock = evmChecks({ ...native, blockHash: undefined, blockNumber: undefined, to: undefined }, { ...facts, head: undefined });
    expect(outcomes(unknownBlock)).toEqual(['not checked block still on the chain', 'ok transaction mined', 'not checked transaction in that block', 'not checked native transfer']);
  });
});

describe('Bitcoin evidence against the node', () => {
  const txid = '44'.repeat(32);
  // tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx pays OP_0 and its 20-byte program.
  const claim: ChainClaim = {
    network: 'bitcoin',
    transactionHash: txid,
    blockNumber: 120,
    blockHash: '55'.repeat(32),
    outputIndex: 1,
    to: 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx',
    confirmations: 2,
    amount: '0.00123457',
    currency: 'BTC',
  };
  const script = '0014751e76e8199196d454941c45d1b3a323f1433bd6';
  const block = {
    hash: '55'.repeat(32),
    outputs: [
      { txid, index: 0, script: '0014aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', satoshis: 5_000n },
      { txid, index: 1, script, satoshis: 123_457n },
    ],
  };

  it('passes the output paying the address exactly the amount, in the block still at its height', () => {
    expect(bitcoinChecks(claim, { block, head: 121 })).toEqual([
      { outcome: 'ok', what: 'block still on the chain', detail: `block 120 is ${'55'.repeat(32)}` },
      { outcome: 'ok', what: 'confirmations', detail: 'the block is 2 deep now (2 counted when credited)' },
      { outcome: 'ok', what: 'transaction in that block', detail: `block 120 holds ${txid}` },
      { outcome: 'ok', what: 'output paid', detail: `output 1 pays 0.00123457 BTC (123457 satoshis) to ${claim.to}` },
    ]);
  });

  it.each([
    ['another amount', { amount: '0.00123458' }, /pays 123457 satoshis, not 123458/],
    ['another address', { to: 'tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7' }, /pays the script 0014751e\w+, not tb1qrp33\w+'s 00201863143c\w+$/],
    ['no address', { to: 'tb1qnotanaddress' }, /tb1qnotanaddress is no Bitcoin address/],
    ['another output', { outputIndex: 0 }, /output 0 pays the script 0014a+, not/],
    ['a missing output', { outputIndex: 4 }, /has no output 4/],
  ])('fails the output with %s', (_, change, reason) => {
    expect(bitcoinChecks({ ...claim, ...change }, { block, head: 121 }).at(-1)).toMatchObject({ outcome: 'FAILED', what: 'output paid', detail: expect.stringMatching(reason) });
  });

  it('fails a block reorganised away or out of the chain, and a transaction the block does not hold', () => {
    expect(outcomes(bitcoinChecks(claim, { block: { ...block, hash: '66'.repeat(32) }, head: 121 }))).toEqual(['FAILED block still on the chain', 'not checked transaction in that block']);
    expect(bitcoinChecks(claim, { block: { ...block, hash: '66'.repeat(32) }, head: 121 })[0]!.detail).toMatch(/reorganised away$/);
    expect(bitcoinChecks(claim, { block: null, head: 119 })[0]!.detail).toMatch(/has no block 120/);
    expect(bitcoinChecks({ ...claim, transactionHash: '77'.repeat(32) }, { block, head: 121 })[2]).toMatchObject({ outcome: 'FAILED', detail: expect.stringMatching(/holds no transaction/) });
  });
});

describe('the report', () => {
  it('prints a line a check and the verdict', () => {
    const report = renderReport(
      [
        { outcome: 'ok', what: 'signature', detail: 'ES256 by key k1 of the JWKS file' },
        { outcome: 'FAILED', what: 'output paid', detail: 'output 1 pays 1 satoshis, not 2 (0.00000002 BTC)' },
        { outcome: 'not established', what: 'blockHash', detail: 'the gateway could not establish it when it made the receipt' },
      ],
      undefined,
    );
    expect(report).toBe(
      [
        'ok               signature: ES256 by key k1 of the JWKS file',
        'FAILED           output paid: output 1 pays 1 satoshis, not 2 (0.00000002 BTC)',
        'not established  blockHash: the gateway could not establish it when it made the receipt',
        '',
        'NOT verified: 1 check failed.',
        '',
      ].join('\n'),
    );
  });
});
