/**
 * Paying an invoice on a local chain as docs/operations.md#a-local-chain does it: `npm run chain -- node`, the gateway
 * started with the variables it prints, `send` and `mine` on the EVM chain and on the Bitcoin node,
 * and the merchant's callbacks, verified.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runChainCli } from '../../infra/chain/chain-cli.js';
import type { RunSummary } from '../../shared/domain/payments/chain-watcher.js';
import { startCallbackReceiver, type CallbackReceiver } from '../support/callback-receiver.js';
import { callApi, startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';
import { eventually } from '../support/wait.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CALLBACK_SECRET = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
const CONFIRMATIONS = 2;

let dataDir: string;
let chainNode: ChildProcessWithoutNullStreams;
let chainOutput = '';
let gateway: GatewayProcess;
let receiver: CallbackReceiver;

const printed = (name: string): string => {
  const value = new RegExp(`^ {2}${name}=(\\S+)$`, 'm').exec(chainOutput)?.[1];
  if (value === undefined) throw new Error(`The chain did not print ${name}:\n${chainOutput}`);
  return value;
};

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'gateway-chain-'));
  chainNode = spawn(process.execPath, ['--import', 'tsx', 'infra/chain/chain.ts', 'node', '--port', '0', '--bitcoin-port', '0'], { cwd: ROOT, env: { ...process.env, GATEWAY_DATA_DIR: dataDir } });
  for (const stream of [chainNode.stdout, chainNode.stderr]) stream.on('data', (chunk: Buffer) => (chainOutput += chunk.toString('utf8')));
  await eventually(() => chainOutput.includes('Press Ctrl+C to stop.') || chainNode.exitCode !== null, { timeoutMs: 90_000, what: 'the chain to start' });
  receiver = await startCallbackReceiver();
  gateway = await startGatewayProcess({
    dataDir,
    env: {
      GATEWAY_RPC_ETHEREUM: printed('GATEWAY_RPC_ETHEREUM'),
      // Printed in single quotes for a shell.
      GATEWAY_TOKENS_ETHEREUM: printed('GATEWAY_TOKENS_ETHEREUM').replace(/^'|'$/g, ''),
      GATEWAY_CONFIRMATIONS_ETHEREUM: String(CONFIRMATIONS),
      GATEWAY_RPC_BITCOIN: printed('GATEWAY_RPC_BITCOIN'),
      GATEWAY_CHAIN_POLL_S: '1',
      GATEWAY_DEMO_CALLBACK_URL: receiver.url,
      GATEWAY_DEMO_CALLBACK_SECRET: CALLBACK_SECRET,
    },
  });
});

afterAll(async () => {
  await gateway?.stop();
  if (chainNode && chainNode.exitCode === null && chainNode.signalCode === null) {
    chainNode.kill('SIGTERM');
    await once(chainNode, 'exit');
  }
  await receiver?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** `npm run chain -- …` against the chain above, found through its chain.json. */
async function chainCli(args: string[]): Promise<any> {
  let out = '';
  let err = '';
  const code = await runChainCli([...args, '--json'], {
    env: { GATEWAY_DATA_DIR: dataDir },
    out: (text) => (out += text),
    err: (text) => (err += text),
    untilStopped: () => new Promise(() => undefined),
  });
  expect(code, err).toBe(0);
  return JSON.parse(out);
}

const getInvoice = async (id: string) => (await callApi(gateway, 'GET', `/api/v2/invoices/${id}`)).body.data;

const headerText = (value: string | string[] | undefined): string => (Array.isArray(value) ? value.join(', ') : (value ?? ''));

