/**
 * The Bitcoin reader against a real node (Debian's litecoind in regtest, infra/chain/bitcoin-node.ts):
 * the head, blocks with every output's script and exact satoshis, a payment to a testnet address
 * found by its script, a range of blocks read in a few batched requests, a reorganisation seen as
 * new hashes, and the refusals of an RPC that fails or answers garbage, in one call or in a batch.
 */
import { createServer, type Server } from 'node:http';
import { bech32 } from '@scure/base';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BitcoinNode } from '../../infra/chain/bitcoin-node.js';
import { BitcoinRpcError, BitcoinRpcReader } from '../../shared/chain/bitcoin-reader.js';

let node: BitcoinNode;
let reader: BitcoinRpcReader;

beforeAll(async () => {
  node = await BitcoinNode.start();
  reader = new BitcoinRpcReader(node.rpcUrl);
  await node.fund();
}, 60_000);

afterAll(async () => {
  await node?.stop();
});

/** The P2WPKH script of a segwit v0 address: OP_0, a push of 20 bytes, the key hash. */
const scriptOf = (address: string): string => {
  const { words } = bech32.decode(address as `${string}1${string}`);
  return `0014${Buffer.from(bech32.fromWords(words.slice(1))).toString('hex')}`;
};

const CUSTOMER = 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx';

/** A proxy to the node that counts its HTTP requests: how many calls each carried (1 for a single call). */
async function countingProxy(upstream: URL): Promise<{ url: string; requests: number[]; close(): Promise<void> }> {
  const requests: number[] = [];
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString());
    requests.push(Array.isArray(body) ? body.length : 1);
    const answer = await fetch(`http://${upstream.host}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: request.headers.authorization ?? '' },
      body: Buffer.concat(chunks),
    });
    response.writeHead(answer.status, { 'content-type': 'application/json' }).end(await answer.text());
  });
  await new Promise<void>((resolveListen) => server.listen(0, '127.0.0.1', resolveListen));
  return {
    url: `http://${upstream.username}:${upstream.password}@127.0.0.1:${(server.address() as { port: number }).port}`,
    requests,
    close: () => new Promise<void>((resolveClose) => server.close(() => resolveClose())),
  };
}

