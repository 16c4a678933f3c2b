/**
 * The demo provider as `npm start` runs it (docs/operations.md#payment-providers): its own process (`demo-provider/main.ts`),
 * on a free loopback port, with its own database in DynamoDB Local (an access key id of its own)
 * and a secret shared with the gateway, both kept under the data directory. Its standard input is a
 * pipe from this process, so it ends when this one does, however this one ends.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { demoProviderRoute, isProviderSecret } from '../../shared/domain/providers/index.js';
import { readOrCreateSecretFile } from '../../shared/vault/secret-files.js';
import { localCredentials } from './environment.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const READY_LINE = /^Demo provider listening on (http:\/\/127\.0\.0\.1:\d+)$/m;
const START_TIMEOUT_MS = 30_000;

export interface DemoProviderProcess {
  child: ChildProcessWithoutNullStreams;
  url: string;
  /** What it printed, standard output and standard error apart. */
  stdout(): string;
  stderr(): string;
  /** Resolves to the exit code once the process has exited. */
  exited: Promise<number | null>;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

/**
 * Starts it with `env` on top of this process's environment, less its AWS settings (it needs none
 * of the gateway's); resolves once it serves. `onLine` hears each line it writes to standard error.
 */
export async function startDemoProviderProcess(env: Record<string, string>, options: { timeoutMs?: number; onLine?: (line: string) => void } = {}): Promise<DemoProviderProcess> {
  const { timeoutMs = START_TIMEOUT_MS, onLine } = options;
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('AWS_')));
  // Under tsx's loader in this one process, not under its launcher: the launcher kills a child
  // that is slow to acknowledge a relayed signal, which a busy machine turns a clean stop into.
  const child = spawn(process.execPath, ['--import', 'tsx', 'demo-provider/main.ts'], {
    cwd: ROOT,
    // PORT 0: a free port, never the gateway's own.
    env: { ...inherited, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', PORT: '0', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  let partial = '';
  child.stderr.on('data', (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    stderr += text;
    const lines = (partial + text).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) if (line.trim() !== '') onLine?.(line);
  });
  const exited = new Promise<number | null>((resolveExit) => child.once('exit', (code) => resolveExit(code)));

  const url = await new Promise<string>((resolveReady, rejectReady) => {
    const timer = setTimeout(() => {
      child.kill('SIGTERM');
      rejectReady(new Error(`The demo provider did not start within ${timeoutMs} ms:\n${stdout}${stderr}`));
    }, timeoutMs);
    child.stdout.on('data', () => {
      const ready = READY_LINE.exec(stdout);
      if (ready) {
        clearTimeout(timer);
        resolveReady(ready[1]!);
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      rejectReady(new Error(`The demo provider exited with ${code} before it was ready:\n${stdout}${stderr}`));
    });
  });

  return {
    child,
    url,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

/** Where the demo provider keeps its state under the gateway's data directory. */
export const demoProviderDir = (dataDir: string): string => join(dataDir, 'demo-provider');

/** The secret the gateway and its demo provider share: made once (0600), kept in the data directory. */
export async function demoProviderSecret(dataDir: string): Promise<string> {
  const file = join(dataDir, 'keys', 'demo-provider-secret');
  const secret = (await readOrCreateSecretFile(file, () => `whsec_${randomBytes(32).toString('base64')}\n`)).toString('utf8').trim();
  if (!isProviderSecret(secret)) throw new Error(`${file} does not hold a provider secret`);
  return secret;
}

/** `GATEWAY_PROVIDERS` for a stage served by the demo provider at `url` alone. */
export const demoProviderConfig = (url: string, secret: string, limits: Parameters<typeof demoProviderRoute>[0] = {}): string => JSON.stringify([{ ...demoProviderRoute(limits), url, secret }]);

/**
 * The demo provider of a local gateway: its process, on the stores the gateway started, with its
 * secret and its own database under `dataDir`; and the `GATEWAY_PROVIDERS` that names it.
 */
export async function startLocalDemoProvider(options: {
  dataDir: string;
  dynamodbEndpoint: string;
  delaySeconds: number;
  limits: Parameters<typeof demoProviderRoute>[0];
  onLine?: (line: string) => void;
}): Promise<{ process: DemoProviderProcess; providers: string }> {
  const secret = await demoProviderSecret(options.dataDir);
  // Its own access key id: DynamoDB Local keeps it a database apart from the gateway's.
  const { accessKeyId } = await localCredentials(demoProviderDir(options.dataDir));
  const started = await startDemoProviderProcess(
    {
      DEMO_PROVIDER_SECRET: secret,
      DEMO_PROVIDER_DYNAMODB_ENDPOINT: options.dynamodbEndpoint,
      DEMO_PROVIDER_DYNAMODB_ACCESS_KEY_ID: accessKeyId,
      GATEWAY_PROVIDER_DELAY_S: String(options.delaySeconds),
    },
    { onLine: options.onLine },
  );
  return { process: started, providers: demoProviderConfig(started.url, secret, options.limits) };
}
