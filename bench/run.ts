/**
 * `npm run bench -- [name] [options]`: runs one benchmark by name, or every benchmark in turn.
 * Each benchmark prints its figures; none asserts on them.
 *
 *   npm run bench                                         every benchmark, default options
 *   npm run bench -- create-invoices --count 200 --concurrency 20
 *   npm run bench -- cold-imports --runs 7 --only authorize-merchant,create-invoice
 *   npm run bench -- page-weight
 *   npm run bench -- dashboard-overview --transactions 100000 --runs 50
 *   npm run bench -- local-chain --runs 3 --transfers 200
 *   npm run bench -- chain-watcher --deposits 100 --empty-blocks 400
 *   npm run bench -- chains --blocks 300 --evm-blocks 50 --tron-transactions 300 --deposits 100 --runs 3
 *   npm run bench -- chain-scale --blocks 120 --customers 100000 --samples 24 --block-ms 1000
 *   npm run bench -- list-pages --invoices 60
 *   npm run bench -- goals --seconds 4 --deposits 60 --due 100 --samples 100
 *   npm run bench -- runtime-profile --concurrency 10 --seconds 10 --top 12
 *   npm run bench -- providers --payments 40 --events 200 --concurrency 10
 *   npm run bench -- books --deposits 200 --concurrency 1,8,32 --merchants 32 --samples 5
 *   npm run bench -- jobs --entries 1000000 --merchants 1 --changes 1000
 *   npm run bench -- receipts --receipts 2000
 *   npm run bench -- payouts --payouts 20 --concurrency 4 --networks ethereum,tron,bitcoin --block-ms 250 --poll-ms 100 --confirm-payouts 3
 */

// Set before the SDK loads: it warns that Node 20 support ends, which says nothing about a benchmark.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

export {};

interface Benchmark {
  description: string;
  /** Options after the benchmark's name; resolves once everything it started has stopped. */
  run(args: string[]): Promise<void>;
}

const BENCHMARKS: Record<string, () => Promise<Benchmark>> = {
  'create-invoices': async () => {
    const { createInvoicesBenchmark, DESCRIPTION } = await import('./create-invoices.js');
    return { description: DESCRIPTION, run: createInvoicesBenchmark };
  },
  'cold-imports': async () => {
    const { coldImportsBenchmark, DESCRIPTION } = await import('./cold-imports.js');
    return { description: DESCRIPTION, run: coldImportsBenchmark };
  },
  'dashboard-overview': async () => {
    const { dashboardOverviewBenchmark, DESCRIPTION } = await import('./dashboard-overview.js');
    return { description: DESCRIPTION, run: dashboardOverviewBenchmark };
  },
  'page-weight': async () => {
    const { pageWeightBenchmark, DESCRIPTION } = await import('./page-weight.js');
    return { description: DESCRIPTION, run: pageWeightBenchmark };
  },
  'chain-watcher': async () => {
    const { chainWatcherBenchmark, DESCRIPTION } = await import('./chain-watcher.js');
    return { description: DESCRIPTION, run: chainWatcherBenchmark };
  },
  'chain-scale': async () => {
    const { chainScaleBenchmark, DESCRIPTION } = await import('./chain-scale.js');
    return { description: DESCRIPTION, run: chainScaleBenchmark };
  },
  chains: async () => {
    const { chainsBenchmark, DESCRIPTION } = await import('./chains.js');
    return { description: DESCRIPTION, run: chainsBenchmark };
  },
  goals: async () => {
    const { goalsBenchmark, DESCRIPTION } = await import('./goals.js');
    return { description: DESCRIPTION, run: goalsBenchmark };
  },
  'local-chain': async () => {
    const { localChainBenchmark, DESCRIPTION } = await import('./local-chain.js');
    return { description: DESCRIPTION, run: localChainBenchmark };
  },
  'runtime-profile': async () => {
    const { runtimeProfileBenchmark, DESCRIPTION } = await import('./runtime-profile.js');
    return { description: DESCRIPTION, run: runtimeProfileBenchmark };
  },
  'list-pages': async () => {
    const { listPagesBenchmark, DESCRIPTION } = await import('./list-pages.js');
    return { description: DESCRIPTION, run: listPagesBenchmark };
  },
  providers: async () => {
    const { providersBenchmark, DESCRIPTION } = await import('./providers.js');
    return { description: DESCRIPTION, run: providersBenchmark };
  },
  books: async () => {
    const { booksBenchmark, DESCRIPTION } = await import('./books.js');
    return { description: DESCRIPTION, run: booksBenchmark };
  },
  jobs: async () => {
    const { jobsBenchmark, DESCRIPTION } = await import('./jobs.js');
    return { description: DESCRIPTION, run: jobsBenchmark };
  },
  payouts: async () => {
    const { payoutsBenchmark, DESCRIPTION } = await import('./payouts.js');
    return { description: DESCRIPTION, run: payoutsBenchmark };
  },
  receipts: async () => {
    const { receiptsBenchmark, DESCRIPTION } = await import('./receipts.js');
    return { description: DESCRIPTION, run: receiptsBenchmark };
  },
};

function usage(): string {
  return ['Usage: npm run bench -- [name] [options]', '', 'Benchmarks:', ...Object.keys(BENCHMARKS).map((name) => `  ${name}`), '', 'Without a name, every benchmark runs with the options given.'].join(
    '\n',
  );
}

const [first, ...rest] = process.argv.slice(2);
if (first === '--help' || first === '-h') {
  console.log(usage());
  process.exit(0);
}
const named = first !== undefined && !first.startsWith('-');
if (named && !Object.hasOwn(BENCHMARKS, first)) {
  console.error(`Unknown benchmark ${first}\n\n${usage()}`);
  process.exit(2);
}
const names = named ? [first] : Object.keys(BENCHMARKS);
const args = named ? rest : process.argv.slice(2);

try {
  for (const name of names) {
    const benchmark = await BENCHMARKS[name]!();
    console.log(`== ${name}: ${benchmark.description}`);
    await benchmark.run(args);
  }
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
}
