/**
 * What the local chain tooling costs the tests and a person: how long the Hardhat node takes to
 * answer, how long solc-js takes to compile the test token, how fast transfers and blocks go,
 * and how much memory the node holds before and after that work.
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { compileTestToken, startLocalChain, type LocalChain, type Transfer } from '../infra/chain/local-chain.js';
import { median } from './cold-imports.js';

export const DESCRIPTION = 'local chain: node start, token compile, transfers, blocks and memory of the Hardhat node';

const BATCH = 20;

/** The process's resident memory in MiB, from /proc (Linux). */
async function residentMiB(pid: number): Promise<string> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const kib = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1];
  return kib === undefined ? 'n/a' : (Number(kib) / 1024).toFixed(0);
}

async function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const start = performance.now();
  const result = await work();
  return [result, performance.now() - start];
}

export async function localChainBenchmark(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, strict: true, options: { runs: { type: 'string', default: '3' }, transfers: { type: 'string', default: '200' } } });
  const runs = Number(values.runs);
  const transfers = Number(values.transfers);
  if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs must be an integer of at least 1');
  if (!Number.isInteger(transfers) || transfers < BATCH) throw new Error(`--transfers must be an integer of at least ${BATCH}`);

  // Alone, before any node runs: the compiler loads and compiles in this process.
  const [, compileMs] = await timed(compileTestToken);
  console.log(`solc-js compile of test-token.sol (loading the compiler included): ${compileMs.toFixed(0)} ms`);

  const starts: number[] = [];
  const stops: number[] = [];
  for (let run = 0; run < runs; run++) {
    const [chain, startMs] = await timed(() => startLocalChain());
    starts.push(startMs);
    console.log(`start ${run + 1}: ${startMs.toFixed(0)} ms to answer JSON-RPC, node resident ${await residentMiB(chain.pid)} MiB`);
    if (run === runs - 1) await workload(chain, transfers);
    stops.push((await timed(() => chain.stop()))[1]);
  }
  console.log(`node start: median ${median(starts).toFixed(0)} ms, fastest ${Math.min(...starts).toFixed(0)} ms; stop: median ${median(stops).toFixed(0)} ms`);
}

async function workload(chain: LocalChain, count: number): Promise<void> {
  const [token, deployMs] = await timed(() => chain.deployToken({ symbol: 'USDT', decimals: 6, supply: '1000000000' }));
  console.log(`deploy token: ${deployMs.toFixed(0)} ms`);
  const to = chain.accounts[1]!;

  const singles: number[] = [];
  for (let i = 0; i < count; i++) {
    const transfer: Transfer = i % 2 === 0 ? { to, amount: '0.001' } : { token, to, amount: '1.5' };
    singles.push((await timed(() => ('token' in transfer ? chain.sendToken(transfer) : chain.sendNative(transfer))))[1]);
  }
  console.log(`${count} transfers, one block each: median ${median(singles).toFixed(1)} ms, slowest ${Math.max(...singles).toFixed(1)} ms`);

  const batch = Array.from({ length: BATCH }, (_, i): Transfer => (i % 2 === 0 ? { to, amount: '0.001' } : { token, to, amount: '1.5' }));
  const [, batchesMs] = await timed(async () => {
    for (let sent = 0; sent < count; sent += BATCH) await chain.sendMany(batch);
  });
  console.log(`${count} transfers, ${BATCH} a block: ${((count / batchesMs) * 1000).toFixed(0)} transfers/s`);

  const [, mineMs] = await timed(() => chain.mine(10_000));
  console.log(`mine 10000 empty blocks: ${mineMs.toFixed(0)} ms; head ${await chain.headNumber()}`);
  console.log(`node resident after the work: ${await residentMiB(chain.pid)} MiB`);
}
