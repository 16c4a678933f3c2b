/**
 * The README's five-minute tour, run as a reader runs it: its shell blocks in order, in one bash
 * session, against the local runtime started as `npm start` starts it (on a free port, with a free
 * port for the tour's callback receiver). Each block must succeed and print one JSON envelope with
 * `success: true` (or nothing), containing what the README shows after it.
 */
import { spawn, type ChildProcess, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFile, mkdtemp, rm } from 'node:fs/promises';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';
import { mismatch, tourSteps, type TourStep } from '../support/readme-tour.js';
import { eventually } from '../support/wait.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TOUR_HEADING = '## A five-minute tour';
const README_BASE_URL = 'http://localhost:3000';
const README_RECEIVER_PORT = '4000';
const README_API_KEY = 'gw_demo_…';
/** How long a block may take; a read whose answer is not yet what the README shows is asked again for this long. */
const BLOCK_TIMEOUT_MS = 15_000;

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

const accepting = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

/** One bash session: blocks run one after another, sharing variables and functions, as in a terminal. */
class Shell {
  private readonly bash: ChildProcessWithoutNullStreams;
  private stdout = '';
  private stderr = '';
  private exited: number | null | undefined;

  constructor(cwd: string) {
    this.bash = spawn('bash', ['--noprofile', '--norc'], { cwd, env: { ...process.env, HOME: process.env.HOME ?? cwd } });
    this.bash.stdout.on('data', (chunk: Buffer) => (this.stdout += chunk.toString('utf8')));
    this.bash.stderr.on('data', (chunk: Buffer) => (this.stderr += chunk.toString('utf8')));
    this.bash.on('exit', (code) => (this.exited = code));
    // Any failing command, in a pipeline too, ends the session: the block's test fails with its stderr.
    this.bash.stdin.write('set -eo pipefail\n');
  }

  /** Runs `script`; resolves to what it printed, or rejects with bash's stderr if a command failed. */
  async run(script: string): Promise<string> {
    const marker = `__block_${randomUUID()}__`;
    const from = this.stdout.length;
    this.stderr = '';
    this.bash.stdin.write(`${script}\nprintf '\\n%s\\n' '${marker}'\n`);
    const output = await eventually(
      () => {
        if (this.exited !== undefined) throw new Error(`bash exited with ${this.exited}: ${this.stderr}`);
        const end = this.stdout.indexOf(`\n${marker}\n`, from);
        return end < 0 ? undefined : { text: this.stdout.slice(from, end) };
      },
      { timeoutMs: BLOCK_TIMEOUT_MS, intervalMs: 20, what: `the block to finish (stderr: ${this.stderr})` },
    ).catch((error: unknown) => {
      throw new Error(`${error instanceof Error ? error.message : String(error)}\n--- block ---\n${script}\n--- stderr ---\n${this.stderr}`);
    });
    return output.text;
  }

  close(): void {
    this.bash.stdin.end('exit\n');
  }
}

let dataDir: string;
let gateway: GatewayProcess;
let receiverPort: number;
let steps: TourStep[];
let shell: Shell;
const background: ChildProcess[] = [];
const backgroundOutput: string[] = [];

/** The README's text with this run's base URL, receiver port and key in place of the README's. */
const localized = (text: string): string =>
  text
    .replaceAll(README_BASE_URL, gateway.baseUrl)
    .replace(new RegExp(`\\b${README_RECEIVER_PORT}\\b`, 'g'), String(receiverPort))
    .replaceAll(README_API_KEY, gateway.apiKey);

const localizedJson = (value: unknown): unknown => JSON.parse(localized(JSON.stringify(value)));

/** A block that only reads (no body, no other method than GET) may be asked again while the gateway catches up. */
const readsOnly = (shell: string): boolean => /\bcurl\b/.test(shell) && !/(^|\s)(-d|--data\S*|-X)\s/.test(shell);

beforeAll(async () => {
  steps = tourSteps(await readFile(join(ROOT, 'README.md'), 'utf8'), TOUR_HEADING);
  dataDir = await mkdtemp(join(tmpdir(), 'gateway-readme-'));
  // As the README's reader runs it, its own DynamoDB Local included.
  [gateway, receiverPort] = await Promise.all([startGatewayProcess({ dataDir, ownStore: true }), freePort()]);
  shell = new Shell(ROOT);
});

afterAll(async () => {
  shell?.close();
  for (const child of background) {
    // Each was started in a process group of its own: the group goes, whatever bash started in it.
    if (child.pid === undefined || child.exitCode !== null) continue;
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      // Gone already.
    }
  }
  await gateway?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

describe('the README tour', () => {
  it('has shell blocks, a second-terminal receiver and the answers it shows', () => {
    expect(steps.length).toBeGreaterThanOrEqual(6);
    expect(steps.filter((step) => step.background)).toHaveLength(1);
    expect(steps.filter((step) => step.expected !== undefined).length).toBeGreaterThanOrEqual(5);
  });

  it('runs block by block, each answer what the README shows', async () => {
    for (const step of steps) {
      const script = localized(step.shell);
      if (step.background) {
        const child = spawn('bash', ['-c', script], { cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
        child.stdout!.on('data', (chunk: Buffer) => backgroundOutput.push(chunk.toString('utf8')));
        child.stderr!.on('data', (chunk: Buffer) => backgroundOutput.push(chunk.toString('utf8')));
        background.push(child);
        await eventually(() => accepting(receiverPort), { what: 'the tour receiver to listen', timeoutMs: BLOCK_TIMEOUT_MS });
        continue;
      }
      const expected = step.expected === undefined ? undefined : localizedJson(step.expected);
      const attempt = async (): Promise<string | undefined> => {
        const output = (await shell.run(script)).trim();
        if (output === '') return expected === undefined ? undefined : 'the block printed nothing';
        let answer: unknown;
        try {
          answer = JSON.parse(output);
        } catch {
          return `the block printed something other than one JSON document:\n${output}`;
        }
        if ((answer as { success?: unknown }).success !== true) return `the answer is not a success:\n${output}`;
        const problem = expected === undefined ? undefined : mismatch(expected, answer);
        return problem && `${problem}\n${output}`;
      };
      let problem = await attempt();
      if (problem !== undefined && readsOnly(script)) {
        // A read that runs ahead of the gateway (a callback still on its way) is asked again, as a reader would.
        await eventually(async () => (problem = await attempt()) === undefined, { timeoutMs: BLOCK_TIMEOUT_MS, intervalMs: 250, what: 'the answer the README shows' }).catch(() => undefined);
      }
      expect(problem, `--- block ---\n${script}`).toBeUndefined();
    }
  });

  it('delivered the callback to the receiver, as the README says it prints it', async () => {
    const transactionId = (await shell.run('echo "$TRANSACTION_ID"')).trim();
    expect(transactionId).toMatch(/^[0-9a-f-]{36}$/);
    const line = await eventually(
      () =>
        backgroundOutput
          .join('')
          .split('\n')
          .find((text) => text.startsWith(`${transactionId}:confirmed `)),
      {
        what: "the callback in the receiver's output",
      },
    );
    expect(JSON.parse(line.slice(line.indexOf(' ') + 1))).toMatchObject({ id: transactionId, status: 'confirmed', callbackType: 'transaction' });
  });
});
