/**
 * A network with two RPC endpoints (docs/operations.md#watching-chains), the first down: the
 * watch-chain function, configured as a deployment is (GATEWAY_RPC_BITCOIN naming both, each with
 * its credentials), reads a real regtest node through the second of two loopback proxies, credits
 * the deposit, and says once per run which endpoint failed and which answered. With both down, the
 * run fails with one error naming each; with the first back, a new container reads from it again.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { BitcoinNode } from '../../infra/chain/bitcoin-node.js';
import { config, rpcUrlsOf } from '../../shared/config.js';
import { logger } from '../../shared/observability/logger.js';
import { addressOn, createInvoice, creditsOf, depositsOf, getInvoice, setEnvironment, total, watcherOf } from '../support/chain-watch.js';
import { testMerchantCli, type TestCli } from '../support/merchant-cli.js';
import { seedMerchant, type SeededMerchant } from '../support/merchants.js';

const CONFIRMATIONS = 2;

/** A loopback proxy in front of the node that counts what it forwards, and can be closed and opened again on its port. */
class Endpoint {
  requests = 0;
  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(upstream: URL): Promise<Endpoint> {
    let endpoint: Endpoint | undefined;
    const server = createServer(async (request, response) => {
      // No connection is kept, so that a closed proxy refuses the very next call.
      response.setHeader('connection', 'close');
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      endpoint!.requests++;
      const answer = await fetch(`http://${upstream.host}/`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: request.headers.authorization ?? '' }, body: Buffer.concat(chunks) });
      response.writeHead(answer.status, { 'content-type': 'application/json' }).end(await answer.text());
    });
    server.listen(0, '127.0.0.1');
    await new Promise((listening) => server.once('listening', listening));
    endpoint = new Endpoint(server, (server.address() as AddressInfo).port);
    return endpoint;
  }

  urlWith(credentials: URL): string {
    return `http://${credentials.username}:${credentials.password}@127.0.0.1:${this.port}`;
  }

  async down(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((closed) => this.server.close(() => closed()));
  }

  async up(): Promise<void> {
    this.server.listen(this.port, '127.0.0.1');
    await new Promise((listening) => this.server.once('listening', listening));
  }
}

let node: BitcoinNode;
let first: Endpoint;
let second: Endpoint;
let merchant: SeededMerchant;
let testCli: TestCli;
let restoreEnvironment: (() => void) | undefined;
const watcher = watcherOf('bitcoin');

beforeAll(async () => {
  node = await BitcoinNode.start();
  await node.fund();
  const nodeUrl = new URL(node.rpcUrl);
  [first, second] = await Promise.all([Endpoint.start(nodeUrl), Endpoint.start(nodeUrl)]);
  const rpcUrl = `${first.urlWith(nodeUrl)},${second.urlWith(nodeUrl)}`;
  restoreEnvironment = setEnvironment({ GATEWAY_RPC_BITCOIN: rpcUrl, GATEWAY_CONFIRMATIONS_BITCOIN: String(CONFIRMATIONS) });
  expect(rpcUrlsOf(config().chains.bitcoin.rpcUrl!)).toEqual([first.urlWith(nodeUrl), second.urlWith(nodeUrl)]);
  [merchant, testCli] = await Promise.all([seedMerchant(), testMerchantCli()]);
}, 60_000);

afterAll(async () => {
  restoreEnvironment?.();
  await Promise.all([first?.down().catch(() => undefined), second?.down().catch(() => undefined)]);
  await Promise.all([node?.stop(), testCli?.remove()]);
});

/** The endpoints' report of each run this logged at WARN. */
const endpointReports = (calls: unknown[][]) =>
  calls.filter(([message]) => String(message).startsWith('Chain RPC endpoints of the run')).map(([, details]) => details as Record<string, any>);

describe('a network whose first RPC endpoint is down', () => {
  it('credits a deposit read through the second, and says so once per run', async () => {
    await first.down();
    const warn = vi.spyOn(logger, 'warn');
    try {
      const invoice = await createInvoice(merchant, { baseCurrency: 'BTC', amount: 0.0005 });
      const txid = await node.send(addressOn(invoice, 'bitcoin'), '0.0005');
      await node.mine(CONFIRMATIONS);
      // Deep enough when its block is scanned: recorded confirmed at once.
      const runs = await watcher.catchUp();
      expect(total(runs, 'recorded')).toBe(1);

      const [deposit, ...others] = await depositsOf(invoice.id);
      expect(others).toEqual([]);
      expect(deposit).toMatchObject({ status: 'confirmed', amount: '0.00050000', network: 'bitcoin', transactionHash: txid });
      expect(await getInvoice(merchant, invoice.id)).toMatchObject({ status: 'completed', paymentStatus: 'paid' });
      expect(await creditsOf(merchant, deposit!.id)).toEqual([{ type: 'deposit', amount: '0.00050000', currency: 'BTC' }]);
      expect(first.requests).toBe(0);
      expect(second.requests).toBeGreaterThan(0);

      // One line per run: the first refused, then passed over while it cools down; the second answered every call.
      const reports = endpointReports(warn.mock.calls);
      expect(reports).toHaveLength(runs.length);
      expect(reports[0]).toMatchObject({
        network: 'bitcoin',
        allFailed: false,
        endpoints: [
          { endpoint: `#1 127.0.0.1:${first.port}`, answered: 0, failed: 1, error: expect.stringContaining('ECONNREFUSED') },
          { endpoint: `#2 127.0.0.1:${second.port}`, answered: expect.any(Number), failed: 0 },
        ],
      });
      for (const report of reports.slice(1)) {
        expect(report.endpoints).toEqual([
          { endpoint: `#1 127.0.0.1:${first.port}`, answered: 0, failed: 0, coolingDown: true },
          { endpoint: `#2 127.0.0.1:${second.port}`, answered: expect.any(Number), failed: 0 },
        ]);
      }
      expect(JSON.stringify(reports)).not.toContain(new URL(node.rpcUrl).password);
    } finally {
      warn.mockRestore();
    }
  });

  it('fails the run with one error naming each endpoint when both are down, and reads from the first again in a new container once it is back', async () => {
    await second.down();
    const error = vi.spyOn(logger, 'error');
    try {
      // The first still cools down, and is tried anyway once the second fails.
      expect(await watcher.once()).toEqual({ network: 'bitcoin', runFailed: true });
      const [message, details] = error.mock.calls[0] as unknown as [string, { reason: string }];
      expect(message).toMatch(/^Chain watcher run failed/);
      expect(details.reason).toMatch(new RegExp(`^AllEndpointsFailedError: Every bitcoin RPC endpoint failed: #1 127\\.0\\.0\\.1:${first.port}: .*ECONNREFUSED.*; #2 127\\.0\\.0\\.1:${second.port}: .*ECONNREFUSED`));
    } finally {
      error.mockRestore();
    }

    await Promise.all([first.up(), second.up()]);
    const before = { first: first.requests, second: second.requests };
    const invoice = await createInvoice(merchant, { baseCurrency: 'BTC', amount: 0.0002 });
    await node.send(addressOn(invoice, 'bitcoin'), '0.0002');
    await node.mine(CONFIRMATIONS);
    const container = await watcher.coldStart();
    expect(await container.run()).toMatchObject({ network: 'bitcoin', recorded: 1 });
    expect(await getInvoice(merchant, invoice.id)).toMatchObject({ status: 'completed' });
    // The second is asked its head alone, beside the first.
    expect(second.requests - before.second).toBe(1);
    expect(first.requests - before.first).toBeGreaterThan(1);
  });
});
