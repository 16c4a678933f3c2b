/**
 * A network with two RPC endpoints (docs/operations.md#several-rpc-endpoints-per-network), the
 * first down: the watch-chain function, configured as a deployment is (GATEWAY_RPC_BAHAMUT naming
 * both, each with a provider-style key in its path), reads a Hardhat node through the second of two
 * loopback proxies, credits the deposit, and says once per run which endpoint failed and which
 * answered. With both down, the run fails with one error naming each; with the first back, a new
 * container reads from it again. Bahamut, which no other test watches: the chain table's cursor is
 * per network and shared by the test files.
 */
import type { Address } from 'viem';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { EVM_CHAIN_IDS } from '../../shared/domain/chains/networks.js';
import { startLocalChain, type LocalChain } from '../../infra/chain/local-chain.js';
import { rpcUrlsOf } from '../../shared/config.js';
import { localStageConfiguration } from '../support/stage-configuration.js';
import { logger } from '../../shared/observability/logger.js';
import { addressOn, createInvoice, creditsOf, depositsOf, getInvoice, setEnvironment, total, watcherOf } from '../support/chain-watch.js';
import { testMerchantCli, type TestCli } from '../support/merchant-cli.js';
import { seedMerchant, type SeededMerchant } from '../support/merchants.js';
import { RpcProxy } from '../support/rpc-proxy.js';

const CONFIRMATIONS = 2;

/** An endpoint's URL with a key in the path, as hosted providers give them. */
const urlWithKey = (endpoint: RpcProxy, key: string): string => `${endpoint.url}/v2/${key}`;

let chain: LocalChain;
/** The node behind two endpoints that can each be taken down and brought back on their ports. */
let first: RpcProxy;
let second: RpcProxy;
let merchant: SeededMerchant;
let testCli: TestCli;
const watcher = watcherOf('bahamut');

beforeAll(async () => {
  // Bahamut's demo chain id: the reader checks that its node is on the configured chain.
  chain = await startLocalChain({ chainId: EVM_CHAIN_IDS.demo.bahamut });
  [first, second] = await Promise.all([RpcProxy.start(chain.rpcUrl, { closeConnections: true }), RpcProxy.start(chain.rpcUrl, { closeConnections: true })]);
  const rpcUrl = `${urlWithKey(first, 'first-key')}, ${urlWithKey(second, 'second-key')}`;
  setEnvironment({ GATEWAY_RPC_BAHAMUT: rpcUrl, GATEWAY_CONFIRMATIONS_BAHAMUT: String(CONFIRMATIONS) });
  expect(rpcUrlsOf(localStageConfiguration().chains.bahamut.rpcUrl!)).toEqual([urlWithKey(first, 'first-key'), urlWithKey(second, 'second-key')]);
  [merchant, testCli] = await Promise.all([seedMerchant(), testMerchantCli()]);
}, 60_000);

afterAll(async () => {
  await Promise.all([first?.stop(), second?.stop()]);
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
const endpointReports = (calls: unknown[][]) => calls.filter(([message]) => String(message).startsWith('Chain RPC endpoints of the run')).map(([, details]) => details as Record<string, any>);

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
      expect(first.requests.length).toBe(0);
      expect(second.requests.length).toBeGreaterThan(0);

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
      expect(details.reason).toMatch(
        new RegExp(`^AllEndpointsFailedError: Every bahamut RPC endpoint failed: #1 127\\.0\\.0\\.1:${first.port}: .*ECONNREFUSED.*; #2 127\\.0\\.0\\.1:${second.port}: .*ECONNREFUSED`),
      );
    } finally {
      error.mockRestore();
    }

    await Promise.all([first.up(), second.up()]);
    const before = { first: first.requests.length, second: second.requests.length };
    const { invoice } = await payInvoice(2.5);
    const container = await watcher.coldStart();
    expect(await container.run()).toMatchObject({ network: 'bahamut', recorded: 1 });
    expect(await getInvoice(merchant, invoice.id)).toMatchObject({ status: 'completed' });
    // The second is asked its head alone, beside the first.
    expect(second.requests.length - before.second).toBe(1);
    expect(first.requests.length - before.first).toBeGreaterThan(1);
  });
});
