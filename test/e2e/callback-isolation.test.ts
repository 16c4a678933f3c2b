/**
 * One merchant's callback URL that never answers, end to end: the local runtime as a child
 * process, merchant A (made with the admin CLI) whose URL hangs, and the demo merchant B with a
 * receiver that answers at once. A's many callbacks must not hold B's, and A sees in its callback
 * log that deliveries to its URL are paused.
 */
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMerchantCli } from '../../infra/cli/merchant-cli.js';
import { startCallbackReceiver, type CallbackReceiver } from '../support/callback-receiver.js';
import { callApi, startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';
import { DELIVERIES_PER_URL } from '../../shared/domain/callbacks/callback-pause.js';
import { eventually } from '../support/wait.js';

const RETRY_SCALE = 0.001;
/** A's deposits: three batches' worth of callbacks that each hang for the whole delivery timeout. */
const HANGING_DEPOSITS = 30;
const PROMPT_CALLBACK_MS = 2_000;

let dataDir: string;
let gateway: GatewayProcess;
let receiver: CallbackReceiver;
/** A's URL: takes every request and never answers. */
let hanging: Server;
let hangingUrl: string;
let hangingRequests = 0;
let merchantA: { merchantId: string; apiKey: string };

beforeAll(async () => {
  receiver = await startCallbackReceiver();
  hanging = createServer(() => hangingRequests++);
  hanging.listen(0, '127.0.0.1');
  await once(hanging, 'listening');
  hangingUrl = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}/callbacks`;
  dataDir = await mkdtemp(join(tmpdir(), 'gateway-callback-isolation-'));
  gateway = await startGatewayProcess({ dataDir, env: { GATEWAY_DEMO_CALLBACK_URL: receiver.url, GATEWAY_RETRY_SCALE: String(RETRY_SCALE) } });
  let out = '';
  const code = await runMerchantCli(['create', '--name', 'Hanging shop', '--callback-url', hangingUrl, '--json'], {
    env: { GATEWAY_DATA_DIR: dataDir },
    out: (text) => (out += text),
    err: (text) => (out += text),
  });
  expect(code, out).toBe(0);
  merchantA = JSON.parse(out);
});

afterAll(async () => {
  // A's deliveries end at once (the connection drops) rather than holding the runtime's stop.
  hanging?.closeAllConnections();
  hanging?.close();
  await gateway?.stop();
  await receiver?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

async function deposit(as: { apiKey: string }, orderId: string): Promise<{ id: string }> {
  const merchant = { baseUrl: gateway.baseUrl, apiKey: as.apiKey };
  const invoice = await callApi(merchant, 'POST', '/api/v2/invoices', { orderId, customerId: 'cust-isolation', baseCurrency: 'USDT', invoiceStrategy: 'fixed', amount: 25 });
  expect(invoice.status, invoice.text).toBe(200);
  const paid = await callApi(merchant, 'POST', '/api/v2/simulate/deposit', { invoiceId: invoice.body.data.id });
  expect(paid.status, paid.text).toBe(200);
  return paid.body.data;
}

/** B's callback for a deposit made now arrives within PROMPT_CALLBACK_MS of the deposit's answer. */
async function expectPromptCallbackToB(): Promise<void> {
  const { id } = await deposit(gateway, `b-${randomUUID()}`);
  const answeredAt = Date.now();
  const callback = await receiver.waitForDelivery((c) => c.json?.id === id, PROMPT_CALLBACK_MS + 1_000);
  expect(callback.at - answeredAt).toBeLessThan(PROMPT_CALLBACK_MS);
}

const aDeposits: string[] = [];

describe('a merchant whose callback URL hangs', () => {
  it("does not delay another merchant's callbacks", async () => {
    aDeposits.push(...(await Promise.all(Array.from({ length: HANGING_DEPOSITS }, (_, n) => deposit(merchantA, `a-${n}-${randomUUID()}`)))).map((d) => d.id));
    // The sender is busy with A's callbacks, each waiting for an answer that never comes.
    await eventually(() => hangingRequests >= DELIVERIES_PER_URL, { what: "A's callbacks to be attempted" });
    await expectPromptCallbackToB();
  });

  it('sees in its callback log that deliveries to its URL are paused, and until when; meanwhile only a probe tries it', async () => {
    // The pause covers all of A's pending callbacks: the first one's log shows it.
    const path = `/api/v2/transaction/${aDeposits[0]}/callbacks`;
    const paused = await eventually(
      async () => {
        const [callback] = (await callApi({ baseUrl: gateway.baseUrl, apiKey: merchantA.apiKey }, 'GET', path)).body.data;
        return callback?.pausedUntil && callback;
      },
      { timeoutMs: 25_000, intervalMs: 250, what: "A's callback shown as paused" },
    );
    expect(paused).toMatchObject({ state: 'pending', pausedUntil: expect.stringMatching(/Z$/) });
    expect(Date.parse(paused.pausedUntil)).toBeGreaterThan(Date.now() - 1_000);
    // Every attempt it had (none, if its first was still waiting for an answer) timed out.
    for (const attempt of paused.attempts) expect(attempt).toMatchObject({ status: null, error: 'timed out' });

    // Without the pause, each of A's callbacks would try the URL again about every second.
    const before = hangingRequests;
    await new Promise((resolveWait) => setTimeout(resolveWait, 3_000));
    expect(hangingRequests - before).toBeLessThanOrEqual(2);
  });

  it("still does not delay another merchant's callbacks while A's are paused", async () => {
    await expectPromptCallbackToB();
  });
});
