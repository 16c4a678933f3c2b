/**
 * The dashboard's overview of a merchant with many transactions: the local runtime (`npm start`
 * in a temporary data directory), the demo merchant given `--transactions` confirmed deposits
 * (100,000 by default) written straight into its table and its day totals counted from them as
 * the operator's recount does, then the overview fetched over HTTP `--runs` times by its signed-in
 * owner: the time of each against the 300 ms goal, and the chart's total against the deposits'.
 * The overview reads the day totals and the balances, never the transactions: its time should not
 * grow with them.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { localTarget } from '../infra/cli/targets.js';
import { localDynamoClient } from '../infra/local/dynamodb.js';
import { localCredentials } from '../infra/local/environment.js';
import { readRunningStack } from '../infra/local/runtime-info.js';
import { chartDays } from '../shared/dashboard/volume-chart.js';
import { signInOwner } from '../test/support/dashboard-session.js';
import { startGatewayProcess, type GatewayProcess } from '../test/support/gateway-process.js';
import { seedTransactions } from '../test/support/seed-transactions.js';
import { positiveOption } from './options.js';

export const DESCRIPTION = "the overview's time for a merchant with 100,000 transactions, against 300 ms";

const GOAL_MS = 300;
const DAY_MS = 86_400_000;

const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

export async function dashboardOverviewBenchmark(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, strict: true, options: { transactions: { type: 'string', default: '100000' }, runs: { type: 'string', default: '50' } } });
  const options = { transactions: positiveOption('transactions', values.transactions, true), runs: positiveOption('runs', values.runs, true) };
  const dataDir = await mkdtemp(join(tmpdir(), 'gateway-bench-'));
  let gateway: GatewayProcess | undefined;
  try {
    console.log(`Starting the local runtime in ${dataDir} ...`);
    gateway = await startGatewayProcess({ dataDir, timeoutMs: 120_000 });
    const stack = await readRunningStack(dataDir);
    if (!stack) throw new Error('The runtime wrote no runtime.json');
    const dynamo = localDynamoClient(stack.dynamodbEndpoint, await localCredentials(dataDir));
    const { merchantId } = JSON.parse(await readFile(join(dataDir, 'demo-merchant.json'), 'utf8')) as { merchantId: string };
    const started = Date.now();
    // Spread over the chart's days, newest last, so that every bar has some.
    const seeded = await seedTransactions(
      DynamoDBDocumentClient.from(dynamo),
      stack.tables.transactions,
      merchantId,
      options.transactions,
      new Date(Date.now() - 29 * DAY_MS),
      Math.floor((29 * DAY_MS) / options.transactions / 1000) || 1,
    );
    console.log(`Wrote ${options.transactions.toLocaleString('en')} confirmed deposits of the demo merchant in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
    const target = await localTarget(dataDir);
    try {
      const counting = Date.now();
      await target.dailyTotals().recount(merchantId, chartDays(new Date()));
      console.log(`Counted its day totals from them (the operator's recount) in ${((Date.now() - counting) / 1000).toFixed(1)} s.`);
    } finally {
      target.close();
    }

    const cookie = await signInOwner(gateway);
    const url = `${gateway.baseUrl}/dashboard/overview`;
    let page = '';
    const times: number[] = [];
    for (let run = 0; run < options.runs + 1; run++) {
      const start = performance.now();
      const answer = await fetch(url, { headers: { cookie } });
      page = await answer.text();
      if (answer.status !== 200) throw new Error(`The overview answered ${answer.status}`);
      // The first warms the functions' modules and connections.
      if (run > 0) times.push(performance.now() - start);
    }
    times.sort((a, b) => a - b);
    const charted = /<desc id="chart-try-description">([^<]*)<\/desc>/.exec(page)?.[1] ?? 'no TRY chart';
    console.log(
      `Overview over HTTP, ${options.runs} requests after one to warm up: p50 ${percentile(times, 50).toFixed(1)} ms, p95 ${percentile(times, 95).toFixed(1)} ms, max ${times.at(-1)!.toFixed(1)} ms (goal: under ${GOAL_MS} ms).`,
    );
    console.log(`Chart: "${charted}"; the deposits come to ${seeded.total.toFixed(2)} TRY.`);
    dynamo.destroy();
  } finally {
    if (gateway) console.log(`Runtime stopped (exit code ${await gateway.stop()}).`);
    await rm(dataDir, { recursive: true, force: true });
  }
}
