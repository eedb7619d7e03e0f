import { defineConfig } from 'tsup';

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    'dashboard/index': 'src/dashboard/index.ts',
    'cli/index': 'src/cli/index.ts',
  },
  format: ['esm', 'cjs'],
  // Declarations for the two import paths only: the CLI is a command, not an API.
  dts: { entry: { index: 'src/index.ts', 'dashboard/index': 'src/dashboard/index.ts' } },
  sourcemap: true,
  clean: true,
  shims: true,
  // Shared chunks in both formats, so `queuedev` and `queuedev/dashboard` share one copy of
  // the error classes (instanceof works across the two entry points).
  splitting: true,
  target: 'node20',
  external: ['pg', 'ioredis', '@electric-sql/pglite', '@opentelemetry/api'],
});
