/**
 * Runs a native program (argv after this file) as its own child and stops it when this process's
 * standard input ends: that input is a pipe from the process that started us, which the kernel
 * closes when that process ends however it ends, so no node outlives its owner (as
 * exit-with-parent.cjs does for the Hardhat node, which is a Node process of its own).
 */
const { spawn } = require('node:child_process');

const [program, ...args] = process.argv.slice(2);
const child = spawn(program, args, { stdio: ['ignore', 'inherit', 'inherit'] });
const stop = () => {
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
};
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
child.on('error', (error) => {
  console.error(`Could not run ${program}: ${error.message}`);
  process.exit(127);
});
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.stdin.on('end', stop);
process.stdin.on('error', stop);
process.stdin.resume();
