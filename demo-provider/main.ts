/**
 * The demo provider as a process of its own on one machine (`tsx demo-provider/main.ts`): it
 * prints `Demo provider listening on http://127.0.0.1:{port}` once it serves, and nothing else on
 * standard output; it stops on SIGINT or SIGTERM, and when the process that started it ends.
 */
import { fstatSync } from 'node:fs';
import type { LocalDemoProvider } from './adapters/local-server.js';
import type { LocalSettings } from './config.js';

// Set before the SDK loads: it warns that Node 20 support ends; in AWS the functions run on Node 22.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const [{ parseLocalSettings }, { startLocalDemoProvider }] = await Promise.all([import('./config.js'), import('./adapters/local-server.js')]);

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

let settings: LocalSettings;
try {
  settings = parseLocalSettings(process.env);
} catch (error) {
  console.error(messageOf(error));
  process.exit(2);
}

const starting = startLocalDemoProvider(settings);
let stopRequested = false;

async function stop(): Promise<void> {
  if (stopRequested) return;
  stopRequested = true;
  let provider: LocalDemoProvider;
  try {
    provider = await starting;
  } catch {
    return; // The start failure is reported below, and it exits.
  }
  await provider.stop();
  process.exit(0);
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void stop());

/**
 * Standard input as a pipe from the process that started it (as infra/chain/exit-with-parent.cjs
 * has the Hardhat node do): the kernel closes it when that process ends, however it ends, and the
 * provider stops with it. A terminal or /dev/null is no parent's pipe, and is left alone.
 */
function isPipe(fd: number): boolean {
  try {
    const stat = fstatSync(fd);
    return stat.isFIFO() || stat.isSocket();
  } catch {
    return false; // Closed.
  }
}
if (isPipe(0)) {
  process.stdin.on('end', () => void stop());
  process.stdin.on('error', () => void stop());
  process.stdin.resume();
}

starting.then(
  (provider) => {
    if (!stopRequested) console.log(`Demo provider listening on ${provider.url}`);
  },
  (error: unknown) => {
    console.error(`Could not start the demo provider: ${messageOf(error)}`);
    process.exit(1);
  },
);
