import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
/** The repository: the app imports queuedev from its source there. */
const root = join(here, '../../../..');

/** @type {import('next').NextConfig} */
export default {
  outputFileTracingRoot: root,
  // The repository's own `npm run typecheck` checks these files; the build only compiles them.
  typescript: { ignoreBuildErrors: true },
  webpack: (config) => {
    // queuedev's source imports its TypeScript modules as './x.js', as Node.js ESM requires.
    config.resolve.extensionAlias = { '.js': ['.ts', '.js'] };
    // Its drivers (pg, ioredis) load with createRequire at run time, from the repository's
    // node_modules: leave that call to Node.js instead of bundling a require context.
    config.module.parser = {
      ...config.module.parser,
      javascript: { ...config.module.parser?.javascript, createRequire: false },
    };
    return config;
  },
};
