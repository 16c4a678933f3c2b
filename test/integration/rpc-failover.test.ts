/**
 * A network with two RPC endpoints (docs/operations.md#several-rpc-endpoints-per-network), the
 * first down: the watch-chain function, configured as a deployment is (GATEWAY_RPC_BAHAMUT naming
 * both, each with a provider-style key in its path), reads a Hardhat node through the second of two
 * loopback proxies, credits the deposit, and says once per run which endpoint failed and which
 * answered. With both down, the run fails with one error naming each; with the first back, a new
 * container reads from it again. Bahamut, which no other test watches: the chain table's cursor is
 * per network and shared by the test files.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Address } from 'viem';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { EVM_CHAIN_IDS } from '../../shared/domain/networks.js';
import { startLocalChain, type LocalChain } from '../../infra/chain/local-chain.js';
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

  static async start(upstream: string): Promise<Endpoint> {
    let endpoint: Endpoint | undefined;
    const server = createServer(async (request, response) => {
      // No connection is kept, so that a closed proxy refuses the very next call.
      response.setHeader('connection', 'close');
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      endpoint!.requests++;
      const answer = await fetch(upstream, { method: 'POST', headers: { 'content-type': 'application/json' }, body: Buffer.concat(chunks) });
      response.writeHead(answer.status, { 'content-type': 'application/json' }).end(await answer.text());
    });
    server.listen(0, '127.0.0.1');
    await new Promise((listening) => server.once('listening', listening));
    endpoint = new Endpoint(server, (server.address() as AddressInfo).port);
    return endpoint;
  }

  /** Its URL with a key in the path, as hosted providers give them. */
  urlWithKey(key: string): string {
    return `http://127.0.0.1:${this.port}/v2/${key}`;
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

let chain: LocalChain;
let first: Endpoint;
let second: Endpoint;
let merchant: SeededMerchant;
let testCli: TestCli;
let restoreEnvironment: (() => void) | undefined;
const watcher = watcherOf('bahamut');

beforeAll(async () => {
  // Bahamut's demo chain id: the reader checks that its node is on the configured chain.
  chain = await startLocalChain({ chainId: EVM_CHAIN_IDS.demo.bahamut });
  [first, second] = await Promise.all([Endpoint.start(chain.rpcUrl), Endpoint.start(chain.rpcUrl)]);
  const rpcUrl = `${first.urlWithKey('first-key')}, ${second.urlWithKey('second-key')}`;
  restoreEnvironment = setEnvironment({ GATEWAY_RPC_BAHAMUT: rpcUrl, GATEWAY_CONFIRMATIONS_BAHAMUT: String(CONFIRMATIONS) });
  expect(rpcUrlsOf(config().chains.bahamut.rpcUrl!)).toEqual([first.urlWithKey('first-key'), second.urlWithKey('second-key')]);
  [merchant, testCli] = await Promise.all([seedMerchant(), testMerchantCli()]);
}, 60_000);

afterAll(async () => {
  restoreEnvironment?.();
  await Promise.all([first?.down().catch(() => undefined), second?.down().catch(() => undefined)]);
  await Promise.all([chain?.stop(), testCli?.remove()]);
});

/** Pays an invoice of `amount` FTN (2 at least) and mines its confirmations; answers the invoice and the transaction's hash. */
async function payInvoice(amount: number) {
  const invoice = await createInvoice(merchant, { baseCurrency: 'FTN', amount });
  const sent = await chain.sendNative({ to: addressOn(invoice, 'bahamut') as Address, amount: invoice.paymentAmount });
  await chain.mine(CONFIRMATIONS - 1);
  return { invoice, hash: sent.hash };
}

/** The endpoints' report of each run this logged at WARN. */
const endpointReports = (calls: unknown[][]) =>
  calls.filter(([message]) => String(message).startsWith('Chain RPC endpoints of the run')).map(([, details]) => details as Record<string, any>);

describe('a network whose first RPC endpoint is down', () => {
  it('credits a deposit read through the second, and says so once per run', async () => {
    await first.down();
    const warn = vi.spyOn(logger, 'warn');
    try {
      const { invoice, hash } = await payInvoice(3);
      // Deep enough when its block is scanned: recorded confirmed at once.
      const runs = await watcher.catchUp();
      expect(total(runs, 'recorded')).toBe(1);

      const [deposit, ...others] = await depositsOf(invoice.id);
      expect(others).toEqual([]);
      expect(deposit).toMatchObject({ status: 'confirmed', amount: invoice.paymentAmount, currency: 'FTN', network: 'bahamut', transactionHash: hash });
      expect(await getInvoice(merchant, invoice.id)).toMatchObject({ status: 'completed', paymentStatus: 'paid' });
      expect(await creditsOf(merchant, deposit!.id)).toEqual([{ type: 'deposit', amount: invoice.paymentAmount, currency: 'FTN' }]);
      expect(first.requests).toBe(0);
      expect(second.requests).toBeGreaterThan(0);

      // One line per run: the first refused, then passed over while it cools down; the second answered every call.
      const reports = endpointReports(warn.mock.calls);
      expect(reports).toHaveLength(runs.length);
      expect(reports[0]).toMatchObject({
        network: 'bahamut',
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
      expect(JSON.stringify(reports)).not.toMatch(/first-key|second-key/);
    } finally {
      warn.mockRestore();
    }
  });

  it('fails the run with one error naming each endpoint when both are down, and reads from the first again in a new container once it is back', async () => {
    await second.down();
    const error = vi.spyOn(logger, 'error');
    try {
      // The first still cools down, and is tried anyway once the second fails.
      expect(await watcher.once()).toEqual({ network: 'bahamut', runFailed: true });
      const [message, details] = error.mock.calls[0] as unknown as [string, { reason: string }];
      expect(message).toMatch(/^Chain watcher run failed/);
      expect(details.reason).toMatch(new RegExp(`^AllEndpointsFailedError: Every bahamut RPC endpoint failed: #1 127\\.0\\.0\\.1:${first.port}: .*ECONNREFUSED.*; #2 127\\.0\\.0\\.1:${second.port}: .*ECONNREFUSED`));
    } finally {
      error.mockRestore();
    }

    await Promise.all([first.up(), second.up()]);
    const before = { first: first.requests, second: second.requests };
    const { invoice } = await payInvoice(2.5);
    const container = await watcher.coldStart();
    expect(await container.run()).toMatchObject({ network: 'bahamut', recorded: 1 });
    expect(await getInvoice(merchant, invoice.id)).toMatchObject({ status: 'completed' });
    // The second is asked its head alone, beside the first.
    expect(second.requests - before.second).toBe(1);
    expect(first.requests - before.first).toBeGreaterThan(1);
  });
});
