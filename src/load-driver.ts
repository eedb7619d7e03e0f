/**
 * Loads a database driver on demand, so `pg` is loaded only by the PostgreSQL backend,
 * `ioredis` only by the Redis backend and `@electric-sql/pglite` only when a queue asks for it;
 * and `@opentelemetry/api` for the `telemetry` option, only where it is installed. All four are
 * optional peer dependencies.
 */
import { createRequire } from 'node:module';
import { ConfigError } from './errors.js';

const requireFromHere = createRequire(import.meta.url);

/** The module each driver name loads. */
interface Drivers {
  pg: typeof import('pg');
  ioredis: typeof import('ioredis');
  '@electric-sql/pglite': typeof import('@electric-sql/pglite');
  '@opentelemetry/api': typeof import('@opentelemetry/api');
}

/** What needs each driver, for the message when it is missing. */
const NEEDED_BY: Record<keyof Drivers, string> = {
  pg: 'The postgres backend',
  ioredis: 'The redis backend',
  '@electric-sql/pglite': 'The `pglite` option (an embedded PostgreSQL)',
  '@opentelemetry/api': 'The `telemetry` option',
};

export function loadDriver<N extends keyof Drivers>(name: N): Drivers[N] {
  try {
    return requireFromHere(name) as Drivers[N];
  } catch (err) {
    throw new ConfigError(`${NEEDED_BY[name]} needs the \`${name}\` package: npm install ${name}`, {
      cause: err,
    });
  }
}

/** Loads `name` when it is installed; undefined when it is not (a package the library can do without). */
export function loadDriverIfInstalled<N extends keyof Drivers>(name: N): Drivers[N] | undefined {
  try {
    return requireFromHere(name) as Drivers[N];
  } catch (err) {
    if ((err as { code?: unknown }).code === 'MODULE_NOT_FOUND') return undefined;
    throw new ConfigError(`\`${name}\` is installed but could not be loaded: ${(err as Error).message}`, {
      cause: err,
    });
  }
}
