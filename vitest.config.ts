import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    // Most files wait on DynamoDB Local, queues, browsers and child processes rather than compute:
    // two at a time even on two cores (vitest would run one), about 8 minutes instead of 11.5.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    hookTimeout: 120_000,
    // One DynamoDB Local and one local SQS for the whole run; the functions' environment in every worker.
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/handler-env.ts'],
  },
});
