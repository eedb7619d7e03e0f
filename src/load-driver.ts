/**
 * Loads a database driver on demand, so `pg` is loaded only by the PostgreSQL backend and
 * `ioredis` only by the Redis backend. Both are optional peer dependencies.
 */
import { createRequire } from 'node:module';
import { ConfigError } from './errors.js';

const requireFromHere = createRequire(import.meta.url);

/** The module each driver name loads. */
interface Drivers {
  pg: typeof import('pg');
  ioredis: typeof import('ioredis');
}

export function loadDriver<N extends keyof Drivers>(name: N): Drivers[N] {
  try {
    return requireFromHere(name) as Drivers[N];
  } catch (err) {
    throw new ConfigError(
      `The ${name === 'pg' ? 'postgres' : 'redis'} backend needs the \`${name}\` package: npm install ${name}`,
      {
        cause: err,
      },
    );
  }
}
