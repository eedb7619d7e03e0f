/**
 * Loads a database driver on demand, so `pg` is loaded only by the PostgreSQL backend and
 * `ioredis` only by the Redis backend. Both are optional peer dependencies.
 */
import { createRequire } from 'node:module';
import { ConfigError } from './errors.js';

const requireFromHere = createRequire(import.meta.url);

export function loadDriver<T>(name: 'pg' | 'ioredis'): T {
  try {
    return requireFromHere(name) as T;
  } catch (err) {
    throw new ConfigError(
      `The ${name === 'pg' ? 'postgres' : 'redis'} backend needs the \`${name}\` package: npm install ${name}`,
      {
        cause: err,
      },
    );
  }
}
