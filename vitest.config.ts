import { availableParallelism } from 'node:os';
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
    // Test files spend most of their time waiting on the stores, on timers and on child processes,
    // so one file more than the cores keeps the machine busy: on 2 cores, three files at a time ran
    // the suite in 672 and 746 s, where two took 900 s and more (vitest's default, one fewer than
    // the cores, runs one).
    maxWorkers: availableParallelism() + 1,
    // Serves the local Redis Cluster of the redis-cluster target, started on first use.
    globalSetup: ['test/helpers/redis-cluster-setup.ts'],
    // Tests that stop and start the database or Redis server run alone, after the rest.
    sequence: { concurrent: false },
  },
});