describe('the Bitcoin reader', () => {
  it('finds a payment to a testnet address by its script, to the satoshi', async () => {
    const txid = await node.send(CUSTOMER, '0.00123457');
    const [minedHash] = await node.mine(1);
    const head = await reader.headNumber();
    const block = await reader.block(head);
    expect(block.hash).toBe(minedHash);
    expect(block.parentHash).toBe(await reader.blockHash(head - 1));
    expect(block.outputs.filter((output) => output.script === scriptOf(CUSTOMER))).toEqual([{ txid, index: expect.any(Number), script: scriptOf(CUSTOMER), satoshis: 123_457n }]);
  });

  it('reads a range of 200 blocks in a few requests: hashes in two batches, blocks in batches of ten', async () => {
    const proxy = await countingProxy(new URL(node.rpcUrl));
    try {
      const height = await node.height();
      if (height < 201) await node.mine(201 - height);
      const counted = new BitcoinRpcReader(proxy.url);
      const blocks = await counted.blocks(1, 200);
      expect(proxy.requests).toEqual([...Array(2).fill(100), ...Array(20).fill(10)]);
      expect(blocks.map((block) => block.number)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
      for (const [index, block] of blocks.entries()) {
        expect(block.hash).toBe(await reader.blockHash(block.number));
        if (index > 0) expect(block.parentHash).toBe(blocks[index - 1]!.hash);
      }
      expect(await counted.block(200)).toEqual(blocks.at(-1));
    } finally {
      await proxy.close();
    }
  });

  it('sees a reorganisation as other hashes at the same heights', async () => {
    await node.mine(2);
    const head = await reader.headNumber();
    const before = await reader.blockHash(head - 1);
    await node.reorg(head - 1);
    expect(await reader.headNumber()).toBe(head + 1);
    expect(await reader.blockHash(head - 1)).not.toBe(before);
  });

  describe('refuses', () => {
    let server: Server;
    /** The answer to one call, written with `"id":1`; a batch is answered call by call, each with its own id. */
    let answer: (call: any) => [number, string];
    /** The answer to a whole batch, instead of call by call. */
    let batchAnswer: ((calls: any[]) => string) | undefined;
    let url: string;
    beforeAll(async () => {
      server = createServer((request, response) => {
        let body = '';
        request.on('data', (chunk) => (body += chunk));
        request.on('end', () => {
          const calls = JSON.parse(body);
          if (!Array.isArray(calls)) {
            const [status, text] = answer(calls);
            return void response.writeHead(status, { 'content-type': 'application/json' }).end(text);
          }
          const text = batchAnswer ? batchAnswer(calls) : `[${calls.map((call) => answer(call)[1].replace('"id":1', `"id":${call.id}`)).join(',')}]`;
          response.writeHead(200, { 'content-type': 'application/json' }).end(text);
        });
      });
      await new Promise<void>((resolveListen) => server.listen(0, '127.0.0.1', resolveListen));
      url = `http://user:pass@127.0.0.1:${(server.address() as { port: number }).port}`;
    });
    afterAll(() => new Promise<void>((resolveClose) => server.close(() => resolveClose())));

    afterEach(() => {
      batchAnswer = undefined;
    });

    it.each([
      ['an RPC error', () => [500, '{"result":null,"error":{"code":-8,"message":"Block height out of range"},"id":1}'] as [number, string], /Block height out of range/],
      ['no JSON', () => [502, '<html>Bad gateway</html>'] as [number, string], /no JSON/],
      ['a count that is no height', () => [200, '{"result":"many","error":null,"id":1}'] as [number, string], /number/],
    ])('%s', async (_name, reply, message) => {
      answer = reply;
      await expect(new BitcoinRpcReader(url).headNumber()).rejects.toThrow(message);
    });

    it('an amount of more than 8 places, and a block that is not the one asked for', async () => {
      const block = (value: string, height = 7) =>
        `{"result":{"hash":"${'ab'.repeat(32)}","height":${height},"previousblockhash":"${'cd'.repeat(32)}","tx":[{"txid":"${'ef'.repeat(32)}","vout":[{"value":${value},"n":0,"scriptPubKey":{"hex":"0014${'11'.repeat(20)}"}}]}]},"error":null,"id":1}`;
      const hashAnswer = `{"result":"${'ab'.repeat(32)}","error":null,"id":1}`;
      answer = (body) => [200, body.method === 'getblockhash' ? hashAnswer : block('0.000000001')];
      await expect(new BitcoinRpcReader(url).block(7)).rejects.toThrow(/8 decimal places/);
      answer = (body) => [200, body.method === 'getblockhash' ? hashAnswer : block('0.1', 8)];
      await expect(new BitcoinRpcReader(url).block(7)).rejects.toThrow(BitcoinRpcError);
      answer = (body) => [200, body.method === 'getblockhash' ? hashAnswer : block('21000000.12345678')];
      expect((await new BitcoinRpcReader(url).block(7)).outputs[0]!.satoshis).toBe(2_100_000_012_345_678n);
    });

    const hashOf = (height: number) => height.toString(16).padStart(64, '0');
    const hashesAnswered = (calls: any[]) => `[${calls.map((call) => `{"result":"${hashOf(call.params[0])}","error":null,"id":${call.id}}`).join(',')}]`;

    it.each<[string, (calls: any[]) => string, RegExp]>([
      ['an answer to a batch that is no array', () => '{"result":[],"error":null,"id":1}', /batch of 3 getblockhash calls: the node answered 200 with no array/],
      ['one error for the whole batch', () => '{"result":null,"error":{"code":-32600,"message":"Batch too large"},"id":null}', /Batch too large \(code -32600\)/],
      ['an element without an id', (calls) => hashesAnswered(calls).replace(/,"id":\d+\}\]$/, '}]'), /an element without the id of any call/],
      ['an element with an id of no call', (calls) => hashesAnswered(calls).replace(/"id":\d+\}\]$/, '"id":99999}]'), /an element without the id of any call/],
      ['an element missing', (calls) => hashesAnswered(calls.slice(0, -1)), /getblockhash \[9\]: the node's answer to a batch of 3 getblockhash calls lacks it/],
      ['an element answered twice', (calls) => hashesAnswered([...calls.slice(0, -1), calls[0]]), /answered call 1 twice/],
      [
        'an error answered to one element',
        (calls) => hashesAnswered(calls).replace(/\{[^{}]*"id":(\d+)\}\]$/, '{"result":null,"error":{"code":-8,"message":"Block height out of range"},"id":$1}]'),
        /getblockhash: Block height out of range \(code -8\)/,
      ],
      ['an element that is no hash', (calls) => hashesAnswered(calls).replace(hashOf(8), 'not-a-hash'), /Invalid string/],
    ])('a batch with %s', async (_name, reply, message) => {
      batchAnswer = reply;
      await expect(new BitcoinRpcReader(url).blocks(7, 9)).rejects.toThrow(message);
    });

    it('a batch of blocks answered out of order is put back in order by id; one that is not the one asked for fails', async () => {
      const blockOf = (blockHash: string, height: number, id: number) =>
        `{"result":{"hash":"${blockHash}","height":${height},"previousblockhash":"${hashOf(height - 1)}","tx":[]},"error":null,"id":${id}}`;
      batchAnswer = (calls) =>
        calls[0].method === 'getblockhash'
          ? hashesAnswered(calls)
          : `[${calls
              .map((call) => blockOf(call.params[0], parseInt(call.params[0], 16), call.id))
              .reverse()
              .join(',')}]`;
      expect((await new BitcoinRpcReader(url).blocks(7, 9)).map((block) => [block.number, block.hash, block.parentHash])).toEqual([7, 8, 9].map((height) => [height, hashOf(height), hashOf(height - 1)]));
      batchAnswer = (calls) => (calls[0].method === 'getblockhash' ? hashesAnswered(calls) : `[${calls.map((call) => blockOf(call.params[0], 7, call.id)).join(',')}]`);
      await expect(new BitcoinRpcReader(url).blocks(7, 9)).rejects.toThrow(`getblock ${hashOf(8)} answered block 7 ${hashOf(8)}`);
    });
  });
});
