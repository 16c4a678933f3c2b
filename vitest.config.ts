import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // One DynamoDB Local and one local SQS for the whole run; the functions' environment in every worker.
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/handler-env.ts'],
  },
});
