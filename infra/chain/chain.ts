/** Entry point of `npm run chain`; see chain-cli.ts for the commands. */
import { runChainCli, type ChainCliIo } from './chain-cli.js';

const io: ChainCliIo = {
  env: process.env,
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  // The handlers stay: a Ctrl-C reaches this process more than once (from the terminal, and
  // relayed by npm and tsx), and a second one must not cut the stopping short.
  untilStopped: () =>
    new Promise((resolve) => {
      for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, resolve);
    }),
};
process.exitCode = await runChainCli(process.argv.slice(2), io);
