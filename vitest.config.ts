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
    // Tests that stop and start the database or Redis server run alone, after the rest.
    sequence: { concurrent: false },
  },
});
