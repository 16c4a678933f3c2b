/**
 * Preloaded into the Hardhat node (`node --require`). Its standard input is a pipe from the
 * process that started it, which the kernel closes when that process ends, however it ends
 * (SIGKILL, a crashed test worker): the node then exits too, so no chain outlives its owner.
 */
const exit = () => process.exit(0);
process.stdin.on('end', exit);
process.stdin.on('error', exit);
process.stdin.resume();
