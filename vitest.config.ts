import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { LogFileReporter } from './test/support/log-file-reporter.js';
import { LongestFirst } from './test/support/longest-first.js';

/** Everything the last run printed, test by test (gitignored). */
const TEST_LOG_FILE = fileURLToPath(new URL('.test-logs/last-run.log', import.meta.url));

/**
 * What a project whose tests reach real stores and processes adds: one DynamoDB Local, one local
 * SQS and the demo provider for the whole run (shared by every such project, however many run), and
 * the functions' environment in every worker. Its files share a worker's libraries: the SDKs, zod
 * and viem load once per worker rather than once per file (the integration files took 305 CPU-s
 * instead of 357). Each file still starts from the worker's environment with modules of its own
 * (fresh-modules.ts).
 */
const withServices = {
  globalSetup: ['test/support/global-setup.ts'],
  isolate: false,
  setupFiles: ['test/support/fresh-modules.ts', 'test/support/handler-env.ts'],
};

export default defineConfig({
  test: {
    testTimeout: 60_000,
    // Most files wait on DynamoDB Local, queues, browsers, chain nodes, TOTP steps and child
    // processes rather than compute: three at a time even on two cores, which keeps both busy (the
    // suite took 543 s here with three and 574 s with four, the CPU then full).
    maxWorkers: Math.max(3, availableParallelism() - 1),
    sequence: { sequencer: LongestFirst },
    hookTimeout: 120_000,
    // The SDK warns once per worker that its Node 20 support ends; the Lambdas run on Node 22.
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    // Every project's workers send what they write to stdout and stderr through the console.
    setupFiles: ['test/support/output-capture.ts'],
    // The terminal shows the failures, each with what it logged, and the summary; what passing tests
    // log, the faults they cause on purpose included, goes to the log file only.
    reporters: ['minimal', new LogFileReporter(TEST_LOG_FILE)],
    silent: 'passed-only',
    // `vitest run --project unit` is the fast tier: pure rules and services over in-memory ports,
    // no store, queue or process started. The others start the run's services (withServices).
    projects: [
      {
        extends: true,
        // Its files share a worker's modules (no fresh import of the SDKs, zod and viem per file):
        // about 30 s instead of 2 minutes on a busy two-core machine. What a file mocks with vi.mock
        // stays its own; a unit test keeps no state in a module between files.
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'], isolate: false },
      },
      { extends: true, test: { name: 'integration', include: ['test/integration/**/*.test.ts'], ...withServices } },
      { extends: true, test: { name: 'e2e', include: ['test/e2e/**/*.test.ts'], ...withServices } },
      {
        extends: true,
        // Shared modules here too: a worker synthesizes each stage the files read once
        // (test/support/stage-view.ts), not once per file, and loads the CDK library once.
        test: { name: 'infra', include: ['test/infra/**/*.test.ts'], isolate: false },
      },
    ],
  },
});
