/**
 * `npm start` as a person runs it: a child process on a free port, over HTTP, stopped with
 * SIGTERM and started again on the same data directory.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoMerchantFile } from '../../infra/local/demo-merchant.js';
import { readRunningStack, runtimeInfoFile } from '../../infra/local/runtime-info.js';
import { treasuryAddresses } from '../../shared/domain/payouts/index.js';
import { functionsForStage } from '../../shared/routes.js';
import { UNAUTHORIZED_MESSAGE } from '../../shared/errors.js';
import { KeyFileTreasurySigner, treasuryKeyDirectory } from '../../shared/signers/key-file-signer.js';
import { dynamoDbLocalProcesses, startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';
import { eventually } from '../support/wait.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ROOT = new URL('../../', import.meta.url);

let dataDir: string;
let gateway: GatewayProcess;

/** How long the runtime's gateway reuses the authorizer's decision about a key: shorter than API Gateway's 30 s, for the revocation below. */
const AUTHORIZER_CACHE_S = 2;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'gateway-e2e-'));
  // `npm start` whole: its own DynamoDB Local, kept under the data directory across restarts.
  gateway = await startGatewayProcess({ dataDir, ownStore: true, env: { GATEWAY_AUTHORIZER_CACHE_S: String(AUTHORIZER_CACHE_S) } });
});

