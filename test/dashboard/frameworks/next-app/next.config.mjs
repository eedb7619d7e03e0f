import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
/** The repository: node_modules/queuedev is built from it, and resolves its dependencies there. */
const root = join(here, '../../../..');

/** @type {import('next').NextConfig} */
export default {
  // As docs/dashboard.md says: queuedev loads its store driver (pg, ioredis) when a queue is
  // created, which a bundler cannot follow; left to Node.js, the driver is found.
  serverExternalPackages: ['queuedev'],
  outputFileTracingRoot: root,
  // The repository's own `npm run typecheck` checks these files; the build only compiles them.
  typescript: { ignoreBuildErrors: true },
  webpack: (config) => {
    // The echo probe (../echo.ts) is compiled from the repository's TypeScript source, which
    // imports its modules as './x.js', as Node.js ESM requires.
    config.resolve.extensionAlias = { '.js': ['.ts', '.js'] };
    return config;
  },
};
