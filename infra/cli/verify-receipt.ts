/** Entry point of `npm run verify-receipt`; see receipt-verifier.ts for what it checks. */
import { runVerifyReceipt } from './receipt-verifier.js';

process.exitCode = await runVerifyReceipt(process.argv.slice(2), {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
});