afterAll(async () => {
  await gateway?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

async function get(path: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${gateway.baseUrl}${path}`, { headers });
  return { status: response.status, requestId: response.headers.get('x-request-id'), body: (await response.json()) as any };
}

async function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${gateway.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, requestId: response.headers.get('x-request-id'), body: (await response.json()) as any };
}

const invoicePath = () => `/api/v2/invoices/${randomUUID()}`;

describe('npm start', () => {
  it('prints the base URL, the demo key, the callback secret, and the docs and OpenAPI URLs', () => {
    expect(gateway.baseUrl).toMatch(/^http:\/\/localhost:\d+$/);
    expect(gateway.apiKey).toMatch(/^gw_demo_[0-9A-Za-z]{32}$/);
    expect(gateway.callbackSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(gateway.output()).toContain(`Docs             ${gateway.baseUrl}/docs\n`);
    expect(gateway.output()).toContain(`OpenAPI          ${gateway.baseUrl}/api/v2/openapi.json\n`);
  });

  it('says what it starts, in order, in a handful of lines before it is ready', () => {
    const output = gateway.output();
    const ready = output.indexOf('Payment gateway running locally (demo stage)\n');
    expect(ready).toBeGreaterThan(0);
    const functions = functionsForStage('demo');
    expect(
      output
        .slice(0, ready)
        .split('\n')
        .filter((line) => line !== ''),
    ).toEqual([
      'Starting the payment gateway locally (demo stage)',
      'Starting DynamoDB Local',
      'Starting the queue server',
      'Starting the demo provider',
      `Loading ${functions.length} functions`,
      `Starting the API: ${functions.filter((fn) => fn.kind === 'http').length} routes on ${gateway.baseUrl}`,
    ]);
  });

  it("makes the treasury's keys on its first start and prints the addresses they sign for", async () => {
    const addresses = await treasuryAddresses(new KeyFileTreasurySigner(treasuryKeyDirectory(dataDir)), 'demo');
    expect(gateway.output()).toContain(`Treasury (EVM)   ${addresses.evm}\n`);
    expect(gateway.output()).toContain(`Treasury (Tron)  ${addresses.tron}\n`);
    expect(gateway.output()).toContain(`Treasury (BTC)   ${addresses.bitcoin}\n`);
    expect(addresses.bitcoin).toMatch(/^tb1q/);
  });

  it('serves the OpenAPI document and the readable reference without a key', async () => {
    const openapi = await fetch(`${gateway.baseUrl}/api/v2/openapi.json`);
    expect(openapi.status).toBe(200);
    expect(await openapi.json()).toHaveProperty('openapi');
    const docs = await fetch(`${gateway.baseUrl}/docs`);
    expect(docs.status).toBe(200);
    expect(docs.headers.get('content-type')).toMatch(/^text\/html/);
  });

  it('writes runtime.json for the admin CLI', async () => {
    const stack = await readRunningStack(dataDir);
    expect(stack).toMatchObject({ stage: 'demo', baseUrl: gateway.baseUrl, region: 'us-east-1', tables: { merchants: 'gateway-merchants' } });
  });

  it('refuses to start a second time on the same data directory', async () => {
    await expect(startGatewayProcess({ dataDir, ownStore: true })).rejects.toThrow(/exited with 1[\s\S]*already serves from/);
    expect(dynamoDbLocalProcesses(dataDir)).toHaveLength(1);
  });

  it('answers an unknown path with the not_found envelope and a request id', async () => {
    const response = await get('/api/v2/nowhere');
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ success: false, errors: [{ code: 'not_found', message: 'Route not found' }] });
    expect(response.requestId).toMatch(UUID);
  });

  it('answers a key in the query string with 401, and writes the request to its log without the key', async () => {
    const response = await get(`/api/v2/merchant?x-api-key=${gateway.apiKey}&limit=5&access_token=t0ken`);
    expect(response.status).toBe(401);
    await eventually(() => gateway.output().includes(`GET /api/v2/merchant?x-api-key=[redacted]&limit=5&access_token=[redacted] 401`), { what: "the request's log line" });
    expect(gateway.output().split(gateway.apiKey)).toHaveLength(2); // once: the banner
    expect(gateway.output()).not.toContain('t0ken');
  });

  it('answers a known path with the wrong method with method_not_allowed', async () => {
    const response = await fetch(`${gateway.baseUrl}/api/v2/invoices`, { method: 'PUT' });
    expect(response.status).toBe(405);
    expect(await response.json()).toEqual({ success: false, errors: [{ code: 'method_not_allowed', message: 'Method not allowed' }] });
    expect(response.headers.get('x-request-id')).toMatch(UUID);
  });

  it.each([
    ['missing', {}],
    ['unknown', { 'x-api-key': 'gw_demo_ZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ' }],
    ['malformed', { 'x-api-key': 'let-me-in' }],
  ])('refuses a %s key with 401 and the exact message', async (_, headers) => {
    const response = await get(invoicePath(), headers);
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ success: false, errors: [{ code: 'unauthorized', message: UNAUTHORIZED_MESSAGE }] });
    expect(response.requestId).toMatch(UUID);
  });

  it('lets the demo key through to the route handler', async () => {
    const response = await get(invoicePath(), { 'x-api-key': gateway.apiKey });
    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ success: false, errors: [{ code: 'not_found' }] });
  });
});

describe('restarting on the same data directory', () => {
  let cliMerchant: { merchantId: string; keyId: string; apiKey: string; callbackSecret: string };
  const invoiceBody = { orderId: 'o-1', customerId: 'c-1', baseCurrency: 'USDT', invoiceStrategy: 'fixed', amount: 25 };
  let invoice: { id: string; wallet: { address: string } } & Record<string, unknown>;

  it('serves a merchant created with npm run merchant', async () => {
    const { stdout } = await promisify(execFile)('npm', ['run', '--silent', 'merchant', '--', 'create', '--name', 'E2E shop', '--json'], {
      cwd: ROOT,
      env: { ...process.env, GATEWAY_DATA_DIR: dataDir },
    });
    cliMerchant = JSON.parse(stdout);
    expect(Object.keys(cliMerchant)).toEqual(['merchantId', 'keyId', 'apiKey', 'callbackSecret']);
    expect(cliMerchant.keyId).toMatch(UUID);
    expect((await get(invoicePath(), { 'x-api-key': cliMerchant.apiKey })).status).toBe(404);
  });

  it('creates a crypto invoice with the demo key', async () => {
    const response = await post('/api/v2/invoices', invoiceBody, { 'x-api-key': gateway.apiKey });
    expect(response.status).toBe(200);
    invoice = response.body.data;
    expect(invoice).toMatchObject({ orderId: 'o-1', customerId: 'c-1', status: 'created', link: `${gateway.baseUrl}/checkout/${invoice.id}` });
    expect(invoice.id).toMatch(UUID);
    expect(invoice.wallet.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
  });

  it('stops on SIGTERM with exit code 0, removing runtime.json and leaving no DynamoDB Local behind', async () => {
    expect(existsSync(runtimeInfoFile(dataDir))).toBe(true);
    expect(dynamoDbLocalProcesses(dataDir)).toHaveLength(1);
    expect(await gateway.stop()).toBe(0);
    expect(gateway.output()).toContain('Stopped');
    expect(existsSync(runtimeInfoFile(dataDir))).toBe(false);
    expect(dynamoDbLocalProcesses(dataDir)).toEqual([]);
  });

  it('left every file 0600 and every directory 0700, and no callback secret in clear anywhere', async () => {
    const entries = await readdir(dataDir, { recursive: true, withFileTypes: true });
    expect(entries.some((entry) => entry.isFile() && entry.name.endsWith('.db'))).toBe(true);
    for (const entry of [{ path: dataDir, directory: true }, ...entries.map((e) => ({ path: join(e.parentPath, e.name), directory: e.isDirectory() }))]) {
      expect({ path: entry.path, mode: (await stat(entry.path)).mode & 0o777 }).toEqual({ path: entry.path, mode: entry.directory ? 0o700 : 0o600 });
      if (entry.directory) continue;
      const content = await readFile(entry.path);
      for (const secret of [gateway.callbackSecret, cliMerchant.callbackSecret]) {
        // Both the text and the key bytes it encodes.
        expect(content.includes(secret), `${secret} in ${entry.path}`).toBe(false);
        expect(content.includes(Buffer.from(secret.slice('whsec_'.length), 'base64')), `secret bytes in ${entry.path}`).toBe(false);
      }
    }
  });

  it('keeps the demo merchant, its key and secret, and the merchants created meanwhile', async () => {
    const before = { apiKey: gateway.apiKey, callbackSecret: gateway.callbackSecret };
    gateway = await startGatewayProcess({ dataDir, ownStore: true, env: { GATEWAY_DEMO_CALLBACK_URL: 'http://localhost:9/callbacks', GATEWAY_AUTHORIZER_CACHE_S: String(AUTHORIZER_CACHE_S) } });
    expect({ apiKey: gateway.apiKey, callbackSecret: gateway.callbackSecret }).toEqual(before);
    expect(gateway.output()).toContain('Callback URL     http://localhost:9/callbacks\n');
    expect((await get(invoicePath(), { 'x-api-key': gateway.apiKey })).status).toBe(404);
    expect((await get(invoicePath(), { 'x-api-key': cliMerchant.apiKey })).status).toBe(404);
  });

  it('keeps the invoice, its wallet address and its orderId claim', async () => {
    const stored = await get(`/api/v2/invoices/${invoice.id}`, { 'x-api-key': gateway.apiKey });
    expect(stored.status).toBe(200);
    // Everything as created, but the link: it names the runtime's base URL, whose port is new.
    expect(stored.body.data).toEqual({ ...invoice, link: `${gateway.baseUrl}/checkout/${invoice.id}` });
    expect(stored.body.data.wallet.address).toBe(invoice.wallet.address);

    const again = await post('/api/v2/invoices', invoiceBody, { 'x-api-key': gateway.apiKey });
    expect(again.status).toBe(200);
    expect(again.body.data.id).toBe(invoice.id);
    expect(again.body.data.wallet.address).toBe(invoice.wallet.address);
  });

  it('refuses a key revoked with npm run merchant once its gateway stops reusing the decision about it, as API Gateway does', async () => {
    expect((await get(invoicePath(), { 'x-api-key': cliMerchant.apiKey })).status).toBe(404);
    const { stdout } = await promisify(execFile)('npm', ['run', '--silent', 'merchant', '--', 'revoke-key', '--merchant', cliMerchant.merchantId, '--key', cliMerchant.keyId], {
      cwd: ROOT,
      env: { ...process.env, GATEWAY_DATA_DIR: dataDir },
    });
    expect(stdout).toBe(`Revoked key ${cliMerchant.keyId} of merchant ${cliMerchant.merchantId}.\n`);
    const revokedAt = Date.now();
    const refused = await eventually(
      async () => {
        const response = await get(invoicePath(), { 'x-api-key': cliMerchant.apiKey });
        return response.status === 401 && response;
      },
      { timeoutMs: (AUTHORIZER_CACHE_S + 5) * 1000, what: 'the revoked key to be refused' },
    );
    expect(refused.body).toEqual({ success: false, errors: [{ code: 'unauthorized', message: UNAUTHORIZED_MESSAGE }] });
    expect(Date.now() - revokedAt).toBeLessThan((AUTHORIZER_CACHE_S + 1) * 1000);
    // The demo key is another key: still served.
    expect((await get(invoicePath(), { 'x-api-key': gateway.apiKey })).status).toBe(404);
  });
});

describe('a start that fails', () => {
  it('on a bad environment exits 2 before starting anything', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gateway-e2e-env-'));
    try {
      await expect(startGatewayProcess({ dataDir: dir, env: { GATEWAY_DEMO_API_KEY: 'gw_prod_tooshort' } })).rejects.toThrow(/exited with 2[\s\S]*GATEWAY_DEMO_API_KEY must be a demo key/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('half-way, after DynamoDB Local started, exits 1 and leaves no Java process', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gateway-e2e-broken-'));
    try {
      await writeFile(demoMerchantFile(dir), 'not json');
      await expect(startGatewayProcess({ dataDir: dir })).rejects.toThrow(/exited with 1[\s\S]*does not hold demo merchant credentials/);
      expect(dynamoDbLocalProcesses(dir)).toEqual([]);
      expect(existsSync(runtimeInfoFile(dir))).toBe(false);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
