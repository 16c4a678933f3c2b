/**
 * The EVM reader against a real node (Hardhat on loopback, infra/chain/local-chain.ts) through a
 * proxy that counts its HTTP requests: a range of 200 blocks in a handful of requests (the chain id
 * once, blocks in batches of 50, `eth_getLogs` of the tokens 10 blocks a call and 5 calls a
 * request), the same blocks as single calls read; a range of logs the node refuses asked in halves;
 * addresses in any case; a log of a contract not configured left out; and the refusals of a node on
 * another chain and of batch answers that are no array, lack an id or an element, carry an
 * element's error, or hold another block.
 */
import { createPublicClient, http, type Address, type PublicClient } from 'viem';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { LocalChain } from '../../infra/chain/local-chain.js';
import { EvmRpcReader, WrongChainError } from '../../shared/chain/evm-reader.js';
import { JsonRpcError } from '../../shared/chain/json-rpc.js';
import { networkReaderOf } from '../../shared/chain/network-readers.js';
import { RpcProxy, type RpcCall } from '../support/rpc-proxy.js';
import { startChainWithTestToken } from '../support/test-chain.js';

const CUSTOMER: Address = '0x00000000000000000000000000000000c0ffee01';

let chain: LocalChain;
let client: PublicClient;
let usdt: Address;

/** The node as the readers see it: each request's methods are kept, and an answer may be rewritten. */
let proxy: RpcProxy;

beforeAll(async () => {
  chain = await startChainWithTestToken();
  client = createPublicClient({ transport: http(chain.rpcUrl) });
  usdt = await chain.deployToken({ symbol: 'USDT', decimals: 6, supply: '1000000' });
  proxy = await RpcProxy.start(chain.rpcUrl);
}, 120_000);

afterAll(async () => {
  await proxy?.stop();
  await chain?.stop();
});

afterEach(() => {
  proxy.rewrite = undefined;
});

