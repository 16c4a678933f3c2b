/**
 * A JSON-RPC proxy on loopback in front of a chain node, for the tests and benchmarks that look at
 * what a reader asks (each request's methods), make the node misbehave (refuse, say nothing,
 * answer garbage, rewrite its answer), or take the node away and bring it back on the same port.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RpcCall {
  id: number;
  method: string;
  params: unknown[];
}

/** What the proxy does with a request instead of forwarding it. */
export type RpcFault = 'refuse' | 'silent' | { status: number; contentType: string; body: string };

export interface RpcProxyOptions {
  /** Keep no connection between requests, so that a proxy taken down refuses the very next call. */
  closeConnections?: boolean;
}

export class RpcProxy {
  /** Each request received, as the methods of its calls (one for a single call), oldest first. */
  readonly requests: string[][] = [];
  /** Decides each request before it is forwarded; undefined forwards it. */
  fault: ((calls: RpcCall[]) => RpcFault | undefined) | undefined;
  /** Rewrites the node's answer before the reader sees it. */
  rewrite: ((text: string, calls: RpcCall[]) => string) | undefined;

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(target: string, options: RpcProxyOptions = {}): Promise<RpcProxy> {
    let proxy!: RpcProxy;
    const server = createServer(async (request, response) => {
      if (options.closeConnections) response.setHeader('connection', 'close');
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks);
      const calls = [JSON.parse(body.toString('utf8')) as RpcCall | RpcCall[]].flat();
      proxy.requests.push(calls.map((call) => call.method));
      const fault = proxy.fault?.(calls);
      if (fault === 'refuse') return request.socket.destroy();
      // Never answers: the reader's own timeout ends the call.
      if (fault === 'silent') return;
      if (fault) return response.writeHead(fault.status, { 'content-type': fault.contentType }).end(fault.body);
      const answer = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      const text = await answer.text();
      response.writeHead(answer.status, { 'content-type': 'application/json' }).end(proxy.rewrite ? proxy.rewrite(text, calls) : text);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    proxy = new RpcProxy(server, (server.address() as AddressInfo).port);
    return proxy;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The calls received since `requests` was last emptied, by method. */
  callsByMethod(): Map<string, number> {
    const calls = new Map<string, number>();
    for (const method of this.requests.flat()) calls.set(method, (calls.get(method) ?? 0) + 1);
    return calls;
  }

  /** Closes the port: a call is refused until `up`. */
  async down(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((closed) => this.server.close(() => closed()));
  }

  /** Listens again on the same port. */
  async up(): Promise<void> {
    this.server.listen(this.port, '127.0.0.1');
    await once(this.server, 'listening');
  }

  /** Stops it for good; stopping one already down is no error. */
  stop(): Promise<void> {
    return this.server.listening ? this.down() : Promise.resolve();
  }
}
