import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    // Server restarts run alone, after the rest (vitest.restart.config.ts).
    // Packages installed under test/ (the init fixture) ship test files of their own.
    exclude: ['test/restart/**', '**/node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Serves the local Redis Cluster of the redis-cluster target, started on first use.
    globalSetup: ['test/helpers/redis-cluster-setup.ts'],
    // Tests that stop and start the database or Redis server run alone, after the rest.
    sequence: { concurrent: false },
  },
});
