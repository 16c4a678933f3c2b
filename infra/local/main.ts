/** `npm start`: the whole gateway on this machine until SIGINT or SIGTERM (docs/operations.md#local-configuration). */
import type { LocalSettings } from './environment.js';
import type { LocalGateway } from './runtime.js';

// Everything the gateway and the Java it starts write under the data directory (the store with
// sealed secrets, the vault's key, receipts, credentials) is for this user alone: 0600 files, 0700 directories.
process.umask(0o077);
// Set before the SDK loads: it warns that Node 20 support ends; the functions run on Node 22 in AWS.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
// Before the runtime's modules load, which takes seconds on a busy machine; the runtime then says what it starts.
console.log('Starting the payment gateway locally (demo stage)');
const [{ parseLocalSettings }, { startLocalGateway }] = await Promise.all([import('./environment.js'), import('./runtime.js')]);

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

function printBanner(gateway: LocalGateway): void {
  const { baseUrl, demoMerchant, demoOwner } = gateway;
  const rows: Array<[string, string]> = [
    ['Base URL', baseUrl],
    ['Demo API key', demoMerchant.apiKey],
    ['Callback secret', demoMerchant.callbackSecret],
    ['Callback URL', demoMerchant.callbackUrl ?? 'none (no callbacks sent)'],
    ['Demo provider', gateway.demoProviderUrl ?? 'none (GATEWAY_PROVIDERS names the providers)'],
    ['Dashboard', `${baseUrl}/dashboard`],
    ['Owner e-mail', demoOwner.email],
    ['Owner password', demoOwner.password],
    // Demo only (docs/operations.md#local-configuration): add it to an authenticator app, or compute codes with `oathtool --totp -b`.
    ['Owner TOTP key', demoOwner.totpSecret],
    ['Docs', `${baseUrl}/docs`],
    ['OpenAPI', `${baseUrl}/api/v2/openapi.json`],
    ['Data directory', gateway.dataDir],
    // Funded by `npm run chain -- node` (docs/operations.md#the-treasury).
    ['Treasury (EVM)', gateway.treasury.evm],
    ['Treasury (Tron)', gateway.treasury.tron],
    ['Treasury (BTC)', gateway.treasury.bitcoin],
  ];
  console.log('Payment gateway running locally (demo stage)');
  for (const [label, value] of rows) console.log(`  ${label.padEnd(16)} ${value}`);
  console.log('Press Ctrl+C to stop.');
}

let settings: LocalSettings;
try {
  settings = parseLocalSettings(process.env);
} catch (error) {
  console.error(messageOf(error));
  process.exit(2);
}

const starting = startLocalGateway(settings);
let stopRequested = false;

async function stop(signal: NodeJS.Signals): Promise<void> {
  if (stopRequested) return;
  stopRequested = true;
  console.log(`${signal}: stopping`);
  let gateway: LocalGateway;
  try {
    gateway = await starting;
  } catch {
    return; // The start failure is reported below, and it exits.
  }
  await gateway.stop();
  console.log('Stopped');
  process.exit(0);
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, (received) => void stop(received));

starting.then(
  (gateway) => {
    if (!stopRequested) printBanner(gateway);
  },
  (error: unknown) => {
    console.error(`Could not start the local gateway: ${messageOf(error)}`);
    process.exit(1);
  },
);
