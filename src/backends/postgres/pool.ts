import type { ClientConfig, Pool, PoolConfig } from 'pg';
import { resolveDatabaseConfig, type ResolvedPostgresConfig } from '../../config.js';
import type { DatabaseConfig, PostgresPool } from '../../types.js';
import { loadDriver } from '../../load-driver.js';

type ResolvedDatabaseConfig = NonNullable<ResolvedPostgresConfig['databaseConfig']>;

/**
 * Creates a pg.Pool from the queue's database settings (SSL `file://` values are read).
 * The caller owns the returned pool and closes it with `pool.end()`.
 */
export function createPool(databaseConfig: DatabaseConfig): PostgresPool {
  return createPoolFromResolved(resolveDatabaseConfig('databaseConfig', databaseConfig));
}

/** pg connection settings of a resolved `databaseConfig` (TLS material already loaded). */
export function clientConfigOf(resolved: ResolvedDatabaseConfig): ClientConfig {
  const { ssl, ...rest } = resolved;
  return { ...rest, ssl: ssl ?? undefined };
}

/** @internal A pool from an already validated `databaseConfig`. */
export function createPoolFromResolved(resolved: ResolvedDatabaseConfig, extra: PoolConfig = {}): Pool {
  const pg = loadDriver('pg');
  return new pg.Pool({ ...clientConfigOf(resolved), ...extra });
}

/** The pool of a queue, whether the library owns it, and the settings of its connections. */
export interface Driver {
  pool: Pool;
  ownsPool: boolean;
  /** Settings for a connection outside the pool (the wake-up listener). */
  clientConfig: () => ClientConfig;
}

/** @internal The queue's pool: the caller's `pool`, or one built from `databaseConfig`. */
export function openDriver(config: ResolvedPostgresConfig): Driver {
  if (config.pool) {
    const pool = config.pool;
    // pg.Pool keeps the settings it was created with; the wake-up connection reuses them.
    return {
      pool,
      ownsPool: false,
      clientConfig: () => ({ ...(pool as unknown as { options: ClientConfig }).options }),
    };
  }
  const resolved = config.databaseConfig!;
  // JIT compilation costs tens to hundreds of milliseconds, far more than any statement of
  // the queue; on large tables the planner's estimates can still cross jit_above_cost. Never
  // JIT on the library's own connections: a startup option, so no extra query per connection.
  const pool = createPoolFromResolved(resolved, { options: '-c jit=off' });
  // An idle connection dropped by the server must not crash the process; the pool replaces it.
  pool.on('error', (err) => {
    if (config.verbose) console.log(`[queuedev] idle connection error: ${err.message}`);
  });
  return { pool, ownsPool: true, clientConfig: () => clientConfigOf(resolved) };
}
