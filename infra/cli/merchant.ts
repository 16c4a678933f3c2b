/** Entry point of `npm run merchant`; see merchant-cli.ts for the commands. */
import type { CliIo } from './merchant-cli.js';

// Set before the SDK loads: it warns that Node 20 support ends, which says nothing about this command.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const { runMerchantCli } = await import('./merchant-cli.js');

const io: CliIo = {
  env: process.env,
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
};
process.exitCode = await runMerchantCli(process.argv.slice(2), io);
