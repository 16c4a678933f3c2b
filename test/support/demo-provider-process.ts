/**
 * The demo provider's local process as the gateway's `npm start` runs it: `tsx demo-provider/main.ts`
 * as a child, its standard input a pipe from this process, watched through its output.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TSX_CLI = resolve(ROOT, 'node_modules/tsx/dist/cli.mjs');
const READY_LINE = /^Demo provider listening on (http:\/\/127\.0\.0\.1:\d+)$/m;

export interface DemoProviderProcess {
  child: ChildProcessWithoutNullStreams;
  url: string;
  stdout(): string;
  stderr(): string;
  /** Resolves to the exit code once the process has exited. */
  exited: Promise<number | null>;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

/** Starts it with `env` on top of this process's environment less its AWS settings (it must need none); resolves once it is ready. */
export async function startDemoProviderProcess(env: Record<string, string>, timeoutMs = 30_000): Promise<DemoProviderProcess> {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('AWS_')));
  const child = spawn(process.execPath, [TSX_CLI, 'demo-provider/main.ts'], {
    cwd: ROOT,
    env: { ...inherited, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
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
