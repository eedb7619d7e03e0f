import { defineConfig } from 'vitest/config';

/**
 * The restart tests (test/restart) stop and start the PostgreSQL and Redis servers, so they run
 * alone, one file at a time, after the main suite: `npm test` runs the main suite with
 * `--exclude 'test/restart/**'`, then this configuration.
 */
export default defineConfig({
  test: {
    include: ['test/restart/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    fileParallelism: false,
    // Read by test/restart/support.ts: any other run skips these tests.
    env: { QUEUEDEV_RESTART_TESTS: '1' },
  },
});