describe('a USDT invoice paid on the local chain in two transfers', () => {
  it('is partial after the first, completed after the second, with a verified callback for each', async () => {
    const created = await callApi(gateway, 'POST', '/api/v2/invoices', { orderId: randomUUID(), customerId: 'chain-customer', baseCurrency: 'USD', paymentCurrency: 'USDT', amount: 25 });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const invoice = created.body.data;

    for (const [amount, paidAmount, status] of [
      ['10', '10.000000', 'created'],
      ['15', '25.000000', 'completed'],
    ] as const) {
      const sent = await chainCli(['send', '--to', invoice.wallet.address, '--amount', amount, '--token', 'USDT']);
      await chainCli(['mine', '--blocks', String(CONFIRMATIONS - 1)]);
      const callback = await receiver.waitForDelivery((c) => c.json?.transactionHash === sent.hash, 30_000);
      const headers = Object.fromEntries(['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => [name, headerText(callback.headers[name])]));
      expect(new Webhook(CALLBACK_SECRET).verify(callback.body, headers)).toEqual(callback.json);
      expect(callback.json).toMatchObject({ invoiceId: invoice.id, type: 'deposit', status: 'confirmed', amount: `${amount}.000000`, currency: 'USDT', network: 'ethereum' });
      expect(headers['webhook-id']).toBe(`${callback.json.id}:confirmed`);
      expect(
        await eventually(async () => {
          const current = await getInvoice(invoice.id);
          return current.paidAmount === paidAmount && current;
        }),
      ).toMatchObject({ status, paidAmount });
    }
    expect(await getInvoice(invoice.id)).toMatchObject({ paymentStatus: 'paid', transactionIds: expect.any(Array) });
    expect((await getInvoice(invoice.id)).transactionIds).toHaveLength(2);
  });
});

describe('a BTC invoice paid on the local Bitcoin node', () => {
  it('shows a test network address, is processing after one block and completed at two, exact to the satoshi, with a verified callback', async () => {
    const created = await callApi(gateway, 'POST', '/api/v2/invoices', { orderId: randomUUID(), customerId: 'bitcoin-customer', baseCurrency: 'BTC', amount: 0.00123457 });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const invoice = created.body.data;
    expect(invoice.wallet).toMatchObject({ networks: ['bitcoin'], address: expect.stringMatching(/^tb1q/) });

    const sent = await chainCli(['send', '--network', 'bitcoin', '--to', invoice.wallet.address, '--amount', '0.00123457']);
    await chainCli(['mine', '--network', 'bitcoin', '--blocks', '1']);
    const processing = await eventually(async () => {
      const [id] = (await getInvoice(invoice.id)).transactionIds;
      return id && (await callApi(gateway, 'GET', `/api/v2/transaction/${id}`)).body.data;
    });
    expect(processing).toMatchObject({ status: 'processing', network: 'bitcoin', transactionHash: sent.txid, amount: '0.00123457', currency: 'BTC' });

    await chainCli(['mine', '--network', 'bitcoin', '--blocks', '1']);
    const callback = await receiver.waitForDelivery((c) => c.json?.transactionHash === sent.txid, 30_000);
    const headers = Object.fromEntries(['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => [name, headerText(callback.headers[name])]));
    expect(new Webhook(CALLBACK_SECRET).verify(callback.body, headers)).toEqual(callback.json);
    expect(callback.json).toMatchObject({ id: processing.id, invoiceId: invoice.id, status: 'confirmed', amount: '0.00123457', currency: 'BTC', network: 'bitcoin' });
    expect(
      await eventually(async () => {
        const current = await getInvoice(invoice.id);
        return current.status === 'completed' && current;
      }),
    ).toMatchObject({ paidAmount: '0.00123457', paymentStatus: 'paid' });
  });
});

describe("the chain watcher's log, the runtime polling every second", () => {
  it('has an INFO line for each run that found or settled a deposit, and none for the runs that found nothing', () => {
    const runs = gateway
      .output()
      .split('\n')
      .filter((line) => line.includes('"level":"INFO"') && line.includes('"message":"Chain watcher run"'))
      .map((line) => JSON.parse(line) as RunSummary);
    expect(runs.length).toBeGreaterThan(0);
    for (const run of runs) expect(run.recorded + run.held + run.confirmed + run.failed + run.credited, JSON.stringify(run)).toBeGreaterThan(0);
  });
});