describe('the EVM reader', () => {
  it('reads 200 blocks in a handful of requests: the chain id once, blocks 50 to a batch, eth_getLogs 10 blocks a call and 5 calls a batch', async () => {
    const native = await chain.sendNative({ to: CUSTOMER, amount: '0.25' });
    const token = await chain.sendToken({ to: CUSTOMER, amount: '7', token: usdt });
    await chain.mine(200);
    const first = Number(native.blockNumber);
    const last = first + 199;

    const reader = networkReaderOf('ethereum', { rpcUrl: proxy.url, chainId: chain.chainId, tokens: { USDT: { address: usdt, decimals: 6 } }, confirmations: 1, watched: true });
    proxy.requests.length = 0;
    const blocks = await reader.blocks(first, last);
    expect(proxy.requests).toEqual([['eth_chainId'], ...Array(4).fill(Array(50).fill('eth_getBlockByNumber')), ...Array(4).fill(Array(5).fill('eth_getLogs'))]);

    expect(blocks.map((block) => block.number)).toEqual(Array.from({ length: 200 }, (_, i) => first + i));
    for (const number of [first, first + 1, first + 57, last]) {
      const single = await client.getBlock({ blockNumber: BigInt(number) });
      expect(blocks[number - first]).toMatchObject({ number, hash: single.hash, parentHash: single.parentHash });
    }
    const paid = blocks.flatMap((block) => block.transfers.filter((transfer) => transfer.to === CUSTOMER).map((transfer) => ({ ...transfer, block: block.number, amount: transfer.amount.toFixed() })));
    expect(paid).toEqual([
      { transactionHash: native.hash, logIndex: null, to: CUSTOMER, asset: 'ETH', amount: '0.25', block: first },
      { transactionHash: token.hash, logIndex: token.logIndex, to: CUSTOMER, asset: 'USDT', amount: '7', block: Number(token.blockNumber) },
    ]);

    // The chain id is asked once per reader.
    proxy.requests.length = 0;
    await reader.blocks(last, last);
    expect(proxy.requests).toEqual([['eth_getBlockByNumber'], ['eth_getLogs']]);
  });

  /** The node's answer to each `eth_getLogs` call of more blocks than `most`: a provider's limit on results. */
  const refuseLogsOver = (most: number) => (text: string, calls: RpcCall[]) => {
    const answers: Array<{ id: number }> = [JSON.parse(text)].flat();
    const refused = (call: { method: string; params: unknown[] }) => {
      if (call.method !== 'eth_getLogs') return false;
      const { fromBlock, toBlock } = call.params[0] as { fromBlock: string; toBlock: string };
      return Number(toBlock) - Number(fromBlock) + 1 > most;
    };
    const answered = answers.map((answer) => {
      const call = calls.find((each) => each.id === answer.id)!;
      return refused(call) ? { jsonrpc: '2.0', id: answer.id, error: { code: -32005, message: 'query returned more than 10000 results' } } : answer;
    });
    return JSON.stringify(Array.isArray(JSON.parse(text)) ? answered : answered[0]);
  };

  it('asks a range of logs the node refuses in halves, down to what it answers, and misses no transfer', async () => {
    const sent = [];
    for (let i = 0; i < 12; i++) sent.push(await chain.sendToken({ to: CUSTOMER, amount: String(i + 1), token: usdt }));
    const first = Number(sent[0]!.blockNumber);
    const last = Number(sent.at(-1)!.blockNumber);
    const reader = networkReaderOf('ethereum', { rpcUrl: proxy.url, chainId: chain.chainId, tokens: { USDT: { address: usdt, decimals: 6 } }, confirmations: 1, watched: true });
    proxy.rewrite = refuseLogsOver(2);
    proxy.requests.length = 0;
    const blocks = await reader.blocks(first, last);
    const paid = blocks.flatMap((block) => block.transfers.filter((transfer) => transfer.asset === 'USDT').map((transfer) => [transfer.transactionHash, transfer.amount.toFixed()]));
    expect(paid).toEqual(sent.map((transfer, i) => [transfer.hash, String(i + 1)]));
    // The batch of two ranges (10 and 2 blocks) first, then each range alone and in halves.
    const logCalls = proxy.requests.filter((methods) => methods.includes('eth_getLogs'));
    expect(logCalls[0]).toEqual(['eth_getLogs', 'eth_getLogs']);
    expect(logCalls.length).toBeGreaterThan(6);

    proxy.rewrite = refuseLogsOver(0);
    await expect(reader.blocks(first, first + 1)).rejects.toThrow(/eth_getLogs: query returned more than 10000 results/);
  });

  it('takes addresses in any case, checksummed or not, and leaves out the logs of a contract not configured', async () => {
    const other = await chain.deployToken({ symbol: 'OTHER', decimals: 6, supply: '1000' });
    const native = await chain.sendNative({ to: CUSTOMER, amount: '0.5' });
    const token = await chain.sendToken({ to: CUSTOMER, amount: '3', token: usdt });
    const stranger = await chain.sendToken({ to: CUSTOMER, amount: '4', token: other });
    const [first, last] = [Number(native.blockNumber), Number(stranger.blockNumber)];
    const range = { fromBlock: `0x${first.toString(16)}`, toBlock: `0x${last.toString(16)}` };
    const logsOfOther = await fetch(chain.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getLogs', params: [{ address: other, ...range }] }),
    });
    const otherLogs = ((await logsOfOther.json()) as { result: unknown[] }).result;
    expect(otherLogs).toHaveLength(1);
    // The node writes the customer's address in upper case, without a checksum, in the transaction
    // and in the log's topic; and answers the other contract's log although the call names USDT only.
    const upper = CUSTOMER.slice(2).toUpperCase();
    proxy.rewrite = (text, calls) => {
      let answer = text.replaceAll(CUSTOMER.slice(2), upper);
      if (calls.some((call) => call.method === 'eth_getLogs')) {
        answer = JSON.stringify([JSON.parse(answer)].flat().map((element: { result?: unknown[] }) => ({ ...element, result: [...(element.result ?? []), ...otherLogs] })));
      }
      return answer;
    };
    const reader = networkReaderOf('ethereum', { rpcUrl: proxy.url, chainId: chain.chainId, tokens: { USDT: { address: usdt, decimals: 6 } }, confirmations: 1, watched: true });
    const blocks = await reader.blocks(first, last);
    const paid = blocks.flatMap((block) => block.transfers.filter((transfer) => transfer.to === CUSTOMER).map((transfer) => [transfer.transactionHash, transfer.asset, transfer.amount.toFixed()]));
    expect(paid).toEqual([
      [native.hash, 'ETH', '0.5'],
      [token.hash, 'USDT', '3'],
    ]);
  });

  it('refuses a node on another chain than the one configured', async () => {
    const reader = new EvmRpcReader(proxy.url, 1);
    await expect(reader.blocks(1, 2)).rejects.toThrow(new WrongChainError(`The node is on chain ${chain.chainId}, not chain 1 as configured`));
    // Asked again at the next run: a node fixed in between is taken.
    proxy.requests.length = 0;
    await expect(reader.blocks(1, 2)).rejects.toThrow(WrongChainError);
    expect(proxy.requests).toEqual([['eth_chainId']]);
  });

  it('refuses a block holding a transaction of another chain than its node', async () => {
    const sent = await chain.sendNative({ to: CUSTOMER, amount: '0.01' });
    proxy.rewrite = (text) => text.replaceAll(`"chainId":"0x${chain.chainId.toString(16)}"`, '"chainId":"0x38"');
    const number = Number(sent.blockNumber);
    await expect(new EvmRpcReader(proxy.url, chain.chainId).blocks(number, number)).rejects.toThrow(
      new WrongChainError(`Block ${number} holds transaction ${sent.hash} of chain 56, not the node's chain ${chain.chainId}`),
    );
  });

  describe('refuses a batch answer', () => {
    const isBatch = (calls: Array<{ method: string }>) => calls.length > 1 || calls[0]?.method === 'eth_getBlockByNumber';
    const answers = (text: string): Array<Record<string, unknown>> => JSON.parse(text);
    const reading = () => new EvmRpcReader(proxy.url, chain.chainId).blocks(1, 3);

    it.each<[string, (elements: Array<Record<string, unknown>>) => unknown, RegExp]>([
      ['that is no array', (elements) => elements[0], /batch of 3 eth_getBlockByNumber calls: the node answered 200 with no array/],
      ['that is one error for the whole batch', () => ({ jsonrpc: '2.0', id: null, error: { code: -32005, message: 'batch limit exceeded' } }), /batch limit exceeded \(code -32005\)/],
      ['with an element that lacks an id', (elements) => elements.map(({ id, ...element }, index) => (index === 1 ? element : { id, ...element })), /an element without the id of any call/],
      ['with an element missing', (elements) => elements.slice(1), /eth_getBlockByNumber \["0x1",true\]: the node's answer to a batch of 3 eth_getBlockByNumber calls lacks it/],
      [
        "with an element's error",
        (elements) => elements.map((element, index) => (index === 2 ? { jsonrpc: '2.0', id: element.id, error: { code: -32000, message: 'header not found' } } : element)),
        /eth_getBlockByNumber: header not found \(code -32000\)/,
      ],
      ['with a block that is not there', (elements) => elements.map((element, index) => (index === 2 ? { ...element, result: null } : element)), /eth_getBlockByNumber 3: the node has no such block/],
      ['with another block than the one asked for', (elements) => elements.map((element) => ({ ...element, result: elements[0]!.result })), /eth_getBlockByNumber 2 answered block 1/],
      ['with a garbled block', (elements) => elements.map((element, index) => (index === 1 ? { ...element, result: { number: '0x2', hash: '0x1234' } } : element)), /hash/],
    ])('%s', async (_name, garble, message) => {
      proxy.rewrite = (text, calls) => (isBatch(calls) ? JSON.stringify(garble(answers(text))) : text);
      await expect(reading()).rejects.toThrow(message);
    });

    it('with its elements out of order, which are put back in order by id', async () => {
      proxy.rewrite = (text, calls) => (isBatch(calls) ? JSON.stringify(answers(text).reverse()) : text);
      const blocks = await reading();
      expect(blocks.map((block) => block.number)).toEqual([1, 2, 3]);
      expect(blocks[2]!.parentHash).toBe(blocks[1]!.hash);
    });

    it('that is no JSON', async () => {
      proxy.rewrite = (text, calls) => (isBatch(calls) ? '<html>maintenance</html>' : text);
      await expect(reading()).rejects.toThrow(JsonRpcError);
      await expect(reading()).rejects.toThrow(/with no JSON/);
    });
  });
});
