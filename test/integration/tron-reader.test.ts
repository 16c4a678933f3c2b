/**
 * The Tron reader against a server answering as Tron's documentation shows its full node answers
 * (test/fixtures/tron.ts): no Tron node runs here. TRX and configured TRC-20 transfers of
 * successful transactions, exact; a failed transaction, another token and an unconfigured one
 * ignored; the API key sent; an API that answers an error, garbage or another block refused.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TronHttpReader } from '../../shared/chain/tron-reader.js';
import { block, blockId, tokenCall, tokenTransferInfo, trxTransfer, trxTransferInfo } from '../fixtures/tron.js';

// Nile's USDT contract and two customers' addresses, as the gateway derives them (T…).
const USDT = 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf';
const OTHER_TOKEN = 'TF17BgPaZYbz8oxbjhriubPDsA7ArKoLX3';
const CUSTOMER = 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8';
const STRANGER = 'TVj7RNVHy6thbM7BWdSe9G6gXwKhjhdNZS';

const tx = (n: number) => n.toString(16).padStart(64, 'a');

let server: Server;
let url: string;
let answers: Record<string, (body: any) => unknown>;
let lastHeaders: IncomingHttpHeaders;

beforeAll(async () => {
  server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk) => (text += chunk));
    request.on('end', () => {
      lastHeaders = request.headers;
      const endpoint = (request.url ?? '').replace(/^\/wallet\//, '');
      const reply = answers[endpoint];
      if (!reply) return response.writeHead(404).end('{}');
      const body = reply(text ? JSON.parse(text) : {});
      response.writeHead(200, { 'content-type': 'application/json' }).end(typeof body === 'string' ? body : JSON.stringify(body, (_k, v) => (typeof v === 'bigint' ? Number(v) : v)));
    });
  });
  await new Promise<void>((resolveListen) => server.listen(0, '127.0.0.1', resolveListen));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});

afterAll(() => new Promise<void>((resolveClose) => server.close(() => resolveClose())));

beforeEach(() => {
  const blocks: Record<number, unknown> = {
    100: block(100, [
      trxTransfer(tx(1), CUSTOMER, 12_345_678),
      trxTransfer(tx(2), CUSTOMER, 5_000_000, 'OUT_OF_ENERGY'),
      tokenCall(tx(3), USDT),
      tokenCall(tx(4), USDT),
      tokenCall(tx(5), OTHER_TOKEN),
      trxTransfer(tx(6), STRANGER, 1_000_000),
    ]),
    101: block(101, []),
  };
  answers = {
    getnowblock: () => block(119, []),
    getblockbynum: ({ num }) => blocks[num] ?? {},
    gettransactioninfobyblocknum: ({ num }) =>
      num === 100
        ? [
            trxTransferInfo(tx(1), 100),
            trxTransferInfo(tx(2), 100),
            tokenTransferInfo(tx(3), 100, USDT, CUSTOMER, 25_500_001n),
            tokenTransferInfo(tx(4), 100, USDT, CUSTOMER, 7_000_000n, 'REVERT'),
            tokenTransferInfo(tx(5), 100, OTHER_TOKEN, CUSTOMER, 9_000_000n),
            trxTransferInfo(tx(6), 100),
          ]
        : [],
  };
});

describe('the Tron reader', () => {
  it('reads the head and a block: TRX and configured TRC-20 transfers of successful transactions, exact', async () => {
    const reader = new TronHttpReader(url);
    expect(await reader.headNumber()).toBe(119);
    expect(await reader.blockHash(100)).toBe(blockId(100));
    const read = await reader.block(100, [USDT]);
    expect(read).toMatchObject({ number: 100, hash: blockId(100), parentHash: blockId(99) });
    expect(read.transfers).toEqual([
      { transactionHash: tx(1), logIndex: null, to: CUSTOMER, token: null, value: 12_345_678n },
      { transactionHash: tx(6), logIndex: null, to: STRANGER, token: null, value: 1_000_000n },
      { transactionHash: tx(3), logIndex: 0, to: CUSTOMER, token: USDT, value: 25_500_001n },
    ]);
    expect(await reader.block(101, [USDT])).toEqual({ number: 101, hash: blockId(101), parentHash: blockId(100), transfers: [] });
  });

  it('sends the API key a TronGrid-compatible service asks for', async () => {
    await new TronHttpReader(`${url}/`, 'key-123').headNumber();
    expect(lastHeaders['tron-pro-api-key']).toBe('key-123');
    await new TronHttpReader(url).headNumber();
    expect(lastHeaders['tron-pro-api-key']).toBeUndefined();
  });

  it.each([
    ['an error answer', () => ({ Error: 'class java.lang.NumberFormatException : For input string: "x"' }), /NumberFormatException/],
    ['no JSON', () => '<html>503</html>', /no JSON/],
    ['a block that does not exist', () => ({}), /block_header|expected/i],
    ['another block than asked for', () => block(99, []), /answered block 99/],
  ])('refuses %s', async (_name, reply, message) => {
    answers.getblockbynum = reply as (body: any) => unknown;
    await expect(new TronHttpReader(url).block(100, [USDT])).rejects.toThrow(message);
  });

  it('refuses an amount that is not a whole number', async () => {
    answers.getblockbynum = () => JSON.stringify(block(100, [trxTransfer(tx(1), CUSTOMER, 1)])).replace('"amount":1', '"amount":1.5');
    await expect(new TronHttpReader(url).block(100, [])).rejects.toThrow(/whole number/);
  });
});
