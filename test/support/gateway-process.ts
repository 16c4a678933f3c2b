/** The local runtime as `npm start` runs it: a child process, watched through its output. */
import { execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readRunningStack } from '../../infra/local/runtime-info.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TSX_CLI = resolve(ROOT, 'node_modules/tsx/dist/cli.mjs');
const READY_LINE = 'Press Ctrl+C to stop.';

export interface GatewayProcess {
  pid: number;
  baseUrl: string;
  apiKey: string;
  callbackSecret: string;
  /** The demo provider's URL; undefined when GATEWAY_PROVIDERS names the providers. */
  demoProviderUrl: string | undefined;
  /** The demo merchant's dashboard owner, as printed. */
  owner: { email: string; password: string; totpKey: string };
  /** Everything printed so far, stdout and stderr. */
  output(): string;
  /** SIGTERM, then the exit code once the process has exited. */
  stop(): Promise<number | null>;
  /**
   * A crash: SIGKILL to the runtime itself (the process that wrote runtime.json, under tsx's
   * launcher), which cleans up nothing: runtime.json and its DynamoDB Local stay behind, as
   * after a real crash. Resolves once the runtime and its launcher have exited.
   */
  crash(): Promise<void>;
}

export interface GatewayProcessOptions {
  dataDir: string;
  /** On top of this process's environment, PORT=0 (a free port) and GATEWAY_DATA_DIR. */
  env?: Record<string, string>;
  /**
   * The runtime starts a DynamoDB Local of its own, as `npm start` does, even within a test run:
   * for tests of that store's life (a restart, a crash, its files, its sockets). Without it, within
   * a test run the runtime keeps its tables in the run's DynamoDB Local through
   * AWS_ENDPOINT_URL_DYNAMODB (docs/operations.md), under its data directory's own access key id:
   * a database no other runtime sees, without a Java process of its own to start and warm up.
   * Outside a test run (the benches) it starts its own.
   */
  ownStore?: boolean;
  timeoutMs?: number;
  /**
   * Node options for the runtime's own process (`--cpu-prof`, which NODE_OPTIONS refuses): with
   * them it runs in one process under tsx's loader instead of under tsx's launcher.
   */
  nodeArgs?: string[];
}

const printed = (output: string, label: string): string => {
  const value = new RegExp(`^\\s*${label}\\s+(\\S+)$`, 'm').exec(output)?.[1];
  if (value === undefined) throw new Error(`The runtime did not print its ${label}:\n${output}`);
  return value;
};

/** Starts `tsx infra/local/main.ts`; resolves once it prints that it serves, rejects if it exits first. */
export async function startGatewayProcess(options: GatewayProcessOptions): Promise<GatewayProcess> {
  // The test worker's environment points the SDK at the test run's stores and names its providers;
  // the runtime starts its own queues and demo provider unless told otherwise, and shares the run's
  // DynamoDB Local unless asked for its own (ownStore).
  const { AWS_ENDPOINT_URL_DYNAMODB: runStore, AWS_ENDPOINT_URL_SQS: _sqs, GATEWAY_PROVIDERS: _providers, GATEWAY_RECONCILE_AFTER_S: _reconcile, ...inherited } = process.env;
  const store: Record<string, string> = options.ownStore || runStore === undefined ? {} : { AWS_ENDPOINT_URL_DYNAMODB: runStore };
  const launch = options.nodeArgs ? [...options.nodeArgs, '--import', 'tsx'] : [TSX_CLI];
  const child = spawn(process.execPath, [...launch, 'infra/local/main.ts'], {
    cwd: ROOT,
    env: { ...inherited, ...store, PORT: '0', GATEWAY_DATA_DIR: options.dataDir, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolveExit) => child.once('exit', (code) => resolveExit(code)));

  const timeoutMs = options.timeoutMs ?? 60_000;
  await new Promise<void>((resolveReady, rejectReady) => {
    const timer = setTimeout(() => {
      child.kill('SIGTERM');
      rejectReady(new Error(`The runtime did not start within ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    const check = () => {
      if (output.includes(READY_LINE)) {
        clearTimeout(timer);
        resolveReady();
      }
    };
    child.stdout.on('data', check);
    void exited.then((code) => {
      clearTimeout(timer);
      rejectReady(new Error(`The runtime exited with ${code} before it was ready:\n${output}`));
    });
  });

  return {
    pid: child.pid!,
    baseUrl: printed(output, 'Base URL'),
    apiKey: printed(output, 'Demo API key'),
    callbackSecret: printed(output, 'Callback secret'),
    demoProviderUrl: /^\s*Demo provider\s+(http\S+)$/m.exec(output)?.[1],
    owner: { email: printed(output, 'Owner e-mail'), password: printed(output, 'Owner password'), totpKey: printed(output, 'Owner TOTP key') },
    output: () => output,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return exited;
      // To the runtime itself, as a terminal's Ctrl+C reaches it: tsx's launcher relays a signal but
      // SIGKILLs its child when the child does not acknowledge within 30 ms, as a busy machine may not.
      const runtime = await readRunningStack(options.dataDir);
      if (runtime) process.kill(runtime.pid, 'SIGTERM');
      else child.kill('SIGTERM');
      return exited;
    },
    crash: async () => {
      const runtime = await readRunningStack(options.dataDir);
      if (runtime) process.kill(runtime.pid, 'SIGKILL');
      // The launcher exits with its child; if it somehow does not, it goes the same way.
      const launcherGone = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(launcherGone);
    },
  };
}

/** Ids of DynamoDB Local processes persisting under `dataDir`, from `ps`. */
export function dynamoDbLocalProcesses(dataDir: string): number[] {
  const table = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
  return table
    .split('\n')
    .filter((line) => line.includes('DynamoDBLocal.jar') && line.includes(`-dbPath ${resolve(dataDir)}/`))
    .map((line) => Number.parseInt(line.trim(), 10));
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  text: string;
  body: any;
}

/** A JSON request to the runtime with its demo key, as a merchant's client sends it. */
export async function callApi(
  gateway: Pick<GatewayProcess, 'baseUrl' | 'apiKey'>,
  method: 'GET' | 'POST' | 'PATCH',
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<ApiResponse> {
  const response = await fetch(`${gateway.baseUrl}${path}`, {
    method,
    headers: { 'x-api-key': gateway.apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, body: JSON.parse(text) };
}

/**
 * Money for the demo merchant's payouts, as a merchant of the demo gets it: an invoice (`invoice`
 * names its currency, amount and method), paid by a simulated deposit of `amount`.
 */
export async function simulateFunds(gateway: Pick<GatewayProcess, 'baseUrl' | 'apiKey'>, invoice: Record<string, unknown>, amount: string): Promise<void> {
  const created = await callApi(gateway, 'POST', '/api/v2/invoices', { orderId: `funds-${randomUUID()}`, customerId: 'funds', ...invoice });
  if (created.status !== 200) throw new Error(`The invoice for funds was refused: ${created.text}`);
  const paid = await callApi(gateway, 'POST', '/api/v2/simulate/deposit', { invoiceId: created.body.data.id, amount });
  if (paid.status !== 200) throw new Error(`The deposit of funds was refused: ${paid.text}`);
}
