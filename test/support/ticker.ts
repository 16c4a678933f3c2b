/**
 * An exchange ticker on loopback in Binance's shape (`GET /api/v3/ticker/price?symbols=[…]`
 * answering `[{"symbol":"BTCUSDT","price":"65000.01000000"},…]`), whose answers a test chooses:
 * prices, any status and body, or no answer at all.
 */
import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const TICKER_PATH = '/api/v3/ticker/price';

/** What the ticker does with a request. */
export type TickerReply =
  /** The price of each requested symbol the table has, eight places as Binance writes them; others left out. */
  | { prices: Record<string, string> }
  | { status: number; body: string; contentType?: string }
  /** Headers and no body (`body`), or nothing at all (`headers`), until the client gives up. */
  | { hang: 'headers' | 'body' };

export interface TickerServer {
  /** The endpoint, as GATEWAY_RATES_URL. */
  url: string;
  /** The symbols each request asked for, in order. */
  readonly requests: string[][];
  reply: TickerReply;
  close(): Promise<void>;
}

/** Binance writes prices with eight decimal places. */
export const binancePrice = (price: string): string => {
  const [whole, fraction = ''] = price.split('.');
  return `${whole}.${fraction.padEnd(8, '0')}`;
};

function send(response: ServerResponse, status: number, body: string, contentType = 'application/json;charset=UTF-8'): void {
  response.writeHead(status, { 'content-type': contentType });
  response.end(body);
}

export async function startTicker(reply: TickerReply = { prices: {} }): Promise<TickerServer> {
  const requests: string[][] = [];
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://ticker');
    let symbols: string[] = [];
    try {
      symbols = JSON.parse(url.searchParams.get('symbols') ?? '[]') as string[];
    } catch {
      return send(response, 400, JSON.stringify({ code: -1100, msg: "Illegal characters found in parameter 'symbols'" }));
    }
    requests.push(symbols);
    if (url.pathname !== TICKER_PATH) return send(response, 404, '');
    const current = ticker.reply;
    if ('hang' in current) {
      if (current.hang === 'body') {
        response.writeHead(200, { 'content-type': 'application/json;charset=UTF-8' });
        response.write('[{"symbol":"BTCUSDT",');
      }
      return;
    }
    if ('status' in current) return send(response, current.status, current.body, current.contentType);
    const answered = symbols.filter((symbol) => symbol in current.prices).map((symbol) => ({ symbol, price: current.prices[symbol]! }));
    send(response, 200, JSON.stringify(answered));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const ticker: TickerServer = {
    url: `http://127.0.0.1:${port}${TICKER_PATH}`,
    requests,
    reply,
    close: async () => {
      const closed = once(server, 'close');
      server.close();
      // Requests left hanging on purpose end with the server.
      server.closeAllConnections();
      await closed;
    },
  };
  return ticker;
}
