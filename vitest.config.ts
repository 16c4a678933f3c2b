import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { LogFileReporter } from './test/support/log-file-reporter.js';

/** Everything the last run printed, test by test (gitignored). */
const TEST_LOG_FILE = fileURLToPath(new URL('.test-logs/last-run.log', import.meta.url));

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    // Most files wait on DynamoDB Local, queues, browsers, chain nodes and child processes rather
    // than compute: two at a time even on two cores (vitest would run one), about 8 minutes instead
    // of 11.5. Three were faster still (about 7) but starved the shared queue server under the
    // route fuzz, and timing tests of the queue poller failed.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    hookTimeout: 120_000,
    // One DynamoDB Local and one local SQS for the whole run; the functions' environment in every worker.
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/handler-env.ts', 'test/support/output-capture.ts'],
    // The terminal shows the failures, each with what it logged, and the summary; what passing tests
    // log, the faults they cause on purpose included, goes to the log file only.
    reporters: ['minimal', new LogFileReporter(TEST_LOG_FILE)],
    silent: 'passed-only',
  },
});
