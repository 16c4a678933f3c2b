/**
 * The Bitcoin reader against a real node (Debian's litecoind in regtest, infra/chain/bitcoin-node.ts):
 * the head, blocks with every output's script and exact satoshis, a payment to a testnet address
 * found by its script, a reorganisation seen as new hashes, and the refusals of an RPC that fails
 * or answers garbage.
 */
import { createServer, type Server } from 'node:http';
import { bech32 } from '@scure/base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
    let answer: (body: any) => [number, string];
    let url: string;
    beforeAll(async () => {
      server = createServer((request, response) => {
        let body = '';
        request.on('data', (chunk) => (body += chunk));
        request.on('end', () => {
          const [status, text] = answer(JSON.parse(body));
          response.writeHead(status, { 'content-type': 'application/json' }).end(text);
        });
      });
      await new Promise<void>((resolveListen) => server.listen(0, '127.0.0.1', resolveListen));
      url = `http://user:pass@127.0.0.1:${(server.address() as { port: number }).port}`;
    });
    afterAll(() => new Promise<void>((resolveClose) => server.close(() => resolveClose())));

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
  });
});
